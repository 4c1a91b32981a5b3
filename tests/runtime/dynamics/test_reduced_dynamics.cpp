// The runtime's single-domain reduced simulation against the full-space ground truth.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/reduction/reduced_vs_full.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"
#include "support/reduced_beams.h"
#include "support/split_beams.h"

using namespace ramus;
using Catch::Matchers::Contains;

namespace {

// Static equilibrium of the reduced model, g(q) = G gravity, by Newton with backtracking on
// E(q) - f.q.
Eigen::VectorXd reduced_static_solution(const ReducedPart& domain, const Eigen::Vector3d& g) {
  ReducedStvkForces forces(domain.polynomial);
  const int r = domain.polynomial.r;
  const Eigen::VectorXd f = domain.gravity_basis * g;
  Eigen::VectorXd q = Eigen::VectorXd::Zero(r), gradient(r), trial_gradient(r);
  Eigen::MatrixXd K(r, r), trial_K(r, r);
  for (int it = 0; it < 100; ++it) {
    const double energy = forces.evaluate_energy(q, gradient, K) - f.dot(q);
    const Eigen::VectorXd residual = gradient - f;
    if (residual.norm() < 1e-12 * f.norm()) break;
    Eigen::VectorXd step = K.ldlt().solve(-residual);
    if (step.dot(residual) >= 0) step = -residual;
    double alpha = 1;
    while (alpha > 1e-12 && forces.evaluate_energy(q + alpha * step, trial_gradient, trial_K) -
                                    f.dot(q + alpha * step) >
                                energy)
      alpha *= 0.5;
    q += alpha * step;
  }
  return q;
}

// Tip deflection (z displacement at the far end, averaged over the tip face).
double tip_deflection(const Eigen::MatrixX3d& rest, const Eigen::VectorXd& u, double length) {
  double sum = 0;
  int count = 0;
  for (Eigen::Index v = 0; v < rest.rows(); ++v)
    if (rest(v, 0) == length) {
      sum += u(3 * v + 2);
      ++count;
    }
  return sum / count;
}

}  // namespace

TEST_CASE("Cantilever under gravity: modal derivatives make the reduced statics accurate",
          "[runtime][dynamics]") {
  // E = 1e6 Pa, nu = 0.45, rho = 1000, 1 x 0.2 x 0.2 m: the tip sags ~30 % of the length,
  // far into the nonlinear regime (Euler-Bernoulli's linear estimate is 0.37 m).
  test::BeamSetup beam;
  const Eigen::Vector3d g(0, 0, -9.81);
  const TetMesh mesh = test::beam_mesh(beam);
  const StvkFemModel full_model(mesh, assign_materials(mesh, beam.material));
  FullSpaceOptions options;
  options.gravity = g;
  FullSpaceSimulator full(full_model, DofMap(mesh.num_vertices(), test::clamped_vertices(mesh)),
                          options);
  Eigen::VectorXd x = full_model.rest_positions();
  REQUIRE(full.solve_static(x).converged);
  const double full_tip = tip_deflection(mesh.rest_positions, x - full_model.rest_positions(), 1);
  REQUIRE(full_tip < -0.15);

  auto reduced_tip = [&](const ReductionSpec& reduction) {
    const auto model = test::reduced_beam(beam, reduction);
    const ReducedPart& d = model->parts.front();
    return tip_deflection(d.rest_positions, d.basis * reduced_static_solution(d, g), 1);
  };
  const double with_derivatives = reduced_tip({10, 20, true});
  const double linear_only = reduced_tip({20, 20, false});
  INFO("full " << full_tip << " m, MD basis " << with_derivatives << " m, linear-only "
               << linear_only << " m");
  CHECK(std::abs(with_derivatives - full_tip) < 0.03 * std::abs(full_tip));
  // Linear modes cannot shorten the beam as it bends: visibly worse (too stiff or too soft).
  CHECK(std::abs(linear_only - full_tip) > 3 * std::abs(with_derivatives - full_tip));
  CHECK(std::abs(linear_only - full_tip) > 0.05 * std::abs(full_tip));
}

TEST_CASE("Reduced Newmark follows the full-space Newmark trajectory", "[runtime][dynamics]") {
  test::BeamSetup beam;
  beam.nx = 8;
  beam.ny = beam.nz = 2;
  const auto model = test::reduced_beam(beam, {10, 30, true});
  ComparisonOptions options;
  options.settings.time_step = 0.01;
  options.settings.newton_iterations = 4;  // converged implicit Newmark, like the ground truth
  options.settings.gravity = {0, 0, -9.81};
  options.steps = 60;  // 0.6 s: more than half a period of the first bending mode (~1 Hz)
  const Comparison c = compare_reduced_to_full(model, options);
  REQUIRE(c.frames.size() == 61);
  INFO("relative trajectory error " << c.relative_error << ", max full displacement "
                                    << c.max_full_displacement);
  CHECK(c.max_full_displacement > 0.1);
  CHECK(c.relative_error < 0.05);
  // The semi-implicit default (one Newton iteration) stays close too.
  options.settings.newton_iterations = 1;
  CHECK(compare_reduced_to_full(model, options).relative_error < 0.1);
}

TEST_CASE("Reduced Newmark: undamped energy is nearly conserved, damping dissipates",
          "[runtime][dynamics]") {
  test::BeamSetup beam;
  beam.nx = 8;
  beam.ny = beam.nz = 2;
  const auto model = test::reduced_beam(beam, {6, 12, true});
  const auto compiled = compile_model(*model);
  RuntimeSettings options = compiled->settings;
  options.time_step = 0.005;
  options.gravity.setZero();  // (free vibration)
  options.newton_iterations = 5;
  Simulator simulator(compiled, options);
  DomainState start = simulator.domain_state(0);
  start.qdot(0) = 0.5;
  start.qdot(1) = -0.3;
  simulator.set_domain_state(0, start);
  REQUIRE(simulator.initialize() == StepStatus::kOk);
  const double e0 = simulator.kinetic_energy() + simulator.elastic_energy();
  double drift = 0;
  for (int k = 0; k < 200; ++k) {
    REQUIRE(simulator.step() == StepStatus::kOk);
    drift = std::max(drift,
                     std::abs(simulator.kinetic_energy() + simulator.elastic_energy() - e0) / e0);
  }
  CHECK(drift < 0.01);
  CHECK(simulator.time() == Approx(1.0));

  options.domains[0].rayleigh_mass = 2.0;
  Simulator damped(compiled, options);
  damped.set_domain_state(0, start);
  damped.initialize();
  for (int k = 0; k < 200; ++k) REQUIRE(damped.step() == StepStatus::kOk);
  CHECK(damped.kinetic_energy() + damped.elastic_energy() < 0.2 * e0);
}

TEST_CASE("A part flung beyond ten rest diameters has diverged, whatever max_coordinate says",
          "[runtime][dynamics]") {
  test::BeamSetup beam;
  beam.nx = 4;
  beam.ny = beam.nz = 1;
  const auto model = compile_model(*test::reduced_beam(beam, {3, 4, true}));
  const Part& part = model->parts.front();
  const double diameter =
      (part.rest_positions.colwise().maxCoeff() - part.rest_positions.colwise().minCoeff()).norm();
  CHECK(part.divergence_norm == Approx(kDivergenceDiameters * diameter * std::sqrt(part.mass)));
  State state = make_state(*model);
  state.settings.max_coordinate = 1e300;  // (only the relative test is left)
  Workspace workspace(*model);
  // A load that would carry the beam ~1000 diameters in one step (F h² / m): finite, and far
  // below any absolute bound on q (the old test passed a 1 m beam flung 14.8 km).
  const double h = state.settings.time_step;
  const double force = 1000 * diameter * part.mass / (h * h);
  state.forces = {{0, 4, Eigen::Vector3d(0, 0, force)}};
  CHECK(step(*model, state, workspace) == StepStatus::kDiverged);
  CHECK(state.q.isZero());
  CHECK(state.time == 0);
  // A millionth of it moves the beam by a thousandth of a diameter: an ordinary step.
  state.forces = {{0, 4, Eigen::Vector3d(0, 0, 1e-6 * force)}};
  CHECK(step(*model, state, workspace) == StepStatus::kOk);
}

TEST_CASE("A free root whose frame or momenta are not finite is reported, not stepped",
          "[runtime][dynamics]") {
  const auto model = compile_model(*test::split_beam(4, 8, /*clamped=*/false));
  State state = make_state(*model);
  Workspace workspace(*model);
  REQUIRE(step(*model, state, workspace) == StepStatus::kOk);
  const Eigen::Vector3d origin = state.frame_origin.col(0);
  state.root_angular_momentum.x() = std::numeric_limits<double>::infinity();
  CHECK(step(*model, state, workspace) == StepStatus::kNonFinite);
  CHECK(state.frame_origin.col(0) == origin);
}

TEST_CASE("A non-finite force is reported and leaves the state untouched", "[runtime][dynamics]") {
  test::BeamSetup beam;
  beam.nx = 4;
  beam.ny = beam.nz = 1;
  const auto model = compile_model(*test::reduced_beam(beam, {3, 4, true}));
  // The raw API: a State whose forces bypass the checked setter.
  State state = make_state(*model);
  Workspace workspace(*model);
  REQUIRE(step(*model, state, workspace) == StepStatus::kOk);
  const Eigen::VectorXd q = state.q;
  const double time = state.time;
  state.forces.push_back({0, 4, Eigen::Vector3d(std::numeric_limits<double>::quiet_NaN(), 0, 0)});
  CHECK(step(*model, state, workspace) == StepStatus::kNonFinite);
  CHECK(state.q == q);
  CHECK(state.time == time);
  state.forces = {{0, 4, Eigen::Vector3d(1e16, 0, 0)}};
  CHECK(step(*model, state, workspace) == StepStatus::kDiverged);
  CHECK(state.q == q);
  state.forces.clear();
  CHECK(step(*model, state, workspace) == StepStatus::kOk);
  // A split integrator switched on without its memory (prepare_integrator_memory) is refused,
  // then steps; memory a domain's integrator does not read is not checked.
  const Integrator before = state.settings.domains[0].integrator;
  state.settings.domains[0].integrator = Integrator::kSiere;
  CHECK(step(*model, state, workspace) == StepStatus::kInvalidSettings);
  CHECK(state.time == time + state.settings.time_step);
  prepare_integrator_memory(*model, state);
  CHECK(step(*model, state, workspace) == StepStatus::kOk);
  state.settings.domains[0].integrator = before;
  CHECK(step(*model, state, workspace) == StepStatus::kOk);
  // Settings a step cannot use are reported, not thrown.
  state.settings.time_step = -1;
  CHECK(step(*model, state, workspace) == StepStatus::kInvalidSettings);
  // The checked API refuses them up front.
  Simulator simulator(model);
  CHECK_THROWS_AS(simulator.add_vertex_force(0, 10000, Eigen::Vector3d::Zero()), OptionError);
  CHECK_THROWS_AS(simulator.add_vertex_force(
                      0, 4, Eigen::Vector3d(std::numeric_limits<double>::quiet_NaN(), 0, 0)),
                  OptionError);
  CHECK_THROWS_AS(simulator.add_vertex_force(1, 0, Eigen::Vector3d::Zero()), OptionError);
  RuntimeSettings bad = model->settings;
  bad.time_step = 0;
  CHECK_THROWS_WITH(Simulator(model, bad), Contains("time_step: must lie in (0, 1] s, got 0"));
}
