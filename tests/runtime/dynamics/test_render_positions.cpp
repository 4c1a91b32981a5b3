// render_positions (dynamics/reconstruction.h): the batched per-part reconstruction for a
// renderer equals the domain-by-domain definition (global_positions), in double and float, for a
// conforming model (C0 copies averaged) and an assembly (scaled instances), without allocating.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <vector>

#include "ramus/precompute/generators/tree_generator.h"
#include "ramus/precompute/substructuring/assembly_builder.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/split_beams.h"

using namespace ramus;

namespace {

// A deformed, moving state of `data`: 40 steps under gravity with a pull on the last domain.
std::unique_ptr<Simulator> deformed(const ReducedModel& data) {
  auto sim = std::make_unique<Simulator>(compile_model(data), RuntimeSettings{});
  RuntimeSettings settings = sim->model().settings;
  settings.gravity = Eigen::Vector3d(0.5, 0, -9.81);
  sim->set_settings(settings);
  sim->add_vertex_force(sim->num_domains() - 1, 1, Eigen::Vector3d(0, 0.2, 0.3));
  REQUIRE(sim->initialize() == StepStatus::kOk);
  for (int k = 0; k < 40; ++k) REQUIRE(sim->step() == StepStatus::kOk);
  return sim;
}

void check_against_definition(Simulator& sim) {
  const int N = sim.model().num_global_vertices;
  Eigen::MatrixX3d expected;
  sim.global_positions(expected);
  std::vector<double> out(3 * static_cast<std::size_t>(N), -1);
  std::vector<float> out_float(3 * static_cast<std::size_t>(N), -1);
  const long allocations = test::count_allocations([&] {
    sim.render_positions(out.data());
    sim.render_positions(out_float.data());
  });
  CHECK(allocations == 0);
  const double size = expected.cwiseAbs().maxCoeff();
  double worst = 0, worst_float = 0;
  for (int v = 0; v < N; ++v)
    for (int c = 0; c < 3; ++c) {
      const std::size_t k = 3 * static_cast<std::size_t>(v) + static_cast<std::size_t>(c);
      worst = std::max(worst, std::abs(out[k] - expected(v, c)));
      worst_float =
          std::max(worst_float, std::abs(static_cast<double>(out_float[k]) - expected(v, c)));
    }
  CHECK(worst < 1e-13 * size);
  CHECK(worst_float < 1e-6 * size);
}

}  // namespace

TEST_CASE("render_positions equals the domain-by-domain reconstruction on a conforming chain",
          "[runtime][dynamics][render]") {
  const auto data = test::split_beam(3, 6);
  const auto sim = deformed(*data);
  check_against_definition(*sim);
}

TEST_CASE("render_positions equals the domain-by-domain reconstruction on an assembly",
          "[runtime][dynamics][render]") {
  TreeOptions options;
  options.small = true;
  options.main_branches = 2;
  options.sub_branches = 3;
  options.leaves = 70;  // more than one block of 64 leaves
  options.branch_r = options.trunk_r = 6;
  options.leaf_r = 4;
  const Tree tree = make_tree(options);
  const Assembly assembly = tree_assembly(tree);
  const auto sim = deformed(build_assembly_model(assembly.parts, assembly.instances, 1e-9));
  CHECK(sim->model().parts.back().domains.size() == 70);
  check_against_definition(*sim);
}

TEST_CASE("global_velocities is the time derivative of global_positions along q-dot",
          "[runtime][reconstruction]") {
  // An anchored chain: every frame is a function of the q's, so d x / dt = (d x / d q) q-dot,
  // here by central differences of the positions at q +- eps q-dot (frames recomputed).
  const auto data = test::split_beam({6, 6, 6});
  const auto sim = deformed(*data);
  Eigen::MatrixX3d velocities;
  sim->global_velocities(velocities);
  const double eps = 1e-6;
  Eigen::MatrixX3d plus, minus;
  for (const double sign : {1.0, -1.0}) {
    Simulator moved(sim->shared_model(), sim->settings());
    for (int i = 0; i < sim->num_domains(); ++i) {
      DomainState state = sim->domain_state(i);
      state.q += sign * eps * state.qdot;
      moved.set_domain_state(i, state);
    }
    REQUIRE(moved.initialize(false) == StepStatus::kOk);
    moved.global_positions(sign > 0 ? plus : minus);
  }
  const Eigen::MatrixX3d difference = (plus - minus) / (2 * eps);
  REQUIRE(velocities.cwiseAbs().maxCoeff() > 1e-3);  // it moves
  CHECK((velocities - difference).cwiseAbs().maxCoeff() < 1e-6 * velocities.cwiseAbs().maxCoeff());
}
