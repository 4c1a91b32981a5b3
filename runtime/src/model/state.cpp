#include "ramus/runtime/model/state.h"

#include <algorithm>

namespace ramus {

const char* to_string(StepStatus status) {
  switch (status) {
    case StepStatus::kOk:
      return "ok";
    case StepStatus::kNonFinite:
      return "non-finite state";
    case StepStatus::kDiverged:
      return "diverged";
    case StepStatus::kInvalidSettings:
      return "invalid settings";
    case StepStatus::kSolverFailed:
      return "integrator solve failed";
    case StepStatus::kWrongModel:
      return "state or workspace of another model";
  }
  return "unknown";
}

bool state_fits(const Model& model, const State& state) noexcept {
  const Eigen::Index dofs = model.num_dofs, n = model.num_domains();
  return state.model_identity == model.identity && state.q.size() == dofs &&
         state.qdot.size() == dofs && state.qddot.size() == dofs &&
         state.q_history.rows() == dofs && state.qdot_history.rows() == dofs &&
         state.q_history.cols() >= state.history_size &&
         state.qdot_history.cols() >= state.history_size && state.history_size >= 0 &&
         state.frame_rotation.cols() == 3 * n && state.frame_origin.cols() == n &&
         state.frame_velocity.cols() == n && state.frame_angular_velocity.cols() == n &&
         state.frame_acceleration.cols() == n && state.frame_angular_acceleration.cols() == n &&
         state.relative_position.cols() == n && state.relative_velocity.cols() == n &&
         state.relative_acceleration.cols() == n && state.relative_rotation.cols() == 3 * n &&
         state.relative_stretch.cols() == 3 * n && state.relative_angular_velocity.cols() == n &&
         state.relative_angular_acceleration.cols() == n &&
         state.relative_angular_acceleration_without_qddot.cols() == n &&
         state.energy_target.size() == n && state.energy_at_end.size() == n;
}

State make_state(const Model& model, int force_capacity, int collider_capacity) {
  const Eigen::Index n = model.num_domains(), dofs = model.num_dofs;
  State s;
  s.model_identity = model.identity;
  for (Eigen::VectorXd* v : {&s.q, &s.qdot, &s.qddot}) v->resize(dofs);
  s.q_history.resize(dofs, kHistoryCapacity);
  s.qdot_history.resize(dofs, kHistoryCapacity);
  s.frame_rotation.resize(3, 3 * n);
  s.relative_rotation.resize(3, 3 * n);
  s.relative_stretch.resize(3, 3 * n);
  for (Eigen::Matrix3Xd* m :
       {&s.frame_origin, &s.frame_velocity, &s.frame_angular_velocity, &s.frame_acceleration,
        &s.frame_angular_acceleration, &s.relative_position, &s.relative_velocity,
        &s.relative_acceleration, &s.relative_angular_velocity, &s.relative_angular_acceleration,
        &s.relative_angular_acceleration_without_qddot})
    m->resize(3, n);
  s.forces.reserve(static_cast<std::size_t>(std::max(0, force_capacity)));
  s.colliders = ColliderSet(collider_capacity);
  s.settings = model.settings;
  s.energy_target.resize(n);
  s.energy_at_end.resize(n);
  prepare_integrator_memory(model, s);
  reset_state(model, s);
  return s;
}

void reset_state(const Model& model, State& s) noexcept {
  s.time = 0;
  // No deformation, no history, no integrator memory.
  for (Eigen::VectorXd* v : {&s.q, &s.qdot, &s.qddot, &s.energy_target, &s.energy_at_end})
    v->setZero();
  s.q_history.setZero();
  s.qdot_history.setZero();
  s.history_size = 0;
  for (SplitModes& modes : s.split_modes) {
    modes.basis.setZero();
    modes.eigenvalues.setZero();
    modes.age = -1;
    modes.decompositions = 0;
  }
  // Every frame at its rest placement, still; children at their rest interfaces.
  for (Eigen::Matrix3Xd* m :
       {&s.frame_velocity, &s.frame_angular_velocity, &s.frame_acceleration,
        &s.frame_angular_acceleration, &s.relative_velocity, &s.relative_acceleration,
        &s.relative_angular_velocity, &s.relative_angular_acceleration,
        &s.relative_angular_acceleration_without_qddot})
    m->setZero();
  for (Eigen::Index i = 0; i < model.num_domains(); ++i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    s.frame_rotation.middleCols<3>(3 * i) = domain.rest_rotation;
    s.frame_origin.col(i) = domain.rest_origin;
    s.relative_rotation.middleCols<3>(3 * i) = domain.interface.rest_rotation;
    s.relative_stretch.middleCols<3>(3 * i).setIdentity();
    s.relative_position.col(i) = domain.interface.centroid;
  }
  s.root_momentum.setZero();
  s.root_angular_momentum.setZero();
  s.root_contact_force.setZero();
  s.forces.clear();
}

namespace {

// Columns of the split modes domain i needs under `settings` (0: none).
Eigen::Index split_columns(const Model& model, const RuntimeSettings& settings, int i) {
  if (static_cast<int>(settings.domains.size()) != model.num_domains()) return 0;
  const DomainSettings& n = settings.domains[static_cast<std::size_t>(i)];
  if (!uses_split_modes(n.integrator)) return 0;
  return std::min(n.split_modes, model.domains[static_cast<std::size_t>(i)].r);
}

}  // namespace

void prepare_integrator_memory(const Model& model, State& state) {
  const int n = model.num_domains();
  state.split_modes.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    SplitModes& modes = state.split_modes[static_cast<std::size_t>(i)];
    const Eigen::Index r = model.domains[static_cast<std::size_t>(i)].r;
    const Eigen::Index s = split_columns(model, state.settings, i);
    if (modes.basis.rows() == r && modes.basis.cols() == s) continue;
    modes.basis.setZero(r, s);
    modes.eigenvalues.setZero(s);
    modes.age = -1;
    modes.decompositions = 0;
  }
  if (state.energy_target.size() != n) state.energy_target.setZero(n);
  if (state.energy_at_end.size() != n) state.energy_at_end.setZero(n);
}

bool integrator_memory_fits(const Model& model, const State& state) noexcept {
  const int n = model.num_domains();
  if (static_cast<int>(state.split_modes.size()) != n || state.energy_target.size() != n ||
      state.energy_at_end.size() != n)
    return false;
  // Only the split integrators read the modes: the other domains' need no check (and the walk
  // stays in the settings, not the 0.5 kB Domain structs: 0.5 % of the oak's step).
  if (static_cast<int>(state.settings.domains.size()) != n)
    return true;  // (settings_within_bounds')
  for (int i = 0; i < n; ++i) {
    if (!uses_split_modes(state.settings.domains[static_cast<std::size_t>(i)].integrator)) continue;
    const SplitModes& modes = state.split_modes[static_cast<std::size_t>(i)];
    if (modes.basis.rows() != model.domains[static_cast<std::size_t>(i)].r ||
        modes.basis.cols() != split_columns(model, state.settings, i) ||
        modes.eigenvalues.size() != modes.basis.cols())
      return false;
  }
  return true;
}

std::size_t domain_state_bytes(const Model& model, const State& state, int i) {
  const auto r = static_cast<std::size_t>(model.domains[static_cast<std::size_t>(i)].r);
  const auto n = static_cast<std::size_t>(model.num_domains());
  std::size_t doubles =
      3 * r + r * static_cast<std::size_t>(state.q_history.cols() + state.qdot_history.cols());
  // The domain's columns of the frame and relative-kinematics matrices (3 or 9 numbers each).
  for (const Eigen::Matrix3Xd* m :
       {&state.frame_rotation, &state.frame_origin, &state.frame_velocity,
        &state.frame_angular_velocity, &state.frame_acceleration, &state.frame_angular_acceleration,
        &state.relative_position, &state.relative_velocity, &state.relative_acceleration,
        &state.relative_rotation, &state.relative_stretch, &state.relative_angular_velocity,
        &state.relative_angular_acceleration, &state.relative_angular_acceleration_without_qddot})
    doubles += static_cast<std::size_t>(m->size()) / n;
  doubles += static_cast<std::size_t>(state.energy_target.size() + state.energy_at_end.size()) / n;
  const SplitModes& modes = state.split_modes[static_cast<std::size_t>(i)];
  doubles += static_cast<std::size_t>(modes.basis.size() + modes.eigenvalues.size());
  return sizeof(double) * doubles + sizeof(SplitModes) + sizeof(DomainSettings);
}

std::size_t state_bytes(const Model& model, const State& state) {
  std::size_t bytes = 0;
  for (int i = 0; i < model.num_domains(); ++i) bytes += domain_state_bytes(model, state, i);
  return bytes + sizeof(AppliedForce) * state.forces.capacity() +
         (sizeof(Collider) + sizeof(char)) * static_cast<std::size_t>(state.colliders.capacity()) +
         sizeof(State);
}

}  // namespace ramus
