#include "free_root.h"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <Eigen/QR>
#include <cmath>

#include "../contact/domain_contact.h"
#include "ramus/runtime/contact/contact_response.h"

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

using Vector6d = Eigen::Matrix<double, 6, 1>;
using Matrix6d = Eigen::Matrix<double, 6, 6>;

// The rigid body's step as a minimization over its centre's displacement u and its rotation
// vector θ (world), y = (u, θ): Φ(y) = ½ m |u - û|² / h² + ½ (θ - θ̂)ᵀ I_w (θ - θ̂) / h² + the
// barrier of every contact candidate, its sample carried rigidly: x = x_start + u + θ × r (r from
// the centre at the start; first order in θ). û, θ̂: the step without the barrier. Its stationary
// point gives p₁ = p̂ + h f_b and L₁ = L̂ + h τ_b with the barrier's force and torque at the end.
struct RigidStep {
  const Model* model = nullptr;
  const State* state = nullptr;
  const WorkspaceData* workspace = nullptr;
  Eigen::Vector3d center = Eigen::Vector3d::Zero();          ///< at the start (world)
  Vector6d predicted = Vector6d::Zero();                     ///< (û, θ̂)
  double mass_weight = 0;                                    ///< m / h²
  Eigen::Matrix3d inertia_weight = Eigen::Matrix3d::Zero();  ///< I_w / h²

  // Φ(y), with its gradient and Gauss-Newton Hessian when asked.
  double evaluate(const Vector6d& y, Vector6d* gradient, Matrix6d* hessian) const noexcept {
    const Vector6d d = y - predicted;
    const Eigen::Vector3d iu = inertia_weight * d.tail<3>();
    double value = 0.5 * mass_weight * d.head<3>().squaredNorm() + 0.5 * d.tail<3>().dot(iu);
    if (gradient) *gradient << mass_weight * d.head<3>(), iu;
    if (hessian) {
      hessian->setZero();
      hessian->topLeftCorner<3, 3>().diagonal().setConstant(mass_weight);
      hessian->bottomRightCorner<3, 3>() = inertia_weight;
    }
    const RuntimeSettings& settings = state->settings;
    for (int i = 0; i < model->num_domains(); ++i) {
      const int count = workspace->contact_count[static_cast<std::size_t>(i)];
      if (count == 0) continue;
      const double s = model->domains[static_cast<std::size_t>(i)].scale.length;
      const PartContact& samples = model->part_of(i).contact;
      const ContactCandidate* candidates =
          workspace->contact_candidates.data() + model->contact_offset[static_cast<std::size_t>(i)];
      for (int n = 0; n < count; ++n) {
        const ContactCandidate& c = candidates[n];
        const StepCollider& collider =
            workspace->step_colliders[static_cast<std::size_t>(c.collider)];
        const Eigen::Vector3d r = c.start - center;
        const Eigen::Vector3d x = c.start + y.head<3>() + y.tail<3>().cross(r);
        const LevelSetSample phi = collider_level_set(collider.collider, collider.end, x);
        const ScalarDerivatives b = continued_log_barrier(phi.value, settings.contact_distance);
        const double weight = settings.contact_stiffness * s * s * samples.weights(c.sample);
        value += weight * b.value;
        if (!gradient) continue;
        // dx/du = I, dx/dθ = -[r]×: Jᵀ ∇φ = (∇φ, r × ∇φ).
        Vector6d jn;
        jn << phi.gradient, r.cross(phi.gradient);
        *gradient += weight * b.first * jn;
        if (hessian) *hessian += weight * b.second * jn * jn.transpose();
      }
    }
    return value;
  }
};

// Newton on Φ with an Armijo backtracking line search, from the prediction; returns y.
Vector6d solve_rigid_step(const RigidStep& step, int iterations) noexcept {
  constexpr double kArmijo = 1e-4, kRoundOff = 1e-13;
  Vector6d y = step.predicted, gradient, direction;
  Matrix6d hessian;
  double value = step.evaluate(y, &gradient, &hessian);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    direction = -hessian.llt().solve(gradient);
    const double slope = direction.dot(gradient);
    if (!(slope < 0) || -slope <= kRoundOff * std::abs(value)) break;
    double t = 1;
    double trial = step.evaluate(y + direction, nullptr, nullptr);
    for (int halving = 0; halving < 30 && !(trial <= value + kArmijo * t * slope); ++halving) {
      t *= 0.5;
      trial = step.evaluate(y + t * direction, nullptr, nullptr);
    }
    if (!(trial <= value + kArmijo * t * slope)) break;
    y += t * direction;
    value = step.evaluate(y, &gradient, &hessian);
  }
  return y;
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
  if (workspace.contacts_found) {
    force -= workspace.root_barrier_force;
    torque -= workspace.root_barrier_torque;
    RigidStep step;
    step.model = &model;
    step.state = &state;
    step.workspace = &workspace;
    step.center = center;
    step.predicted << h * (momentum + h * force) / model.total_mass,
        h * (inertia_inverse * (angular_momentum + h * torque));
    step.mass_weight = model.total_mass / (h * h);
    step.inertia_weight = inertia_inverse.inverse() / (h * h);
    const Vector6d y = solve_rigid_step(step, state.settings.implicit_iterations);
    displacement = y.head<3>();
    rotation = y.tail<3>();
    // The force and torque that moved it, the barrier's included.
    force = (model.total_mass * displacement / h - momentum) / h;
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
