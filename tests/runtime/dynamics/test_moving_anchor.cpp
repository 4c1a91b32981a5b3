// A moving anchor (dynamics/anchor_motion.h): the plant on a cart sways as the full FEM does in
// the cart's frame; a uniformly accelerated anchor is gravity minus that acceleration (to
// rounding); move_anchor lands on its targets with differenced motion, allocation-free; and bad
// motions are refused with the state untouched.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/precompute_model.h"
#include "ramus/precompute/reduction/reduced_vs_full.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/split_beams.h"

namespace ramus {
namespace {

constexpr double kPi = 3.14159265358979323846;

TEST_CASE("The plant on a cart sways as the full FEM does in the cart's frame",
          "[runtime][dynamics][anchor]") {
  // The bundled plant under gravity; the cart moves along x by 0.5 (1 - cos 2π 1.5 t) m: from rest,
  // 0 to 1 m and back at 1.5 Hz (peak acceleration 44 m/s²), h = 10 ms, 0.6 s.
  const ModelSpec spec =
      load_model_spec(std::string(RAMUS_TEST_DATA_DIR) + "/../../data/plant/plant.json");
  auto model = std::make_shared<const ReducedModel>(precompute_model(spec, {}, {}));
  TreeComparisonOptions options;
  options.settings = model->settings;
  options.settings.time_step = 0.01;
  options.steps = 60;
  options.anchor_displacement = [](double t) {
    return Eigen::Vector3d(0.5 * (1 - std::cos(2 * kPi * 1.5 * t)), 0, 0);
  };
  const Comparison cart = compare_tree_to_full(model, options);
  options.anchor_displacement = nullptr;
  const Comparison still = compare_tree_to_full(model, options);
  // The stem's top (the highest vertex of the root domain), in the cart's frame.
  const Eigen::MatrixX3d rest = global_rest_positions(*model);
  const ReducedDomain& root = model->domains.front();
  int top = root.global_vertices(0);
  for (Eigen::Index i = 0; i < root.global_vertices.size(); ++i)
    if (rest(root.global_vertices(i), 2) > rest(top, 2)) top = root.global_vertices(i);
  double gap = 0, first_half_gap = 0, full_sway = 0, reduced_sway = 0, still_gap = 0;
  for (Eigen::Index k = 0; k < cart.full_trajectory.cols(); ++k) {
    const Eigen::Vector3d full = cart.full_trajectory.col(k).segment<3>(3 * top);
    const Eigen::Vector3d reduced = cart.reduced_trajectory.col(k).segment<3>(3 * top);
    const Eigen::Vector3d resting = still.reduced_trajectory.col(k).segment<3>(3 * top);
    gap = std::max(gap, (full - reduced).norm());
    full_sway = std::max(full_sway, std::abs(full(0)));
    reduced_sway = std::max(reduced_sway, std::abs(reduced(0)));
    still_gap = std::max(still_gap, (reduced - resting).norm());
    if (k <= 33) first_half_gap = gap;
  }
  WARN("cart: the stem's top sways "
       << full_sway << " m (full FEM), " << reduced_sway << " m (reduced); largest gap "
       << first_half_gap << " m in the first half period (" << first_half_gap / full_sway
       << " of the sway), " << gap << " m in the whole (" << gap / full_sway
       << "); every vertex: " << cart.relative_error << " relative");
  // It sways (a still plant's top stays within millimetres of its rest under gravity alone).
  CHECK(still_gap > 0.5 * full_sway);
  CHECK(full_sway > 0.02);
  // And as the full FEM does (bands measured, docs/VALIDATION.md "A moving anchor": sway 1.8 %,
  // gap 15 % of the sway in the first half period, 37 % over the period, where the stem's top
  // swings 0.23 m on a 0.42 m plant and the reduced tree's phase drifts).
  CHECK(reduced_sway == Approx(full_sway).epsilon(0.1));
  CHECK(first_half_gap < 0.2 * full_sway);
  CHECK(gap < 0.45 * full_sway);
}

TEST_CASE("A uniformly accelerated anchor is gravity minus its acceleration",
          "[runtime][dynamics][anchor]") {
  // The frames' system force of a pure translation is -G a, exactly the gravity load's form: one
  // domain whose anchor accelerates at a moves as a still one under g - a (to rounding). In a
  // tree, Algorithm 1 turns each subtree's weight into its parent's frame at the step's start
  // (line 3) while the parent's frame acceleration is the step's end: a lag of one step's
  // rotation, measured 5e-5 of |q| after 80 steps here (L1).
  for (const int domains : {1, 3}) {
    const auto model = compile_model(*test::split_beam(domains, 8));
    RuntimeSettings settings = model->settings;
    settings.time_step = 0.005;
    settings.gravity = Eigen::Vector3d(0, 0, -9.81);
    const Eigen::Vector3d a(2.0, -1.0, 3.5);
    Simulator carried(model, settings);
    AnchorMotion motion = carried.anchor_motion();
    motion.acceleration = a;
    carried.set_anchor_motion(motion);
    settings.gravity -= a;
    Simulator still(model, settings);
    for (int k = 0; k < 80; ++k) {
      REQUIRE(carried.step() == StepStatus::kOk);
      REQUIRE(still.step() == StepStatus::kOk);
    }
    const double difference = (carried.state().q - still.state().q).norm();
    INFO(domains << " domains: |q| " << still.state().q.norm() << ", difference " << difference);
    CHECK(still.state().q.norm() > 1e-3);
    CHECK(difference < (domains == 1 ? 1e-9 : 1e-3) * still.state().q.norm());
    // The anchor itself went along a (semi-implicit) parabola: x = h² a n (n + 1) / 2.
    const double n = 80, h = 0.005;
    CHECK((carried.anchor_motion().pose.translation - model->domains[0].rest_origin -
           h * h * a * n * (n + 1) / 2)
              .norm() < 1e-9);
  }
}

TEST_CASE("move_anchor lands on its targets, turning too, without allocating",
          "[runtime][dynamics][anchor]") {
  const auto model = compile_model(*test::split_beam(3, 8));
  Simulator sim(model);
  const double h = sim.settings().time_step;
  // A circle in the xy plane while turning about z: 60 targets, each reached by its step.
  double worst_position = 0, worst_rotation = 0;
  bool ok = true;
  RigidPose target;
  const long allocations = test::count_allocations([&] {
    for (int k = 1; k <= 60; ++k) {
      const double t = k * h;
      target.rotation = Eigen::AngleAxisd(0.8 * t, Eigen::Vector3d::UnitZ()).toRotationMatrix();
      target.translation = Eigen::Vector3d(0.3 * std::sin(4 * t), 0.3 * (1 - std::cos(4 * t)), 0);
      sim.move_anchor(target, h);
      ok &= sim.step() == StepStatus::kOk;
      const AnchorMotion now = sim.anchor_motion();
      worst_position = std::max(worst_position, (now.pose.translation - target.translation).norm());
      worst_rotation = std::max(worst_rotation, (now.pose.rotation - target.rotation).norm());
    }
  });
  CHECK(ok);
  CHECK(allocations == 0);
  CHECK(worst_position < 1e-12);
  CHECK(worst_rotation < 1e-12);
  // Its velocity is the last step's difference; the tip domain follows its parents' frames.
  CHECK((sim.anchor_motion().angular_velocity - Eigen::Vector3d(0, 0, 0.8)).norm() < 1e-9);
  CHECK(sim.state().q.norm() > 1e-4);  // (the beam bends under the turning)
}

TEST_CASE("Anchor motions a model cannot take are refused, the state untouched",
          "[runtime][dynamics][anchor]") {
  const auto tree = compile_model(*test::split_beam(3, 6));
  Simulator sim(tree);
  REQUIRE(sim.step() == StepStatus::kOk);
  const State before = sim.state();
  AnchorMotion bad = sim.anchor_motion();
  bad.acceleration(1) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(sim.set_anchor_motion(bad), Catch::Contains("finite"));
  bad = sim.anchor_motion();
  bad.pose.rotation *= 1.1;
  CHECK_THROWS_WITH(sim.set_anchor_motion(bad), Catch::Contains("not a rotation"));
  CHECK_THROWS_WITH(sim.move_anchor(bad.pose, 0.01), Catch::Contains("not a rotation"));
  CHECK_THROWS_WITH(sim.move_anchor(sim.anchor_motion().pose, 0), Catch::Contains("seconds"));
  CHECK(sim.state().frame_origin == before.frame_origin);
  CHECK(sim.state().frame_acceleration == before.frame_acceleration);
  // A free root moves by its own dynamics.
  Simulator free_flying(compile_model(*test::split_beam(3, 6, false)));
  CHECK_THROWS_WITH(free_flying.move_anchor(RigidPose{}, 0.01), Catch::Contains("free"));
  // An anchored single domain without W1..W7 translates, but does not turn.
  ReducedModel bare = *test::split_beam(1, 6);
  bare.parts[0].system_force = {};
  Simulator single(compile_model(bare));
  RigidPose turned = single.anchor_motion().pose;
  turned.translation.x() += 0.01;
  CHECK_NOTHROW(single.move_anchor(turned, 0.01));
  turned.rotation = Eigen::AngleAxisd(0.1, Eigen::Vector3d::UnitY()).toRotationMatrix();
  CHECK_THROWS_WITH(single.move_anchor(turned, 0.01), Catch::Contains("translation only"));
}

}  // namespace
}  // namespace ramus
