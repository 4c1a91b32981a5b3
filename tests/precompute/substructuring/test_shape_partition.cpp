// The shape method of the automatic partition (automatic_partition.cpp, limb_segmentation.cpp) on
// generated shapes whose right answer is known: a Y-shaped rod, a trunk with thin branches, a bulb
// on a stalk, a sphere, a straight rod, the plant.
#include <Eigen/Dense>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/substructuring/domain_tree.h"

namespace {

using Catch::Matchers::Contains;
using Eigen::Vector3d;
using ramus::AutomaticPartitionOptions;
using ramus::DomainTree;
using ramus::TetMesh;

std::size_t sz(int i) {
  return static_cast<std::size_t>(i);
}

// A capsule: the points within `radius` of the segment [a, b]; `label` for the voxel mesh.
struct Capsule {
  Vector3d a;
  Vector3d b;
  double radius;
  int label = 1;
};

double segment_distance(const Vector3d& p, const Vector3d& a, const Vector3d& b) {
  const Vector3d ab = b - a;
  if (ab.squaredNorm() == 0.0) return (p - a).norm();
  const double s = std::clamp((p - a).dot(ab) / ab.squaredNorm(), 0.0, 1.0);
  return (p - (a + s * ab)).norm();
}

// Voxel mesh of a union of capsules cut at z >= 0 (the first capsule listed wins a label).
TetMesh capsules_mesh(const std::vector<Capsule>& parts, double cell) {
  Vector3d lower = Vector3d::Constant(1e9);
  Vector3d upper = Vector3d::Constant(-1e9);
  for (const Capsule& c : parts) {
    lower = lower.cwiseMin(c.a.cwiseMin(c.b) - Vector3d::Constant(c.radius));
    upper = upper.cwiseMax(c.a.cwiseMax(c.b) + Vector3d::Constant(c.radius));
  }
  lower.z() = 0.0;
  return ramus::make_voxel_tet_mesh(
      [&](const Vector3d& p) {
        for (const Capsule& c : parts)
          if (segment_distance(p, c.a, c.b) <= c.radius) return c.label;
        return 0;
      },
      lower, upper, cell);
}

// Vertices with z <= height (the anchored base).
std::vector<int> base_vertices(const TetMesh& mesh, double height) {
  std::vector<int> base;
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (mesh.rest_positions(v, 2) <= height + 1e-12) base.push_back(v);
  return base;
}

// Domains holding tets of each label: label -> {domain: tets}.
std::map<int, std::map<int, int>> domains_by_label(const TetMesh& mesh, const DomainTree& tree) {
  std::map<int, std::map<int, int>> out;
  for (int t = 0; t < mesh.num_tets(); ++t) ++out[mesh.labels(t)][tree.tet_domain(t)];
  return out;
}

int max_depth(const DomainTree& tree) {
  return *std::max_element(tree.depth.begin(), tree.depth.end());
}

// The Y: a stem and two equal arms.
TetMesh y_rod() {
  return capsules_mesh({{Vector3d(0, 0, 0), Vector3d(0, 0, 1.0), 0.1, 1},
                        {Vector3d(0, 0, 1.0), Vector3d(0.55, 0, 1.55), 0.1, 2},
                        {Vector3d(0, 0, 1.0), Vector3d(-0.55, 0, 1.55), 0.1, 3}},
                       0.03);
}

}  // namespace

TEST_CASE("shape partition: a Y-shaped rod becomes its stem and two arms",
          "[precompute][substructuring]") {
  const TetMesh y = y_rod();
  std::vector<std::string> notes;
  const DomainTree tree = ramus::partition_branching_mesh(y, base_vertices(y, 0.0), {}, &notes);
  INFO(y.num_tets() << " tets, " << tree.num_domains << " domains");
  REQUIRE(tree.num_domains == 3);
  CHECK(notes.empty());
  CHECK(tree.names == std::vector<std::string>{"base", "limb_1", "limb_2"});
  CHECK(tree.children[sz(tree.root)].size() == 2);
  // Each arm is (nearly all) one domain, not shared with the other arm; the stem is the root.
  const auto by_label = domains_by_label(y, tree);
  for (const int arm : {2, 3}) {
    int best = 0;
    int total = 0;
    for (const auto& [d, count] : by_label.at(arm)) {
      total += count;
      if (d != tree.root) best = std::max(best, count);
    }
    INFO("arm " << arm << ": " << best << " of " << total << " tets in its domain");
    CHECK(best > 0.85 * total);
  }
  CHECK(by_label.at(1).at(tree.root) > 0.95 * y.num_tets() / 3);
  std::set<int> arm_domains;
  for (const int arm : {2, 3}) {
    int top = -1;
    for (const auto& [d, count] : by_label.at(arm))
      if (top < 0 || count > by_label.at(arm).at(top)) top = d;
    arm_domains.insert(top);
  }
  CHECK(arm_domains.size() == 2);
  CHECK(arm_domains.count(tree.root) == 0);
}

TEST_CASE("shape partition: a trunk with four thin branches keeps the trunk whole",
          "[precompute][substructuring]") {
  std::vector<Capsule> parts{{Vector3d(0, 0, 0), Vector3d(0, 0, 1.6), 0.12, 1}};
  const Vector3d dirs[4] = {Vector3d(1, 0, 0), Vector3d(0, 1, 0), Vector3d(-1, 0, 0),
                            Vector3d(0, -1, 0)};
  for (int b = 0; b < 4; ++b) {
    const double h = 0.5 + 0.3 * b;
    parts.push_back({Vector3d(0, 0, h), Vector3d(0, 0, h) + 0.55 * dirs[b] + Vector3d(0, 0, 0.25),
                     0.05, 2 + b});
  }
  const TetMesh trunk = capsules_mesh(parts, 0.025);
  std::vector<std::string> notes;
  const DomainTree tree =
      ramus::partition_branching_mesh(trunk, base_vertices(trunk, 0.0), {}, &notes);
  INFO(trunk.num_tets() << " tets, " << tree.num_domains << " domains");
  CHECK(tree.num_domains == 5);
  CHECK(max_depth(tree) == 1);
  // The trunk is one domain (the root) but for the few tets where a branch leaves it.
  const auto by_label = domains_by_label(trunk, tree);
  int trunk_tets = 0;
  for (const auto& [d, count] : by_label.at(1)) trunk_tets += count;
  CHECK(by_label.at(1).at(tree.root) > 0.97 * trunk_tets);
  // Every branch is one child domain of its own.
  std::set<int> branch_domains;
  for (int b = 0; b < 4; ++b) {
    int top = -1;
    for (const auto& [d, count] : by_label.at(2 + b))
      if (top < 0 || count > by_label.at(2 + b).at(top)) top = d;
    CHECK(top != tree.root);
    branch_domains.insert(top);
  }
  CHECK(branch_domains.size() == 4);
}

TEST_CASE("shape partition: a bulb on a stalk is cut at the neck", "[precompute][substructuring]") {
  TetMesh bulb = capsules_mesh({{Vector3d(0, 0, 0), Vector3d(0, 0, 0.8), 0.05, 1},
                                {Vector3d(0, 0, 1.0), Vector3d(0, 0, 1.0), 0.22, 2}},
                               0.025);
  const DomainTree tree = ramus::partition_branching_mesh(bulb, base_vertices(bulb, 0.0));
  INFO(bulb.num_tets() << " tets");
  REQUIRE(tree.num_domains == 2);
  const auto by_label = domains_by_label(bulb, tree);
  int bulb_tets = 0;
  for (const auto& [d, count] : by_label.at(2)) bulb_tets += count;
  CHECK(by_label.at(2).at(1) > 0.9 * bulb_tets);
}

TEST_CASE("shape partition: a sphere and a straight rod stay one domain and say so",
          "[precompute][substructuring]") {
  const TetMesh sphere = ramus::make_voxel_tet_mesh(
      [](const Vector3d& p) { return (p - Vector3d(0, 0, 0.5)).norm() <= 0.5 ? 1 : 0; },
      Vector3d(-0.5, -0.5, 0), Vector3d(0.5, 0.5, 1), 0.05);
  std::vector<std::string> notes;
  const DomainTree one =
      ramus::partition_branching_mesh(sphere, base_vertices(sphere, 0.1), {}, &notes);
  CHECK(one.num_domains == 1);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("one domain") && Contains("\"partition\": \"labels\""));
  // A free sphere too.
  notes.clear();
  CHECK(ramus::partition_branching_mesh(sphere, {}, {}, &notes).num_domains == 1);
  CHECK(notes.size() == 1);

  const TetMesh beam = ramus::make_cantilever_beam(30, 6, 6);
  std::vector<int> clamped;
  for (int v = 0; v < beam.num_vertices(); ++v)
    if (beam.vertex_flags(v) == 1) clamped.push_back(v);
  notes.clear();
  CHECK(ramus::partition_branching_mesh(beam, clamped, {}, &notes).num_domains == 1);
  CHECK(notes.size() == 1);
  // The bands method still cuts it into discs.
  AutomaticPartitionOptions bands;
  bands.method = AutomaticPartitionOptions::Method::kBands;
  CHECK(ramus::partition_branching_mesh(beam, clamped, bands).num_domains == 12);
}

TEST_CASE("shape partition: from_labels refines the labels and names domains after them",
          "[precompute][substructuring]") {
  // One label over the whole Y: refined into stem and arms, named after the label.
  TetMesh y = y_rod();
  y.labels.setConstant(4);
  y.label_names[4] = "fork";
  AutomaticPartitionOptions options;
  options.from_labels = true;
  const DomainTree fork = ramus::partition_branching_mesh(y, base_vertices(y, 0.0), options);
  CHECK(fork.num_domains == 3);
  CHECK(fork.names[sz(fork.root)] == "fork");
  std::set<std::string> names(fork.names.begin(), fork.names.end());
  CHECK(names == std::set<std::string>{"fork", "fork_2", "fork_3"});
  // Labels that split the stem in two: the cut follows the label, so 4 domains.
  TetMesh two = y_rod();
  for (int t = 0; t < two.num_tets(); ++t) {
    Vector3d c = Vector3d::Zero();
    for (int k = 0; k < 4; ++k) c += two.rest_positions.row(two.tets(t, k)).transpose() / 4;
    two.labels(t) = c.z() < 0.5 ? 7 : 8;
  }
  two.label_names = {{7, "lower"}, {8, "upper"}};
  const DomainTree split = ramus::partition_branching_mesh(two, base_vertices(two, 0.0), options);
  CHECK(split.num_domains == 4);
  CHECK(split.names[sz(split.root)] == "lower");
  for (int d = 0; d < split.num_domains; ++d) {
    std::set<int> labels;
    for (const int t : split.domain_tets[sz(d)]) labels.insert(two.labels(t));
    CHECK(labels.size() == 1);
  }
  // A mesh without labels is refused.
  TetMesh bare = y_rod();
  bare.labels.resize(0);
  CHECK_THROWS_AS(ramus::partition_branching_mesh(bare, base_vertices(bare, 0.0), options),
                  ramus::MeshError);
}

TEST_CASE("shape partition: the plant keeps its stem whole and its depth within max_depth",
          "[precompute][substructuring]") {
  const TetMesh plant = ramus::make_branching_plant();
  std::vector<int> anchors;
  for (int v = 0; v < plant.num_vertices(); ++v)
    if (plant.vertex_flags(v) == 1) anchors.push_back(v);
  std::vector<std::string> notes;
  const DomainTree tree = ramus::partition_branching_mesh(plant, anchors, {}, &notes);
  INFO(tree.num_domains << " domains, depth " << max_depth(tree));
  CHECK(max_depth(tree) <= 5);
  CHECK(tree.num_domains >= 7);  // the stem, 6 branches (with or without their leaves)
  const auto by_label = domains_by_label(plant, tree);
  int stem = 0;
  for (const auto& [d, count] : by_label.at(1)) stem += count;
  CHECK(by_label.at(1).at(tree.root) > 0.9 * stem);
  // A tighter cap merges pieces and says so.
  AutomaticPartitionOptions flat;
  flat.max_depth = 0;
  notes.clear();
  CHECK(ramus::partition_branching_mesh(plant, anchors, flat, &notes).num_domains == 1);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("7 pieces merged") && Contains("max_depth 0"));
}
