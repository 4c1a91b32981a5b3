// The contacts of a domain's descendants in the domain's own solve (runtime internals;
// docs/CONTACT.md "Reduced contact"). A parent moves its children's frames: in Algorithm 1 a
// child's external force reaches the parent only through the subtree sums of the step's start,
// which for a stiff barrier is an explicit spring the parent overshoots (a beam falling onto a
// sphere bounced for ever). Here each descendant's candidates ride rigidly on the interface
// centroid of the parent's child they hang from, x_k(q) = x_k(start) + c(q) - c(start) with
// c(q) = o + R (x̂ + â q) in the parent's frame at t + h, and their barrier joins the parent's
// potential: the parent stops before it drives a leaf into a collider, as the full FEM does.
#pragma once

#include <Eigen/Core>

#include "domain_contact.h"

namespace ramus {

/// One descendant with candidates, and the parent's child it hangs from.
struct SubtreeContactLink {
  int descendant = 0;
  int child = 0;
};

/// What a parent's solve needs of its descendants' contacts this step.
struct SubtreeContact {
  const Model* model = nullptr;
  const SubtreeContactLink* links = nullptr;
  int count = 0;
  const ContactCandidate* candidates = nullptr;     ///< the step's pool
  const int* candidate_counts = nullptr;            ///< per domain: how many
  const int* candidate_starts = nullptr;            ///< per domain: where in the pool
  const Eigen::Matrix3Xd* start_origins = nullptr;  ///< every frame's origin at the step's start
  const StepCollider* colliders = nullptr;
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();  ///< the parent's frame at t + h
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  double stiffness = 0, distance = 0;

  /// Σ over the links' candidates of kappa a b(phi(x_k(q))) (J).
  double energy(const Eigen::Ref<const Eigen::VectorXd>& q) const noexcept;
  /// Adds its gradient to `gradient` and its Gauss-Newton Hessian to `hessian`; returns energy().
  double add_derivatives(const Eigen::Ref<const Eigen::VectorXd>& q,
                         Eigen::Ref<Eigen::VectorXd> gradient,
                         Eigen::Ref<Eigen::MatrixXd> hessian) const noexcept;
  /// The fraction of the move from q by dq no candidate crosses into its collider over
  /// (feasible_fraction; 1 when none would).
  double feasible_step(const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Ref<const Eigen::VectorXd>& dq) const noexcept;
};

}  // namespace ramus
