// The runtime on its own (built by the runtime-only preset: Eigen and HDF5, no precompute): a
// committed model file (tests/data/models/README.md) loaded, stepped and checked against
// physics that needs no ground-truth run: the derivatives of its reduced forces, rest, energy,
// free fall and momentum of a free-flying variant, independence of objects, failure handling,
// allocation.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>

#include "ramus/error.h"
#include "ramus/runtime/dynamics/reconstruction.h"
#include "ramus/runtime/dynamics/step.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/finite_differences.h"
#include "support/temp_dir.h"

using namespace ramus;
using Catch::Matchers::Contains;

namespace {

const std::string kModel = std::string(RAMUS_TEST_DATA_DIR) + "/models/small_beam_two_domains.h5";

RuntimeSettings quiet(const Model& model) {
  RuntimeSettings s = model.settings;
  s.gravity.setZero();
  for (DomainSettings& n : s.domains) n = {};
  return s;
}

}  // namespace

TEST_CASE("The committed model loads with its stored settings", "[runtime][standalone]") {
  const auto model = load_model(kModel);
  REQUIRE(model->num_domains() == 2);
  CHECK(model->domains[1].parent == 0);
  CHECK(model->num_dofs == 16);
  CHECK_FALSE(model->free_root);
  // From its spec (tests/data/specs/small_beam_two_domains.json).
  CHECK(model->settings.time_step == 0.01);
  CHECK(model->settings.gravity == Eigen::Vector3d(0, 0, -9.81));
  CHECK(model->settings.lumping == InterfaceLumping::kCenterOfMass);
  CHECK(model->render.embedded_surface_vertices.size() == 8);
}

TEST_CASE("Reduced forces of the committed model: gradient and stiffness by finite differences",
          "[runtime][standalone]") {
  const auto model = load_model(kModel);
  for (const Part& proto : model->parts) {
    ReducedStvkForces forces = proto.forces;
    Eigen::VectorXd q = Eigen::VectorXd::LinSpaced(proto.r, -0.02, 0.03), g;
    Eigen::MatrixXd K, unused;
    forces.evaluate(q, g, K);
    // E is quartic and g cubic in q: the 5-point rule is exact up to rounding.
    const Eigen::VectorXd g_fd = test::finite_gradient(
        q,
        [&](const Eigen::VectorXd& y) {
          Eigen::VectorXd gy;
          return forces.evaluate_energy(y, gy, unused);
        },
        0.01, test::Stencil::kCentral4);
    const Eigen::MatrixXd K_fd = test::finite_jacobian(
        q,
        [&](const Eigen::VectorXd& y) {
          Eigen::VectorXd gy;
          forces.evaluate(y, gy, unused);
          return gy;
        },
        0.01, test::Stencil::kCentral4);
    CHECK((g - g_fd).norm() < 1e-9 * g.norm());
    CHECK((K - K_fd).norm() < 1e-9 * K.norm());
    CHECK((K - K.transpose()).norm() < 1e-12 * K.norm());
  }
}

TEST_CASE("At rest without loads the tree stays exactly at rest, undamped energy is kept",
          "[runtime][standalone]") {
  const auto model = load_model(kModel);
  Simulator sim(model, quiet(*model));
  for (int k = 0; k < 50; ++k) REQUIRE(sim.step() == StepStatus::kOk);
  CHECK(sim.state().q.isZero(0));
  CHECK(sim.frame(1).origin == model->domains[1].rest_origin);
  // A kick on the leaf: the trapezoidal rule keeps the energy of the free vibration (the frames'
  // kinetic energy is small next to the deformation's here, so q̇ᵀq̇/2 + E is the measure).
  DomainState leaf = sim.domain_state(1);
  leaf.qdot(0) = 0.05;
  sim.set_domain_state(1, leaf);
  RuntimeSettings settings = quiet(*model);
  settings.time_step = 0.002;
  settings.newton_iterations = 4;
  sim.set_settings(settings);
  REQUIRE(sim.initialize() == StepStatus::kOk);
  const double e0 = sim.kinetic_energy() + sim.elastic_energy();
  double lowest = e0, highest = e0;
  for (int k = 0; k < 500; ++k) {
    REQUIRE(sim.step() == StepStatus::kOk);
    const double e = sim.kinetic_energy() + sim.elastic_energy();
    lowest = std::min(lowest, e);
    highest = std::max(highest, e);
  }
  INFO("energy " << e0 << " J, range [" << lowest << ", " << highest << "]");
  CHECK(e0 > 0);
  CHECK(highest < 1.3 * e0);
  CHECK(lowest > 0.5 * e0);
}

TEST_CASE("A free-flying variant falls as the symplectic Euler parabola and keeps its momenta",
          "[runtime][standalone]") {
  ReducedModel data = read_model_file(kModel);
  data.parts[0].fixed_vertices.resize(0);  // cut loose: the root flies freely
  const auto model = compile_model(data);
  REQUIRE(model->free_root);
  RuntimeSettings settings = quiet(*model);
  settings.gravity = Eigen::Vector3d(0, 0, -9.81);
  Simulator falling(model, settings);
  const Eigen::Vector3d origin0 = falling.frame(0).origin;
  for (int k = 0; k < 100; ++k) REQUIRE(falling.step() == StepStatus::kOk);
  const double h = settings.time_step, n = 100;
  CHECK(falling.frame(0).origin(2) - origin0(2) ==
        Approx(-9.81 * h * h * n * (n + 1) / 2).epsilon(1e-9));
  CHECK(falling.state().q.norm() < 1e-9);  // uniform gravity does not deform a free body
  // Without gravity, spinning and drifting: the rigid root's momenta are exact.
  Simulator spinning(model, quiet(*model));
  const Eigen::Vector3d v(0.1, 0, 0.05), w(0, 0.5, 1.0);
  spinning.set_root_motion(spinning.frame(0).origin, Eigen::Matrix3d::Identity(), v, w);
  REQUIRE(spinning.initialize() == StepStatus::kOk);
  const Eigen::Vector3d p0 = spinning.root_momentum(), L0 = spinning.root_angular_momentum();
  // The frame origin is not the centre of mass c here (the rest frame of an anchored model):
  // the centre moves with v + ω × c.
  const Eigen::Vector3d center_velocity = v + w.cross(model->root_center_of_mass);
  CHECK((p0 - model->total_mass * center_velocity).norm() < 1e-12 * p0.norm());
  CHECK((spinning.linear_momentum() - p0).norm() < 1e-9 * p0.norm());
  for (int k = 0; k < 200; ++k) REQUIRE(spinning.step() == StepStatus::kOk);
  CHECK((spinning.root_momentum() - p0).norm() < 1e-12 * p0.norm());
  CHECK((spinning.root_angular_momentum() - L0).norm() < 1e-12 * L0.norm());
  CHECK(spinning.state().q.norm() > 1e-8);  // the spin deforms it
}

TEST_CASE("Objects of one model are independent, and the step allocates nothing",
          "[runtime][standalone]") {
  const auto model = load_model(kModel);
  Workspace shared(*model);
  State a = make_state(*model), b = make_state(*model);
  a.forces.push_back({1, 0, Eigen::Vector3d(0, 0.5, 0)});
  Simulator a_alone(model), b_alone(model);
  a_alone.add_vertex_force(1, 0, Eigen::Vector3d(0, 0.5, 0));
  REQUIRE(initialize(*model, a, shared) == StepStatus::kOk);
  REQUIRE(initialize(*model, b, shared) == StepStatus::kOk);
  REQUIRE(a_alone.initialize() == StepStatus::kOk);
  REQUIRE(b_alone.initialize() == StepStatus::kOk);
  bool ok = true;
  Eigen::MatrixX3d positions(model->num_global_vertices, 3);
  const long allocations = test::count_allocations([&] {
    for (int k = 0; k < 30; ++k) {
      ok &= step(*model, a, shared) == StepStatus::kOk;
      ok &= step(*model, b, shared) == StepStatus::kOk;
      global_positions(*model, a, positions);
    }
  });
  for (int k = 0; k < 30; ++k) {
    REQUIRE(a_alone.step() == StepStatus::kOk);
    REQUIRE(b_alone.step() == StepStatus::kOk);
  }
  CHECK(ok);
  CHECK(allocations == 0);
  CHECK(a.q == a_alone.state().q);
  CHECK(b.q == b_alone.state().q);
  CHECK(a.q != b.q);
}

TEST_CASE("Failures are reported, leave the state as it was, and bad files are named",
          "[runtime][standalone]") {
  const auto model = load_model(kModel);
  State state = make_state(*model);
  Workspace workspace(*model);
  REQUIRE(step(*model, state, workspace) == StepStatus::kOk);
  const State before = state;
  state.forces.push_back({1, 0, Eigen::Vector3d(std::numeric_limits<double>::quiet_NaN(), 0, 0)});
  CHECK(step(*model, state, workspace) == StepStatus::kNonFinite);
  CHECK(state.q == before.q);
  CHECK(state.qdot == before.qdot);
  CHECK(state.frame_rotation == before.frame_rotation);
  CHECK(state.time == before.time);
  state.forces.clear();
  state.settings.domains.pop_back();
  CHECK(step(*model, state, workspace) == StepStatus::kInvalidSettings);
  // A truncated copy of the file.
  const test::TempDir dir("standalone");
  const std::string truncated = dir.file("truncated.h5");
  std::filesystem::copy_file(kModel, truncated);
  std::filesystem::resize_file(truncated, std::filesystem::file_size(kModel) / 2);
  CHECK_THROWS_WITH(load_model(truncated), Contains("truncated.h5: cannot open"));
}
