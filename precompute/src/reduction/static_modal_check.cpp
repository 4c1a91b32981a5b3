#include "ramus/precompute/reduction/static_modal_check.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/reduction/lumping_experiment.h"
#include "ramus/precompute/reduction/modal_analysis.h"
#include "ramus/precompute/reduction/reduced_vs_full.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"

namespace ramus {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The full FEM to compare with: the undivided mesh, or one domain's part at its placed scale.
StvkFemModel reference_model(const ReducedModel& model, std::vector<int>& fixed) {
  if (model.domains.size() == 1 && model.domains.front().scale != 1) {
    const ReducedPart& part = part_of(model, 0);
    fixed.assign(part.fixed_vertices.data(),
                 part.fixed_vertices.data() + part.fixed_vertices.size());
    return full_space_model(part, model.domains.front().scale);
  }
  return undivided_full_space_model(model, &fixed);
}

double max_vertex_norm(const Eigen::MatrixX3d& u) {
  return u.rows() > 0 ? u.rowwise().norm().maxCoeff() : 0.0;
}

// The runtime settled under gravity: SI in every domain with Rayleigh alpha = omega, beta =
// 1 / omega (omega the full mesh's lowest circular frequency), so that every mode is at least
// critically damped and all decay at about omega; no wind. Returns the displacements at rest.
Eigen::MatrixX3d settle_reduced(const std::shared_ptr<const Model>& compiled,
                                const StaticModalOptions& options, const Eigen::Vector3d& gravity,
                                double omega, StaticCheck& check) {
  RuntimeSettings settings = options.settings;
  settings.gravity = gravity;
  settings.wind = WindSettings{};
  for (DomainSettings& d : settings.domains) {
    d.integrator = Integrator::kSemiImplicitEuler;
    d.rayleigh_mass = omega;
    d.rayleigh_stiffness = 1 / omega;
  }
  Simulator sim(compiled, settings);
  if (sim.initialize() != StepStatus::kOk)
    throw NumericalError("static check: the reduced run cannot start");
  Eigen::MatrixX3d rest, x, previous;
  sim.global_positions(rest);
  previous = rest;
  // (Critically damped, the slowest mode has decayed by 1e-7 after about 20 / omega.)
  const int max_steps =
      static_cast<int>(std::clamp(200 / (omega * settings.time_step), 1000.0, 200000.0));
  int quiet = 0;
  for (int step = 1; step <= max_steps; ++step) {
    const StepStatus status = sim.step();
    if (status != StepStatus::kOk)
      throw NumericalError("static check: the reduced run failed at step " + std::to_string(step) +
                           ": " + to_string(status));
    sim.global_positions(x);
    const double moved = max_vertex_norm(x - previous), deflection = max_vertex_norm(x - rest);
    quiet = moved <= 1e-7 * deflection ? quiet + 1 : 0;
    previous = x;
    check.settle_steps = step;
    if (quiet == 3) {
      check.settled = true;
      break;
    }
  }
  return x - rest;
}

// The tree's frequency along full mode phi (mass-normalized, circular frequency omega): from rest
// with velocity omega a phi (a: 1e-4 of the object's size, the linear regime), undamped, with
// trapezoidal Newmark at 40 steps a period (or the settings' step if shorter), over 5 periods;
// the zero crossings of phiᵀ M u(t), the rule's period error undone.
double ring_reduced(const std::shared_ptr<const Model>& compiled, const StaticModalOptions& options,
                    const Eigen::VectorXd& phi, const Eigen::VectorXd& mass_phi, double omega,
                    double size) {
  RuntimeSettings settings = options.settings;
  settings.gravity.setZero();
  settings.wind = WindSettings{};
  const double period = 2 * M_PI / omega;
  settings.time_step = std::min(settings.time_step, period / 40);
  settings.newton_iterations = 1;
  for (DomainSettings& d : settings.domains) {
    d.integrator = Integrator::kNewmark;
    d.rayleigh_mass = 0;
    d.rayleigh_stiffness = 0;
  }
  settings.newmark_beta = 0.25;
  settings.newmark_gamma = 0.5;
  Simulator sim(compiled, settings);
  const Eigen::Index V = phi.size() / 3;
  const double amplitude = 1e-4 * size / std::max(1e-300, phi.cwiseAbs().maxCoeff());
  const Eigen::MatrixX3d velocity = (omega * amplitude * phi).reshaped(3, V).transpose();
  if (sim.set_velocity_field(velocity) != StepStatus::kOk)
    throw NumericalError("modal check: the initial state is not finite");
  Eigen::MatrixX3d rest, x;
  sim.global_positions(rest);
  const int steps = static_cast<int>(std::ceil(5 * period / settings.time_step));
  std::vector<double> signal{0.0};
  for (int step = 1; step <= steps; ++step) {
    if (sim.step() != StepStatus::kOk) return std::nan("");
    sim.global_positions(x);
    const Eigen::MatrixX3d u = x - rest;
    signal.push_back(mass_phi.dot(u.transpose().reshaped()));
  }
  // The trapezoidal rule rings at (2 / h) atan(omega h / 2) for omega: undone exactly.
  const double h = settings.time_step, seen = zero_crossing_frequency(signal, h);
  return std::tan(M_PI * seen * h) / (M_PI * h);
}

}  // namespace

FullSpaceReference full_space_reference(const ReducedModel& model,
                                        const StaticModalOptions& options) {
  if (model.domains.empty()) throw OptionError("static check: the model has no domain");
  if (options.num_frequencies < 0 || options.num_frequencies > 20)
    throw OptionError("static check: the number of frequencies must be in [0, 20], not " +
                      std::to_string(options.num_frequencies));
  FullSpaceReference reference;
  if (part_of(model, 0).fixed_vertices.size() == 0) {
    reference.anchored = false;
    return reference;
  }
  const auto start = Clock::now();
  std::vector<int> fixed;
  const StvkFemModel full_model = reference_model(model, fixed);
  const int V = full_model.num_vertices();
  const DofMap dofs(V, fixed);
  reference.gravity =
      options.settings.gravity.isZero(0) ? Eigen::Vector3d(0, 0, -9.81) : options.settings.gravity;
  // The lowest modes (at least one: its frequency sets the settling damping); one domain's own
  // when it has them (the same eigenproblem, solved once).
  const ReducedPart& part = part_of(model, 0);
  const Eigen::Index wanted = std::max(1, options.num_frequencies);
  if (options.one_domain_shortcut && model.domains.size() == 1 &&
      part.linear_mode_eigenvalues.size() >= wanted &&
      part.basis_eigenvalues.size() >= options.num_frequencies) {
    reference.omegas = part.linear_mode_eigenvalues.head(wanted).cwiseMax(0).cwiseSqrt();
    reference.one_domain_omegas = true;
  } else {
    const LinearModes modes = compute_linear_modes(full_model, dofs, static_cast<int>(wanted));
    reference.omegas = modes.eigenvalues.cwiseMax(0).cwiseSqrt();
    reference.modes = modes.modes.leftCols(options.num_frequencies);
    reference.mass_modes = full_model.consistent_mass_matrix() * reference.modes;
  }
  // The static equilibrium: under the load, or where StVK's Newton finds none there (a soft
  // object sagging far), under a tenth of it, and so on down to 1e-3.
  Eigen::VectorXd positions;
  NewtonReport report;
  for (reference.load_scale = 1; reference.load_scale >= 1e-3; reference.load_scale /= 10) {
    FullSpaceOptions full_options;
    full_options.gravity = reference.load_scale * reference.gravity;
    // (From rest a reachable equilibrium takes a handful of iterations: 25 bound a failing one.)
    full_options.newton.max_iterations = 25;
    FullSpaceSimulator full(full_model, dofs, full_options);
    positions = full_model.rest_positions();
    report = full.solve_static(positions);
    if (report.converged && positions.allFinite()) break;
  }
  if (!report.converged || !positions.allFinite())
    throw NumericalError(
        "static check: the full-space static solve did not converge, even at 1e-3 of the load");
  reference.gravity *= reference.load_scale;
  reference.newton_iterations = report.iterations;
  reference.static_displacement =
      (positions - full_model.rest_positions()).reshaped(3, V).transpose();
  const Eigen::MatrixX3d rest = full_model.rest_positions().reshaped(3, V).transpose();
  reference.size = (rest.colwise().maxCoeff() - rest.colwise().minCoeff()).norm();
  reference.seconds = seconds_since(start);
  return reference;
}

StaticModalCheck check_against_reference(const ReducedModel& model,
                                         const FullSpaceReference& reference,
                                         const StaticModalOptions& options) {
  StaticModalCheck result;
  result.anchored = reference.anchored;
  if (!reference.anchored) return result;
  result.full_seconds = reference.seconds;
  StaticCheck& check = result.static_deflection;
  check.gravity = reference.gravity;
  check.load_scale = reference.load_scale;
  check.full_newton_iterations = reference.newton_iterations;
  const Eigen::Index K =
      reference.one_domain_omegas ? options.num_frequencies : reference.modes.cols();
  result.full_hz = reference.omegas.head(K) / (2 * M_PI);
  // Settled, then ringing along each mode (one domain with its own modes: its Ritz values).
  const auto start = Clock::now();
  const std::shared_ptr<const Model> compiled = compile_model(ReducedModel(model));
  const int runs = 1 + static_cast<int>(reference.one_domain_omegas ? 0 : K);
  const Eigen::MatrixX3d u_reduced =
      settle_reduced(compiled, options, check.gravity, reference.omegas(0), check);
  if (options.progress) options.progress(1, runs);
  const Eigen::MatrixX3d& u_full = reference.static_displacement;
  if (u_reduced.rows() != u_full.rows())
    throw OptionError("static check: the reference was made from another mesh");
  check.full_max_displacement = max_vertex_norm(u_full);
  check.reduced_max_displacement = max_vertex_norm(u_reduced);
  check.max_difference = max_vertex_norm(u_reduced - u_full);
  check.relative_error =
      check.full_max_displacement > 0 ? check.max_difference / check.full_max_displacement : 0.0;
  result.reduced_hz.resize(K);
  if (reference.one_domain_omegas) {
    // ω² = eigenvalues of Uᵀ K U (U mass-orthonormal), K scaled by the domain's stiffness_scale.
    const double scale =
        options.settings.domains.empty() ? 1.0 : options.settings.domains.front().stiffness_scale;
    result.reduced_hz =
        (scale * part_of(model, 0).basis_eigenvalues.head(K)).cwiseMax(0).cwiseSqrt() / (2 * M_PI);
    result.reduced_seconds = seconds_since(start);
    return result;
  }
  for (Eigen::Index j = 0; j < K; ++j) {
    result.reduced_hz(j) =
        ring_reduced(compiled, options, reference.modes.col(j), reference.mass_modes.col(j),
                     reference.omegas(j), reference.size);
    if (options.progress) options.progress(2 + static_cast<int>(j), runs);
  }
  result.reduced_seconds = seconds_since(start);
  return result;
}

StaticModalCheck check_static_and_modal(const ReducedModel& model,
                                        const StaticModalOptions& options) {
  return check_against_reference(model, full_space_reference(model, options), options);
}

}  // namespace ramus
