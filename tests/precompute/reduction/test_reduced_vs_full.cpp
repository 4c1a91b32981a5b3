// The ground truth of whole domain trees: the undivided mesh rebuilt from a model, and the tree's
// run against its full FEM.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/error.h"
#include "ramus/precompute/reduction/reduced_vs_full.h"
#include "support/split_beams.h"

using namespace ramus;
using Catch::Matchers::Contains;

TEST_CASE("The undivided mesh of a split beam is the beam it was cut from",
          "[precompute][reduction]") {
  const auto model = test::split_beam({12, 12, 12});
  std::vector<int> fixed;
  const StvkFemModel full = undivided_full_space_model(*model, &fixed);
  const TetMesh beam = test::split_beam_mesh();
  REQUIRE(full.num_vertices() == beam.num_vertices());
  CHECK(full.mesh().tets.rows() == beam.num_tets());
  CHECK((full.mesh().rest_positions - beam.rest_positions).cwiseAbs().maxCoeff() < 1e-12);
  std::vector<int> clamped = test::clamped_vertices(beam);
  std::sort(fixed.begin(), fixed.end());
  CHECK(fixed == clamped);
  // Same mass and same volume: every tet once, with its material.
  double volume = 0;
  for (int t = 0; t < beam.num_tets(); ++t)
    volume += std::abs(signed_tet_volume(full.mesh().rest_positions, full.mesh().tets, t));
  CHECK(volume == Approx(1.0 * 0.2 * 0.2).epsilon(1e-12));
}

TEST_CASE(
    "A one-domain tree compares like the one-domain comparison and a split beam follows "
    "the full FEM",
    "[precompute][reduction]") {
  TreeComparisonOptions tree;
  tree.settings.time_step = 0.01;
  tree.settings.gravity = {0, 0, -9.81};
  tree.steps = 40;
  int calls = 0;
  tree.progress = [&calls](int step, int steps) {
    ++calls;
    CHECK(step <= steps);
  };
  // One domain: the two code paths agree.
  const auto whole = test::split_beam({20});
  tree.settings.domains.resize(1);
  ComparisonOptions one;
  one.settings = tree.settings;
  one.domain = tree.settings.domains[0];
  one.steps = tree.steps;
  const Comparison a = compare_tree_to_full(whole, tree);
  const Comparison b = compare_reduced_to_full(whole, one);
  CHECK(calls == 40);
  CHECK((a.full_trajectory - b.full_trajectory).cwiseAbs().maxCoeff() < 1e-12);
  CHECK((a.reduced_trajectory - b.reduced_trajectory).cwiseAbs().maxCoeff() < 1e-9);
  // Two domains of 20 modes under gravity, the subtree's mass at its centre (L2): the rigid
  // interface stiffens this stubby beam (test_substructured_step: 3-15 % less deflection, up to
  // 25 % higher frequency), so the trajectories part by that much and no more.
  const auto split = test::split_beam({20, 20});
  tree.settings.domains.resize(2);
  tree.settings.lumping = InterfaceLumping::kCenterOfMass;
  const Comparison c = compare_tree_to_full(split, tree);
  INFO("relative error " << c.relative_error << ", max full displacement "
                         << c.max_full_displacement);
  CHECK(c.max_full_displacement > 0.05);
  CHECK(c.relative_error < 0.3);
}

TEST_CASE("Separate meshes placed at a scale have no undivided mesh", "[precompute][reduction]") {
  auto model = test::split_beam({8, 8});
  model->domains[1].scale = 2;
  CHECK_THROWS_WITH(undivided_full_space_model(*model, nullptr),
                    Contains("is placed at scale 2") && Contains("no undivided mesh"));
}
