// Kinematic colliders given by analytic level sets (optimization-integrator paper §5.1: phi < 0
// inside the collider, phi > 0 in the free space), with exact first and second derivatives for
// the Newton solve: half-space, sphere, capsule, box with rounded edges, cylinder with rounded
// edges, and the inside of a bowl (a hemispherical shell with a rounded rim); and grid level sets
// of closed meshes (grid_level_set.h).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "ramus/runtime/contact/level_set_shapes.h"

namespace ramus {

class GridLevelSet;

/// A collider's pose at a time (s), one key of a scripted motion.
struct PoseKeyframe {
  double time = 0;
  RigidPose pose;
};

/// A collider's scripted motion: its pose at t = 0 moved with a constant linear velocity (m/s)
/// and a constant angular velocity (rad/s, world axes, about the collider's origin); or, with
/// two or more keyframes (increasing times), the pose between them interpolated (translation
/// linearly, rotation by slerp: a constant angular velocity per interval) and held before the
/// first and after the last.
struct ColliderMotion {
  RigidPose initial;
  Eigen::Vector3d linear_velocity = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();
  std::vector<PoseKeyframe> keyframes;

  /// The pose at `time` (s).
  RigidPose pose_at(double time) const;
  /// Velocity (m/s) of the collider's material point at world position x at `time`.
  Eigen::Vector3d velocity_at(const Eigen::Vector3d& x, double time) const;
};

/// One kinematic collider: a shape, its sizes (metres, by shape as in ColliderShape) and motion.
struct LevelSetCollider {
  ColliderShape shape = ColliderShape::kHalfSpace;
  Eigen::Vector4d size = Eigen::Vector4d::Zero();
  ColliderMotion motion;
  std::shared_ptr<const GridLevelSet> grid;  ///< kMesh: its level set, in the local frame
};

/// A bound on |grad phi| of the collider: 1 for the analytic shapes (distances), sqrt(3) for a
/// trilinear grid (each component of its gradient is a difference quotient of a distance).
double level_set_lipschitz(const LevelSetCollider& collider);

/// phi of the collider at world point x at `time`, with its derivatives in world axes.
LevelSetSample sample_level_set(const LevelSetCollider& collider, const Eigen::Vector3d& x,
                                double time);

}  // namespace ramus
