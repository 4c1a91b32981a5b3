// Full-space reference simulator (the ground truth for reduced models): backward Euler and
// implicit Newmark, each step written as a minimization (for backward Euler:
// E(x) = |x - x^n - h v^n|^2_M / (2 h^2) + Phi(x) - f^T x, plus lagged Rayleigh damping) and
// solved by NewtonMinimizer to tolerance; and the static equilibrium min Phi(x) - f^T x.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <limits>
#include <memory>

#include "ramus/precompute/contact/step_contact.h"
#include "ramus/precompute/fem/dof_map.h"
#include "ramus/precompute/fem/newton_minimizer.h"
#include "ramus/precompute/fem/stvk_fem_model.h"

namespace ramus {

/// Positions, velocities and accelerations of every vertex (flat 3#V vectors), and the time.
struct FullSpaceState {
  Eigen::VectorXd positions;
  Eigen::VectorXd velocities;
  Eigen::VectorXd accelerations;  ///< used by Newmark; backward Euler keeps it up to date
  double time = 0;
  /// x_{n-1} and v_{n-1} for BDF2 (empty: its first step is backward Euler); kept by its steps.
  Eigen::VectorXd previous_positions, previous_velocities;
  /// The energy-tracking midpoint's tracked total energy H_total, and H at the end of its last
  /// step (J); NaN before its first step.
  double energy_target = std::numeric_limits<double>::quiet_NaN();
  double energy_at_end = std::numeric_limits<double>::quiet_NaN();
};

struct FullSpaceOptions {
  double time_step = 0.01;                            ///< h, seconds
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< m/s^2
  double rayleigh_mass = 0;       ///< alpha in the damping force -(alpha M + beta K) v, 1/s
  double rayleigh_stiffness = 0;  ///< beta, s (K lagged at x^n and made PSD, as in §4.2)
  double force_tolerance = 0;     ///< Newton stops at max |net force| <= this (N); 0: automatic
  NewtonOptions newton;           ///< its gradient_tolerance is replaced by force_tolerance
  ContactOptions contact;         ///< kinematic colliders and friction (none by default)
};

class FullSpaceSimulator {
 public:
  /// `model` must outlive the simulator. `dofs` says which vertices are fixed.
  FullSpaceSimulator(const StvkFemModel& model, DofMap dofs, FullSpaceOptions options);
  ~FullSpaceSimulator();

  const StvkFemModel& model() const { return model_; }
  const DofMap& dofs() const { return dofs_; }
  const FullSpaceOptions& options() const { return options_; }
  /// The Newton tolerance in force units (N) actually used (automatic: the force that a strain
  /// of 1e-10 produces on an average element).
  double gradient_tolerance() const { return newton_.gradient_tolerance; }

  /// What contact did in the last step (zeros and an infinite distance without colliders).
  const ContactStatistics& contact_statistics() const { return contact_.statistics(); }
  /// The colliders as the run has them now (their barrier stiffness adapted).
  const std::vector<ColliderContact>& colliders() const { return contact_.potential().colliders(); }
  /// The mesh's self-collision penalty (disabled unless options().contact asks for it).
  const SelfCollisionPenalty& self_collision() const { return contact_.self_collision(); }

  /// Rest positions, zero velocities, t = 0.
  FullSpaceState rest_state() const;

  /// One backward-Euler step of length options().time_step under gravity and the given extra
  /// external forces (3#V, or empty for none). Fixed vertices keep their positions.
  NewtonReport step_backward_euler(FullSpaceState& state,
                                   const Eigen::VectorXd& external_forces = {});

  /// One BDF2 step (its friction the smoothed one: OptionError with FrictionModel::kAfterSolve),
  /// (3 x_{n+1} - 4 x_n + x_{n-1}) / 2h = v_{n+1} and likewise for v, written as
  /// a minimization: E(y) = (9 / 8h²) |y - y_hat|²_M + Phi(y) - f.y (plus damping), y_hat =
  /// (4 x_n - x_{n-1}) / 3 + (2h / 9)(4 v_n - v_{n-1}). Without a previous state, backward Euler.
  NewtonReport step_bdf2(FullSpaceState& state, const Eigen::VectorXd& external_forces = {});

  /// One implicit Newmark step (default: the trapezoidal rule beta = 1/4, gamma = 1/2), solved
  /// to tolerance; needs state.accelerations (see initialize_acceleration).
  NewtonReport step_newmark(FullSpaceState& state, const Eigen::VectorXd& external_forces = {},
                            double beta = 0.25, double gamma = 0.5);

  /// One step of the energy-tracking midpoint (stabilizing-integrators paper §4, Eq. 20-24,
  /// Algorithm 1): implicit midpoint as a half-step minimization, u_1 = 2 u_½ - u_0; when it
  /// gained energy beyond `energy_tolerance` (relative) over the tracked H_total, blended toward
  /// backward Euler, when it lost too much, toward forward Euler. H_total follows the forces'
  /// changes between steps (H_added) less Rayleigh damping and friction (H_diss).
  NewtonReport step_energy_tracking_midpoint(FullSpaceState& state,
                                             const Eigen::VectorXd& external_forces = {},
                                             double energy_tolerance = 0.01);

  /// H = ½ vᵀ M v + Phi(x) - fᵀ (x - X) + the contact potential (colliders at their last step's
  /// time, friction excluded) in J, f = gravity plus `external_forces` (3#V or empty).
  double total_energy(const FullSpaceState& state,
                      const Eigen::VectorXd& external_forces = {}) const;

  /// Sets state.accelerations from the equation of motion M a = f - f_el(x) - C v.
  void initialize_acceleration(FullSpaceState& state, const Eigen::VectorXd& external_forces = {});

  /// Static equilibrium under gravity and external forces, starting from `positions` (3#V).
  NewtonReport solve_static(Eigen::VectorXd& positions,
                            const Eigen::VectorXd& external_forces = {});

 private:
  struct Objectives;
  const StvkFemModel& model_;
  DofMap dofs_;
  FullSpaceOptions options_;
  NewtonOptions newton_;
  NewtonMinimizer minimizer_;
  StepContact contact_;
  std::unique_ptr<Objectives> objectives_;
  /// OptionError when friction acts after the solve (backward Euler's alone): collider friction
  /// with FrictionModel::kAfterSolve, or self-collision friction.
  void require_smoothed_friction(const char* method) const;
  /// H's terms at positions x and velocities v (3#V) under forces f (J): T, Phi, fᵀ (x - X) and
  /// the contact potential (colliders at the contact's current time).
  struct EnergyTerms {
    double kinetic = 0, elastic = 0, work = 0, contact = 0;
    double total() const { return kinetic + elastic - work + contact; }
    double scale() const { return kinetic + std::abs(elastic) + std::abs(work) + contact; }
  };
  EnergyTerms energy_terms(const Eigen::VectorXd& x, const Eigen::VectorXd& v,
                           const Eigen::VectorXd& forces) const;
  /// Gravity plus the external forces (3#V or empty: none), N per vertex coordinate.
  Eigen::VectorXd step_forces(const Eigen::VectorXd& external_forces) const;
  /// One implicit stage's terms: E(y) = c_m |y - y_hat|²_M / 2 + ... (see the objective), with
  /// the colliders at `time_next` and friction over a stage of length `step` (s).
  struct ImplicitStage {
    Eigen::VectorXd y_hat, v_tilde;  // free DOFs
    double mass_coefficient = 0, damping_coefficient = 0, time_next = 0, step = 0;
  };
  /// Minimizes the stage's objective from the better of two guesses (free DOFs) into y.
  NewtonReport solve_stage(const FullSpaceState& state, const Eigen::VectorXd& forces,
                           const ImplicitStage& stage, const Eigen::VectorXd& first_guess,
                           const Eigen::VectorXd& second_guess, Eigen::VectorXd& y);
  /// C v for the Rayleigh damping C of the last stage, lagged at its x_n (N; v free DOFs, m/s).
  Eigen::VectorXd damping_force(const Eigen::VectorXd& v) const;
  /// M⁻¹ rhs over the free DOFs (the consistent mass, factored once).
  Eigen::VectorXd solve_mass(const Eigen::VectorXd& rhs) const;
  /// The better of the starting guesses (the lower finite energy), or x_n made feasible.
  Eigen::VectorXd best_start(MinimizationObjective& objective, const Eigen::VectorXd& first,
                             const Eigen::VectorXd& second, const FullSpaceState& state) const;
};

}  // namespace ramus
