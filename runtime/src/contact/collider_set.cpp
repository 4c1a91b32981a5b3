#include "ramus/runtime/contact/collider_set.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

namespace ramus {

const char* collider_problem(const Collider& c) noexcept {
  if (!c.pose.rotation.allFinite() || !c.pose.translation.allFinite()) return "pose: not finite";
  if (!(c.pose.rotation.transpose() * c.pose.rotation - Eigen::Matrix3d::Identity()).isZero(1e-6) ||
      !(c.pose.rotation.determinant() > 0))
    return "pose: rotation is not a rotation (orthonormal, determinant 1)";
  if (!c.velocity.allFinite() || !c.angular_velocity.allFinite()) return "velocity: not finite";
  if (!(std::isfinite(c.friction) && c.friction >= 0)) return "friction must be finite and >= 0";
  if (!(c.size.cwiseAbs().maxCoeff() < 1e6) || !(c.pose.translation.norm() < 1e9))
    return "sizes and position must be below 1e6 m and 1e9 m";
  if (c.shape == ColliderShape::kMesh) return grid_distance_problem(c.grid);
  return collider_size_problem(c.shape, c.size);
}

RigidPose advanced_pose(const Collider& c, double seconds) noexcept {
  RigidPose pose = c.pose;
  pose.translation += seconds * c.velocity;
  const double angle = c.angular_velocity.norm() * seconds;
  if (angle != 0)
    pose.rotation = Eigen::AngleAxisd(angle, c.angular_velocity.normalized()).toRotationMatrix() *
                    c.pose.rotation;
  return pose;
}

const char* to_string(ColliderStatus status) {
  switch (status) {
    case ColliderStatus::kOk:
      return "ok";
    case ColliderStatus::kInvalid:
      return "invalid collider";
    case ColliderStatus::kFull:
      return "collider set full";
    case ColliderStatus::kUnknownId:
      return "unknown collider id";
    case ColliderStatus::kStartsInside:
      return "collider starts inside the object";
    case ColliderStatus::kWrongModel:
      return "state of another model";
  }
  return "unknown status";
}

ColliderSet::ColliderSet(int capacity)
    : slots_(static_cast<std::size_t>(std::clamp(capacity, 0, kMaxColliders))),
      used_(slots_.size(), 0) {}

const Collider* ColliderSet::find(int id) const noexcept {
  return contains(id) ? &slots_[static_cast<std::size_t>(id)] : nullptr;
}

ColliderStatus ColliderSet::insert(const Collider& collider, int& id) noexcept {
  if (collider_problem(collider)) return ColliderStatus::kInvalid;
  const auto free = std::find(used_.begin(), used_.end(), 0);
  if (free == used_.end()) return ColliderStatus::kFull;
  id = static_cast<int>(free - used_.begin());
  slots_[static_cast<std::size_t>(id)] = collider;
  *free = 1;
  ++size_;
  return ColliderStatus::kOk;
}

ColliderStatus ColliderSet::replace(int id, const Collider& collider) noexcept {
  if (!contains(id)) return ColliderStatus::kUnknownId;
  if (collider_problem(collider)) return ColliderStatus::kInvalid;
  slots_[static_cast<std::size_t>(id)] = collider;
  return ColliderStatus::kOk;
}

ColliderStatus ColliderSet::place(int id, const Collider& collider) noexcept {
  if (id < 0 || id >= capacity()) return ColliderStatus::kUnknownId;
  if (collider_problem(collider)) return ColliderStatus::kInvalid;
  slots_[static_cast<std::size_t>(id)] = collider;
  if (!used_[static_cast<std::size_t>(id)]) ++size_;
  used_[static_cast<std::size_t>(id)] = 1;
  return ColliderStatus::kOk;
}

ColliderStatus ColliderSet::move_kinematic(int id, const RigidPose& target,
                                           double seconds) noexcept {
  if (!contains(id)) return ColliderStatus::kUnknownId;
  Collider moved = slots_[static_cast<std::size_t>(id)];
  if (!(seconds > 0 && std::isfinite(seconds)) || !target.translation.allFinite() ||
      !target.rotation.allFinite())
    return ColliderStatus::kInvalid;
  // v = Δx / h; ω = the rotation vector of R_target R_nowᵀ over h.
  moved.velocity = (target.translation - moved.pose.translation) / seconds;
  const Eigen::AngleAxisd turn(Eigen::Matrix3d(target.rotation * moved.pose.rotation.transpose()));
  moved.angular_velocity = turn.angle() / seconds * turn.axis();
  if (collider_problem(moved)) return ColliderStatus::kInvalid;
  slots_[static_cast<std::size_t>(id)] = moved;
  return ColliderStatus::kOk;
}

ColliderStatus ColliderSet::remove(int id) noexcept {
  if (!contains(id)) return ColliderStatus::kUnknownId;
  used_[static_cast<std::size_t>(id)] = 0;
  --size_;
  return ColliderStatus::kOk;
}

void ColliderSet::clear() noexcept {
  std::fill(used_.begin(), used_.end(), 0);
  size_ = 0;
}

void ColliderSet::advance(double seconds) noexcept {
  for (std::size_t k = 0; k < slots_.size(); ++k)
    if (used_[k]) slots_[k].pose = advanced_pose(slots_[k], seconds);
}

// The scenario's columns, row by row (a grid's values are the scenario's).
std::vector<Collider> scenario_colliders(const ScenarioSettings& scenario) {
  std::vector<Collider> colliders;
  Eigen::Index grid_offset = 0;
  for (Eigen::Index c = 0; c < scenario.collider_shapes.size(); ++c) {
    Collider collider;
    collider.shape = static_cast<ColliderShape>(scenario.collider_shapes(c));
    collider.size = scenario.collider_sizes.row(c).transpose();
    for (int row = 0; row < 3; ++row)
      collider.pose.rotation.row(row) = scenario.collider_rotations.row(c).segment<3>(3 * row);
    collider.pose.translation = scenario.collider_positions.row(c).transpose();
    collider.velocity = scenario.collider_velocities.row(c).transpose();
    collider.angular_velocity = scenario.collider_angular_velocities.row(c).transpose();
    collider.friction = scenario.collider_friction(c);
    if (collider.shape == ColliderShape::kMesh) {
      GridDistanceField& grid = collider.grid;
      grid.origin = scenario.collider_grid_origins.row(c).transpose();
      grid.spacing = scenario.collider_grid_spacings(c);
      grid.samples = scenario.collider_grid_samples.row(c).transpose();
      grid.values = scenario.collider_grid_values.data() + grid_offset;
      grid_offset += grid.samples.prod();
    }
    colliders.push_back(collider);
  }
  return colliders;
}

}  // namespace ramus
