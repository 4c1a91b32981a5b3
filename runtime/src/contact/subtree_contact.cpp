#include "subtree_contact.h"

#include <algorithm>
#include <cmath>

#include "ramus/runtime/contact/contact_response.h"

namespace ramus {

namespace {

// The world motion of `child`'s interface centroid from the step's start to the parent at q.
Eigen::Vector3d centroid_shift(const SubtreeContact& s, int child,
                               const Eigen::Ref<const Eigen::VectorXd>& q) noexcept {
  const Model& model = *s.model;
  const Domain& c = model.domains[static_cast<std::size_t>(child)];
  Eigen::Vector3d local = c.interface.centroid;
  const InterfaceBases bases = model.interface_bases_of(child);
  for (Eigen::Index l = 0; l < q.size(); ++l) local += q(l) * centroid_column(bases, l);
  return s.origin + s.rotation * local - s.start_origins->col(child);
}

// f(candidate, its sample's position at q) for every candidate of every link.
template <class Visit>
void for_each_candidate(const SubtreeContact& s, const Eigen::Ref<const Eigen::VectorXd>& q,
                        const Visit& visit) noexcept {
  for (int n = 0; n < s.count; ++n) {
    const SubtreeContactLink& link = s.links[n];
    const Eigen::Vector3d shift = centroid_shift(s, link.child, q);
    const int first = s.candidate_starts[link.descendant];
    const int count = s.candidate_counts[link.descendant];
    for (int k = first; k < first + count; ++k)
      visit(link, s.candidates[k], s.candidates[k].start + shift);
  }
}

// kappa a of a candidate of `domain` (m², scaled).
double candidate_weight(const SubtreeContact& s, int domain, const ContactCandidate& c) noexcept {
  const double length = s.model->domains[static_cast<std::size_t>(domain)].scale.length;
  return s.stiffness * length * length * s.model->part_of(domain).contact.weights(c.sample);
}

}  // namespace

double SubtreeContact::energy(const Eigen::Ref<const Eigen::VectorXd>& q) const noexcept {
  double total = 0;
  for_each_candidate(
      *this, q,
      [&](const SubtreeContactLink& link, const ContactCandidate& c, const Eigen::Vector3d& x) {
        const StepCollider& col = colliders[c.collider];
        const double phi = collider_level_set(col.collider, col.end, x).value;
        total += candidate_weight(*this, link.descendant, c) *
                 continued_log_barrier(phi + c.allowance, distance).value;
      });
  return total;
}

double SubtreeContact::add_derivatives(const Eigen::Ref<const Eigen::VectorXd>& q,
                                       Eigen::Ref<Eigen::VectorXd> gradient,
                                       Eigen::Ref<Eigen::MatrixXd> hessian) const noexcept {
  // Every candidate riding on one child moves by the same R â Δq: its force and curvature are
  // summed in world axes (f = Σ w b' ∇phi, S = Σ w b'' ∇phi ∇phiᵀ) and projected once per run of
  // links on that child, âᵀ Rᵀ f and âᵀ (Rᵀ S R) â.
  const Eigen::Index r = q.size();
  Eigen::Vector3d force = Eigen::Vector3d::Zero();
  Eigen::Matrix3d curvature = Eigen::Matrix3d::Zero();
  double total = 0;
  const auto project = [&](int child) {
    if (force.isZero(0) && curvature.isZero(0)) return;
    const InterfaceBases bases = model->interface_bases_of(child);
    const Eigen::Vector3d f = rotation.transpose() * force;
    const Eigen::Matrix3d S = rotation.transpose() * curvature * rotation;
    for (Eigen::Index l = 0; l < r; ++l) {
      const Eigen::Vector3d column = centroid_column(bases, l);
      gradient(l) += f.dot(column);
      const Eigen::Vector3d s_column = S * column;
      for (Eigen::Index a = 0; a < r; ++a) hessian(a, l) += centroid_column(bases, a).dot(s_column);
    }
    force.setZero();
    curvature.setZero();
  };
  for (int n = 0; n < count; ++n) {
    const SubtreeContactLink& link = links[n];
    const Eigen::Vector3d shift = centroid_shift(*this, link.child, q);
    // (A candidate the shift cannot bring within the barrier's reach adds nothing: skipped
    // before its distance is evaluated.)
    const double reach = distance + 2 * shift.norm();
    const int first = candidate_starts[link.descendant];
    for (int k = first; k < first + candidate_counts[link.descendant]; ++k) {
      const ContactCandidate& c = candidates[k];
      if (c.end_distance >= reach) continue;
      const StepCollider& col = colliders[c.collider];
      const LevelSetSample phi = collider_level_set(col.collider, col.end, c.start + shift);
      const ScalarDerivatives b = continued_log_barrier(phi.value + c.allowance, distance);
      if (b.first == 0 && b.second == 0) continue;
      const double weight = candidate_weight(*this, link.descendant, c);
      total += weight * b.value;
      force += (weight * b.first) * phi.gradient;
      curvature += (weight * b.second) * phi.gradient * phi.gradient.transpose();
    }
    if (n + 1 == count || links[n + 1].child != link.child) project(link.child);
  }
  return total;
}

double SubtreeContact::feasible_step(const Eigen::Ref<const Eigen::VectorXd>& q,
                                     const Eigen::Ref<const Eigen::VectorXd>& dq) const noexcept {
  double fraction = 1;
  for (int n = 0; n < count; ++n) {
    const SubtreeContactLink& link = links[n];
    const Eigen::Vector3d shift = centroid_shift(*this, link.child, q);
    // Every candidate on this child moves by the same R â dq.
    const InterfaceBases bases = model->interface_bases_of(link.child);
    Eigen::Vector3d move = Eigen::Vector3d::Zero();
    for (Eigen::Index l = 0; l < dq.size(); ++l) move += dq(l) * centroid_column(bases, l);
    move = rotation * move;
    if (std::sqrt(3.0) * move.norm() <= distance) continue;  // (feasible_fraction's first test)
    const int first = candidate_starts[link.descendant];
    for (int k = first; k < first + candidate_counts[link.descendant]; ++k) {
      const ContactCandidate& c = candidates[k];
      fraction = std::min(
          fraction, feasible_fraction(colliders[c.collider], c.start + shift, move, c.allowance,
                                      distance, c.end_distance - 2 * shift.norm()));
    }
  }
  return fraction;
}

}  // namespace ramus
