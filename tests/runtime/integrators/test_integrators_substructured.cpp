// The integrator family on nonlinear reduced StVK beams, alone and inside the substructured step
// (non-inertial frames, system and interface forces, free roots): orders by step halving, the
// same static state as Newmark, allocation-free steps, the energy-tracking blend's energy.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/reduced_beams.h"
#include "support/split_beams.h"

using namespace ramus;

namespace {

const Eigen::Vector3d kGravity(0, 0, -9.81);

std::vector<Integrator> all_integrators() {
  std::vector<Integrator> all;
  for (int i = 1; i <= kNumIntegrators; ++i) all.push_back(static_cast<Integrator>(i));
  return all;
}

std::unique_ptr<Simulator> make_simulator(const std::shared_ptr<const Model>& model, double h,
                                          const Eigen::Vector3d& gravity,
                                          const DomainSettings& domain,
                                          InterfaceLumping lumping = InterfaceLumping::kInterface) {
  RuntimeSettings settings;
  settings.time_step = h;
  settings.gravity = gravity;
  settings.lumping = lumping;
  settings.domains.assign(static_cast<std::size_t>(model->num_domains()), domain);
  return std::make_unique<Simulator>(model, settings);
}

DomainSettings domain_with(Integrator integrator, double alpha = 0, double beta = 0) {
  DomainSettings domain;
  domain.integrator = integrator;
  domain.rayleigh_mass = alpha;
  domain.rayleigh_stiffness = beta;
  domain.split_modes = 3;
  return domain;
}

// The clamped one-domain beam (r = 10) released from a large deflection, no gravity.
std::shared_ptr<const Model> released_beam(Eigen::VectorXd& q0) {
  test::BeamSetup beam;
  beam.nx = 8;
  beam.ny = beam.nz = 2;
  const auto data = test::reduced_beam(beam, {5, 10, true});
  const auto model = compile_model(*data);
  // The static deflection under 2 g, which the beam then swings about without it.
  auto sim = make_simulator(model, 0.01, 2 * kGravity, domain_with(Integrator::kBackwardEuler, 20));
  for (int k = 0; k < 400; ++k) REQUIRE(sim->step() == StepStatus::kOk);
  q0 = sim->domain_state(0).q;
  return model;
}

}  // namespace

TEST_CASE("Order of accuracy on the nonlinear reduced beam, by step halving",
          "[runtime][integrators]") {
  Eigen::VectorXd q0;
  const auto model = released_beam(q0);
  const int r = model->domains[0].r;
  for (Integrator integrator : all_integrators()) {
    const bool first_order =
        integrator == Integrator::kBackwardEuler || integrator == Integrator::kSemiImplicitEuler ||
        integrator == Integrator::kSiere || integrator == Integrator::kSbdf2Ere ||
        integrator == Integrator::kStrSbdf2Ere;
    const double expected = first_order ? 1 : 2;
    // BDF2 reaches its asymptotic regime later: its error constant on the stiff modal-derivative
    // modes (ω h >> 1 at these steps) is larger than the DIRK methods'.
    const bool is_bdf2 =
        integrator == Integrator::kBdf2 || integrator == Integrator::kSemiImplicitBdf2;
    const double duration = 0.2;
    Eigen::VectorXd ends[3];
    for (int level = 0; level < 3; ++level) {
      const int steps = (first_order ? 400 : (is_bdf2 ? 800 : 200)) << level;
      auto sim = make_simulator(model, duration / steps, Eigen::Vector3d::Zero(),
                                domain_with(integrator, 0, 1e-4));
      RuntimeSettings settings = sim->settings();
      settings.implicit_tolerance = 1e-14;
      settings.implicit_iterations = 50;
      settings.newton_iterations = integrator == Integrator::kNewmark ? 20 : 1;
      sim->set_settings(settings);
      sim->set_domain_state(0, {q0, Eigen::VectorXd::Zero(r), Eigen::VectorXd::Zero(r)});
      REQUIRE(sim->initialize() == StepStatus::kOk);
      for (int k = 0; k < steps; ++k) REQUIRE(sim->step() == StepStatus::kOk);
      ends[level] = sim->domain_state(0).q;
    }
    const double order = std::log2((ends[0] - ends[1]).norm() / (ends[1] - ends[2]).norm());
    INFO(to_string(integrator) << ": differences " << (ends[0] - ends[1]).norm() << ", "
                               << (ends[1] - ends[2]).norm() << " of |q| " << ends[2].norm()
                               << "; order " << order);
    // ERE with the exact Jacobian (the damping's dK/dq term aside) is second order.
    if (integrator == Integrator::kExponentialRosenbrockEuler)
      CHECK(order > 1.8);
    else
      CHECK(order == Approx(expected).margin(0.25));
  }
}

TEST_CASE("Every integrator inside a 2-domain model brings a pinned beam to Newmark's rest state",
          "[runtime][integrators]") {
  const auto model = compile_model(*test::split_beam(2, 12));
  const auto settle = [&](Integrator integrator) {
    // Rayleigh α 12: about critical for the lowest mode; light β against the stiff modes.
    auto sim = make_simulator(model, 0.01, kGravity, domain_with(integrator, 12, 1e-3),
                              InterfaceLumping::kCenterOfMass);
    for (int k = 0; k < 600; ++k) REQUIRE(sim->step() == StepStatus::kOk);
    return sim;
  };
  const auto reference = settle(Integrator::kNewmark);
  for (Integrator integrator : all_integrators()) {
    // SBDF2ERE as the survey defines it (Eq. 22) amplifies undamped split modes (see the test of
    // that in test_integrator_accuracy.cpp); here the frames' coupling feeds them and it does not
    // settle.
    if (integrator == Integrator::kSbdf2Ere) continue;
    const auto sim = settle(integrator);
    for (int d = 0; d < 2; ++d) {
      const Eigen::VectorXd q = reference->domain_state(d).q;
      INFO(to_string(integrator) << ", domain " << d << ": |q - q_newmark| "
                                 << (sim->domain_state(d).q - q).norm() << " of " << q.norm()
                                 << ", |q̇| " << sim->domain_state(d).qdot.norm());
      CHECK((sim->domain_state(d).q - q).norm() < 1e-6 * q.norm());
      CHECK(sim->domain_state(d).qdot.norm() < 1e-6 * q.norm());
    }
  }
}

TEST_CASE("Every integrator steps a free-flying 4-domain beam without allocating",
          "[runtime][integrators]") {
  const auto model = compile_model(*test::split_beam(4, 8, /*clamped=*/false));
  for (Integrator integrator : all_integrators()) {
    DomainSettings domain = domain_with(integrator, 0, 1e-3);
    domain.momentum_damping = 0.05;  // (im-blend's)
    domain.split_refresh_steps = 5;  // (the split methods' kept, tracked and refreshed modes)
    auto sim = make_simulator(model, 0.005, Eigen::Vector3d::Zero(), domain,
                              InterfaceLumping::kRigidSubtree);
    sim->set_root_motion(sim->frame(0).origin, Eigen::Matrix3d::Identity(),
                         Eigen::Vector3d(0.3, -0.2, 0.1), Eigen::Vector3d(0.5, 1.0, 0.2));
    REQUIRE(sim->initialize() == StepStatus::kOk);
    const Eigen::Vector3d l0 = sim->root_angular_momentum();
    sim->reserve_vertex_forces(2);
    sim->add_vertex_force(3, 0, Eigen::Vector3d(0, 0, 0.5));
    REQUIRE(sim->step() == StepStatus::kOk);
    StepStatus status = StepStatus::kOk;
    const long allocations = test::count_allocations([&] {
      for (int k = 0; k < 20; ++k)
        if (const StepStatus s = sim->step(); s != StepStatus::kOk) status = s;
    });
    INFO(to_string(integrator) << ": " << to_string(status));
    CHECK(status == StepStatus::kOk);
    CHECK(allocations == 0);
    CHECK(sim->state().q.allFinite());
    double max_q = 0;
    for (int d = 0; d < sim->num_domains(); ++d)
      max_q = std::max(max_q, sim->domain_state(d).q.norm());
    CHECK(max_q > 1e-6);  // it deforms (spin, pull)
    CHECK(max_q < 1e-1);  // and stays bounded
    CHECK((sim->root_angular_momentum() - l0).norm() < 0.1 * l0.norm());
  }
}

TEST_CASE("Energy-tracking blend keeps an undamped beam's energy where BE loses most of it",
          "[runtime][integrators]") {
  Eigen::VectorXd q0;
  const auto model = released_beam(q0);
  const int r = model->domains[0].r;
  const auto energy_over = [&](Integrator integrator, int steps, double* worst_deviation) {
    auto sim = make_simulator(model, 1.0 / 60.0, Eigen::Vector3d::Zero(), domain_with(integrator));
    sim->set_domain_state(0, {q0, Eigen::VectorXd::Zero(r), Eigen::VectorXd::Zero(r)});
    REQUIRE(sim->initialize() == StepStatus::kOk);
    const double start = sim->elastic_energy() + sim->kinetic_energy();
    double worst = 0;
    for (int k = 0; k < steps; ++k) {
      REQUIRE(sim->step() == StepStatus::kOk);
      worst = std::max(worst, std::abs(sim->elastic_energy() + sim->kinetic_energy() - start));
    }
    if (worst_deviation) *worst_deviation = worst / start;
    return (sim->elastic_energy() + sim->kinetic_energy()) / start;
  };
  double blend_deviation = 0;
  const double blend_end = energy_over(Integrator::kImplicitMidpointBlend, 10000, &blend_deviation);
  const double be_end = energy_over(Integrator::kBackwardEuler, 10000, nullptr);
  WARN("10,000 steps of 1/60 s: im-blend keeps " << blend_end << " of the energy (worst deviation "
                                                 << blend_deviation << "), BE " << be_end);
  CHECK(blend_deviation < 0.01);
  CHECK(be_end < 0.5);
}

TEST_CASE(
    "SIERE's cached modes: kept while calm, tracked by subspace iteration, refreshed on drift",
    "[runtime][integrators]") {
  test::BeamSetup beam;
  beam.nx = 8;
  beam.ny = beam.nz = 2;
  const auto model = compile_model(*test::reduced_beam(beam, {5, 10, true}));
  struct Run {
    Eigen::VectorXd q, q_base;  // the end, and the last step's start (its linearization point)
    SplitModes modes;
  };
  const auto run = [&](double gravity_scale, int refresh, double drift, int steps) {
    DomainSettings domain = domain_with(Integrator::kSiere);
    domain.split_modes = 2;  // (the 3rd mode has two within 17 % above it)
    domain.split_refresh_steps = refresh;
    domain.split_drift_tolerance = drift;
    auto sim = make_simulator(model, 1.0 / 60.0, gravity_scale * kGravity, domain);
    for (int k = 0; k < steps; ++k) REQUIRE(sim->step() == StepStatus::kOk);
    return Run{sim->state().q, sim->state().q_history.col(0), sim->state().split_modes.front()};
  };
  // Small motion (g / 1000): the modes barely change; every 10th step decomposes.
  const Run small_exact = run(1e-3, 1, 0, 120);
  const Run small_cached = run(1e-3, 10, 0.05, 120);
  CHECK(small_exact.modes.decompositions == 120);
  CHECK(small_cached.modes.decompositions == 12);
  CHECK((small_cached.q - small_exact.q).norm() < 1e-5 * small_exact.q.norm());
  // Large motion (full gravity, 30 % sag): tracking follows the modes between refreshes.
  const Run large_exact = run(1, 1, 0, 120);
  const Run large_tracked = run(1, 60, 0.05, 120);
  WARN("120 steps under gravity: "
       << large_tracked.modes.decompositions << " decompositions with k = 60 and the drift guard, "
       << "end state off the exact method's by "
       << (large_tracked.q - large_exact.q).norm() / large_exact.q.norm());
  CHECK(large_tracked.modes.decompositions <= 4);  // (2 with this tree: at steps 1 and 61)
  CHECK((large_tracked.q - large_exact.q).norm() < 1e-3 * large_exact.q.norm());
  // The tracked modes against their definition: the 2 lowest eigenpairs of K(q_base) (M' = I).
  ReducedStvkForces forces = model->parts.front().forces;
  Eigen::VectorXd gradient;
  Eigen::MatrixXd stiffness;
  forces.evaluate(large_tracked.q_base, gradient, stiffness);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> exact(stiffness);
  const Eigen::MatrixXd x = large_tracked.modes.basis;
  for (int j = 0; j < 2; ++j) {
    CHECK(std::abs(large_tracked.modes.eigenvalues(j) - exact.eigenvalues()(j)) <
          1e-3 * exact.eigenvalues()(j));
    // |sin| of the angle between x_j and the exact span of the 2 lowest modes.
    const Eigen::MatrixXd span = exact.eigenvectors().leftCols(2);
    const Eigen::VectorXd outside = x.col(j) - span * (span.transpose() * x.col(j));
    CHECK(outside.norm() < 1e-2 * x.col(j).norm());
  }
}
