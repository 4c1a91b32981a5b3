// Real-time simulation of one reduced domain: implicit Newmark on the reduced coordinates q,
//   M_red q'' + (alpha M_red + beta K(q)) q' + g(q) = Uᵀ f_ext + G gravity,
// with M_red = I (mass-orthonormal basis), g and K from the exact reduced StVK polynomial.
// step() allocates nothing and never throws; problems come back as a StepStatus.
#pragma once

#include <Eigen/Core>
#include <Eigen/Dense>
#include <memory>
#include <utility>
#include <vector>

#include "ramus/runtime/reduced_model.h"
#include "ramus/runtime/reduced_stvk_polynomial.h"

namespace ramus {

/// Options of the implicit Newmark integrator (defaults: the trapezoidal rule, one Newton
/// iteration per step, as the substructuring paper's semi-implicit Newmark).
struct NewmarkOptions {
  double time_step = 1.0 / 60.0;  ///< h (s)
  double beta = 0.25;             ///< Newmark beta
  double gamma = 0.5;             ///< Newmark gamma
  int newton_iterations = 1;      ///< 1: semi-implicit (linearized at q_n); more: fully implicit
  double newton_tolerance = 0;    ///< stop early when |residual| <= this (0: run all iterations)
  double rayleigh_mass = 0;       ///< alpha (1/s)
  double rayleigh_stiffness = 0;  ///< beta (s), with the tangent stiffness K(q)
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< m/s^2
  double max_coordinate = 1e6;                        ///< |q|_inf beyond this counts as divergence
};

/// Outcome of one step. On anything but kOk the state is left as it was before the step.
enum class StepStatus { kOk, kNonFinite, kDiverged };

/// The readable name of a status ("ok", "non-finite state", "diverged").
const char* to_string(StepStatus status);

/// Reduced coordinates, velocities and accelerations (each r) and the time.
struct ReducedState {
  Eigen::VectorXd q, qdot, qddot;
  double time = 0;
};

class ReducedSimulator {
 public:
  /// Simulates domain `domain_index` of `model` (shared, immutable). Throws OptionError for
  /// invalid options. Allocates every buffer the step needs.
  ReducedSimulator(std::shared_ptr<const ReducedModel> model, int domain_index,
                   NewmarkOptions options);

  const ReducedDomain& domain() const { return *domain_; }
  const NewmarkOptions& options() const { return options_; }
  int r() const { return r_; }
  const ReducedState& state() const { return state_; }
  /// Replaces the state (sizes must be r; throws OptionError otherwise).
  void set_state(const ReducedState& state);

  /// Adds a constant force (N) at a mesh vertex for the following steps (may allocate: call it
  /// outside the real-time loop, or reserve with reserve_vertex_forces).
  void add_vertex_force(int vertex, const Eigen::Vector3d& force);
  void clear_vertex_forces();
  void reserve_vertex_forces(int count);
  /// Scales the reduced internal forces (frequency scaling: frequencies scale by sqrt(s)).
  void set_stiffness_scale(double scale) { stiffness_scale_ = scale; }

  /// Accelerations consistent with the current q, qdot and forces: solves the equation of
  /// motion for q'' (call once at the start for a state not at rest).
  StepStatus initialize_acceleration();
  /// Advances by one time step. Allocates nothing, never throws.
  StepStatus step() noexcept;

  /// Reduced external force Uᵀ f_ext + G gravity (r) used by the last step.
  const Eigen::VectorXd& reduced_external_force() const { return external_; }
  /// Elastic energy E(q), kinetic energy qdotᵀ qdot / 2 (J); allocation-free.
  double elastic_energy() const noexcept;
  double kinetic_energy() const { return 0.5 * state_.qdot.squaredNorm(); }

  /// Displacements u = U q of all vertices (#V by 3; resized if needed, else no allocation).
  void displacements(Eigen::MatrixX3d& displacements) const;
  /// Deformed positions X + U q of all vertices (#V by 3).
  void positions(Eigen::MatrixX3d& positions) const;
  /// Deformed positions of the given vertices only (#S by 3), e.g. the surface's.
  void positions(const Eigen::VectorXi& vertices, Eigen::MatrixX3d& positions) const;

 private:
  void assemble_external_force() noexcept;
  void evaluate_forces(const Eigen::VectorXd& q) noexcept;

  std::shared_ptr<const ReducedModel> model_;
  const ReducedDomain* domain_ = nullptr;
  NewmarkOptions options_;
  int r_ = 0;
  double stiffness_scale_ = 1.0;
  mutable ReducedStvkForces forces_;  // scratch only: const queries evaluate through it
  ReducedState state_, trial_;
  std::vector<std::pair<int, Eigen::Vector3d>> vertex_forces_;
  Eigen::VectorXd gravity_force_, external_, gradient_, residual_, delta_, velocity_;
  Eigen::MatrixXd stiffness_, jacobian_, factor_;
  Eigen::LDLT<Eigen::MatrixXd> solver_;
  mutable Eigen::VectorXd flat_displacements_, energy_gradient_;
  mutable Eigen::MatrixXd energy_hessian_;
};

}  // namespace ramus
