#include "ramus/precompute/contact/level_set_collider.h"

#include "ramus/precompute/contact/grid_level_set.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ramus {

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

}  // namespace

namespace {

// The keyframed motion's interval at `time`: the keys before and after it, the fraction of the
// way between them (0 before the first key, 1 after the last) and whether it moves then.
struct KeyInterval {
  const PoseKeyframe* from;
  const PoseKeyframe* to;
  double fraction;
  bool moving;
};

KeyInterval key_interval(const std::vector<PoseKeyframe>& keys, double time) {
  if (time <= keys.front().time) return {&keys.front(), &keys.front(), 0, false};
  if (time >= keys.back().time) return {&keys.back(), &keys.back(), 1, false};
  std::size_t k = 1;
  while (keys[k].time < time) ++k;
  const PoseKeyframe& a = keys[k - 1];
  const PoseKeyframe& b = keys[k];
  return {&a, &b, (time - a.time) / (b.time - a.time), true};
}

// The rotation from a to b as angle times axis (world axes, rad).
Vector3d rotation_vector(const Matrix3d& a, const Matrix3d& b) {
  const Eigen::AngleAxisd turn(Matrix3d(b * a.transpose()));
  return turn.angle() * turn.axis();
}

}  // namespace

RigidPose ColliderMotion::pose_at(double time) const {
  RigidPose pose;
  if (keyframes.size() >= 2) {
    const KeyInterval k = key_interval(keyframes, time);
    const Eigen::Quaterniond from(k.from->pose.rotation), to(k.to->pose.rotation);
    pose.rotation = from.slerp(k.fraction, to).toRotationMatrix();
    pose.translation =
        (1 - k.fraction) * k.from->pose.translation + k.fraction * k.to->pose.translation;
    return pose;
  }
  const double angle = angular_velocity.norm() * time;
  const Matrix3d turn = angle == 0
                            ? Matrix3d::Identity()
                            : Matrix3d(Eigen::AngleAxisd(angle, angular_velocity.normalized()));
  pose.rotation = turn * initial.rotation;
  pose.translation = initial.translation + time * linear_velocity;
  return pose;
}

Vector3d ColliderMotion::velocity_at(const Vector3d& x, double time) const {
  if (keyframes.size() >= 2) {
    const KeyInterval k = key_interval(keyframes, time);
    if (!k.moving) return Vector3d::Zero();
    const double span = k.to->time - k.from->time;
    const Vector3d omega = rotation_vector(k.from->pose.rotation, k.to->pose.rotation) / span;
    return (k.to->pose.translation - k.from->pose.translation) / span +
           omega.cross(x - pose_at(time).translation);
  }
  return linear_velocity + angular_velocity.cross(x - pose_at(time).translation);
}

double level_set_lipschitz(const LevelSetCollider& collider) {
  return collider.shape == ColliderShape::kMesh ? std::sqrt(3.0) : 1.0;
}

LevelSetSample sample_level_set(const LevelSetCollider& collider, const Vector3d& x, double time) {
  const RigidPose pose = collider.motion.pose_at(time);
  const Vector3d local = pose.rotation.transpose() * (x - pose.translation);
  LevelSetSample s = collider.shape == ColliderShape::kMesh && collider.grid
                         ? collider.grid->sample(local)
                         : sample_local_level_set(collider.shape, collider.size, local);
  s.gradient = pose.rotation * s.gradient;
  s.hessian = pose.rotation * s.hessian * pose.rotation.transpose();
  return s;
}

}  // namespace ramus
