#include "subtree_contact.h"

#include <algorithm>

#include "ramus/runtime/contact/contact_response.h"

namespace ramus {

namespace {

constexpr Eigen::Index kMaxProjected = 512;

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
    const int first = s.model->contact_offset[static_cast<std::size_t>(link.descendant)];
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
                 continued_log_barrier(phi, distance).value;
      });
  return total;
}

void SubtreeContact::add_derivatives(const Eigen::Ref<const Eigen::VectorXd>& q,
                                     Eigen::Ref<Eigen::VectorXd> gradient,
                                     Eigen::Ref<Eigen::MatrixXd> hessian) const noexcept {
  const Eigen::Index r = q.size();
  for_each_candidate(
      *this, q,
      [&](const SubtreeContactLink& link, const ContactCandidate& c, const Eigen::Vector3d& x) {
        const StepCollider& col = colliders[c.collider];
        const LevelSetSample phi = collider_level_set(col.collider, col.end, x);
        const ScalarDerivatives b = continued_log_barrier(phi.value, distance);
        if (b.first == 0 && b.second == 0) return;
        const double weight = candidate_weight(*this, link.descendant, c);
        // dx/dq = R â: the gradient âᵀ Rᵀ (w b' ∇phi), the Hessian âᵀ Rᵀ (w b'' ∇phi ∇phiᵀ) R â.
        const Eigen::Vector3d n = rotation.transpose() * phi.gradient;
        const InterfaceBases bases = model->interface_bases_of(link.child);
        // (âᵀ n on the stack: r is at most a few hundred.)
        Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxProjected, 1> projected(
            std::min(r, kMaxProjected));
        for (Eigen::Index a = 0; a < projected.size(); ++a)
          projected(a) = n.dot(centroid_column(bases, a));
        const auto na = [&](Eigen::Index a) {
          return a < projected.size() ? projected(a) : n.dot(centroid_column(bases, a));
        };
        for (Eigen::Index l = 0; l < r; ++l) {
          const double nl = na(l);
          gradient(l) += weight * b.first * nl;
          for (Eigen::Index a = 0; a < r; ++a) hessian(a, l) += weight * b.second * na(a) * nl;
        }
      });
}

}  // namespace ramus
