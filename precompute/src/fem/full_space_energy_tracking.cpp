// The energy-tracking midpoint of stabilizing-integrators-real-time.txt §4 in the full space:
// implicit midpoint as a backward-Euler half step (x_½ minimizes
// (2/h²)|x - x_0 - (h/2) v_0|²_M + Phi(x) - f.x + contact, then u_1 = 2 u_½ - u_0), blended with
// backward Euler when it gained energy over the tracked total, or with forward Euler when it lost
// too much (Eq. 20-24). H_total (Algorithm 1) gains what changed between steps (new forces: its
// H_added) and loses Rayleigh damping and friction (its H_diss).
//
// Unlike the paper, whose collision springs are inserted per frame and kept out of H, the
// contact here is a potential of x: it is part of H, so an elastic bounce conserves H.
#include <cmath>
#include <limits>

#include "energy_blend.h"
#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_simulator.h"

namespace ramus {

NewtonReport FullSpaceSimulator::step_energy_tracking_midpoint(
    FullSpaceState& state, const Eigen::VectorXd& external_forces, double energy_tolerance) {
  if (!(energy_tolerance > 0) || !(energy_tolerance <= 1))
    throw OptionError("energy-tracking midpoint: energy tolerance must be in (0, 1], got " +
                      std::to_string(energy_tolerance));
  if (contact_.has_constraints())
    throw OptionError(
        "energy-tracking midpoint: constraint colliders need an integrator whose end is a "
        "minimizer (be, bdf2, newmark); u_1 = 2 u_1/2 - u_0 would leave their surfaces");
  const double h = options_.time_step;
  const Eigen::VectorXd forces = step_forces(external_forces);
  const Motion start{state.positions, state.velocities, state.positions};
  const Eigen::VectorXd y_0 = dofs_.restrict_to_free(start.x);
  const Eigen::VectorXd w_0 = dofs_.restrict_to_free(start.v);
  const auto to_full = [&](const Eigen::VectorXd& y, const Eigen::VectorXd& w,
                           const Eigen::VectorXd& forces_at) {
    Motion m{start.x, Eigen::VectorXd::Zero(start.v.size()), forces_at};
    dofs_.scatter_free(y, m.x);
    dofs_.scatter_free(w, m.v);
    return m;
  };

  // H at the start, the colliders where the last step left them; H_total plus H_added.
  if (!contact_.empty()) contact_.set_time(state.time);
  const EnergyTerms start_energy = energy_terms(start.x, start.v, forces);
  double target = start_energy.total();
  if (std::isfinite(state.energy_target) && std::isfinite(state.energy_at_end))
    target = state.energy_target + (start_energy.total() - state.energy_at_end);

  // Implicit midpoint: the half step to x_½, then u_IM = 2 u_½ - u_0.
  Eigen::VectorXd y_half;
  NewtonReport report = solve_stage(
      state, forces, {y_0 + 0.5 * h * w_0, w_0, 4 / (h * h), 2 / h, state.time + h / 2, h / 2},
      y_0 + 0.5 * h * w_0, y_0, y_half);
  const Eigen::VectorXd w_half = (y_half - y_0) / (h / 2);
  // H_diss of the step: Rayleigh damping h v_½ᵀ C v_½, and the smoothed friction's work at v_½.
  target -= h * w_half.dot(damping_force(w_half));
  Eigen::VectorXd x_half = start.x;
  dofs_.scatter_free(y_half, x_half);
  if (!contact_.empty()) target -= contact_.friction_work(x_half, h);
  const Motion midpoint = to_full(2 * y_half - y_0, 2 * w_half - w_0, x_half);

  // The end's energies with the colliders at t + h; the tolerance is relative to the larger
  // energy scale of the two ends (from rest, the start's is 0).
  if (!contact_.empty()) contact_.set_time(state.time + h);
  const auto energy_error = [&](const Motion& m) {
    return energy_terms(m.x, m.v, forces).total() - target;
  };
  const EnergyTerms midpoint_energy = energy_terms(midpoint.x, midpoint.v, forces);
  // u_IM extrapolates past x_½: a vertex it brings within a tenth of its distance to a barrier
  // (the line search's margin) would start the next step pinned there; such an end counts as
  // having too much energy, and the blend takes backward Euler's side.
  const bool midpoint_clear =
      contact_.empty() || contact_.largest_feasible_step(x_half, midpoint.x - x_half, 1.0) >= 1.0;
  const double midpoint_error =
      midpoint_clear ? midpoint_energy.total() - target : std::numeric_limits<double>::infinity();
  const double scale = std::isfinite(midpoint_energy.scale())
                           ? std::max(start_energy.scale(), midpoint_energy.scale())
                           : start_energy.scale();
  const double tolerance = energy_tolerance * scale;

  // The blend of `from` (feasible) toward `to` as far as no vertex comes within a tenth of its
  // distance to a barrier: the blends stay where the next step can start.
  const auto feasible_toward = [&](const Motion& from, const Motion& to) {
    const double alpha =
        contact_.empty() ? 1.0 : contact_.largest_feasible_step(from.x, to.x - from.x, 1.0);
    return mix(from, to, alpha);
  };
  Motion end = midpoint;
  bool backward_euler_ran = false;
  if (!(midpoint_error <= tolerance)) {
    // Too much energy (or past a barrier): backward Euler from u_0, guessed at u_IM; blend
    // IM (α = 0) to BE (α = 1).
    Eigen::VectorXd y_euler;
    const NewtonReport euler =
        solve_stage(state, forces, {y_0 + h * w_0, w_0, 1 / (h * h), 1 / h, state.time + h, h},
                    dofs_.restrict_to_free(midpoint.x), y_0 + h * w_0, y_euler);
    backward_euler_ran = true;
    report.iterations += euler.iterations;
    report.objective_evaluations += euler.objective_evaluations;
    report.projected_hessians += euler.projected_hessians;
    report.converged = report.converged && euler.converged;
    Motion euler_end = to_full(y_euler, (y_euler - y_0) / h, start.x);
    euler_end.forces_at = euler_end.x;
    const Motion nearest = feasible_toward(euler_end, midpoint);
    end = energy_error(euler_end) >= 0 ? euler_end
          : energy_error(nearest) <= tolerance
              ? nearest
              : bisect_blend(nearest, euler_end, tolerance, energy_error);
  } else if (midpoint_error < -tolerance) {
    // Too little: forward Euler with the forces at u_0 (colliders at t); blend FE (α = 0) to IM.
    if (!contact_.empty()) contact_.set_time(state.time);
    Eigen::VectorXd gradient = Eigen::VectorXd::Zero(start.x.size());
    model_.add_elastic_energy_gradient(start.x, gradient);
    if (!contact_.empty()) contact_.add_potential_gradient(start.x, gradient);
    if (!contact_.empty()) contact_.set_time(state.time + h);
    const Eigen::VectorXd acceleration =
        solve_mass(dofs_.restrict_to_free(forces - gradient) - damping_force(w_0));
    const Motion forward =
        feasible_toward(midpoint, to_full(y_0 + h * w_0, w_0 + h * acceleration, start.x));
    end = energy_error(forward) > 0 ? bisect_blend(forward, midpoint, tolerance, energy_error)
                                    : forward;
  }

  // Statistics over the whole step, then friction after the solve, capped by the contact force
  // that acted over the step (its work is H_diss too).
  if (!contact_.empty()) {
    if (!backward_euler_ran) contact_.begin_step(start.x, state.time + h, h);
    const double smoothed_work = contact_.end_step(end.x).friction_work;
    contact_.apply_friction_after_solve(end.forces_at, end.v);
    target -= contact_.statistics().friction_work - smoothed_work;
  }
  for (int v : dofs_.fixed_vertices()) end.v.segment<3>(3 * v).setZero();
  state.accelerations = (end.v - start.v) / h;
  state.positions = std::move(end.x);
  state.velocities = std::move(end.v);
  state.time += h;
  state.energy_target = target;
  state.energy_at_end = energy_terms(state.positions, state.velocities, forces).total();
  return report;
}

}  // namespace ramus
