// The state of one simulated object, one placed domain tree (MuJoCo's mjData, without the
// scratch): reduced coordinates of every domain, contiguous per part (the domains of one
// part form one r by n matrix), frames stored by field, integrator history of fixed
// capacity, the applied forces, the settings and the time. Everything in it persists between
// steps; all per-step scratch lives in a Workspace (dynamics/step.h). Creating a State allocates;
// stepping never does. Many States may share one Model and step independently.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "ramus/runtime/contact/collider_set.h"
#include "ramus/runtime/data/runtime_settings.h"
#include "ramus/runtime/model/model.h"

namespace ramus {

/// Outcome of one step. On anything but kOk the state is left as it was before the step.
enum class StepStatus {
  kOk,
  kNonFinite,  ///< a coordinate, velocity or acceleration, or the root frame, became NaN or inf
  /// |q|_inf exceeded RuntimeSettings::max_coordinate, or a domain's RMS displacement
  /// kDivergenceDiameters of its rest diameter (Part::divergence_norm)
  kDiverged,
  kInvalidSettings,  ///< the State's settings do not pass find_settings_problem, or its
                     ///< integrator memory does not fit them (call prepare_integrator_memory)
  kSolverFailed,     ///< an eigen-decomposition of the integrator failed
  kWrongModel,       ///< the State or the Workspace was made for another model (or resized)
};

/// The readable name of a status ("ok", "non-finite state", "diverged", "invalid settings").
const char* to_string(StepStatus status);

/// A point force on one vertex of one domain, in world axes (N).
struct AppliedForce {
  int domain = 0;
  int vertex = 0;  ///< vertex of the domain's part mesh
  Eigen::Vector3d force = Eigen::Vector3d::Zero();
};

/// The s lowest modes of one domain's K(q) kept between steps by SIERE and its siblings
/// (K X = M' X Λ, Xᵀ M' X = I), refreshed every DomainSettings::split_refresh_steps steps.
struct SplitModes {
  Eigen::MatrixXd basis;         ///< X: r by min(s, r)
  Eigen::VectorXd eigenvalues;   ///< Λ: min(s, r), ascending (1/s^2)
  int age = -1;                  ///< steps since the last full decomposition; -1: none yet
  long long decompositions = 0;  ///< full decompositions since the state was initialized
};

/// How many earlier steps the integrator history keeps (multistep methods such as BDF2 need
/// one: q and q̇ at t - h).
constexpr int kHistoryCapacity = 1;

struct State {
  double time = 0;  ///< s
  /// Reduced coordinates, velocities, accelerations of all domains (Model::num_dofs each); domain i
  /// at Model::domains[i].dof_offset, part p's domains as one r by n block.
  Eigen::VectorXd q, qdot, qddot;
  /// Integrator history: column k = the step k + 1 steps back (num_dofs by kHistoryCapacity);
  /// history_size of them are valid (0 after a reset or a change of q by the user).
  Eigen::MatrixXd q_history, qdot_history;
  int history_size = 0;
  /// Integrator memory per domain: the split integrators' modes (empty for other integrators), and
  /// im-blend's tracked total energy H_total and the domain's energy at the end of the last step
  /// (J; valid while history_size > 0).
  std::vector<SplitModes> split_modes;
  Eigen::VectorXd energy_target, energy_at_end;

  /// World frames F_i (column i; rotation: columns 3i..3i+2). Velocities and accelerations
  /// are the frame's in the world expressed in F_i's own axes (as Eq. 11-12 use them).
  Eigen::Matrix3Xd frame_rotation;  ///< 3 by 3N
  Eigen::Matrix3Xd frame_origin, frame_velocity, frame_angular_velocity, frame_acceleration,
      frame_angular_acceleration;  ///< 3 by N each (m, m/s, rad/s, m/s^2, rad/s^2)

  /// Each domain's frame relative to its parent's (Eq. 1-9), from the parent's q, q̇, q̈: x_ij,
  /// v_ij, a_ij (3 by N, parent axes), R_ij and the polar stretch S_ij (3 by 3N), ω_ij, ω̇_ij
  /// and ω̇_ij without its q̈ term (3 by N). Column 0 (the root) is unused.
  Eigen::Matrix3Xd relative_position, relative_velocity, relative_acceleration;
  Eigen::Matrix3Xd relative_rotation, relative_stretch;
  Eigen::Matrix3Xd relative_angular_velocity, relative_angular_acceleration,
      relative_angular_acceleration_without_qddot;

  /// A free root's rigid body: momentum and angular momentum about the centre of mass (world).
  Eigen::Vector3d root_momentum = Eigen::Vector3d::Zero();
  Eigen::Vector3d root_angular_momentum = Eigen::Vector3d::Zero();
  /// The barrier force the last step's implicit solve of that rigid body applied (world, N): the
  /// contact force that changed the object's momentum (zero without contact or a free root).
  Eigen::Vector3d root_contact_force = Eigen::Vector3d::Zero();

  std::vector<AppliedForce> forces;  ///< applied for the following steps
  /// The kinematic colliders touching this object (contact/reduced_contact.h: add_collider), at
  /// `time`; a step carries them along their velocities.
  ColliderSet colliders;
  RuntimeSettings settings;          ///< this object's settings (from the model's defaults)
  std::uint64_t model_identity = 0;  ///< Model::identity of the model make_state made it for
};

/// A State for `model` at rest in its rest placement, with the model's settings and room for
/// `force_capacity` applied forces and `collider_capacity` colliders (at most kMaxColliders).
/// Allocates; call initialize() (step.h) before stepping when the state is changed afterwards.
State make_state(const Model& model, int force_capacity = 16, int collider_capacity = 8);

/// Puts `state` back at rest without allocating: time 0, q = q̇ = q̈ = 0, no integrator history,
/// split modes and tracked energies cleared, every frame at its rest placement (a free root at
/// rest, without momentum), no applied forces; its settings and colliders are kept. Call
/// initialize() (step.h) after it.
void reset_state(const Model& model, State& state) noexcept;

/// Sizes the integrator memory of `state` for its settings (the split modes of domains whose
/// integrator uses them, r by min(s, r)); keeps what already fits. make_state calls it; call it
/// again after changing state.settings to a split integrator or another s. Allocates.
void prepare_integrator_memory(const Model& model, State& state);

/// True when the integrator memory of `state` fits its settings (the step checks this).
bool integrator_memory_fits(const Model& model, const State& state) noexcept;
/// True when `state` was made for `model` (make_state) and still has its sizes: what every call
/// that reads both checks before touching memory (a State of another model is kWrongModel).
bool state_fits(const Model& model, const State& state) noexcept;

/// Bytes of heap memory a State of `model` holds (its vectors and matrices, per-domain settings,
/// the reserved forces and its colliders' slots).
std::size_t state_bytes(const Model& model, const State& state);
/// Domain i's share of state_bytes: its q, q̇, q̈ and history (5 r doubles), frames, relative
/// kinematics, energies, split modes and settings.
std::size_t domain_state_bytes(const Model& model, const State& state, int i);

/// Views of domain i's coordinates, velocities and accelerations (r each).
inline Eigen::VectorBlock<Eigen::VectorXd> domain_q(const Model& m, State& s, int i) {
  const Domain& n = m.domains[static_cast<std::size_t>(i)];
  return s.q.segment(n.dof_offset, n.r);
}
inline Eigen::VectorBlock<const Eigen::VectorXd> domain_q(const Model& m, const State& s, int i) {
  const Domain& n = m.domains[static_cast<std::size_t>(i)];
  return s.q.segment(n.dof_offset, n.r);
}
inline Eigen::VectorBlock<const Eigen::VectorXd> domain_qdot(const Model& m, const State& s,
                                                             int i) {
  const Domain& n = m.domains[static_cast<std::size_t>(i)];
  return s.qdot.segment(n.dof_offset, n.r);
}
inline Eigen::VectorBlock<const Eigen::VectorXd> domain_qddot(const Model& m, const State& s,
                                                              int i) {
  const Domain& n = m.domains[static_cast<std::size_t>(i)];
  return s.qddot.segment(n.dof_offset, n.r);
}
/// Part p's coordinates as an r by n matrix (column k = domain Part::domains[k]).
inline Eigen::Map<const Eigen::MatrixXd> part_q(const Model& m, const State& s, int p) {
  const Part& proto = m.parts[static_cast<std::size_t>(p)];
  return {s.q.data() + proto.dof_offset, proto.r, static_cast<Eigen::Index>(proto.domains.size())};
}

}  // namespace ramus
