// The kinematic colliders a game moves every frame (docs/CONTACT.md, "Reduced contact"), as a
// game developer used to Jolt's or PhysX's kinematic bodies expects them: an analytic shape or a
// grid distance field the game keeps (as Jolt's shapes reference their data), with a pose, a
// linear and an angular velocity and Coulomb's mu, added, moved and removed by id in a set of
// fixed capacity that a State holds (adding, moving and removing never allocate). A step
// carries each collider along its velocities from its pose at the step's start to its pose at
// the end, so a collider the game moves with move_kinematic reaches its target after one step.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/runtime/contact/grid_distance_field.h"
#include "ramus/runtime/contact/level_set_shapes.h"
#include "ramus/runtime/data/runtime_settings.h"

namespace ramus {

/// The most colliders one State holds (its ColliderSet's largest capacity).
constexpr int kMaxColliders = 64;

/// One kinematic collider. Sizes by shape (level_set_shapes.h): a half-space none (its surface is
/// the local z = 0 plane, normal +z), a sphere {radius}, a capsule {radius, half length along
/// local z}, a box {half x, half y, half z, edge radius}, a cylinder {radius, half height, edge
/// radius}, a bowl {inner radius, wall thickness}; a grid (kMesh) none: its `grid` (the game's, or
/// a model file's scenario's).
struct Collider {
  ColliderShape shape = ColliderShape::kHalfSpace;
  Eigen::Vector4d size = Eigen::Vector4d::Zero();              ///< m
  RigidPose pose;                                              ///< at the State's time (m)
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();          ///< of its origin (m/s, world)
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();  ///< about its origin (rad/s, world)
  double friction = 0;                                         ///< Coulomb's mu (>= 0)
  GridDistanceField
      grid;  ///< kMesh: its signed distance in the collider's frame (values not owned)
};

/// nullptr when `collider` can be simulated; otherwise what is wrong ("pose: rotation is not
/// orthonormal", "friction must be finite and >= 0", the sizes' collider_size_problem).
const char* collider_problem(const Collider& collider) noexcept;

/// The pose of a collider carried `seconds` along its velocities (the rotation by the exponential
/// map of angular_velocity * seconds, about its origin).
RigidPose advanced_pose(const Collider& collider, double seconds) noexcept;

/// The kinematic colliders of a model file's stored scenario (/runtime/scenario/colliders), at
/// t = 0; a grid points at `scenario`'s values (valid while it lives). Allocates.
std::vector<Collider> scenario_colliders(const ScenarioSettings& scenario);

/// Outcome of a change of colliders; on anything but kOk nothing changed.
enum class ColliderStatus {
  kOk,
  kInvalid,       ///< collider_problem says why
  kFull,          ///< the set holds its capacity already
  kUnknownId,     ///< no collider has this id
  kStartsInside,  ///< add_collider: a contact sample lies deeper inside than the contact distance
  kWrongModel,    ///< the State was made for another model
};
const char* to_string(ColliderStatus status);

/// Colliders by id (their slot: stable until removed; a removed id is reused by a later add).
class ColliderSet {
 public:
  ColliderSet() = default;
  /// Room for `capacity` colliders (clamped to [0, kMaxColliders]). Allocates.
  explicit ColliderSet(int capacity);

  int capacity() const { return static_cast<int>(slots_.size()); }
  int size() const { return size_; }
  bool empty() const { return size_ == 0; }
  /// The collider with this id; nullptr when there is none.
  const Collider* find(int id) const noexcept;
  /// Whether slot `id` holds a collider (ids are 0 .. capacity() - 1).
  bool contains(int id) const noexcept {
    return id >= 0 && id < capacity() && used_[static_cast<std::size_t>(id)];
  }
  const Collider& operator[](int id) const { return slots_[static_cast<std::size_t>(id)]; }

  /// Puts a valid collider in the first free slot and its id in `id` (no check against a model:
  /// add_collider, contact/reduced_contact.h, checks that too).
  ColliderStatus insert(const Collider& collider, int& id) noexcept;
  /// Replaces collider `id` (a teleport: pose, velocities, shape, sizes and friction as given).
  ColliderStatus replace(int id, const Collider& collider) noexcept;
  /// Puts a valid collider at slot `id`, free or not (a restored state's ids: state_snapshot.h).
  ColliderStatus place(int id, const Collider& collider) noexcept;
  /// Sets collider `id`'s velocities so that one step of `seconds` carries it to `target`
  /// (Jolt's MoveKinematic); its pose stays where it is until the step.
  ColliderStatus move_kinematic(int id, const RigidPose& target, double seconds) noexcept;
  ColliderStatus remove(int id) noexcept;
  void clear() noexcept;
  /// Every collider carried `seconds` along its velocities (what a successful step does).
  void advance(double seconds) noexcept;

 private:
  std::vector<Collider> slots_;
  std::vector<char> used_;
  int size_ = 0;
};

}  // namespace ramus
