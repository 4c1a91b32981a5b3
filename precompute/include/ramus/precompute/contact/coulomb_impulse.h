// Coulomb friction as an impulse after a solve (Bridson, Fedkiw and Anderson, "Robust treatment
// of collisions, contact and friction for cloth animation", 2002): a point pressed on a surface
// by the normal impulse λ has its slip against the surface slowed by μ λ / m, to rest at most.
#pragma once

#include <Eigen/Core>
#include <algorithm>

namespace ramus {

/// Slows the slip (the part of velocity - surface_velocity across the unit `normal`, m/s) of a
/// point of `mass` (kg) by at most `change` (m/s: μ λ / m), to rest at most; velocity (a 3-vector
/// expression) is changed in place. Returns the kinetic energy taken (J).
template <class Velocity>
double apply_coulomb_impulse(Velocity&& velocity, const Eigen::Vector3d& normal,
                             const Eigen::Vector3d& surface_velocity, double change, double mass) {
  const Eigen::Vector3d relative = velocity - surface_velocity;
  const Eigen::Vector3d slip = relative - normal.dot(relative) * normal;
  const double speed = slip.norm();
  if (!(speed > 0) || !(change > 0)) return 0;
  const double slowed = std::min(speed, change);
  velocity -= (slowed / speed) * slip;
  return 0.5 * mass * (speed * speed - (speed - slowed) * (speed - slowed));
}

}  // namespace ramus
