// Kinematic colliders given by analytic level sets (optimization-integrator paper §5.1: phi < 0
// inside the collider, phi > 0 in the free space), with exact first and second derivatives for
// the Newton solve: half-space, sphere, capsule, box with rounded edges, cylinder with rounded
// edges, and the inside of a bowl (a hemispherical shell with a rounded rim); and grid level sets
// of closed meshes (grid_level_set.h).
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

namespace ramus {

/// The analytic shapes, each in its own local frame (sizes in LevelSetCollider::size).
enum class ColliderShape {
  kHalfSpace,   ///< z < 0 solid; no sizes
  kSphere,      ///< centred at the origin; {radius}
  kCapsule,     ///< axis along z from -half_length to +half_length; {radius, half_length}
  kRoundedBox,  ///< centred; {half x, half y, half z, edge radius} (radius <= every half size)
  kCylinder,    ///< axis along z; {radius, half_height, edge radius}
  kBowl,        ///< centre at the origin, opening towards +z; {inner radius, wall thickness}
  kMesh,        ///< a closed triangle mesh's grid level set (LevelSetCollider::grid); no sizes
};

class GridLevelSet;

/// phi (m), its gradient (unit length away from the shape's medial set) and Hessian (1/m).
struct LevelSetSample {
  double value = 0;
  Eigen::Vector3d gradient = Eigen::Vector3d::Zero();
  Eigen::Matrix3d hessian = Eigen::Matrix3d::Zero();
};

/// A rigid placement: x_world = rotation * x_local + translation (metres).
struct RigidPose {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
};

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

/// phi of an analytic `shape` at a point p of its local frame, with its derivatives in that frame
/// (kMesh: see sample_level_set).
LevelSetSample sample_local_level_set(ColliderShape shape, const Eigen::Vector4d& size,
                                      const Eigen::Vector3d& p);

/// phi of the collider at world point x at `time`, with its derivatives in world axes.
LevelSetSample sample_level_set(const LevelSetCollider& collider, const Eigen::Vector3d& x,
                                double time);

/// nullptr when the sizes suit the shape (positive, edge radius within the half sizes); otherwise
/// what is wrong, naming the size ("radius must be positive").
const char* collider_size_problem(ColliderShape shape, const Eigen::Vector4d& size);

}  // namespace ramus
