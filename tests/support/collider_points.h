// Points at a chosen distance from a runtime collider, for contact tests: a random point walked
// along the level set's gradient onto the level set phi = distance.
#pragma once

#include <Eigen/Core>

#include "contact/domain_contact.h"
#include "support/random_models.h"

namespace ramus::test {

/// A point about one metre from `collider`'s origin at a random distance in
/// [0.05, 0.9] `reach` from its surface (m, world).
inline Eigen::Vector3d point_near_collider(const StepCollider& collider, double reach,
                                           Random& random) {
  Eigen::Vector3d x = collider.collider.pose.translation + random.matrix(3, 1, 1.0);
  const double target = reach * random.uniform(0.05, 0.9);
  for (int walk = 0; walk < 50; ++walk) {
    const LevelSetSample phi = collider_level_set(collider.collider, collider.end, x, true);
    x -= (phi.value - target) * phi.gradient;
  }
  return x;
}

}  // namespace ramus::test
