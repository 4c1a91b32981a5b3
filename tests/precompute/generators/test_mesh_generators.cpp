// Procedural meshes: orientation, conformity, counts, flags, and the plant's part tree.
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/mesh/tet_mesh.h"

namespace {

using ramus::TetMesh;
using Face = std::array<int, 3>;

// Outward-oriented faces of a positive tet (v0, v1, v2, v3).
constexpr std::array<std::array<int, 3>, 4> kTetFaces = {
    {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}}};

struct FaceUse {
  int count = 0;
  int orientation_sum = 0;  // +1 / -1 per use, relative to the sorted vertex order
  std::vector<int> tets;
};

// Every triangle face of the mesh with its users.
std::map<Face, FaceUse> face_uses(const TetMesh& mesh) {
  std::map<Face, FaceUse> faces;
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (const auto& f : kTetFaces) {
      Face v{mesh.tets(t, f[0]), mesh.tets(t, f[1]), mesh.tets(t, f[2])};
      // Parity of the permutation that sorts v (three elements: count inversions).
      const int inversions = (v[0] > v[1]) + (v[0] > v[2]) + (v[1] > v[2]);
      std::sort(v.begin(), v.end());
      FaceUse& use = faces[v];
      ++use.count;
      use.orientation_sum += inversions % 2 == 0 ? 1 : -1;
      use.tets.push_back(t);
    }
  return faces;
}

double face_area(const TetMesh& mesh, const Face& f) {
  const Eigen::Vector3d a = mesh.rest_positions.row(f[0]);
  const Eigen::Vector3d b = mesh.rest_positions.row(f[1]);
  const Eigen::Vector3d c = mesh.rest_positions.row(f[2]);
  return 0.5 * (b - a).cross(c - a).norm();
}

void check_all_positive(const TetMesh& mesh) {
  int non_positive = 0;
  for (int t = 0; t < mesh.num_tets(); ++t)
    if (!(ramus::signed_tet_volume(mesh.rest_positions, mesh.tets, t) > 0.0)) ++non_positive;
  CHECK(non_positive == 0);
}

// No face used more than twice; every shared face seen from both sides (opposite orientations).
// Returns the boundary faces (used once).
std::vector<Face> check_conforming(const TetMesh& mesh) {
  std::vector<Face> boundary;
  int overused = 0;
  int inconsistent = 0;
  for (const auto& [face, use] : face_uses(mesh)) {
    if (use.count == 1) boundary.push_back(face);
    if (use.count > 2) ++overused;
    if (use.count == 2 && use.orientation_sum != 0) ++inconsistent;
  }
  CHECK(overused == 0);
  CHECK(inconsistent == 0);
  return boundary;
}

// Boundary faces close up: every directed edge is matched by its reverse (no holes, no cracks).
void check_closed_boundary(const TetMesh& mesh) {
  std::map<std::pair<int, int>, int> edges;  // (min, max) -> +1 per a<b use, -1 per a>b use
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (const auto& f : kTetFaces)
      for (int e = 0; e < 3; ++e) {
        const int a = mesh.tets(t, f[e]);
        const int b = mesh.tets(t, f[(e + 1) % 3]);
        edges[{std::min(a, b), std::max(a, b)}] += a < b ? 1 : -1;
      }
  // Summing over all tet faces, interior faces cancel; the rest is the boundary's edge balance.
  int unbalanced = 0;
  for (const auto& [edge, balance] : edges)
    if (balance != 0) ++unbalanced;
  CHECK(unbalanced == 0);
}

struct UnionFind {
  std::vector<int> parent;
  explicit UnionFind(int n) : parent(static_cast<std::size_t>(n)) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int find(int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void unite(int a, int b) { parent[find(a)] = find(b); }
};

int count_components(const std::vector<int>& nodes, UnionFind& uf) {
  std::set<int> roots;
  for (int n : nodes) roots.insert(uf.find(n));
  return static_cast<int>(roots.size());
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// All the structural checks of a plant mesh. Returns the number of parts.
int check_plant(const TetMesh& mesh) {
  REQUIRE(mesh.num_tets() > 0);
  REQUIRE(mesh.labels.size() == mesh.num_tets());
  REQUIRE(mesh.vertex_flags.size() == mesh.num_vertices());
  check_all_positive(mesh);
  check_conforming(mesh);
  check_closed_boundary(mesh);

  // Labels 1..k all present and named.
  const int k = mesh.labels.maxCoeff();
  CHECK(mesh.labels.minCoeff() == 1);
  std::set<int> present(mesh.labels.data(), mesh.labels.data() + mesh.labels.size());
  CHECK(static_cast<int>(present.size()) == k);
  REQUIRE(static_cast<int>(mesh.label_names.size()) == k);
  for (int l = 1; l <= k; ++l) REQUIRE(mesh.label_names.contains(l));
  CHECK(mesh.label_names.at(1) == "stem");

  // Every vertex used; the whole mesh connected (tets sharing vertices).
  std::vector<int> used(static_cast<std::size_t>(mesh.num_vertices()), 0);
  UnionFind whole(mesh.num_vertices());
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (int c = 0; c < 4; ++c) {
      used[mesh.tets(t, c)] = 1;
      whole.unite(mesh.tets(t, 0), mesh.tets(t, c));
    }
  CHECK(std::count(used.begin(), used.end(), 0) == 0);
  std::vector<int> all_vertices(static_cast<std::size_t>(mesh.num_vertices()));
  std::iota(all_vertices.begin(), all_vertices.end(), 0);
  CHECK(count_components(all_vertices, whole) == 1);

  // Each part face-connected; parts adjacent through faces vs. through any shared vertex.
  UnionFind tets_uf(mesh.num_tets());
  std::set<std::pair<int, int>> face_adjacent;
  for (const auto& [face, use] : face_uses(mesh)) {
    if (use.count != 2) continue;
    const int a = mesh.labels(use.tets[0]);
    const int b = mesh.labels(use.tets[1]);
    if (a == b)
      tets_uf.unite(use.tets[0], use.tets[1]);
    else
      face_adjacent.emplace(std::min(a, b), std::max(a, b));
  }
  std::map<int, std::vector<int>> part_tets;
  for (int t = 0; t < mesh.num_tets(); ++t) part_tets[mesh.labels(t)].push_back(t);
  for (const auto& [label, tets] : part_tets) {
    INFO("part " << mesh.label_names.at(label));
    CHECK(count_components(tets, tets_uf) == 1);
  }

  std::vector<std::set<int>> vertex_labels(static_cast<std::size_t>(mesh.num_vertices()));
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (int c = 0; c < 4; ++c) vertex_labels[mesh.tets(t, c)].insert(mesh.labels(t));
  std::set<std::pair<int, int>> vertex_adjacent;
  for (const auto& labels : vertex_labels)
    for (int a : labels)
      for (int b : labels)
        if (a < b) vertex_adjacent.emplace(a, b);
  // Parts touch only through shared faces, never only along an edge or at a corner.
  CHECK(vertex_adjacent == face_adjacent);

  // The part graph is a tree: k - 1 edges and connected.
  CHECK(static_cast<int>(vertex_adjacent.size()) == k - 1);
  UnionFind parts(k + 1);
  std::map<int, std::set<int>> neighbours;
  for (const auto& [a, b] : vertex_adjacent) {
    parts.unite(a, b);
    neighbours[a].insert(b);
    neighbours[b].insert(a);
  }
  std::vector<int> labels_1k(static_cast<std::size_t>(k));
  std::iota(labels_1k.begin(), labels_1k.end(), 1);
  CHECK(count_components(labels_1k, parts) == 1);

  int num_branches = 0;
  int num_leaves = 0;
  for (const auto& [label, name] : mesh.label_names) {
    INFO("part " << name);
    if (starts_with(name, "branch_")) {
      ++num_branches;
      CHECK(neighbours[label].contains(1));
    } else if (starts_with(name, "leaf_")) {
      ++num_leaves;
      REQUIRE(neighbours[label].size() == 1);
      const int parent = *neighbours[label].begin();
      CHECK(starts_with(mesh.label_names.at(parent), "branch_"));
      // leaf_b hangs on branch_b.
      CHECK(mesh.label_names.at(parent).substr(7) == name.substr(5));
    }
  }
  CHECK(num_leaves == num_branches);

  // Anchored vertices: exactly those on z == 0, all on the stem only.
  int anchored = 0;
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    const bool on_ground = mesh.rest_positions(v, 2) == 0.0;
    CHECK((mesh.vertex_flags(v) == 1) == on_ground);
    CHECK((mesh.vertex_flags(v) == 0 || mesh.vertex_flags(v) == 1));
    if (mesh.vertex_flags(v) == 1) {
      ++anchored;
      CHECK(vertex_labels[v] == std::set<int>{1});
    }
  }
  CHECK(anchored > 0);
  CHECK(mesh.rest_positions.col(2).minCoeff() >= 0.0);
  return k;
}

}  // namespace

TEST_CASE("box mesh: counts, volume, orientation, conformity, surface",
          "[precompute][generators][mesh_generators]") {
  const Eigen::Vector3d size(1.3, 0.7, 0.45);
  const Eigen::Vector3d origin(-0.2, 0.5, 3.0);
  const int nx = 5, ny = 3, nz = 4;
  const TetMesh mesh = ramus::make_box_tet_mesh(size, nx, ny, nz, origin);
  REQUIRE(mesh.num_tets() == 6 * nx * ny * nz);
  REQUIRE(mesh.num_vertices() == (nx + 1) * (ny + 1) * (nz + 1));
  CHECK(mesh.labels.size() == 0);
  CHECK(mesh.vertex_flags.size() == 0);

  check_all_positive(mesh);
  double volume = 0.0;
  for (int t = 0; t < mesh.num_tets(); ++t)
    volume += ramus::signed_tet_volume(mesh.rest_positions, mesh.tets, t);
  const double expected_volume = size.prod();
  CHECK(std::abs(volume - expected_volume) <= 1e-12 * expected_volume);

  // Bounding box and lattice.
  CHECK((mesh.rest_positions.colwise().minCoeff().transpose() - origin).norm() < 1e-14);
  CHECK((mesh.rest_positions.colwise().maxCoeff().transpose() - (origin + size)).norm() < 1e-14);

  const std::vector<Face> boundary = check_conforming(mesh);
  check_closed_boundary(mesh);
  // Each boundary quad is split in two: 2 * 2 * (nx ny + ny nz + nz nx) boundary triangles.
  CHECK(static_cast<int>(boundary.size()) == 4 * (nx * ny + ny * nz + nz * nx));
  double area = 0.0;
  for (const Face& f : boundary) area += face_area(mesh, f);
  const double expected_area =
      2.0 * (size.x() * size.y() + size.y() * size.z() + size.z() * size.x());
  CHECK(std::abs(area - expected_area) <= 1e-12 * expected_area);
  // Boundary faces lie on the box surface.
  int off_surface = 0;
  for (const Face& f : boundary) {
    const Eigen::Vector3d c = (mesh.rest_positions.row(f[0]) + mesh.rest_positions.row(f[1]) +
                               mesh.rest_positions.row(f[2]))
                                  .transpose() /
                              3.0;
    const Eigen::Array3d lo = (c - origin).array().abs();
    const Eigen::Array3d hi = (c - origin - size).array().abs();
    if (!((lo < 1e-12).any() || (hi < 1e-12).any())) ++off_surface;
  }
  CHECK(off_surface == 0);
}

TEST_CASE("box mesh: single cell and invalid arguments",
          "[precompute][generators][mesh_generators]") {
  const TetMesh cell = ramus::make_box_tet_mesh(Eigen::Vector3d::Ones(), 1, 1, 1);
  REQUIRE(cell.num_tets() == 6);
  for (int t = 0; t < 6; ++t)
    CHECK(ramus::signed_tet_volume(cell.rest_positions, cell.tets, t) == Approx(1.0 / 6.0));
  // All six share the main diagonal (vertex 0 and vertex 7).
  for (int t = 0; t < 6; ++t) {
    CHECK(cell.tets(t, 0) == 0);
    CHECK(cell.tets(t, 3) == 7);
  }
  CHECK_THROWS_AS(ramus::make_box_tet_mesh(Eigen::Vector3d::Ones(), 0, 1, 1), ramus::OptionError);
  CHECK_THROWS_AS(ramus::make_box_tet_mesh(Eigen::Vector3d(1, -1, 1), 1, 1, 1), ramus::OptionError);
}

TEST_CASE("cantilever beam: standard size and clamped end",
          "[precompute][generators][mesh_generators]") {
  const TetMesh beam = ramus::make_cantilever_beam(30, 6, 6);
  REQUIRE(beam.num_tets() == 6480);
  REQUIRE(beam.num_vertices() == 31 * 7 * 7);
  check_all_positive(beam);
  check_conforming(beam);
  CHECK(beam.rest_positions.col(0).maxCoeff() == Approx(1.0));
  CHECK(beam.rest_positions.col(1).maxCoeff() == Approx(0.2));
  CHECK(beam.rest_positions.col(2).maxCoeff() == Approx(0.2));
  REQUIRE(beam.vertex_flags.size() == beam.num_vertices());
  int clamped = 0;
  for (int v = 0; v < beam.num_vertices(); ++v) {
    const bool at_root = beam.rest_positions(v, 0) == 0.0;
    CHECK((beam.vertex_flags(v) == 1) == at_root);
    CHECK((beam.vertex_flags(v) == 0 || beam.vertex_flags(v) == 1));
    clamped += beam.vertex_flags(v);
  }
  CHECK(clamped == 7 * 7);

  const TetMesh small = ramus::make_cantilever_beam(4, 2, 3, 2.0, 0.5);
  CHECK(small.num_tets() == 6 * 4 * 2 * 3);
  CHECK(small.vertex_flags.sum() == 3 * 4);
  CHECK(small.rest_positions.col(0).maxCoeff() == Approx(2.0));
}

TEST_CASE("branching plant: default layout", "[precompute][generators][mesh_generators]") {
  const ramus::PlantOptions options;
  const TetMesh plant = ramus::make_branching_plant(options);
  const int k = check_plant(plant);
  CHECK(k == 2 + 2 * options.num_branches);
  CHECK(plant.num_tets() >= 3000);
  CHECK(plant.num_tets() <= 8000);
  CHECK(plant.num_tets() % 6 == 0);
  CHECK(plant.label_names.at(k) == "bloom");
  const Eigen::RowVector3d lo = plant.rest_positions.colwise().minCoeff();
  const Eigen::RowVector3d hi = plant.rest_positions.colwise().maxCoeff();
  CHECK(hi.z() - lo.z() > 0.3);
  CHECK(hi.z() - lo.z() < 0.5);
  // Branches spread in all four horizontal directions.
  CHECK(lo.x() < -0.1);
  CHECK(hi.x() > 0.1);
  CHECK(lo.y() < -0.1);
  CHECK(hi.y() > 0.1);
}

TEST_CASE("branching plant: refinement, branch count, straight lattice",
          "[precompute][generators][mesh_generators]") {
  ramus::PlantOptions options;
  options.num_branches = 3;
  options.lean = 0.0;
  options.droop = 0.0;
  const TetMesh coarse = ramus::make_branching_plant(options);
  CHECK(check_plant(coarse) == 2 + 2 * 3);

  // Undeformed: all boundary triangles are half lattice faces; volume = #voxels * h^3.
  const double h = options.voxel_size;
  for (const Face& f : check_conforming(coarse))
    CHECK(face_area(coarse, f) == Approx(0.5 * h * h).epsilon(1e-9));
  double volume = 0.0;
  for (int t = 0; t < coarse.num_tets(); ++t)
    volume += ramus::signed_tet_volume(coarse.rest_positions, coarse.tets, t);
  CHECK(volume == Approx(coarse.num_tets() / 6 * h * h * h).epsilon(1e-9));

  options.refinement = 2;
  const TetMesh fine = ramus::make_branching_plant(options);
  CHECK(check_plant(fine) == 2 + 2 * 3);
  CHECK(fine.num_tets() == 8 * coarse.num_tets());
  CHECK((fine.rest_positions.colwise().maxCoeff() - coarse.rest_positions.colwise().maxCoeff())
            .norm() < 1e-12);

  options = {};
  options.num_branches = 0;
  options.bloom = false;
  const TetMesh stem = ramus::make_branching_plant(options);
  CHECK(check_plant(stem) == 1);
  CHECK(stem.num_tets() == 6 * 4 * options.stem_height);

  options = {};
  options.num_branches = 9;
  options.voxel_size = 0.02;
  const TetMesh bushy = ramus::make_branching_plant(options);
  CHECK(check_plant(bushy) == 2 + 2 * 9);
}

TEST_CASE("branching plant: invalid options", "[precompute][generators][mesh_generators]") {
  ramus::PlantOptions options;
  options.voxel_size = 0.0;
  CHECK_THROWS_AS(ramus::make_branching_plant(options), ramus::OptionError);
  options = {};
  options.num_branches = 20;  // bases closer than 3 voxels on a 40-voxel stem
  CHECK_THROWS_AS(ramus::make_branching_plant(options), ramus::OptionError);
  options = {};
  options.leaf_width = 1;
  CHECK_THROWS_AS(ramus::make_branching_plant(options), ramus::OptionError);
  options = {};
  options.stem_height = 12;  // too short to carry branches
  CHECK_THROWS_AS(ramus::make_branching_plant(options), ramus::OptionError);
  options = {};
  options.refinement = 0;
  CHECK_THROWS_AS(ramus::make_branching_plant(options), ramus::OptionError);
  options = {};
  options.droop = 1e4;  // folds the lattice over
  CHECK_THROWS_AS(ramus::make_branching_plant(options), ramus::MeshError);
}
