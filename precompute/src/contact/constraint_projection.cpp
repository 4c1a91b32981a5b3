#include "ramus/precompute/contact/constraint_projection.h"

#include <cmath>

namespace ramus {

namespace {

// A projected vertex's phi is zero to round-off; within this it is touching (m).
constexpr double kTouching = 1e-9;

}  // namespace

ConstraintProjection::ConstraintProjection(const std::vector<ColliderContact>& colliders,
                                           int num_vertices)
    : active_(static_cast<std::size_t>(num_vertices), -1) {
  for (std::size_t c = 0; c < colliders.size(); ++c)
    if (colliders[c].model == ContactModel::kConstraint)
      constrained_.push_back(static_cast<int>(c));
}

int ConstraintProjection::projecting_collider(const std::vector<ColliderContact>& colliders,
                                              double time, const Eigen::Vector3d& x, int v) const {
  if (const int active = active_[static_cast<std::size_t>(v)]; active >= 0) return active;
  int deepest = -1;
  double deepest_phi = 0;
  for (int c : constrained_) {
    const double phi =
        sample_level_set(colliders[static_cast<std::size_t>(c)].collider, x, time).value;
    if (phi < deepest_phi) {
      deepest_phi = phi;
      deepest = c;
    }
  }
  return deepest;
}

bool ConstraintProjection::projecting_sample(const std::vector<ColliderContact>& colliders,
                                             double time, const Eigen::Vector3d& x, int v,
                                             LevelSetSample& sample) const {
  const int c = projecting_collider(colliders, time, x, v);
  if (c < 0) return false;
  sample = sample_level_set(colliders[static_cast<std::size_t>(c)].collider, x, time);
  return true;
}

void ConstraintProjection::project(const std::vector<ColliderContact>& colliders, double time,
                                   Eigen::VectorXd& x) const {
  if (empty()) return;
  for (int v = 0; v < static_cast<int>(active_.size()); ++v) {
    LevelSetSample s;
    if (!projecting_sample(colliders, time, x.segment<3>(3 * v), v, s)) continue;
    x.segment<3>(3 * v) -= s.value * s.gradient;
  }
}

void ConstraintProjection::update_active(const std::vector<ColliderContact>& colliders, double time,
                                         const Eigen::VectorXd& x,
                                         const Eigen::VectorXd& unconstrained_gradient) {
  for (int v = 0; v < static_cast<int>(active_.size()); ++v) {
    int& active = active_[static_cast<std::size_t>(v)];
    active = -1;
    for (int c : constrained_) {
      const LevelSetSample s = sample_level_set(colliders[static_cast<std::size_t>(c)].collider,
                                                x.segment<3>(3 * v), time);
      if (std::abs(s.value) <= kTouching &&
          unconstrained_gradient.segment<3>(3 * v).dot(s.gradient) >= 0) {
        active = c;
        break;
      }
    }
  }
}

void ConstraintProjection::pull_back_gradient(const std::vector<ColliderContact>& colliders,
                                              double time, const Eigen::VectorXd& x,
                                              Eigen::VectorXd& gradient) const {
  if (empty()) return;
  for (int v = 0; v < static_cast<int>(active_.size()); ++v) {
    // J = I - n nᵀ - phi H_phi (symmetric), at the unprojected x.
    LevelSetSample s;
    if (!projecting_sample(colliders, time, x.segment<3>(3 * v), v, s)) continue;
    const Eigen::Vector3d g = gradient.segment<3>(3 * v);
    gradient.segment<3>(3 * v) = g - s.gradient * s.gradient.dot(g) - s.value * (s.hessian * g);
  }
}

double ConstraintProjection::largest_shallow_step(const std::vector<ColliderContact>& colliders,
                                                  double time, const Eigen::VectorXd& x,
                                                  const Eigen::VectorXd& dx,
                                                  double alpha_max) const {
  double alpha_shallow = alpha_max;
  for (int v = 0; v < static_cast<int>(active_.size()); ++v) {
    if (active_[static_cast<std::size_t>(v)] >= 0) continue;
    const double speed = dx.segment<3>(3 * v).norm();
    if (speed == 0) continue;
    for (int c : constrained_) {
      const ColliderContact& collider = colliders[static_cast<std::size_t>(c)];
      const auto depth_margin = [&](double alpha) {
        return sample_level_set(collider.collider,
                                x.segment<3>(3 * v) + alpha * dx.segment<3>(3 * v), time)
                   .value +
               collider.delta;
      };
      if (depth_margin(0) > alpha_shallow * speed) continue;  // cannot get that deep
      double alpha = 0;
      for (int k = 0; k < 64 && alpha < alpha_shallow; ++k) {
        const double advance = depth_margin(alpha) / speed;
        if (advance <= 1e-12 * alpha_max) break;
        alpha += advance;
      }
      alpha_shallow = std::min(alpha_shallow, alpha);
    }
  }
  return alpha_shallow;
}

std::vector<ConstraintForce> ConstraintProjection::forces(
    const std::vector<ColliderContact>& colliders, double time, const Eigen::VectorXd& x,
    const Eigen::VectorXd& unconstrained_gradient) const {
  std::vector<ConstraintForce> result;
  for (int v = 0; v < static_cast<int>(active_.size()); ++v) {
    const int c = active_[static_cast<std::size_t>(v)];
    if (c < 0) continue;
    const LevelSetSample s = sample_level_set(colliders[static_cast<std::size_t>(c)].collider,
                                              x.segment<3>(3 * v), time);
    const double force = unconstrained_gradient.segment<3>(3 * v).dot(s.gradient);
    if (force > 0) result.push_back({v, c, force});
  }
  return result;
}

}  // namespace ramus
