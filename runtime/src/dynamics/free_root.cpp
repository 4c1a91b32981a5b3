#include "free_root.h"

#include <Eigen/Geometry>
#include <Eigen/QR>

#include "../kernels/rotation_vector.h"
#include "free_root_contact.h"

namespace ramus {

namespace {

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
  Eigen::Vector3d force = R0 * workspace.subtree_force.col(0);
  Eigen::Vector3d torque = workspace.root_torque;
  Eigen::Vector3d center = state.frame_origin.col(0) + R0 * model.root_center_of_mass;
  const Eigen::Matrix3d inertia_inverse = R0 * model.root_inertia_inverse * R0.transpose();
  // Symplectic Euler: the momenta, then the pose with the new velocities.
  const Eigen::Vector3d momentum = state.root_momentum,
                        angular_momentum = state.root_angular_momentum;
  Eigen::Vector3d displacement = h * ((momentum + h * force) / model.total_mass);
  Eigen::Vector3d rotation = h * (inertia_inverse * (angular_momentum + h * torque));
  // In contact the barrier is implicit: the step above without it, then Φ's minimum.
  state.root_contact_force.setZero();
  if (workspace.contacts_found) {
    force -= workspace.root_barrier_force;
    torque -= workspace.root_barrier_torque;
    FreeRootContactStep step;
    step.model = &model;
    step.counts = workspace.contact_count.data();
    step.starts = workspace.contact_start.data();
    step.candidates = workspace.contact_candidates.data();
    step.colliders = workspace.step_colliders.data();
    step.stiffness = state.settings.contact_stiffness;
    step.distance = state.settings.contact_distance;
    step.center = center;
    step.predicted << h * (momentum + h * force) / model.total_mass,
        h * (inertia_inverse * (angular_momentum + h * torque));
    step.mass_weight = model.total_mass / (h * h);
    step.inertia_weight = inertia_inverse.inverse() / (h * h);
    const Vector6d y = solve_free_root_contact_step(step, state.settings.implicit_iterations);
    displacement = y.head<3>();
    rotation = y.tail<3>();
    // The force and torque that moved it, the barrier's included.
    const Eigen::Vector3d without_barrier = force;
    force = (model.total_mass * displacement / h - momentum) / h;
    state.root_contact_force = force - without_barrier;
    torque = (step.inertia_weight * h * rotation - angular_momentum) / h;
  }
  state.root_momentum = momentum + h * force;
  state.root_angular_momentum = angular_momentum + h * torque;
  const Eigen::Vector3d center_velocity = state.root_momentum / model.total_mass;
  center += displacement;
  Eigen::Matrix3d R = rotation_exponential(rotation) * R0;
  // Re-orthonormalize against round-off drift.
  const Eigen::HouseholderQR<Eigen::Matrix3d> qr(R);
  Eigen::Matrix3d Q = qr.householderQ();
  for (int c = 0; c < 3; ++c)
    if (Q.col(c).dot(R.col(c)) < 0) Q.col(c) *= -1;
  state.frame_rotation.leftCols<3>() = Q;
  state.frame_origin.col(0) = center - Q * model.root_center_of_mass;
  set_root_motion(model, state, center_velocity, force, torque);
}

void free_root_kinematics(const Model& model, State& state,
                          const WorkspaceData& workspace) noexcept {
  const Eigen::Vector3d force = state.frame_rotation.leftCols<3>() * workspace.subtree_force.col(0);
  set_root_motion(model, state, state.root_momentum / model.total_mass, force,
                  workspace.root_torque);
}

}  // namespace ramus
