#include "ramus/precompute/cloth/cloth_contact_constraints.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ramus/precompute/contact/coulomb_impulse.h"

namespace ramus {

ClothContactConstraints::ClothContactConstraints(std::vector<ClothCollider> colliders,
                                                 int num_particles)
    : colliders_(std::move(colliders)), let_go_(static_cast<std::size_t>(num_particles), 0) {
  active_.reserve(static_cast<std::size_t>(num_particles));
}

void ClothContactConstraints::detect(const Eigen::VectorXd& x, const Eigen::VectorXd& v,
                                     const Eigen::Vector3d& gravity, double time, double h,
                                     const std::vector<double>& free,
                                     const Eigen::VectorXd& diagonal) {
  active_.clear();
  const Eigen::Index n = x.size() / 3;
  for (Eigen::Index p = 0; p < n; ++p) {
    const bool was_let_go = let_go_[static_cast<std::size_t>(p)] != 0;
    let_go_[static_cast<std::size_t>(p)] = 0;
    if (free[static_cast<std::size_t>(p)] <= 0) continue;
    const Eigen::Vector3d at = x.segment<3>(3 * p);
    const Eigen::Vector3d predicted = at + h * v.segment<3>(3 * p) + h * h * gravity;
    // The collider the particle is deepest in (or nearest), if it is held at all.
    int chosen = -1;
    LevelSetSample held;
    for (std::size_t c = 0; c < colliders_.size(); ++c) {
      const LevelSetSample now = sample_level_set(colliders_[c].collider, at, time);
      const bool near = now.value <= colliders_[c].delta && !was_let_go;
      if (!near && sample_level_set(colliders_[c].collider, predicted, time + h).value >= 0)
        continue;
      if (chosen < 0 || now.value < held.value) {
        chosen = static_cast<int>(c);
        held = now;
      }
    }
    if (chosen < 0) continue;
    // Its normal (a grid's gradient is not of unit length), the collider's velocity there.
    const double length = held.gradient.norm();
    if (!(length > 0)) continue;
    ParticleConstraint constraint;
    constraint.particle = static_cast<int>(p);
    constraint.collider = chosen;
    constraint.normal = held.gradient / length;
    constraint.phi = held.value / length;
    constraint.collider_velocity =
        colliders_[static_cast<std::size_t>(chosen)].collider.motion.velocity_at(at, time);
    constraint.scale = diagonal.segment<3>(3 * p).mean();
    constraint.step = h;
    constraint.touching = held.value <= colliders_[static_cast<std::size_t>(chosen)].delta;
    active_.push_back(constraint);
  }
}

void ClothContactConstraints::filter(Eigen::VectorXd& p) const {
  for (const ParticleConstraint& c : active_) {
    auto row = p.segment<3>(3 * c.particle);
    row -= c.normal.dot(row) * c.normal;
  }
}

void ClothContactConstraints::filter_rows(const Eigen::VectorXd& p, Eigen::VectorXd& out) const {
  for (const ParticleConstraint& c : active_) {
    auto row = out.segment<3>(3 * c.particle);
    row += (c.scale * c.normal.dot(p.segment<3>(3 * c.particle)) - c.normal.dot(row)) * c.normal;
  }
}

void ClothContactConstraints::prescribed_velocity_change(const Eigen::VectorXd& v,
                                                         Eigen::VectorXd& z) const {
  z.setZero(v.size());
  for (const ParticleConstraint& c : active_)
    z.segment<3>(3 * c.particle) =
        (c.normal.dot(c.collider_velocity - v.segment<3>(3 * c.particle)) - c.closing_speed()) *
        c.normal;
}

int ClothContactConstraints::release_pulling(const Eigen::VectorXd& residual) {
  // An impulse below zero along the outward normal holds the particle down: let it go.
  const std::size_t before = active_.size();
  active_.erase(std::remove_if(active_.begin(), active_.end(),
                               [&](const ParticleConstraint& c) {
                                 const bool pulls =
                                     c.normal.dot(residual.segment<3>(3 * c.particle)) < 0;
                                 if (pulls) let_go_[static_cast<std::size_t>(c.particle)] = 1;
                                 return pulls;
                               }),
                active_.end());
  return static_cast<int>(before - active_.size());
}

double ClothContactConstraints::apply_friction(const Eigen::VectorXd& residual, double mass,
                                               Eigen::VectorXd& v) const {
  double taken = 0;
  for (const ParticleConstraint& c : active_) {
    const double mu = colliders_[static_cast<std::size_t>(c.collider)].friction;
    const double impulse = c.normal.dot(residual.segment<3>(3 * c.particle));
    if (mu <= 0 || impulse <= 0) continue;
    taken += apply_coulomb_impulse(v.segment<3>(3 * c.particle), c.normal, c.collider_velocity,
                                   mu * impulse / mass, mass);
  }
  return taken;
}

void ClothContactConstraints::particle_freedoms(const std::vector<double>& free,
                                                std::vector<ParticleFreedom>& freedoms) const {
  freedoms.assign(free.size(), ParticleFreedom{});
  for (std::size_t p = 0; p < free.size(); ++p) freedoms[p].free = free[p];
  for (const ParticleConstraint& c : active_)
    if (c.touching) freedoms[static_cast<std::size_t>(c.particle)].free = 0;
}

void ClothContactConstraints::keep_out(Eigen::VectorXd& v) const {
  for (const ParticleConstraint& c : active_) {
    auto velocity = v.segment<3>(3 * c.particle);
    const double short_of = c.normal.dot(velocity - c.collider_velocity) + c.closing_speed();
    if (short_of < 0) velocity -= short_of * c.normal;
  }
}

void ClothContactConstraints::correct_positions(Eigen::VectorXd& x) const {
  for (const ParticleConstraint& c : active_)
    if (c.phi < 0) x.segment<3>(3 * c.particle) -= c.phi * c.normal;
}

double ClothContactConstraints::smallest_distance(const Eigen::VectorXd& x, double time) const {
  double smallest = std::numeric_limits<double>::infinity();
  for (const ClothCollider& collider : colliders_)
    for (Eigen::Index p = 0; p < x.size() / 3; ++p)
      smallest =
          std::min(smallest, sample_level_set(collider.collider, x.segment<3>(3 * p), time).value);
  return smallest;
}

}  // namespace ramus
