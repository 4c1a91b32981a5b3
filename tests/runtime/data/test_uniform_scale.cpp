// A part placed at uniform scale s (data/uniform_scale.h) against the same part reduced again at
// that size: same frequencies (1/s), same world trajectories, for an anchored chain of two domains
// (interfaces, lumping) and a free-flying body (W1..W7, inertia, momenta), with several
// integrators; and the scaled step still allocates nothing.
#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"
#include "ramus/runtime/data/uniform_scale.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/reduced_beams.h"
#include "support/test_meshes.h"

using namespace ramus;

namespace {

const Material kMaterial{2e5, 0.4, 1000};

// A 1 x 0.15 x 0.25 m beam (no two bending frequencies alike: a degenerate pair would let the
// two reductions pick different bases of the same eigenspace), cut at x = 0.5 when `domains`
// is 2, clamped at x = 0 when `clamped`, all coordinates times `scale`.
ReducedModel beam_model(double scale, int domains, bool clamped, int r) {
  TetMesh mesh = test::box_mesh(10, 2, 3, 1.0, 0.15, 0.25);
  const std::vector<int> anchors = clamped ? test::clamped_vertices(mesh) : std::vector<int>{};
  mesh.rest_positions *= scale;
  Eigen::VectorXi tet_domain(mesh.num_tets());
  for (int t = 0; t < mesh.num_tets(); ++t) {
    double x = 0;
    for (int c = 0; c < 4; ++c) x += mesh.rest_positions(mesh.tets(t, c), 0) / (4 * scale);
    tet_domain(t) = std::min(domains - 1, static_cast<int>(x * domains));
  }
  const DomainTree tree = build_domain_tree(mesh, tet_domain, anchors);
  ReductionSpec reduction;
  reduction.r = r;
  reduction.linear_modes = r / 2;
  return build_substructured_model(
      mesh, assign_materials(mesh, kMaterial), tree, anchors,
      std::vector<ReductionSpec>(static_cast<std::size_t>(domains), reduction));
}

// The unit-scale model placed whole at scale s about the world origin: every domain scales its
// part by s; its frame origin, interface and subtree data follow (docs/FORMAT.md, "Parts and
// uniform scale": x̂ by s, â by s^-3/2, A^l by s^-5/2, weights by s², C by s⁴, subtree mass s³,
// centre s, inertia s⁵).
ReducedModel placed_at_scale(ReducedModel model, double s) {
  const UniformScale f(s);
  for (ReducedDomain& d : model.domains) {
    d.scale *= s;
    d.frame_origin *= s;
    ParentInterface& itf = d.interface;
    itf.centroid *= s;
    itf.centroid_basis *= f.basis;
    itf.rotation_basis *= f.coordinate;
    itf.weights *= s * s;
    itf.covariance *= s * s * s * s;
    d.subtree_mass *= f.mass;
    d.subtree_center_of_mass *= s;
    d.subtree_inertia *= f.second_moment;
  }
  return model;
}

// World positions of every vertex of every domain after `steps` steps under gravity and a pull at
// the last domain's vertex `pulled`, one column block per domain.
Eigen::MatrixX3d run(const ReducedModel& data, Integrator integrator, int steps, int pulled,
                     double* elastic_energy = nullptr, Eigen::Vector3d* momentum = nullptr) {
  const auto model = compile_model(data);
  RuntimeSettings settings = model->settings;
  settings.time_step = 1.0 / 200;
  settings.gravity = Eigen::Vector3d(0, -9.81, -3.0);
  for (DomainSettings& n : settings.domains) {
    n.integrator = integrator;
    n.rayleigh_mass = 0.2;
    n.rayleigh_stiffness = 1e-3;
  }
  Simulator sim(model, settings);
  const int last = sim.num_domains() - 1;
  sim.add_vertex_force(last, pulled, Eigen::Vector3d(0.5, 0.0, 2.0));
  REQUIRE(sim.initialize() == StepStatus::kOk);
  for (int k = 0; k < steps; ++k) REQUIRE(sim.step() == StepStatus::kOk);
  std::vector<Eigen::MatrixX3d> blocks;
  Eigen::Index rows = 0;
  for (int i = 0; i < sim.num_domains(); ++i) {
    blocks.emplace_back();
    sim.domain_world_positions(i, blocks.back());
    rows += blocks.back().rows();
  }
  Eigen::MatrixX3d out(rows, 3);
  rows = 0;
  for (const Eigen::MatrixX3d& b : blocks) {
    out.middleRows(rows, b.rows()) = b;
    rows += b.rows();
  }
  if (elastic_energy) *elastic_energy = sim.elastic_energy();
  if (momentum) *momentum = sim.linear_momentum();
  return out;
}

// max |x_a - x_b| over the vertices, relative to the largest displacement from rest.
double relative_difference(const Eigen::MatrixX3d& a, const Eigen::MatrixX3d& b,
                           const Eigen::MatrixX3d& rest) {
  return (a - b).rowwise().norm().maxCoeff() / (a - rest).rowwise().norm().maxCoeff();
}

}  // namespace

TEST_CASE("A part at uniform scale s has the frequencies of the part reduced at that size: 1/s",
          "[runtime][data][scale]") {
  const ReducedModel unit = beam_model(1.0, 1, true, 8);
  for (const double s : {0.6, 1.4}) {
    const ReducedModel resized = beam_model(s, 1, true, 8);
    const Eigen::VectorXd expected = unit.parts[0].basis_eigenvalues / (s * s);
    INFO("s = " << s);
    CHECK((resized.parts[0].basis_eigenvalues - expected).norm() < 1e-9 * expected.norm());
    const Eigen::VectorXd linear = unit.parts[0].linear_mode_eigenvalues / (s * s);
    CHECK((resized.parts[0].linear_mode_eigenvalues - linear).norm() < 1e-9 * linear.norm());
    // The reduced stiffness of the scaled placement at rest, s^-2 K2, has those eigenvalues.
    const auto model = compile_model(placed_at_scale(unit, s));
    Eigen::VectorXd gradient(8);
    Eigen::MatrixXd stiffness(8, 8);
    ReducedStvkForces forces = model->parts[0].forces;
    forces.evaluate(Eigen::VectorXd::Zero(8), gradient, stiffness);
    const Eigen::VectorXd scaled = (model->domains[0].scale.stiffness * stiffness)
                                       .selfadjointView<Eigen::Lower>()
                                       .eigenvalues();
    CHECK((scaled - expected).norm() < 1e-9 * expected.norm());
  }
}

TEST_CASE("An anchored chain placed at scale s moves as the chain reduced at that size",
          "[runtime][data][scale]") {
  const ReducedModel unit = beam_model(1.0, 2, true, 8);
  for (const double s : {0.7, 1.3}) {
    const ReducedModel placed = placed_at_scale(unit, s);
    REQUIRE(find_model_inconsistency(placed).empty());
    const ReducedModel resized = beam_model(s, 2, true, 8);
    const int tip = static_cast<int>(resized.parts[1].rest_positions.rows()) - 1;
    Eigen::MatrixX3d rest;
    {
      const auto model = compile_model(resized);
      const Simulator sim(model, model->settings);
      Eigen::MatrixX3d a, b;
      sim.domain_world_positions(0, a);
      sim.domain_world_positions(1, b);
      rest.resize(a.rows() + b.rows(), 3);
      rest << a, b;
    }
    for (const Integrator integrator :
         {Integrator::kSemiImplicitEuler, Integrator::kNewmark, Integrator::kSiere}) {
      INFO("s = " << s << ", " << to_string(integrator));
      const Eigen::MatrixX3d x_placed = run(placed, integrator, 150, tip);
      const Eigen::MatrixX3d x_resized = run(resized, integrator, 150, tip);
      CHECK(relative_difference(x_placed, x_resized, rest) < 1e-9);
    }
  }
}

TEST_CASE("A free body placed at scale s flies as the body reduced at that size",
          "[runtime][data][scale]") {
  const ReducedModel unit = beam_model(1.0, 1, false, 8);
  for (const double s : {0.5, 1.6}) {
    const ReducedModel placed = placed_at_scale(unit, s);
    REQUIRE(find_model_inconsistency(placed).empty());
    const ReducedModel resized = beam_model(s, 1, false, 8);
    const int corner = static_cast<int>(resized.parts[0].rest_positions.rows()) - 1;
    Eigen::MatrixX3d rest;
    {
      const auto model = compile_model(resized);
      const Simulator sim(model, model->settings);
      sim.domain_world_positions(0, rest);
    }
    // The system forces (W1..W7), the rigid-body inertia and im-blend's momentum-preserving
    // damping (mass integrals) all enter.
    for (const Integrator integrator :
         {Integrator::kSemiImplicitEuler, Integrator::kSemiImplicitBdf2,
          Integrator::kImplicitMidpointBlend}) {
      INFO("s = " << s << ", " << to_string(integrator));
      double energy_placed = 0, energy_resized = 0;
      Eigen::Vector3d momentum_placed, momentum_resized;
      const Eigen::MatrixX3d x_placed =
          run(placed, integrator, 150, corner, &energy_placed, &momentum_placed);
      const Eigen::MatrixX3d x_resized =
          run(resized, integrator, 150, corner, &energy_resized, &momentum_resized);
      CHECK(relative_difference(x_placed, x_resized, rest) < 1e-9);
      CHECK(energy_resized > 1e-6);  // it deforms
      CHECK(std::abs(energy_placed - energy_resized) < 1e-9 * energy_resized);
      CHECK((momentum_placed - momentum_resized).norm() < 1e-9 * momentum_resized.norm());
    }
  }
}

TEST_CASE("A scaled domain's step allocates nothing", "[runtime][data][scale]") {
  const auto model = compile_model(placed_at_scale(beam_model(1.0, 2, false, 6), 1.2));
  RuntimeSettings settings = model->settings;
  settings.domains[1].integrator = Integrator::kImplicitMidpointBlend;
  Simulator sim(model, settings);
  sim.reserve_vertex_forces(2);
  REQUIRE(sim.initialize() == StepStatus::kOk);
  bool ok = true;
  const long allocations = test::count_allocations([&] {
    sim.add_vertex_force(1, 3, Eigen::Vector3d(0, 0.5, 0));
    for (int k = 0; k < 20; ++k) ok &= sim.step() == StepStatus::kOk;
    sim.clear_vertex_forces();
  });
  CHECK(ok);
  CHECK(allocations == 0);
}
