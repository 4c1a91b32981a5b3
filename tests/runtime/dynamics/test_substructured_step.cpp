// The substructured runtime (Algorithm 1) against the single-domain reduced model and the full
// FEM: a clamped beam cut into 2 and 4 domains, free flight, coming to rest, allocation.
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/reduction/modal_analysis.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/reduced_beams.h"
#include "support/split_beams.h"

using namespace ramus;
using Catch::Matchers::Contains;

namespace {

const Material kMaterial = test::kSplitBeamMaterial;

// Light stiffness damping (beta_K = 1e-3 s: 0.5 % of critical at 10 rad/s, > 50 % above 1000 rad/s)
// keeps the stiff modal-derivative modes from ringing down a chain of frames.
constexpr double kStiffnessDamping = 1e-3;

TetMesh beam() {
  return test::split_beam_mesh();
}

int tip_vertex(const TetMesh& mesh) {
  return test::split_beam_tip(mesh);
}

using test::split_beam;

// A simulator of `data` with the same settings on every domain.
std::unique_ptr<Simulator> make_simulator(const std::shared_ptr<ReducedModel>& data, double h,
                                          const Eigen::Vector3d& gravity, InterfaceLumping lumping,
                                          const DomainSettings& domain) {
  const auto model = compile_model(*data);
  RuntimeSettings settings;
  settings.time_step = h;
  settings.gravity = gravity;
  settings.lumping = lumping;
  settings.domains.assign(static_cast<std::size_t>(model->num_domains()), domain);
  return std::make_unique<Simulator>(model, settings);
}

DomainSettings damping(double alpha, double beta, double stiffness_scale = 1) {
  return {Integrator::kNewmark, alpha, beta, stiffness_scale};
}

const Eigen::Vector3d kGravity(0, 0, -9.81);

// World position of a global vertex (C0-averaged).
Eigen::Vector3d global_position(const Simulator& sim, int vertex) {
  Eigen::MatrixX3d x;
  sim.global_positions(x);
  return x.row(vertex).transpose();
}

// Tip deflection at rest under gravity: heavy damping until the velocities vanish.
double settled_tip_deflection(std::shared_ptr<ReducedModel> model, InterfaceLumping lumping,
                              double* final_speed = nullptr) {
  // Rayleigh alpha 12: about critical for the lowest mode (~9.6 rad/s).
  const auto sim = make_simulator(model, 0.01, kGravity, lumping, damping(12.0, kStiffnessDamping));
  for (int k = 0; k < 600; ++k) REQUIRE(sim->step() == StepStatus::kOk);
  if (final_speed) *final_speed = sim->state().qdot.lpNorm<Eigen::Infinity>();
  const TetMesh mesh = beam();
  return global_position(*sim, tip_vertex(mesh))(2) - 0.1;
}

// Lowest frequency (Hz) from the zero crossings of the tip's vertical motion after an initial
// velocity along the full mesh's first mode (no gravity).
double simulated_frequency(std::shared_ptr<ReducedModel> model, InterfaceLumping lumping,
                           const Eigen::MatrixX3d& mode_velocity, int tip,
                           double stiffness_scale = 1) {
  const auto simulator = make_simulator(model, 0.005, Eigen::Vector3d::Zero(), lumping,
                                        damping(0, kStiffnessDamping, stiffness_scale));
  Simulator& sim = *simulator;
  REQUIRE(sim.set_velocity_field(mode_velocity) == StepStatus::kOk);
  std::vector<double> crossings;
  double previous = 0, previous_time = 0;
  for (int k = 0; k < 2000 && crossings.size() < 5; ++k) {
    REQUIRE(sim.step() == StepStatus::kOk);
    const double z = global_position(sim, tip)(2) - 0.1;
    if (k > 0 && (previous > 0) != (z > 0))
      crossings.push_back(previous_time + (sim.time() - previous_time) * previous / (previous - z));
    previous = z;
    previous_time = sim.time();
  }
  REQUIRE(crossings.size() >= 3);
  return (crossings.size() - 1) / (2.0 * (crossings.back() - crossings.front()));
}

}  // namespace

TEST_CASE("Simulator: one domain steps semi-implicit Newmark on the reduced equation",
          "[runtime][dynamics]") {
  // Reference: Eq. 17 of an anchored root written out (M' = I, f = G g, no system force) and
  // one Newton step of the trapezoidal rule from q_n, with the polynomial's g and K.
  auto model = split_beam(1, 10);
  const auto sim =
      make_simulator(model, 0.01, kGravity, InterfaceLumping::kInterface, damping(0, 0));
  const ReducedPart& d_part = model->parts[0];
  ReducedStvkForces forces(d_part.polynomial);
  const int r = d_part.polynomial.r;
  const double h = 0.01, beta = 0.25, gamma = 0.5;
  const Eigen::VectorXd f = d_part.gravity_basis * kGravity;
  Eigen::VectorXd q = Eigen::VectorXd::Zero(r), v = q, a = q, g(r);
  Eigen::MatrixXd K(r, r);
  for (int k = 0; k < 50; ++k) {
    forces.evaluate(q, g, K);
    // Residual of M q̈ + g(q) = f at the Newton start q_{n+1} = q_n, where q̈_{n+1} follows
    // from the Newmark relation.
    const Eigen::VectorXd a_start = -(h * v + h * h * (0.5 - beta) * a) / (h * h * beta);
    const Eigen::VectorXd residual = a_start + g - f;
    const Eigen::MatrixXd J = K + Eigen::MatrixXd::Identity(r, r) / (h * h * beta);
    const Eigen::VectorXd q_new = q - J.ldlt().solve(residual);
    const Eigen::VectorXd a_new = (q_new - q - h * v - h * h * (0.5 - beta) * a) / (h * h * beta);
    v = v + h * (1 - gamma) * a + h * gamma * a_new;
    a = a_new;
    q = q_new;
    REQUIRE(sim->step() == StepStatus::kOk);
  }
  const DomainState s = sim->domain_state(0);
  CHECK(q.norm() > 1e-3);
  CHECK((s.q - q).norm() <= 1e-10 * q.norm());
  CHECK((s.qdot - v).norm() <= 1e-9 * v.norm());
}

TEST_CASE("Simulator: a clamped beam in 2 and 4 domains vs one domain and full FEM",
          "[runtime][dynamics]") {
  const TetMesh mesh = beam();
  const StvkFemModel fem(mesh, assign_materials(mesh, kMaterial));
  const DofMap dofs(mesh.num_vertices(), test::clamped_vertices(mesh));
  const int tip = tip_vertex(mesh);

  // Ground truth: full-space static deflection and lowest natural frequency.
  FullSpaceOptions full_options;
  full_options.gravity = Eigen::Vector3d(0, 0, -9.81);
  FullSpaceSimulator full(fem, dofs, full_options);
  Eigen::VectorXd x = fem.rest_positions();
  full.solve_static(x);
  const double full_deflection = x(3 * tip + 2) - 0.1;
  const LinearModes modes = compute_linear_modes(fem, dofs, 1);
  const double full_frequency = std::sqrt(modes.eigenvalues(0)) / (2 * M_PI);
  // Initial velocity along the first mode, 1 cm/s at the tip (small: the linear regime).
  Eigen::MatrixX3d velocity(mesh.num_vertices(), 3);
  for (int v = 0; v < mesh.num_vertices(); ++v)
    velocity.row(v) = modes.modes.block<3, 1>(3 * v, 0).transpose();
  velocity *= 0.01 / velocity.row(tip).norm();

  const double one = settled_tip_deflection(split_beam(1, 16), InterfaceLumping::kInterface);
  const double one_frequency =
      simulated_frequency(split_beam(1, 16), InterfaceLumping::kInterface, velocity, tip);
  WARN("full FEM: tip deflection " << full_deflection << " m, f1 " << full_frequency << " Hz");
  WARN("1 domain: tip deflection " << one << " m, f1 " << one_frequency << " Hz");
  CHECK(std::abs(one / full_deflection - 1) < 0.02);
  CHECK(std::abs(one_frequency / full_frequency - 1) < 0.03);

  // Bounds on (deflection, frequency) relative to the full FEM, measured (see docs/VALIDATION.md):
  // L1 lumps the subtree's mass at the interface centroid, so the parent feels the subtree's
  // weight but not its moment (stiffer statically) nor its rotary inertia (higher frequency);
  // L2 lumps it at the subtree's centre of mass and is much closer; L3 adds the subtree's
  // rotational inertia. What remains is mostly the rigid interfaces: each child is clamped to a
  // rigid cross-section, which stiffens a stubby beam (1 x 0.2 x 0.2 m) cut into short pieces.
  struct Expected {
    int parts;
    InterfaceLumping lumping;
    double deflection_min, deflection_max, frequency_min, frequency_max;
  };
  const Expected expected[] = {
      {2, InterfaceLumping::kInterface, 0.55, 0.75, 1.45, 1.9},
      {2, InterfaceLumping::kCenterOfMass, 0.85, 0.97, 1.02, 1.25},
      {4, InterfaceLumping::kInterface, 0.3, 0.5, 2.9, 3.9},
      {4, InterfaceLumping::kCenterOfMass, 0.75, 0.95, 1.2, 1.7},
      {2, InterfaceLumping::kRigidSubtree, 0.85, 0.97, 1.02, 1.2},
      {4, InterfaceLumping::kRigidSubtree, 0.75, 0.95, 1.2, 1.5},
  };
  for (const Expected& e : expected) {
    auto model = split_beam(e.parts, 12);
    const char* name = e.lumping == InterfaceLumping::kInterface      ? "L1"
                       : e.lumping == InterfaceLumping::kCenterOfMass ? "L2"
                                                                      : "L3";
    double speed = 0;
    const double deflection = settled_tip_deflection(model, e.lumping, &speed) / full_deflection;
    const double frequency = simulated_frequency(model, e.lumping, velocity, tip) / full_frequency;
    WARN(e.parts << " domains, " << name << ": tip deflection " << deflection
                 << " of the full FEM's, f1 " << frequency << " of the full FEM's");
    CHECK(speed < 1e-8);  // at rest
    CHECK(deflection > e.deflection_min);
    CHECK(deflection < e.deflection_max);
    CHECK(frequency > e.frequency_min);
    CHECK(frequency < e.frequency_max);
  }
}

TEST_CASE("Simulator: a pinned beam under gravity comes to rest at its static solution",
          "[runtime][dynamics]") {
  auto model = split_beam(2, 12);
  // Settle twice along different paths (damping, time step): the rest state is the static
  // solution of the reduced equations, so it must not depend on the path.
  const auto settle = [&](double h, double alpha, int steps) {
    auto sim = make_simulator(model, h, kGravity, InterfaceLumping::kCenterOfMass,
                              damping(alpha, kStiffnessDamping));
    for (int k = 0; k < steps; ++k) REQUIRE(sim->step() == StepStatus::kOk);
    return sim;
  };
  const auto a = settle(0.01, 12.0, 600);
  const auto b = settle(0.004, 25.0, 2000);
  for (int d = 0; d < 2; ++d) {
    const Eigen::VectorXd qa = a->domain_state(d).q;
    CHECK(a->domain_state(d).qdot.norm() < 1e-8 * qa.norm());
    CHECK(b->domain_state(d).qdot.norm() < 1e-8 * qa.norm());
    CHECK((qa - b->domain_state(d).q).norm() < 1e-7 * qa.norm());
  }
  CHECK(a->frame(1).angular_velocity.norm() < 1e-8);
  CHECK(a->frame(1).velocity.norm() < 1e-8);

  // The leaf's static equation from its full-space definition: in its resting frame F_1 the
  // projected full-space internal forces balance the projected weight, Uᵀ f_int(X + U q) +
  // Uᵀ M R_1ᵀ g = 0.
  const ReducedDomain& leaf = model->domains[1];
  const ReducedPart& leaf_part = model->parts[1];
  REQUIRE(leaf.parent == 0);
  TetMesh leaf_mesh;
  leaf_mesh.rest_positions = leaf_part.rest_positions;
  leaf_mesh.tets = leaf_part.tets;
  std::vector<Material> materials;
  for (Eigen::Index t = 0; t < leaf_part.tets.rows(); ++t)
    materials.push_back(
        {leaf_part.youngs_modulus(t), leaf_part.poisson_ratio(t), leaf_part.density(t)});
  const StvkFemModel fem(leaf_mesh, materials);
  const Eigen::VectorXd x = fem.rest_positions() + leaf_part.basis * a->domain_state(1).q;
  const Eigen::VectorXd weight =
      leaf_part.basis.transpose() *
      fem.gravity_forces(a->frame(1).rotation.transpose() * Eigen::Vector3d(0, 0, -9.81));
  const Eigen::VectorXd residual = leaf_part.basis.transpose() * fem.internal_forces(x) + weight;
  WARN("leaf at rest: |q| " << a->domain_state(1).q.norm() << ", static residual "
                            << residual.norm() << " of a projected weight " << weight.norm());
  CHECK(a->domain_state(1).q.norm() > 1e-3);  // it does deform
  CHECK(residual.norm() < 1e-6 * weight.norm());
}

TEST_CASE("Simulator: a rigid (r = 0) domain moves rigidly with its frame", "[runtime][dynamics]") {
  // Clamped beam in 4 domains; the third (a parent) and the last (a leaf) are rigid.
  auto model = split_beam({12, 12, 0, 0});
  REQUIRE(model->parts[2].basis.cols() == 0);
  REQUIRE(model->parts[3].basis.cols() == 0);
  const auto simulator = make_simulator(model, 0.01, kGravity, InterfaceLumping::kRigidSubtree,
                                        damping(12.0, kStiffnessDamping));
  Simulator& sim = *simulator;
  for (int k = 0; k < 600; ++k) REQUIRE(sim.step() == StepStatus::kOk);
  Eigen::MatrixX3d world;
  for (int d : {2, 3}) {
    const ReducedDomain& domain = model->domains[static_cast<size_t>(d)];
    const ReducedPart& domain_part = model->parts[static_cast<size_t>(d)];
    sim.domain_world_positions(d, world);
    const FrameMotion frame = sim.frame(d);
    const Eigen::MatrixX3d expected =
        (domain_part.rest_positions * frame.rotation.transpose()).rowwise() +
        frame.origin.transpose();
    CHECK((world - expected).norm() < 1e-12);
    CHECK(frame.origin(2) < domain.frame_origin(2) - 1e-3);  // carried down by the sagging beam
  }
  // The rigid part sags less than the same beam with all domains elastic: same sign, smaller.
  const double rigid_tip = global_position(sim, tip_vertex(beam()))(2) - 0.1;
  const double elastic_tip =
      settled_tip_deflection(split_beam(4, 12), InterfaceLumping::kRigidSubtree);
  WARN("tip deflection with the last two domains rigid " << rigid_tip << " m, all elastic "
                                                         << elastic_tip << " m");
  CHECK(rigid_tip < 0);
  CHECK(rigid_tip > elastic_tip);
}

TEST_CASE("Simulator: per-domain stiffness scale sets the frequencies", "[runtime][dynamics]") {
  const TetMesh mesh = beam();
  const StvkFemModel fem(mesh, assign_materials(mesh, kMaterial));
  const LinearModes modes =
      compute_linear_modes(fem, DofMap(mesh.num_vertices(), test::clamped_vertices(mesh)), 1);
  const int tip = tip_vertex(mesh);
  Eigen::MatrixX3d velocity(mesh.num_vertices(), 3);
  for (int v = 0; v < mesh.num_vertices(); ++v)
    velocity.row(v) = modes.modes.block<3, 1>(3 * v, 0).transpose();
  velocity *= 0.01 / velocity.row(tip).norm();
  auto model = split_beam(2, 12);
  const auto lumping = InterfaceLumping::kRigidSubtree;
  const double f1 = simulated_frequency(model, lumping, velocity, tip);
  // Every domain's internal forces times 4: the whole system's frequencies double (mass and
  // coupling unchanged, linear regime).
  const double f4 = simulated_frequency(model, lumping, velocity, tip, 4.0);
  WARN("f1 " << f1 << " Hz; all domains scaled by 4: " << f4 << " Hz");
  CHECK(f4 / f1 == Approx(2.0).epsilon(0.01));

  // Only the tip domain softened, in the options or at runtime: the same trajectory, and a
  // beam that sags more than the unscaled one.
  const auto compiled = compile_model(*model);
  RuntimeSettings options;
  options.time_step = 0.01;
  options.gravity = kGravity;
  options.domains = {damping(12.0, kStiffnessDamping), damping(12.0, kStiffnessDamping, 0.25)};
  Simulator per_domain(compiled, options);  // settles in 600 steps
  // The same through set_stiffness_scale at runtime.
  options.domains[1].stiffness_scale = 1;
  Simulator at_runtime(compiled, options);
  at_runtime.set_stiffness_scale(1, 0.25);
  Simulator unscaled(compiled, options);
  for (int k = 0; k < 600; ++k) {
    REQUIRE(per_domain.step() == StepStatus::kOk);
    REQUIRE(at_runtime.step() == StepStatus::kOk);
    REQUIRE(unscaled.step() == StepStatus::kOk);
  }
  for (int d = 0; d < 2; ++d)
    CHECK((per_domain.domain_state(d).q - at_runtime.domain_state(d).q).norm() <=
          1e-14 * per_domain.domain_state(d).q.norm());
  const double soft_tip = global_position(per_domain, tip)(2) - 0.1;
  const double stiff_tip = global_position(unscaled, tip)(2) - 0.1;
  WARN("settled tip deflection: tip domain scaled by 0.25 " << soft_tip << " m, unscaled "
                                                            << stiff_tip << " m");
  CHECK(soft_tip < 1.2 * stiff_tip);
  CHECK_THROWS_AS(at_runtime.set_stiffness_scale(1, 0.0), OptionError);
  CHECK_THROWS_AS(at_runtime.set_stiffness_scale(2, 1.0), OptionError);
}

TEST_CASE("Simulator: a free beam falls without deforming", "[runtime][dynamics]") {
  auto model = split_beam(2, 8, /*clamped=*/false);
  REQUIRE(model->parts[0].num_rigid_modes == 6);
  const auto simulator = make_simulator(model, 0.01, kGravity, InterfaceLumping::kInterface, {});
  Simulator& sim = *simulator;
  REQUIRE(sim.free_root());
  const Eigen::Vector3d origin0 = sim.frame(0).origin;
  for (int k = 0; k < 100; ++k) REQUIRE(sim.step() == StepStatus::kOk);
  for (int d = 0; d < sim.num_domains(); ++d) CHECK(sim.domain_state(d).q.norm() < 1e-10);
  // Symplectic Euler on a constant force: z = -g h^2 n (n + 1) / 2.
  const double h = 0.01, n = 100;
  CHECK(sim.frame(0).origin(2) - origin0(2) ==
        Approx(-9.81 * h * h * n * (n + 1) / 2).epsilon(1e-9));
  CHECK((sim.frame(1).rotation - Eigen::Matrix3d::Identity()).norm() < 1e-10);
}

TEST_CASE("Simulator: a free-flying beam without external forces keeps its momentum",
          "[runtime][dynamics]") {
  auto model = split_beam(4, 8, /*clamped=*/false);
  const double mass = model->domains[0].subtree_mass;
  // Newmark: no numerical damping, so the swinging domains keep moving.
  const auto simulator = make_simulator(model, 0.005, Eigen::Vector3d::Zero(),
                                        InterfaceLumping::kInterface, damping(0, 0));
  Simulator& sim = *simulator;
  // Drift and spin about an off-axis direction; the spin stretches the beam (centrifugal) and
  // sets its domains swinging.
  const Eigen::Vector3d velocity(0.3, -0.2, 0.1), spin(0.5, 1.0, 0.2);
  sim.set_root_motion(sim.frame(0).origin, Eigen::Matrix3d::Identity(), velocity, spin);
  REQUIRE(sim.initialize() == StepStatus::kOk);
  const Eigen::Vector3d p0 = sim.linear_momentum();
  CHECK((p0 - mass * velocity).norm() < 1e-9 * mass);
  const Eigen::Vector3d L0 = sim.root_angular_momentum();
  double worst = 0, worst_rigid = 0, worst_angular = 0, max_q = 0;
  for (int k = 0; k < 400; ++k) {
    REQUIRE(sim.step() == StepStatus::kOk);
    worst = std::max(worst, (sim.linear_momentum() - p0).norm());
    worst_rigid = std::max(worst_rigid, (sim.root_momentum() - p0).norm());
    worst_angular = std::max(worst_angular, (sim.root_angular_momentum() - L0).norm());
    for (int d = 0; d < sim.num_domains(); ++d)
      max_q = std::max(max_q, sim.domain_state(d).q.norm());
  }
  WARN("free flight: |p| " << p0.norm() << " kg m/s; momentum of the deforming mesh deviates by "
                           << worst << " at most; max |q| " << max_q);
  // The root frame carries the whole body as one rigid body: its momenta are exact.
  CHECK(worst_rigid < 1e-12 * p0.norm());
  CHECK(worst_angular < 1e-12 * L0.norm());
  CHECK(max_q > 1e-4);  // the domains do deform
  // The deforming mesh's own momentum (frames + deformation of every domain) follows it closely;
  // the difference is the swinging of the domains, which the rigid root does not feel.
  CHECK(worst < 0.02 * p0.norm());
}

TEST_CASE("Simulator: step allocates nothing", "[runtime][dynamics]") {
  auto model = split_beam(4, 8);
  for (InterfaceLumping lumping : {InterfaceLumping::kInterface, InterfaceLumping::kCenterOfMass,
                                   InterfaceLumping::kRigidSubtree}) {
    const auto simulator = make_simulator(model, 1.0 / 60.0, kGravity, lumping, {});
    Simulator& sim = *simulator;
    sim.set_profiling(true);
    sim.reserve_vertex_forces(4);
    sim.add_vertex_force(3, 0, Eigen::Vector3d(0, 0, 1));
    Eigen::MatrixX3d positions;
    sim.global_positions(positions);
    REQUIRE(sim.step() == StepStatus::kOk);
    StepStatus status = StepStatus::kOk;
    const long allocations = test::count_allocations([&] {
      for (int k = 0; k < 10; ++k)
        if (sim.step() != StepStatus::kOk) status = StepStatus::kDiverged;
      sim.global_positions(positions);
    });
    CHECK(status == StepStatus::kOk);
    CHECK(allocations == 0);
    CHECK(sim.profile().steps == 11);
    CHECK(sim.profile().core_seconds > 0);
    CHECK(sim.profile().domain_seconds > 0);
  }
}

TEST_CASE("Simulator: bad settings and models are clear errors", "[runtime][dynamics]") {
  auto model = split_beam(2, 6);
  const auto compiled = compile_model(*model);
  RuntimeSettings options = compiled->settings;
  options.time_step = -1;
  CHECK_THROWS_WITH(Simulator(compiled, options),
                    Contains("time_step: must lie in (0, 1] s, got -1"));
  options.time_step = 0.01;
  options.domains.resize(5);
  CHECK_THROWS_WITH(Simulator(compiled, options), Contains("for a model of 2 domains"));
  options.domains.resize(2);
  options.domains[1].rayleigh_mass = -1;
  CHECK_THROWS_WITH(Simulator(compiled, options),
                    Contains("domains[1].rayleigh_mass: must not be negative, got -1"));
  options.domains[1].rayleigh_mass = 0;
  ReducedModel broken = *model;
  broken.domains[1].parent = 1;
  CHECK_THROWS_WITH(compile_model(broken), Contains("not an earlier domain"));
  Simulator sim(compiled, options);
  CHECK_THROWS_WITH(sim.add_vertex_force(1, 100000, Eigen::Vector3d::Zero()),
                    Contains("does not exist"));
  CHECK_THROWS_AS(sim.set_root_motion(Eigen::Vector3d::Zero(), Eigen::Matrix3d::Identity(),
                                      Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero()),
                  OptionError);
}
