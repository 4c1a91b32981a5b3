#include "ramus/runtime/dynamics/anchor_motion.h"

#include <Eigen/Geometry>

#include <cmath>

#include "../kernels/rotation_vector.h"

namespace ramus {

AnchorMotion anchor_motion(const Model&, const State& state) noexcept {
  // The root frame's velocities are kept in its own axes.
  AnchorMotion m;
  const Eigen::Matrix3d R = state.frame_rotation.leftCols<3>();
  m.pose.rotation = R;
  m.pose.translation = state.frame_origin.col(0);
  m.velocity = R * state.frame_velocity.col(0);
  m.angular_velocity = R * state.frame_angular_velocity.col(0);
  m.acceleration = R * state.frame_acceleration.col(0);
  m.angular_acceleration = R * state.frame_angular_acceleration.col(0);
  return m;
}

const char* anchor_motion_problem(const Model& model, const AnchorMotion& m) noexcept {
  if (model.free_root) return "the root is free (a free root moves by its own dynamics)";
  if (!m.pose.rotation.allFinite() || !m.pose.translation.allFinite() || !m.velocity.allFinite() ||
      !m.angular_velocity.allFinite() || !m.acceleration.allFinite() ||
      !m.angular_acceleration.allFinite())
    return "the anchor's pose and motion must be finite";
  if (!((m.pose.rotation.transpose() * m.pose.rotation - Eigen::Matrix3d::Identity()).norm() <
        1e-9) ||
      !(m.pose.rotation.determinant() > 0))
    return "the anchor's pose: not a rotation";
  // Without W1..W7 the root's frame force is the translation's alone (-G a, like gravity).
  const Part& root = model.part_of(0);
  if (root.r > 0 && root.system_force.empty() &&
      (m.angular_velocity.squaredNorm() > 0 || m.angular_acceleration.squaredNorm() > 0))
    return "an anchored single domain without system-force integrals (W1..W7) moves by "
           "translation only";
  return nullptr;
}

void set_anchor_motion(const Model&, State& state, const AnchorMotion& m) noexcept {
  const Eigen::Matrix3d& R = m.pose.rotation;
  state.frame_rotation.leftCols<3>() = R;
  state.frame_origin.col(0) = m.pose.translation;
  state.frame_velocity.col(0) = R.transpose() * m.velocity;
  state.frame_angular_velocity.col(0) = R.transpose() * m.angular_velocity;
  state.frame_acceleration.col(0) = R.transpose() * m.acceleration;
  state.frame_angular_acceleration.col(0) = R.transpose() * m.angular_acceleration;
}

AnchorMotion anchor_motion_reaching(const Model& model, const State& state, const RigidPose& target,
                                    double seconds) noexcept {
  AnchorMotion m = anchor_motion(model, state);
  // The velocities that land on the target, differenced; the accelerations that reach them.
  const Eigen::Vector3d velocity = (target.translation - m.pose.translation) / seconds;
  const Eigen::Vector3d angular_velocity =
      rotation_logarithm(target.rotation * m.pose.rotation.transpose()) / seconds;
  m.acceleration = (velocity - m.velocity) / seconds;
  m.angular_acceleration = (angular_velocity - m.angular_velocity) / seconds;
  return m;
}

bool anchor_moves(const Model& model, const State& state) noexcept {
  return !model.free_root && (state.frame_velocity.col(0).squaredNorm() > 0 ||
                              state.frame_angular_velocity.col(0).squaredNorm() > 0 ||
                              state.frame_acceleration.col(0).squaredNorm() > 0 ||
                              state.frame_angular_acceleration.col(0).squaredNorm() > 0);
}

void advance_anchor(const Model& model, State& state, double seconds) noexcept {
  // Semi-implicit: the velocities first, then the pose with the new ones.
  AnchorMotion m = anchor_motion(model, state);
  m.velocity += seconds * m.acceleration;
  m.angular_velocity += seconds * m.angular_acceleration;
  m.pose.translation += seconds * m.velocity;
  m.pose.rotation = rotation_exponential(seconds * m.angular_velocity) * m.pose.rotation;
  set_anchor_motion(model, state, m);
}

}  // namespace ramus
