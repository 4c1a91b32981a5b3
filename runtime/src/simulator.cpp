#include "ramus/runtime/simulator.h"

#include <Eigen/Geometry>

#include <Eigen/Dense>
#include <string>

#include "dynamics/frame_kinematics.h"
#include "ramus/error.h"
#include "ramus/runtime/analysis/interface_diagnostics.h"

namespace ramus {

Simulator::Simulator(std::shared_ptr<const Model> model)
    : Simulator(model, model ? model->settings : RuntimeSettings{}) {}

Simulator::Simulator(std::shared_ptr<const Model> model, RuntimeSettings settings)
    : model_(std::move(model)),
      state_(model_ ? make_state(*model_) : State{}),
      workspace_(model_ ? Workspace(*model_) : throw OptionError("Simulator: no model")) {
  set_settings(std::move(settings));
  initialize(false);
}

void Simulator::set_settings(RuntimeSettings settings) {
  if (settings.domains.empty())
    settings.domains.assign(static_cast<std::size_t>(num_domains()), {});
  if (const std::string problem = find_settings_problem(settings, num_domains()); !problem.empty())
    throw OptionError("runtime settings: " + problem);
  state_.settings = std::move(settings);
  prepare_integrator_memory(*model_, state_);
  settings_scratch_ = state_.settings;  // (edit_settings then copies without allocating)
}

void Simulator::commit_settings() {
  if (const std::string problem = find_settings_problem(settings_scratch_, num_domains());
      !problem.empty())
    throw OptionError("runtime settings: " + problem);
  std::swap(state_.settings, settings_scratch_);
  prepare_integrator_memory(*model_, state_);
}

void Simulator::set_domain_settings(int domain, const DomainSettings& settings) {
  check_domain(domain);
  RuntimeSettings all = state_.settings;
  all.domains[static_cast<std::size_t>(domain)] = settings;
  if (const std::string problem = find_settings_problem(all, num_domains()); !problem.empty())
    throw OptionError(domain_label(*model_, domain) + ": " + problem);
  state_.settings.domains[static_cast<std::size_t>(domain)] = settings;
  prepare_integrator_memory(*model_, state_);
}

void Simulator::set_stiffness_scale(int domain, double scale) {
  check_domain(domain);
  if (!(scale > 0) || !std::isfinite(scale))
    throw OptionError(domain_label(*model_, domain) + ": stiffness scale must be positive, got " +
                      std::to_string(scale));
  state_.settings.domains[static_cast<std::size_t>(domain)].stiffness_scale = scale;
}

void Simulator::check_domain(int domain) const {
  if (domain < 0 || domain >= num_domains())
    throw OptionError("domain " + std::to_string(domain) + " does not exist (the model has " +
                      std::to_string(num_domains()) + ")");
}

DomainState Simulator::domain_state(int domain) const {
  check_domain(domain);
  return {domain_q(*model_, state_, domain), domain_qdot(*model_, state_, domain),
          domain_qddot(*model_, state_, domain)};
}

void Simulator::set_domain_state(int domain, const DomainState& s) {
  check_domain(domain);
  const Domain& n = model_->domains[static_cast<std::size_t>(domain)];
  if (s.q.size() != n.r || s.qdot.size() != n.r || s.qddot.size() != n.r)
    throw OptionError(domain_label(*model_, domain) +
                      ": state vectors must have r = " + std::to_string(n.r) + " entries");
  if (!s.q.allFinite() || !s.qdot.allFinite() || !s.qddot.allFinite())
    throw OptionError(domain_label(*model_, domain) + ": state vectors must be finite");
  state_.q.segment(n.dof_offset, n.r) = s.q;
  state_.qdot.segment(n.dof_offset, n.r) = s.qdot;
  state_.qddot.segment(n.dof_offset, n.r) = s.qddot;
  state_.history_size = 0;
}

void Simulator::set_root_motion(const Eigen::Vector3d& origin, const Eigen::Matrix3d& rotation,
                                const Eigen::Vector3d& velocity,
                                const Eigen::Vector3d& angular_velocity) {
  if (!free_root()) throw OptionError("set_root_motion: the root is anchored");
  if (!origin.allFinite() || !velocity.allFinite() || !angular_velocity.allFinite())
    throw OptionError("set_root_motion: origin and velocities must be finite");
  if (!((rotation.transpose() * rotation - Eigen::Matrix3d::Identity()).norm() < 1e-9) ||
      !(rotation.determinant() > 0))
    throw OptionError("set_root_motion: not a rotation matrix");
  const Model& m = *model_;
  state_.frame_origin.col(0) = origin;
  state_.frame_rotation.leftCols<3>() = rotation;
  const Eigen::Vector3d center_offset = rotation * m.root_center_of_mass;
  state_.root_momentum = m.total_mass * (velocity + angular_velocity.cross(center_offset));
  state_.root_angular_momentum =
      rotation * m.root_inertia * rotation.transpose() * angular_velocity;
}

void Simulator::set_anchor_motion(const AnchorMotion& motion) {
  if (const char* problem = anchor_motion_problem(*model_, motion))
    throw OptionError(std::string("anchor: ") + problem);
  const bool moved = state_.frame_rotation.leftCols<3>() != motion.pose.rotation ||
                     state_.frame_origin.col(0) != motion.pose.translation;
  ramus::set_anchor_motion(*model_, state_, motion);
  if (moved) ramus::initialize(*model_, state_, workspace_, false);
}

void Simulator::move_anchor(const RigidPose& target, double seconds) {
  if (!(seconds > 0) || !std::isfinite(seconds))
    throw OptionError("anchor: seconds must be positive and finite, got " +
                      std::to_string(seconds));
  AnchorMotion probe;
  probe.pose = target;
  if (const char* problem = anchor_motion_problem(*model_, probe))
    throw OptionError(std::string("anchor: ") + problem);
  const AnchorMotion motion = anchor_motion_reaching(*model_, state_, target, seconds);
  if (const char* problem = anchor_motion_problem(*model_, motion))
    throw OptionError(std::string("anchor: ") + problem);
  ramus::set_anchor_motion(*model_, state_, motion);
}

StepStatus Simulator::set_velocity_field(const Eigen::MatrixX3d& global_velocities) {
  const Model& m = *model_;
  if (global_velocities.rows() != m.num_global_vertices)
    throw OptionError("set_velocity_field: expected " + std::to_string(m.num_global_vertices) +
                      " velocities, got " + std::to_string(global_velocities.rows()));
  if (!global_velocities.allFinite())
    throw OptionError("set_velocity_field: velocities must be finite");
  initialize(false);
  // Root to leaves: each domain's frame from its parent's updated q̇, then its own q̇, then its
  // children's relative kinematics.
  const bool partial = state_.settings.lumping != InterfaceLumping::kInterface;
  for (int i = 0; i < num_domains(); ++i) {
    const Domain& domain = m.domains[static_cast<std::size_t>(i)];
    const Part& proto = m.parts[static_cast<std::size_t>(domain.part)];
    if (i > 0) update_child_frame(m, state_, i);
    if (domain.r > 0) {
      const FrameMotion f = frame(i);
      const Eigen::MatrixX3d& X = proto.rest_positions;
      const Eigen::Index n = X.rows();
      const auto q = state_.q.segment(domain.dof_offset, domain.r);
      Eigen::VectorXd target(3 * n);
      for (Eigen::Index v = 0; v < n; ++v) {
        Eigen::Vector3d x = domain.scale.length * X.row(v).transpose();
        x.noalias() += domain.scale.basis * (proto.basis.middleRows<3>(3 * v) * q);
        const Eigen::Vector3d world = global_velocities.row(domain.global_vertices(v)).transpose();
        target.segment<3>(3 * v) =
            f.rotation.transpose() * world - f.velocity - f.angular_velocity.cross(x);
      }
      // Least squares in the domain's basis s^-3/2 U.
      const Eigen::MatrixXd& U = proto.basis;
      state_.qdot.segment(domain.dof_offset, domain.r) =
          (U.transpose() * U).ldlt().solve(U.transpose() * target) / domain.scale.basis;
    }
    for (int k = 0; k < domain.num_children; ++k)
      compute_relative_kinematics(
          m, state_, m.children[static_cast<std::size_t>(domain.first_child + k)], partial);
  }
  return initialize(true);
}

FrameMotion Simulator::frame(int domain) const {
  check_domain(domain);
  FrameMotion f;
  f.rotation = state_.frame_rotation.middleCols<3>(3 * domain);
  f.origin = state_.frame_origin.col(domain);
  f.velocity = state_.frame_velocity.col(domain);
  f.angular_velocity = state_.frame_angular_velocity.col(domain);
  f.acceleration = state_.frame_acceleration.col(domain);
  f.angular_acceleration = state_.frame_angular_acceleration.col(domain);
  return f;
}

double Simulator::interface_nonrigidity(int domain) const {
  check_domain(domain);
  return ramus::interface_nonrigidity(state_, domain);
}

void Simulator::add_vertex_force(int domain, int vertex, const Eigen::Vector3d& world_force) {
  check_domain(domain);
  const int num_vertices = static_cast<int>(model_->part_of(domain).rest_positions.rows());
  if (vertex < 0 || vertex >= num_vertices)
    throw OptionError(domain_label(*model_, domain) + ": vertex " + std::to_string(vertex) +
                      " does not exist (the domain has " + std::to_string(num_vertices) +
                      " vertices)");
  if (!world_force.allFinite()) throw OptionError("vertex force must be finite");
  state_.forces.push_back({domain, vertex, world_force});
}

void Simulator::reserve_vertex_forces(int count) {
  state_.forces.reserve(static_cast<std::size_t>(std::max(0, count)));
}

StepStatus Simulator::reset() noexcept {
  reset_state(*model_, state_);
  return ramus::initialize(*model_, state_, workspace_);
}

std::size_t Simulator::state_size(unsigned parts) const noexcept {
  return state_snapshot_size(*model_, state_, parts);
}

std::size_t Simulator::save_state(unsigned parts, void* out, std::size_t capacity) const noexcept {
  return ramus::save_state(*model_, state_, parts, out, capacity);
}

// A restore of less than the whole motion leaves the frames and accelerations to initialize().
SnapshotStatus Simulator::restore_state(const void* data, std::size_t size) {
  const SnapshotStatus status = ramus::restore_state(*model_, state_, data, size);
  const unsigned parts = snapshot_parts(data, size);
  if (status == SnapshotStatus::kOk && (parts & kStatePhysics) &&
      (parts & kStatePhysics) != kStatePhysics)
    ramus::initialize(*model_, state_, workspace_);
  return status;
}

SnapshotStatus Simulator::copy_state_from(const Simulator& other, unsigned parts) {
  const SnapshotStatus status = copy_state(*model_, other.state_, state_, parts);
  if (status == SnapshotStatus::kOk && (parts & kStatePhysics) &&
      (parts & kStatePhysics) != kStatePhysics)
    ramus::initialize(*model_, state_, workspace_);
  return status;
}

StepStatus Simulator::initialize(bool solve_accelerations) {
  return ramus::initialize(*model_, state_, workspace_, solve_accelerations);
}

StepStatus Simulator::step() noexcept {
  return ramus::step(*model_, state_, workspace_);
}

void Simulator::domain_world_positions(int domain, Eigen::MatrixX3d& positions) const {
  check_domain(domain);
  ramus::domain_world_positions(*model_, state_, domain, positions);
}

void Simulator::domain_world_velocities(int domain, Eigen::MatrixX3d& velocities) const {
  check_domain(domain);
  ramus::domain_world_velocities(*model_, state_, domain, velocities);
}

void Simulator::global_positions(Eigen::MatrixX3d& positions) const {
  ramus::global_positions(*model_, state_, positions);
}

void Simulator::global_velocities(Eigen::MatrixX3d& velocities) const {
  ramus::global_velocities(*model_, state_, velocities);
}

double Simulator::elastic_energy() const {
  return ramus::elastic_energy(*model_, state_, workspace_);
}

}  // namespace ramus
