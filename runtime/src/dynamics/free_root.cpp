#include "free_root.h"

#include <Eigen/Geometry>
#include <Eigen/QR>

namespace ramus {

namespace {

// Rotation exp(w~) by Rodrigues' formula.
Eigen::Matrix3d rotation_exponential(const Eigen::Vector3d& w) noexcept {
  const double angle = w.norm();
  if (angle < 1e-300) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, w / angle).toRotationMatrix();
}

// Frame velocities and accelerations (root axes) of the rigid body with world centre velocity
// `center_velocity`, angular momentum L and external force / torque about the centre.
void set_root_motion(const Model& model, State& state, const Eigen::Vector3d& center_velocity,
                     const Eigen::Vector3d& force, const Eigen::Vector3d& torque) noexcept {
  const Eigen::Matrix3d R = state.frame_rotation.leftCols<3>();
  const Eigen::Matrix3d Rt = R.transpose();
  const Eigen::Vector3d& L = state.root_angular_momentum;
  const Eigen::Vector3d omega_world = R * (model.root_inertia_inverse * (Rt * L));
  // Euler's equations in the world: I ω̇ = τ - ω × L.
  const Eigen::Vector3d alpha_world =
      R * (model.root_inertia_inverse * (Rt * (torque - omega_world.cross(L))));
  const Eigen::Vector3d offset = R * model.root_center_of_mass;
  state.frame_angular_velocity.col(0) = Rt * omega_world;
  state.frame_angular_acceleration.col(0) = Rt * alpha_world;
  state.frame_velocity.col(0) = Rt * (center_velocity - omega_world.cross(offset));
  state.frame_acceleration.col(0) = Rt * (force / model.total_mass - alpha_world.cross(offset) -
                                          omega_world.cross(omega_world.cross(offset)));
}

}  // namespace

void integrate_free_root(const Model& model, State& state, const WorkspaceData& workspace,
                         double h) noexcept {
  const Eigen::Matrix3d R0 = state.frame_rotation.leftCols<3>();
  const Eigen::Vector3d force = R0 * workspace.subtree_force.col(0);
  Eigen::Vector3d center = state.frame_origin.col(0) + R0 * model.root_center_of_mass;
  state.root_momentum += h * force;
  state.root_angular_momentum += h * workspace.root_torque;
  const Eigen::Vector3d center_velocity = state.root_momentum / model.total_mass;
  center += h * center_velocity;
  const Eigen::Vector3d omega_world =
      R0 * (model.root_inertia_inverse * (R0.transpose() * state.root_angular_momentum));
  Eigen::Matrix3d R = rotation_exponential(h * omega_world) * R0;
  // Re-orthonormalize against round-off drift.
  const Eigen::HouseholderQR<Eigen::Matrix3d> qr(R);
  Eigen::Matrix3d Q = qr.householderQ();
  for (int c = 0; c < 3; ++c)
    if (Q.col(c).dot(R.col(c)) < 0) Q.col(c) *= -1;
  state.frame_rotation.leftCols<3>() = Q;
  state.frame_origin.col(0) = center - Q * model.root_center_of_mass;
  set_root_motion(model, state, center_velocity, force, workspace.root_torque);
}

void free_root_kinematics(const Model& model, State& state,
                          const WorkspaceData& workspace) noexcept {
  const Eigen::Vector3d force = state.frame_rotation.leftCols<3>() * workspace.subtree_force.col(0);
  set_root_motion(model, state, state.root_momentum / model.total_mass, force,
                  workspace.root_torque);
}

}  // namespace ramus
