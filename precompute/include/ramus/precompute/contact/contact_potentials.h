// Contact potentials of vertices against level-set colliders, minimized with the elastic energy
// inside the implicit step: the survey's compactly supported log barrier (Eq. 28-30) and the
// optimization paper's cubic object penalty (§5.2), each with its exact gradient and a PSD
// Hessian for Newton.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/precompute/contact/level_set_collider.h"
#include "ramus/runtime/contact/contact_response.h"

namespace ramus {

/// How a collider pushes back.
enum class ContactModel {
  kBarrier,  ///< kappa b(phi; delta): phi never reaches 0
  kPenalty,  ///< k |phi|³ inside the collider
  /// phi >= 0 as a constraint (optimization paper §5.1): no potential; vertices are projected
  /// onto the surface (ConstraintProjection). Analytic shapes only.
  kConstraint,
};

/// A collider with its contact model: barrier stiffness kappa (J/m², per vertex) and activation
/// distance delta (m), or penalty stiffness k (J/m³, per vertex); and its friction coefficient.
struct ColliderContact {
  LevelSetCollider collider;
  ContactModel model = ContactModel::kBarrier;
  double delta = 1e-3;
  double stiffness = 1e4;
  double friction = 0;  ///< Coulomb's mu (dimensionless)
};

/// Every vertex against every collider at `time`: E(x) = sum over vertices v and colliders c of
/// psi_c(phi_c(x_v)), x flat (3#V).
class VertexColliderPotential {
 public:
  VertexColliderPotential() = default;
  explicit VertexColliderPotential(std::vector<ColliderContact> colliders);

  const std::vector<ColliderContact>& colliders() const { return colliders_; }
  std::vector<ColliderContact>& colliders() { return colliders_; }
  bool empty() const { return colliders_.empty(); }
  void set_time(double time) { time_ = time; }

  /// E(x) in J; +inf where a barrier's vertex is at or inside its collider.
  double value(const Eigen::VectorXd& x) const;
  /// Adds dE/dx (3#V) to gradient; returns E.
  double add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) const;
  /// Vertex v's 3 by 3 Hessian block (E is a sum over vertices), projected to PSD when asked.
  Eigen::Matrix3d vertex_hessian(const Eigen::VectorXd& x, int v, bool project_psd) const;
  /// Smallest phi over vertices and colliders at x (m); +inf without colliders.
  double smallest_distance(const Eigen::VectorXd& x) const;
  /// psi_c(phi) of one collider (J, J/m, J/m²); zero for a constraint.
  ScalarDerivatives response(const ColliderContact& c, double phi) const;
  double time() const { return time_; }

 private:
  std::vector<ColliderContact> colliders_;
  double time_ = 0;
};

}  // namespace ramus
