#include "free_root_contact.h"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <cmath>

#include "ramus/runtime/contact/contact_response.h"

namespace ramus {

double FreeRootContactStep::evaluate(const Vector6d& y, Vector6d* gradient,
                                     Matrix6d* hessian) const noexcept {
  // The inertia terms.
  const Vector6d d = y - predicted;
  const Eigen::Vector3d iu = inertia_weight * d.tail<3>();
  double value = 0.5 * mass_weight * d.head<3>().squaredNorm() + 0.5 * d.tail<3>().dot(iu);
  if (gradient) *gradient << mass_weight * d.head<3>(), iu;
  if (hessian) {
    hessian->setZero();
    hessian->topLeftCorner<3, 3>().diagonal().setConstant(mass_weight);
    hessian->bottomRightCorner<3, 3>() = inertia_weight;
  }
  // Every candidate's barrier, its sample carried rigidly.
  for (int i = 0; i < model->num_domains(); ++i) {
    const int count = counts[i];
    if (count == 0) continue;
    const double s = model->domains[static_cast<std::size_t>(i)].scale.length;
    const PartContact& samples = model->part_of(i).contact;
    const ContactCandidate* first = candidates + starts[i];
    for (int n = 0; n < count; ++n) {
      const ContactCandidate& c = first[n];
      const StepCollider& collider = colliders[c.collider];
      const Eigen::Vector3d r = c.start - center;
      const Eigen::Vector3d x = c.start + y.head<3>() + y.tail<3>().cross(r);
      const LevelSetSample phi = collider_level_set(collider.collider, collider.end, x);
      const ScalarDerivatives b = continued_log_barrier(phi.value + c.allowance, distance);
      const double weight = stiffness * s * s * samples.weights(c.sample);
      value += weight * b.value;
      if (!gradient) continue;
      // dx/du = I, dx/dθ = -[r]×: Jᵀ ∇φ = (∇φ, r × ∇φ).
      Vector6d jn;
      jn << phi.gradient, r.cross(phi.gradient);
      *gradient += weight * b.first * jn;
      if (hessian) *hessian += weight * b.second * jn * jn.transpose();
    }
  }
  return value;
}

Vector6d solve_free_root_contact_step(const FreeRootContactStep& step, int iterations) noexcept {
  constexpr double kArmijo = 1e-4, kRoundOff = 1e-13;
  Vector6d y = step.predicted, gradient, direction;
  Matrix6d hessian;
  double value = step.evaluate(y, &gradient, &hessian);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    // The Newton direction (the Hessian is SPD: the inertia plus PSD terms).
    direction = -hessian.llt().solve(gradient);
    const double slope = direction.dot(gradient);
    if (!(slope < 0) || -slope <= kRoundOff * std::abs(value)) break;
    // Armijo backtracking.
    double t = 1;
    double trial = step.evaluate(y + direction, nullptr, nullptr);
    for (int halving = 0; halving < 30 && !(trial <= value + kArmijo * t * slope); ++halving) {
      t *= 0.5;
      trial = step.evaluate(y + t * direction, nullptr, nullptr);
    }
    if (!(trial <= value + kArmijo * t * slope)) break;
    y += t * direction;
    value = step.evaluate(y, &gradient, &hessian);
  }
  return y;
}

}  // namespace ramus
