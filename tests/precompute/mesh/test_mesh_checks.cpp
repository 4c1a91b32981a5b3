// check_tet_mesh / validate_tet_mesh: each defect is found and named.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>

#include "ramus/error.h"
#include "ramus/precompute/formats/tetgen_io.h"
#include "ramus/precompute/mesh/mesh_checks.h"

using namespace ramus;

namespace {

// Two positive tets sharing the face (0, 1, 2); 5 vertices.
TetMesh two_tets() {
  return read_tetgen(std::string(RAMUS_TEST_DATA_DIR) + "/meshes/two_tets");
}

// Expects validate_tet_mesh to throw a MeshError containing `text`, with these indices.
void expect_mesh_error(const TetMesh& m, const std::string& text, long element, long vertex,
                       bool allow_disconnected = false) {
  try {
    validate_tet_mesh(m, "beam.ele", allow_disconnected);
    FAIL("no MeshError for: " << text);
  } catch (const MeshError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.rfind("beam.ele: ", 0) == 0);
    CHECK(what.find(text) != std::string::npos);
    CHECK(e.element() == element);
    CHECK(e.vertex() == vertex);
  }
}

}  // namespace

TEST_CASE("a valid mesh passes", "[precompute][mesh]") {
  const TetMesh m = two_tets();
  const MeshReport r = check_tet_mesh(m);
  CHECK(r.ok());
  CHECK(r.num_components() == 1);
  CHECK(r.component_sizes == std::vector<int>{2});
  CHECK(r.total_volume == Approx(1.0 / 3.0));
  CHECK(r.min_volume == Approx(1.0 / 6.0));
  CHECK(r.bbox_diagonal == Approx(std::sqrt(1.0 + 1.0 + 4.0)));
  CHECK_NOTHROW(validate_tet_mesh(m, "two_tets"));
  const std::string summary = summarize(r);
  CHECK(summary.find("5 vertices, 2 tets, 1 component") != std::string::npos);
  CHECK(summary.find("no problems found") != std::string::npos);
}

TEST_CASE("an inverted tet is detected and named", "[precompute][mesh]") {
  TetMesh m = two_tets();
  std::swap(m.tets(1, 0), m.tets(1, 1));
  const MeshReport r = check_tet_mesh(m);
  CHECK(r.inverted_tets == std::vector<int>{1});
  CHECK(r.degenerate_tets.empty());
  CHECK(r.volumes(1) == Approx(-1.0 / 6.0));
  CHECK_FALSE(r.ok());
  expect_mesh_error(m, "tet 1 is inverted (signed volume -0.167 m^3)", 1, -1);
  CHECK(summarize(r).find("1 inverted tets: 1") != std::string::npos);
}

TEST_CASE("zero-volume and near-zero-volume tets are detected", "[precompute][mesh]") {
  TetMesh m = two_tets();
  m.rest_positions(3, 2) = 0.0;  // vertex 3 drops into the plane of 0, 1, 2: tet 0 is flat
  MeshReport r = check_tet_mesh(m);
  CHECK(r.degenerate_tets == std::vector<int>{0});
  CHECK(r.inverted_tets.empty());
  CHECK(r.min_quality == 0);
  expect_mesh_error(m, "tet 0 is degenerate (signed volume 0 m^3; shape quality", 0, -1);
  m.rest_positions(3, 2) = 1e-14;  // flat to round-off: quality 6√2 (1e-14 / 6) / √2³ = 5e-15
  CHECK(check_tet_mesh(m).degenerate_tets == std::vector<int>{0});
  CHECK(check_tet_mesh(m, 1e-16).degenerate_tets.empty());  // a looser threshold accepts it
  m.rest_positions(3, 2) = -1e-14;  // tiny and negative: degenerate, not "inverted"
  r = check_tet_mesh(m);
  CHECK(r.degenerate_tets == std::vector<int>{0});
  CHECK(r.inverted_tets.empty());
  TetMesh repeated = two_tets();
  repeated.tets(1, 3) = repeated.tets(1, 0);  // repeated vertex: exactly zero volume
  CHECK(check_tet_mesh(repeated).degenerate_tets == std::vector<int>{1});
}

TEST_CASE("a tet is judged by its shape, not its size", "[precompute][mesh]") {
  // The corner tet (0, 1, 2, 3) is the right-angled one: quality 6√2 (1/6) / √2³ = 1/2.
  TetMesh m = two_tets();
  MeshReport r = check_tet_mesh(m);
  CHECK(r.min_quality == Approx(0.5));
  // With a third tet of the same shape a millionth of the size (a fine mesh's smallest tet beside
  // its largest; the old size rule, |V| <= 1e-12 diagonal³, rejected it): kept.
  m.rest_positions.conservativeResize(9, 3);
  m.rest_positions.bottomRows(4) << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  m.rest_positions.bottomRows(4) *= 1e-6;
  m.rest_positions.bottomRows(4).rowwise() += Eigen::RowVector3d(2, 2, 2);
  m.tets.conservativeResize(3, 4);
  m.tets.row(2) << 5, 6, 7, 8;
  m.labels.resize(0);
  m.vertex_flags.resize(0);
  r = check_tet_mesh(m);
  CHECK(r.degenerate_tets.empty());
  CHECK(std::abs(r.volumes(2)) < 1e-12 * std::pow(r.bbox_diagonal, 3));
  CHECK(r.min_quality == Approx(0.5));
  CHECK(tet_quality(r.volumes(2), std::sqrt(2.0) * 1e-6) == Approx(0.5));
  // A sliver: four nearly coplanar points of a normal size is degenerate at any scale.
  TetMesh sliver = two_tets();
  sliver.rest_positions.row(3) << 0.5, 0.5, 1e-10;
  for (const double scale : {1e-3, 1.0, 1e3}) {
    TetMesh scaled = sliver;
    scaled.rest_positions *= scale;
    CHECK(check_tet_mesh(scaled).degenerate_tets == std::vector<int>{0});
  }
  CHECK(summarize(check_tet_mesh(two_tets())).find("shape quality from 0.5") != std::string::npos);
}

TEST_CASE("an unreferenced vertex is detected and named", "[precompute][mesh]") {
  TetMesh m = two_tets();
  m.rest_positions.conservativeResize(6, 3);
  m.rest_positions.row(5) << 5, 5, 5;
  m.vertex_flags.conservativeResize(6);
  m.vertex_flags(5) = 0;
  const MeshReport r = check_tet_mesh(m);
  CHECK(r.unreferenced_vertices == std::vector<int>{5});
  expect_mesh_error(m, "vertex 5 is not used by any tet", -1, 5);
}

TEST_CASE("disconnected components are an error unless allowed", "[precompute][mesh]") {
  TetMesh m = two_tets();
  // A third tet far away, sharing no vertex.
  m.rest_positions.conservativeResize(9, 3);
  m.rest_positions.bottomRows(4) << 10, 0, 0, 11, 0, 0, 10, 1, 0, 10, 0, 1;
  m.tets.conservativeResize(3, 4);
  m.tets.row(2) << 5, 6, 7, 8;
  m.labels.resize(0);
  m.vertex_flags.resize(0);
  const MeshReport r = check_tet_mesh(m);
  CHECK(r.num_components() == 2);
  CHECK(r.component_sizes == std::vector<int>{2, 1});
  CHECK(r.tet_component(0) == 0);
  CHECK(r.tet_component(2) == 1);
  CHECK_FALSE(r.ok());
  CHECK(r.ok(/*allow_disconnected=*/true));
  expect_mesh_error(m,
                    "mesh has 2 disconnected components (sizes 2 and 1 tets); split it or fix "
                    "the connectivity",
                    -1, -1);
  CHECK_NOTHROW(validate_tet_mesh(m, "beam.ele", /*allow_disconnected=*/true));
  // Tets touching at a single vertex are connected.
  m.tets(2, 0) = 3;
  CHECK(check_tet_mesh(m).num_components() == 1);
}

TEST_CASE("out-of-range indices, non-finite coordinates, duplicates and size mismatches",
          "[precompute][mesh]") {
  TetMesh m = two_tets();
  m.tets(1, 2) = 80;
  MeshReport r = check_tet_mesh(m);
  REQUIRE(r.bad_indices.size() == 1);
  CHECK(r.bad_indices[0].tet == 1);
  CHECK(r.bad_indices[0].slot == 2);
  CHECK(r.bad_indices[0].value == 80);
  CHECK(std::isnan(r.volumes(1)));  // never evaluated
  CHECK(r.tet_component(1) == -1);
  expect_mesh_error(m, "tet 1 references vertex 80 but the mesh has 5 vertices", 1, 80);
  m.tets(1, 2) = -1;
  expect_mesh_error(m, "tet 1 references vertex -1", 1, -1);

  m = two_tets();
  m.rest_positions(2, 1) = std::numeric_limits<double>::infinity();
  r = check_tet_mesh(m);
  CHECK(r.non_finite_vertices == std::vector<int>{2});
  CHECK(std::isfinite(r.bbox_diagonal));
  expect_mesh_error(m, "vertex 2 has a non-finite coordinate", -1, 2);

  m = two_tets();
  m.tets.conservativeResize(3, 4);
  m.tets.row(2) << 3, 1, 2, 0;  // same vertex set as tet 0
  m.labels.conservativeResize(3);
  m.labels(2) = 1;
  r = check_tet_mesh(m);
  REQUIRE(r.duplicate_tets.size() == 1);
  CHECK(r.duplicate_tets[0] == std::make_pair(0, 2));
  CHECK(r.inverted_tets == std::vector<int>{2});  // reordering inverted it, reported first
  m.tets.row(2) << 1, 2, 0, 3;                    // same set, positive orientation
  expect_mesh_error(m, "tets 0 and 2 have the same vertices", 2, -1);

  m = two_tets();
  m.labels.resize(3);
  expect_mesh_error(m, "labels has 3 entries but the mesh has 2 tets", -1, -1);

  TetMesh empty;
  expect_mesh_error(empty, "mesh has no tets", -1, -1);
  CHECK_FALSE(check_tet_mesh(empty).ok());
}

TEST_CASE("the first offending tet is reported", "[precompute][mesh]") {
  TetMesh m = two_tets();
  std::swap(m.tets(1, 0), m.tets(1, 1));  // tet 1 inverted
  m.rest_positions(3, 2) = 0.0;           // tet 0 flat: comes first
  expect_mesh_error(m, "tet 0 is degenerate", 0, -1);
}
