#include "ramus/precompute/cloth/cloth_contact_constraints.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ramus/precompute/contact/coulomb_impulse.h"

namespace ramus {

ClothContactConstraints::ClothContactConstraints(std::vector<ClothCollider> colliders,
                                                 int num_particles)
    : colliders_(std::move(colliders)),
      let_go_(static_cast<std::size_t>(num_particles), 0),
      held_(static_cast<std::size_t>(num_particles), 0) {
  active_.reserve(static_cast<std::size_t>(num_particles));
}

void ClothContactConstraints::detect(const Eigen::VectorXd& x, double time,
                                     const std::vector<double>& free,
                                     const Eigen::VectorXd& diagonal) {
  active_.clear();
  const Eigen::Index n = x.size() / 3;
  std::fill(held_.begin(), held_.end(), 0);
  for (Eigen::Index p = 0; p < n; ++p) {
    const bool was_let_go = let_go_[static_cast<std::size_t>(p)] != 0;
    let_go_[static_cast<std::size_t>(p)] = 0;
    if (free[static_cast<std::size_t>(p)] <= 0 || was_let_go) continue;
    const Eigen::Vector3d at = x.segment<3>(3 * p);
    // The collider the particle is deepest in, if it is within one's delta at all.
    int chosen = -1;
    LevelSetSample held;
    for (std::size_t c = 0; c < colliders_.size(); ++c) {
      const LevelSetSample now = sample_level_set(colliders_[c].collider, at, time);
      if (now.value > colliders_[c].delta) continue;
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
    active_.push_back(constraint);
    held_[static_cast<std::size_t>(p)] = 1;
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
        c.normal.dot(c.collider_velocity - v.segment<3>(3 * c.particle)) * c.normal;
}

int ClothContactConstraints::release_pulling(const Eigen::VectorXd& residual, double noise) {
  // An impulse below -noise along the outward normal holds the particle down: let it go.
  const std::size_t before = active_.size();
  active_.erase(std::remove_if(active_.begin(), active_.end(),
                               [&](const ParticleConstraint& c) {
                                 const bool pulls =
                                     c.normal.dot(residual.segment<3>(3 * c.particle)) < -noise;
                                 if (pulls) {
                                   let_go_[static_cast<std::size_t>(c.particle)] = 1;
                                   held_[static_cast<std::size_t>(c.particle)] = 0;
                                 }
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

void ClothContactConstraints::movable_particles(const std::vector<double>& free,
                                                std::vector<double>& movable) const {
  movable = free;
  for (const ParticleConstraint& c : active_) movable[static_cast<std::size_t>(c.particle)] = 0;
}

ClothCatchReport ClothContactConstraints::catch_entering(const Eigen::VectorXd& x, double time,
                                                         double h, const std::vector<double>& free,
                                                         double mass, Eigen::VectorXd& v) const {
  ClothCatchReport report;
  for (Eigen::Index p = 0; p < x.size() / 3; ++p) {
    if (held_[static_cast<std::size_t>(p)] || free[static_cast<std::size_t>(p)] <= 0) continue;
    auto velocity = v.segment<3>(3 * p);
    for (const ClothCollider& collider : colliders_) {
      // Where the step ends it: inside, its normal velocity raised to end on the surface.
      const Eigen::Vector3d end = x.segment<3>(3 * p) + h * velocity;
      const LevelSetSample s = sample_level_set(collider.collider, end, time + h);
      const double length = s.gradient.norm();
      if (!(s.value < 0) || !(length > 0)) continue;
      const Eigen::Vector3d normal = s.gradient / length;
      const double change = -s.value / length / h;
      velocity += change * normal;
      ++report.caught;
      if (collider.friction > 0)
        report.friction_work += apply_coulomb_impulse(
            velocity, normal, collider.collider.motion.velocity_at(end, time + h),
            collider.friction * change, mass);
    }
  }
  return report;
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
