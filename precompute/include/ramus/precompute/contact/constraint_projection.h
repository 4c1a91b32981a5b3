// Collisions with analytic colliders as constraints phi_b(x_p) >= 0 (optimization paper §5.1,
// solved as in its §3.2): the projection P_bp(x) = x - phi_b(x) grad phi_b(x) onto a collider's
// surface, applied to the vertices whose constraint is violated or active; the active rule
// (touching, and grad E' . grad phi_b >= 0: the unconstrained objective pushes inward); and the
// derivatives of E(x) = E'(P(x)) through P: J = I - n nᵀ - phi H_phi, and at phi = 0 the
// Hessian Jᵀ H' J - n (H_phi g')ᵀ - (H_phi g') nᵀ - (g'.n) H_phi per vertex.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/precompute/contact/contact_potentials.h"

namespace ramus {

/// A vertex's contact with a constraint collider at the end of a solve: the force the collider
/// exerts on it along the outward normal (N, >= 0).
struct ConstraintForce {
  int vertex = -1;
  int collider = -1;  ///< index into the step's colliders
  double force = 0;
};

class ConstraintProjection {
 public:
  ConstraintProjection() = default;
  /// The colliders of model kConstraint among `colliders`, for a mesh of `num_vertices`.
  ConstraintProjection(const std::vector<ColliderContact>& colliders, int num_vertices);

  bool empty() const { return constrained_.empty(); }

  /// Moves every violated (phi < 0) or active vertex of x (3#V) onto its collider's surface at
  /// `time`: the most violated collider of each vertex, or its active one.
  void project(const std::vector<ColliderContact>& colliders, double time,
               Eigen::VectorXd& x) const;
  /// The active set at a projected x: touching vertices whose gradient of E' (3#V) points into
  /// their collider (g'.n >= 0). Kept until the next call.
  void update_active(const std::vector<ColliderContact>& colliders, double time,
                     const Eigen::VectorXd& x, const Eigen::VectorXd& unconstrained_gradient);
  /// The gradient of E(x) = E'(P(x)): `gradient` holds grad E' at P(x) and becomes Jᵀ of it, J
  /// the Jacobian of P at x (3#V, x unprojected).
  void pull_back_gradient(const std::vector<ColliderContact>& colliders, double time,
                          const Eigen::VectorXd& x, Eigen::VectorXd& gradient) const;
  /// Calls block(vertex, J (3 by 3), curvature (3 by 3)) for every active vertex at a projected
  /// x: J = I - n nᵀ and the curvature term -n (H g)ᵀ - (H g) nᵀ - (g.n) H, g its grad E'.
  template <typename Block>
  void for_each_active(const std::vector<ColliderContact>& colliders, double time,
                       const Eigen::VectorXd& x, const Eigen::VectorXd& unconstrained_gradient,
                       Block&& block) const;
  /// The largest alpha <= alpha_max for which no inactive vertex of x + alpha dx (3#V each) goes
  /// deeper than its collider's delta into it: a line search never flattens a deep layer of
  /// vertices onto a surface at once (conservative advancement; phi is a distance).
  double largest_shallow_step(const std::vector<ColliderContact>& colliders, double time,
                              const Eigen::VectorXd& x, const Eigen::VectorXd& dx,
                              double alpha_max) const;
  /// The forces of the active constraints at a projected x with grad E' (3#V): g'.n each.
  std::vector<ConstraintForce> forces(const std::vector<ColliderContact>& colliders, double time,
                                      const Eigen::VectorXd& x,
                                      const Eigen::VectorXd& unconstrained_gradient) const;

 private:
  std::vector<int> constrained_;  // the kConstraint colliders' indices
  std::vector<int> active_;       // per vertex: its active collider, or -1
  /// The collider that projects vertex v at x: its active one, else its most violated; -1: none.
  int projecting_collider(const std::vector<ColliderContact>& colliders, double time,
                          const Eigen::Vector3d& x, int v) const;
  /// That collider's level set at x into `sample`; false when no collider projects v.
  bool projecting_sample(const std::vector<ColliderContact>& colliders, double time,
                         const Eigen::Vector3d& x, int v, LevelSetSample& sample) const;
};

template <typename Block>
void ConstraintProjection::for_each_active(const std::vector<ColliderContact>& colliders,
                                           double time, const Eigen::VectorXd& x,
                                           const Eigen::VectorXd& unconstrained_gradient,
                                           Block&& block) const {
  for (int v = 0; v < static_cast<int>(active_.size()); ++v) {
    if (active_[static_cast<std::size_t>(v)] < 0) continue;
    const LevelSetSample s = sample_level_set(
        colliders[static_cast<std::size_t>(active_[static_cast<std::size_t>(v)])].collider,
        x.segment<3>(3 * v), time);
    const Eigen::Vector3d n = s.gradient, g = unconstrained_gradient.segment<3>(3 * v);
    const Eigen::Vector3d hg = s.hessian * g;
    const Eigen::Matrix3d jacobian = Eigen::Matrix3d::Identity() - n * n.transpose();
    const Eigen::Matrix3d curvature =
        -n * hg.transpose() - hg * n.transpose() - g.dot(n) * s.hessian;
    block(v, jacobian, curvature);
  }
}

}  // namespace ramus
