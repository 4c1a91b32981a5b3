// The analytic level sets of kinematic colliders (optimization-integrator paper §5.1: phi < 0
// inside, phi > 0 in the free space), with exact first and second derivatives: half-space,
// sphere, capsule, box and cylinder with rounded edges, and the inside of a bowl. Shared by the
// runtime's contact and the full-space reference (precompute's level_set_collider.h).
#pragma once

#include <Eigen/Core>

namespace ramus {

/// The analytic shapes, each in its own local frame, with their sizes (a Vector4d, by shape).
enum class ColliderShape {
  kHalfSpace,   ///< z < 0 solid; no sizes
  kSphere,      ///< centred at the origin; {radius}
  kCapsule,     ///< axis along z from -half_length to +half_length; {radius, half_length}
  kRoundedBox,  ///< centred; {half x, half y, half z, edge radius} (radius <= every half size)
  kCylinder,    ///< axis along z; {radius, half_height, edge radius}
  kBowl,        ///< centre at the origin, opening towards +z; {inner radius, wall thickness}
  kMesh,        ///< a grid distance field (a closed mesh's, or the game's); no sizes
};

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

/// phi of an analytic `shape` at a point p of its local frame, with its derivatives in that frame
/// (kMesh: see sample_level_set); without `with_hessian` the Hessian may be left zero (the
/// barrier's Gauss-Newton terms and the broad phase need none).
LevelSetSample sample_local_level_set(ColliderShape shape, const Eigen::Vector4d& size,
                                      const Eigen::Vector3d& p, bool with_hessian = true);

/// nullptr when the sizes suit the shape (positive, edge radius within the half sizes); otherwise
/// what is wrong, naming the size ("radius must be positive").
const char* collider_size_problem(ColliderShape shape, const Eigen::Vector4d& size);

}  // namespace ramus
