// Triangle surfaces of the analytic colliders, for drawing them beside a simulation's series
// (ParaView): closed convex shapes by projecting a subdivided cube's directions onto the zero
// level set, the bowl by revolving its wall's outline, a half-space as a square of a given size.
#pragma once

#include <Eigen/Core>

#include "ramus/precompute/contact/level_set_collider.h"

namespace ramus {

/// A collider's surface in its local frame: positions (#P by 3, m) and triangles (#F by 3).
struct ColliderSurface {
  Eigen::MatrixX3d positions;
  Eigen::MatrixX3i triangles;
};

/// The surface of `collider` in its local frame; a half-space is drawn as a square of side
/// `extent` (m) about its origin. `resolution` subdivisions per cube edge or per quarter turn.
ColliderSurface collider_surface(const LevelSetCollider& collider, double extent,
                                 int resolution = 12);

/// The surface placed at the collider's pose at `time` (world positions, #P by 3).
Eigen::MatrixX3d placed_surface(const ColliderSurface& surface, const LevelSetCollider& collider,
                                double time);

}  // namespace ramus
