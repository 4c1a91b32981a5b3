// Domain trees: from labels, from a per-tet assignment (with its errors), automatic partition.
#include <Eigen/Dense>
#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "support/test_meshes.h"

namespace {

using Catch::Matchers::Contains;

using ramus::DomainTree;
using ramus::MeshError;
using ramus::TetMesh;

// The message of the MeshError that f throws ("no MeshError" when it throws none).
std::string mesh_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const MeshError& e) {
    return e.what();
  }
  return "no MeshError";
}

std::vector<int> flagged_vertices(const TetMesh& mesh) {
  std::vector<int> anchors;
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (mesh.vertex_flags(v) == 1) anchors.push_back(v);
  return anchors;
}

double total_volume(const TetMesh& mesh) {
  double sum = 0.0;
  for (int t = 0; t < mesh.num_tets(); ++t)
    sum += ramus::signed_tet_volume(mesh.rest_positions, mesh.tets, t);
  return sum;
}

Eigen::Vector3d centroid(const TetMesh& mesh, int t) {
  Eigen::Vector3d c = Eigen::Vector3d::Zero();
  for (int k = 0; k < 4; ++k) c += mesh.rest_positions.row(mesh.tets(t, k)).transpose();
  return c / 4.0;
}

// Unit cells of a box lattice: keeps the tets whose cell (integer floor of the centroid) gets a
// domain >= 0 from cell_domain; returns the mesh (all lattice vertices) and the tet domains.
TetMesh cells(int nx, int ny, int nz, const std::function<int(int, int, int)>& cell_domain,
              Eigen::VectorXi& tet_domain) {
  const TetMesh box = ramus::test::box_mesh(nx, ny, nz, nx, ny, nz);
  std::vector<int> kept;
  std::vector<int> domains;
  for (int t = 0; t < box.num_tets(); ++t) {
    const Eigen::Vector3d c = centroid(box, t);
    const int d =
        cell_domain(static_cast<int>(c.x()), static_cast<int>(c.y()), static_cast<int>(c.z()));
    if (d < 0) continue;
    kept.push_back(t);
    domains.push_back(d);
  }
  TetMesh mesh;
  mesh.rest_positions = box.rest_positions;
  mesh.tets.resize(static_cast<Eigen::Index>(kept.size()), 4);
  tet_domain.resize(static_cast<Eigen::Index>(kept.size()));
  for (std::size_t i = 0; i < kept.size(); ++i) {
    mesh.tets.row(static_cast<Eigen::Index>(i)) = box.tets.row(kept[i]);
    tet_domain(static_cast<Eigen::Index>(i)) = domains[i];
  }
  return mesh;
}

int domain_named(const DomainTree& tree, const std::string& name) {
  const auto it = std::find(tree.names.begin(), tree.names.end(), name);
  REQUIRE(it != tree.names.end());
  return static_cast<int>(it - tree.names.begin());
}

// Parent / children / depth consistent, a single root, interfaces = shared vertices.
void check_tree_consistent(const DomainTree& tree) {
  const int d = tree.num_domains;
  REQUIRE(static_cast<int>(tree.parent.size()) == d);
  REQUIRE(tree.root >= 0);
  CHECK(tree.parent[static_cast<std::size_t>(tree.root)] == -1);
  int edges = 0;
  for (int i = 0; i < d; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    CHECK(std::is_sorted(tree.domain_vertices[ui].begin(), tree.domain_vertices[ui].end()));
    CHECK(!tree.domain_tets[ui].empty());
    for (const int c : tree.children[ui]) {
      CHECK(tree.parent[static_cast<std::size_t>(c)] == i);
      ++edges;
    }
    if (i == tree.root) continue;
    const int p = tree.parent[ui];
    REQUIRE(p >= 0);
    CHECK(tree.depth[ui] == tree.depth[static_cast<std::size_t>(p)] + 1);
    std::vector<int> shared;
    const auto& a = tree.domain_vertices[ui];
    const auto& b = tree.domain_vertices[static_cast<std::size_t>(p)];
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(shared));
    CHECK(tree.interface_vertices[ui] == shared);
    CHECK(tree.interface_vertices[ui].size() >= 3);
  }
  CHECK(edges == d - 1);
}

}  // namespace

TEST_CASE("labels of the plant give its part tree, rooted at the stem",
          "[precompute][substructuring]") {
  const TetMesh plant = ramus::make_branching_plant();
  const DomainTree tree = ramus::domain_tree_from_labels(plant, flagged_vertices(plant));
  REQUIRE(tree.num_domains == 14);
  check_tree_consistent(tree);
  const int stem = domain_named(tree, "stem");
  CHECK(tree.root == stem);
  CHECK(tree.children[static_cast<std::size_t>(stem)].size() == 7);  // 6 branches + bloom
  CHECK(tree.parent[static_cast<std::size_t>(domain_named(tree, "bloom"))] == stem);
  for (int b = 1; b <= 6; ++b) {
    const int branch = domain_named(tree, "branch_" + std::to_string(b));
    const int leaf = domain_named(tree, "leaf_" + std::to_string(b));
    CHECK(tree.parent[static_cast<std::size_t>(branch)] == stem);
    CHECK(tree.parent[static_cast<std::size_t>(leaf)] == branch);
    CHECK(tree.children[static_cast<std::size_t>(leaf)].empty());
    // A 2 x 2 voxel joint: 3 x 3 vertices.
    CHECK(tree.interface_vertices[static_cast<std::size_t>(branch)].size() == 9);
    const auto leaf_interface = tree.interface_vertices[static_cast<std::size_t>(leaf)].size();
    CHECK(leaf_interface >= 4);
    CHECK(leaf_interface < tree.domain_vertices[static_cast<std::size_t>(leaf)].size() / 2);
  }
  // Every tet keeps its label's domain.
  for (int t = 0; t < plant.num_tets(); ++t)
    if (tree.names[static_cast<std::size_t>(tree.tet_domain(t))] !=
        plant.label_names.at(plant.labels(t))) {
      FAIL("tet " << t << " in the wrong domain");
    }
}

TEST_CASE("extract_domain_mesh: compact local meshes that add up to the whole",
          "[precompute][substructuring]") {
  const TetMesh plant = ramus::make_branching_plant();
  const DomainTree tree = ramus::domain_tree_from_labels(plant, flagged_vertices(plant));
  double volume = 0.0;
  int tets = 0;
  int shared_copies = 0;
  for (int d = 0; d < tree.num_domains; ++d) {
    std::vector<int> local_to_global;
    const TetMesh part = ramus::extract_domain_mesh(plant, tree, d, &local_to_global);
    REQUIRE(static_cast<int>(local_to_global.size()) == part.num_vertices());
    CHECK(local_to_global == tree.domain_vertices[static_cast<std::size_t>(d)]);
    CHECK(part.num_tets() ==
          static_cast<int>(tree.domain_tets[static_cast<std::size_t>(d)].size()));
    CHECK(part.tets.minCoeff() == 0);
    CHECK(part.tets.maxCoeff() == part.num_vertices() - 1);
    for (int t = 0; t < part.num_tets(); ++t) {
      const int g = tree.domain_tets[static_cast<std::size_t>(d)][static_cast<std::size_t>(t)];
      for (int c = 0; c < 4; ++c)
        CHECK(local_to_global[static_cast<std::size_t>(part.tets(t, c))] == plant.tets(g, c));
    }
    CHECK(part.labels.size() == part.num_tets());
    CHECK(part.labels.minCoeff() == part.labels.maxCoeff());
    CHECK(part.label_names.at(part.labels(0)) == tree.names[static_cast<std::size_t>(d)]);
    CHECK(part.vertex_flags.size() == part.num_vertices());
    volume += total_volume(part);
    tets += part.num_tets();
    shared_copies += static_cast<int>(tree.interface_vertices[static_cast<std::size_t>(d)].size());
  }
  CHECK(tets == plant.num_tets());
  CHECK(volume == Approx(total_volume(plant)).epsilon(1e-12));
  CHECK_THROWS_AS(ramus::extract_domain_mesh(plant, tree, 14), ramus::OptionError);
  // Interface vertices belong to two domains each (parts never meet three at a vertex here).
  int copies = 0;
  for (const auto& v : tree.domain_vertices) copies += static_cast<int>(v.size());
  CHECK(copies == plant.num_vertices() + shared_copies);
}

TEST_CASE("build_domain_tree: three domains glued in a ring form a loop",
          "[precompute][substructuring]") {
  // 3 x 3 cells around an empty centre: A = bottom row, B = right column + top right, C = rest.
  Eigen::VectorXi tet_domain;
  const TetMesh ring = cells(
      3, 3, 1,
      [](int i, int j, int) {
        if (i == 1 && j == 1) return -1;
        if (j == 0) return 0;
        if (i == 2 || (i == 1 && j == 2)) return 1;
        return 2;
      },
      tet_domain);
  const std::map<int, std::string> names{{0, "stem"}, {1, "branch_1"}, {2, "leaf_1"}};
  CHECK_THAT(mesh_error([&] { ramus::build_domain_tree(ring, tet_domain, {}, names); }),
             Contains("domains form a loop:") && Contains("stem") && Contains("branch_1") &&
                 Contains("leaf_1"));
  try {
    ramus::build_domain_tree(ring, tet_domain, {}, names);
  } catch (const MeshError& e) {
    // The cycle closes on its first domain.
    const std::string what = e.what();
    const std::string cycle = what.substr(what.find("loop: ") + 6);
    const std::string first = cycle.substr(0, cycle.find(" -> "));
    CHECK(cycle.substr(0, cycle.find(';')).ends_with("-> " + first));
  }
  // Cutting the ring open (C no longer touches A) gives a chain rooted at its centre, B.
  Eigen::VectorXi chain_domain;
  const TetMesh chain = cells(
      3, 3, 1,
      [](int i, int j, int) {
        if (i == 1 && j == 1) return -1;
        if (j == 0) return 0;
        if (i == 2 || (i == 1 && j == 2)) return 1;
        return j == 2 ? 2 : -1;
      },
      chain_domain);
  const DomainTree tree = ramus::build_domain_tree(chain, chain_domain, {}, names);
  check_tree_consistent(tree);
  CHECK(tree.root == 1);
  CHECK(tree.children[1] == std::vector<int>{0, 2});
}

TEST_CASE("build_domain_tree: empty, edge-touching and disconnected domains are errors",
          "[precompute][substructuring]") {
  Eigen::VectorXi tet_domain;
  const TetMesh row = cells(
      3, 1, 1, [](int i, int, int) { return i == 1 ? 3 : i; }, tet_domain);
  CHECK_THAT(mesh_error([&] { ramus::build_domain_tree(row, tet_domain, {}); }),
             Contains("domain 1 has no tets"));

  const TetMesh diagonal = cells(
      2, 2, 1, [](int i, int j, int) { return i == j ? i : -1; }, tet_domain);
  CHECK_THAT(mesh_error([&] {
               ramus::build_domain_tree(diagonal, tet_domain, {}, {{0, "left"}, {1, "right"}});
             }),
             Contains("'left' and 'right' share 2 vertices but no triangle face"));

  const TetMesh corner = cells(
      2, 2, 2, [](int i, int j, int k) { return i == j && j == k ? i : -1; }, tet_domain);
  CHECK_THAT(mesh_error([&] { ramus::build_domain_tree(corner, tet_domain, {}); }),
             Contains("'domain_0' and 'domain_1' share 1 vertex but no triangle face"));

  const TetMesh apart = cells(
      3, 1, 1, [](int i, int, int) { return i == 1 ? -1 : i / 2; }, tet_domain);
  CHECK_THAT(mesh_error([&] {
               ramus::build_domain_tree(apart, tet_domain, {}, {{1, "island"}});
             }),
             Contains("'island' shares no interface with any other domain"));

  // Two glued pairs with a gap between them: 0-1 and 2-3.
  const TetMesh two_pairs = cells(
      5, 1, 1, [](int i, int, int) { return i == 2 ? -1 : (i < 2 ? i : i - 1); }, tet_domain);
  CHECK_THAT(mesh_error([&] { ramus::build_domain_tree(two_pairs, tet_domain, {}); }),
             Contains("domain 'domain_2' is not connected to domain 'domain_0'") &&
                 Contains("must be connected"));

  Eigen::VectorXi bad(2);
  bad << 0, 1;
  CHECK_THROWS_AS(ramus::build_domain_tree(row, bad, {}), MeshError);
}

TEST_CASE("build_domain_tree: a domain must be one piece, unless it is the anchored one",
          "[precompute][substructuring]") {
  // A row of 3 cells: both ends in one domain, the middle in another. As a graph it is a tree
  // (two domains, one edge), but 'ends' is two pieces that share no face.
  Eigen::VectorXi tet_domain;
  const TetMesh row = cells(
      3, 1, 1, [](int i, int, int) { return i == 1 ? 0 : 1; }, tet_domain);
  const std::map<int, std::string> names{{0, "middle"}, {1, "ends"}};
  CHECK_THAT(mesh_error([&] { ramus::build_domain_tree(row, tet_domain, {}, names); }),
             Contains("domain 'ends' falls into 2 pieces that share no triangle face") &&
                 Contains("give each piece its own label"));
  // Anchored at both ends: 'ends' is the root, fixed to the world, and may be in pieces.
  const DomainTree anchored =
      ramus::build_domain_tree(row, tet_domain, {0, 4, 8, 12, 3, 7, 11, 15}, names);
  CHECK(anchored.root == 1);
  CHECK(anchored.parent == std::vector<int>{1, -1});
  CHECK(anchored.interface_vertices[0].size() == 8);  // both faces of the middle cell
  // Anchored at one end only: the other piece of 'ends' would float.
  CHECK_THAT(mesh_error([&] {
               ramus::build_domain_tree(row, tet_domain, {0, 4, 8, 12}, names);
             }),
             Contains("domain 'ends' falls into 2 pieces") &&
                 Contains("touches no fixed vertex (it would float)"));
  // The same for a single domain (two cells with a gap), anchored at its left piece.
  const TetMesh gap = cells(
      3, 1, 1, [](int i, int, int) { return i == 1 ? -1 : 0; }, tet_domain);
  CHECK_THAT(mesh_error([&] {
               ramus::build_domain_tree(gap, tet_domain, {0, 4, 8, 12});
             }),
             Contains("touches no fixed vertex"));
  // ... and free (no anchor at all): one body must be one piece.
  CHECK_THAT(mesh_error([&] { ramus::build_domain_tree(gap, tet_domain, {}); }),
             Contains("falls into 2 pieces"));
}

TEST_CASE("build_domain_tree: anchors pick the root and must lie in one domain",
          "[precompute][substructuring]") {
  Eigen::VectorXi tet_domain;
  const TetMesh row = cells(
      3, 1, 1, [](int i, int, int) { return i; }, tet_domain);
  const std::map<int, std::string> names{{0, "left"}, {1, "middle"}, {2, "right"}};
  // Vertex ids of box_mesh(3, 1, 1): i + 4 (j + 2 k).
  const DomainTree free_tree = ramus::build_domain_tree(row, tet_domain, {}, names);
  CHECK(free_tree.root == 1);
  const DomainTree right = ramus::build_domain_tree(row, tet_domain, {3, 7, 11, 15}, names);
  CHECK(right.root == 2);
  CHECK(right.parent == std::vector<int>{1, 2, -1});
  CHECK(right.interface_vertices[1] == std::vector<int>{2, 6, 10, 14});
  CHECK(right.interface_vertices[0] == std::vector<int>{1, 5, 9, 13});
  // Interface vertices belong to the anchored domain too: no conflict.
  CHECK(ramus::build_domain_tree(row, tet_domain, {2, 3}, names).root == 2);
  CHECK_THAT(mesh_error([&] {
               ramus::build_domain_tree(row, tet_domain, {0, 4, 3}, names);
             }),
             Contains("more than one domain") && Contains("'left'") && Contains("'right'"));
  CHECK_THROWS_AS(ramus::build_domain_tree(row, tet_domain, {99}, names), MeshError);
}

TEST_CASE("domain_tree_from_labels: needs labels", "[precompute][substructuring]") {
  const TetMesh box = ramus::make_box_tet_mesh(Eigen::Vector3d(1, 1, 1), 1, 1, 1);
  CHECK_THAT(mesh_error([&] { ramus::domain_tree_from_labels(box, {}); }),
             Contains("the \"labels\" partition needs a label per tet"));
  TetMesh labelled = ramus::make_box_tet_mesh(Eigen::Vector3d(2, 1, 1), 2, 1, 1);
  labelled.labels = Eigen::VectorXi::Constant(labelled.num_tets(), 7);
  labelled.labels.tail(6).setConstant(9);
  labelled.label_names[9] = "tip";
  const DomainTree tree = ramus::domain_tree_from_labels(labelled, {});
  CHECK(tree.num_domains == 2);
  CHECK(tree.names == std::vector<std::string>{"label_7", "tip"});
}

TEST_CASE("partition_branching_mesh: the plant splits into a tree that never mixes branches",
          "[precompute][substructuring]") {
  const TetMesh plant = ramus::make_branching_plant();
  const std::vector<int> anchors = flagged_vertices(plant);
  ramus::AutomaticPartitionOptions by_bands;
  by_bands.method = ramus::AutomaticPartitionOptions::Method::kBands;
  const DomainTree tree = ramus::partition_branching_mesh(plant, anchors, by_bands);
  check_tree_consistent(tree);
  CHECK(tree.num_domains >= 8);
  CHECK(tree.num_domains <= 30);
  // Subtree of each label: 0 stem, b for branch_b / leaf_b, -1 bloom.
  const int num_b = 6;
  auto subtree = [&](int label) {
    if (label == 1) return 0;
    if (label <= 1 + 2 * num_b) return (label - 2) % num_b + 1;
    return -1;
  };
  // A domain spans two branch subtrees only as a piece of the stem holding their bases (a
  // junction); every domain is one piece (build_domain_tree checks it).
  for (int d = 0; d < tree.num_domains; ++d) {
    std::set<int> parts;
    bool stem = false;
    for (const int t : tree.domain_tets[static_cast<std::size_t>(d)]) {
      if (subtree(plant.labels(t)) != 0) parts.insert(subtree(plant.labels(t)));
      stem = stem || subtree(plant.labels(t)) == 0;
    }
    INFO("domain " << d << " spans " << parts.size() << " branch subtrees / bloom");
    CHECK((stem || parts.size() <= 1));
  }
  // The root is the stem's base: it holds every anchor and only stem tets.
  const auto& root_vertices = tree.domain_vertices[static_cast<std::size_t>(tree.root)];
  for (const int v : anchors)
    CHECK(std::binary_search(root_vertices.begin(), root_vertices.end(), v));
  for (const int t : tree.domain_tets[static_cast<std::size_t>(tree.root)])
    CHECK(plant.labels(t) == 1);
  // Branching survives: at least one tree leaf per leaf blade plus the bloom, several levels.
  int tree_leaves = 0;
  for (const auto& children : tree.children) tree_leaves += children.empty() ? 1 : 0;
  CHECK(tree_leaves >= 7);
  CHECK(*std::max_element(tree.depth.begin(), tree.depth.end()) >= 4);

  // Other layouts and band counts: every domain is one face-connected piece (checked by
  // build_domain_tree) and no domain without stem tets spans two branch subtrees.
  for (const int branches : {3, 5, 7, 9})
    for (const int bands : {6, 20}) {
      ramus::PlantOptions layout;
      layout.num_branches = branches;
      const TetMesh other = ramus::make_branching_plant(layout);
      ramus::AutomaticPartitionOptions options;
      options.num_bands = bands;
      INFO(branches << " branches, " << bands << " bands");
      for (const auto method : {ramus::AutomaticPartitionOptions::Method::kBands,
                                ramus::AutomaticPartitionOptions::Method::kShape}) {
        options.method = method;
        const DomainTree t =
            ramus::partition_branching_mesh(other, flagged_vertices(other), options);
        check_tree_consistent(t);
        for (int d = 0; d < t.num_domains; ++d) {
          std::set<int> parts;
          bool stem = false;
          for (const int tet : t.domain_tets[static_cast<std::size_t>(d)]) {
            const int label = other.labels(tet);
            if (label == 1)
              stem = true;
            else if (label <= 1 + 2 * branches)
              parts.insert((label - 2) % branches + 1);
            else
              parts.insert(-1);
          }
          CHECK((stem || parts.size() <= 1));
        }
      }
    }

  // A free plant (no anchors) still gives a tree, rooted at its centre.
  const DomainTree free_tree = ramus::partition_branching_mesh(plant, {}, by_bands);
  check_tree_consistent(free_tree);
  CHECK(free_tree.num_domains >= 4);
}

TEST_CASE("partition_branching_mesh: a straight beam becomes a chain",
          "[precompute][substructuring]") {
  const TetMesh beam = ramus::make_cantilever_beam(20, 4, 4);
  const std::vector<int> anchors = flagged_vertices(beam);
  for (const int bands : {4, 8}) {
    ramus::AutomaticPartitionOptions options;
    options.method = ramus::AutomaticPartitionOptions::Method::kBands;
    options.num_bands = bands;
    const DomainTree tree = ramus::partition_branching_mesh(beam, anchors, options);
    check_tree_consistent(tree);
    CHECK(tree.num_domains == bands);
    CHECK(tree.root == 0);
    for (const auto& children : tree.children) CHECK(children.size() <= 1);
    // The interfaces cut across the beam: at least the 5 x 5 vertices of a cross-section.
    for (int d = 0; d < tree.num_domains; ++d)
      if (d != tree.root) CHECK(tree.interface_vertices[static_cast<std::size_t>(d)].size() >= 25);
  }
  ramus::AutomaticPartitionOptions bad;
  bad.num_bands = -1;
  CHECK_THROWS_AS(ramus::partition_branching_mesh(beam, anchors, bad), ramus::OptionError);
  bad.num_bands = 4;
  bad.band_width = -1.0;
  CHECK_THROWS_AS(ramus::partition_branching_mesh(beam, anchors, bad), ramus::OptionError);
  bad.band_width = 0.0;
  bad.dominance = 0.5;
  CHECK_THROWS_AS(ramus::partition_branching_mesh(beam, anchors, bad), ramus::OptionError);
  bad.dominance = 2.0;
  bad.neck_contrast = 1.0;
  CHECK_THROWS_AS(ramus::partition_branching_mesh(beam, anchors, bad), ramus::OptionError);
  bad.neck_contrast = 3.0;
  bad.max_depth = -1;
  CHECK_THROWS_AS(ramus::partition_branching_mesh(beam, anchors, bad), ramus::OptionError);
}
