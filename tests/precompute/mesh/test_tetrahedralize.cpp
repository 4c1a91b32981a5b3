// TetGen-based tetrahedralization of closed surfaces.
#include <sys/wait.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>
#include <string>

#include "ramus/error.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/mesh/tetrahedralize.h"

using namespace ramus;

namespace {

const std::string kMeshes = std::string(RAMUS_TEST_DATA_DIR) + "/meshes/";
const std::string kBad = std::string(RAMUS_TEST_DATA_DIR) + "/bad/";

Eigen::VectorXd tet_volumes(const TetMesh& m) {
  Eigen::VectorXd v(m.num_tets());
  for (int t = 0; t < m.num_tets(); ++t) v(t) = signed_tet_volume(m.rest_positions, m.tets, t);
  return v;
}

double label_volume(const TetMesh& m, int label) {
  const Eigen::VectorXd v = tet_volumes(m);
  double total = 0;
  for (int t = 0; t < m.num_tets(); ++t)
    if (m.labels(t) == label) total += v(t);
  return total;
}

}  // namespace

TEST_CASE("a closed cube tetrahedralizes into positive tets of total volume 1",
          "[precompute][mesh]") {
  for (const char* file : {"cube.obj", "cube.off", "cube.ply", "cube_binary.ply"}) {
    INFO(file);
    const TetMesh m = read_tet_mesh(kMeshes + file);
    REQUIRE(m.num_tets() > 0);
    const Eigen::VectorXd v = tet_volumes(m);
    CHECK(v.minCoeff() > 0);  // Ramus orientation: every signed volume positive
    CHECK(std::abs(v.sum() - 1.0) <= 1e-12);
    REQUIRE(m.labels.size() == m.num_tets());
    CHECK((m.labels.array() == 1).all());
    const MeshReport report = check_tet_mesh(m);
    CHECK(report.ok());
    CHECK_NOTHROW(validate_tet_mesh(m, file));
    // The 8 cube corners are kept (first, in input order).
    CHECK(m.rest_positions.row(7) == Eigen::RowVector3d(1, 1, 1));
  }
}

TEST_CASE("two boxes sharing a face become two labelled regions named after the OBJ groups",
          "[precompute][mesh]") {
  const SurfaceMesh s = read_obj(kMeshes + "two_boxes.obj");
  const TetMesh m = tetrahedralize(s, {}, "two_boxes.obj");
  CHECK(tet_volumes(m).minCoeff() > 0);
  REQUIRE(m.labels.size() == m.num_tets());
  CHECK(m.labels.minCoeff() == 1);
  CHECK(m.labels.maxCoeff() == 2);
  CHECK(std::abs(label_volume(m, 1) - 1.0) <= 1e-12);  // "left" = [0,1]^3
  CHECK(std::abs(label_volume(m, 2) - 2.0) <= 1e-12);  // "right" = [1,3]x[0,1]^2
  REQUIRE(m.label_names.size() == 2);
  CHECK(m.label_names.at(1) == "left");
  CHECK(m.label_names.at(2) == "right");
  // The shared face was merged: one connected conforming mesh, no duplicate vertices.
  const MeshReport report = check_tet_mesh(m);
  CHECK(report.num_components() == 1);
  CHECK(report.ok());

  // Groups listed in the other order: labels follow the groups, not the geometry.
  SurfaceMesh swapped = s;
  swapped.group_names = {"right", "left"};
  swapped.groups = 1 - s.groups.array();
  const TetMesh m2 = tetrahedralize(swapped, {});
  CHECK(std::abs(label_volume(m2, 1) - 2.0) <= 1e-12);
  CHECK(m2.label_names.at(1) == "right");

  // Without groups, regions are numbered by centroid x: left box first.
  SurfaceMesh anonymous = s;
  anonymous.groups.resize(0);
  anonymous.group_names.clear();
  const TetMesh m3 = tetrahedralize(anonymous, {});
  CHECK(std::abs(label_volume(m3, 1) - 1.0) <= 1e-12);
  CHECK(std::abs(label_volume(m3, 2) - 2.0) <= 1e-12);
  CHECK(m3.label_names.empty());
}

TEST_CASE("tetrahedralize options: max_volume, quality switch, region labels",
          "[precompute][mesh]") {
  const SurfaceMesh cube = read_surface_mesh(kMeshes + "cube.off");
  TetrahedralizeOptions options;
  const TetMesh coarse = tetrahedralize(cube, options);
  options.max_volume = 0.002;
  const TetMesh fine = tetrahedralize(cube, options);
  const Eigen::VectorXd v = tet_volumes(fine);
  CHECK(v.maxCoeff() <= 0.002 * (1 + 1e-9));
  CHECK(v.minCoeff() > 0);
  CHECK(fine.num_tets() >= 500);
  CHECK(fine.num_tets() > 10 * coarse.num_tets());
  CHECK(std::abs(v.sum() - 1.0) <= 1e-12);

  // Bounds that TetGen alone overshoots (it treats -a as a target), with and without -q;
  // 5e-04 also checks that exponent notation reaches TetGen intact.
  for (double ratio : {1.5, 0.0})
    for (double bound : {5e-4, 3e-4}) {
      options.max_radius_edge_ratio = ratio;
      options.max_volume = bound;
      const Eigen::VectorXd w = tet_volumes(tetrahedralize(cube, options));
      CHECK(w.maxCoeff() <= bound);
      CHECK(w.maxCoeff() > 0.3 * bound);
      CHECK(w.minCoeff() > 0);
      CHECK(std::abs(w.sum() - 1.0) <= 1e-12);
    }

  options = {};
  options.label_regions = false;
  CHECK(tetrahedralize(cube, options).labels.size() == 0);

  options = {};
  options.max_radius_edge_ratio = 0.5;
  CHECK_THROWS_AS(tetrahedralize(cube, options), OptionError);
  options = {};
  options.max_volume = -1;
  CHECK_THROWS_AS(tetrahedralize(cube, options), OptionError);
}

TEST_CASE("bad surfaces are rejected before or by TetGen with an InputError",
          "[precompute][mesh]") {
  try {
    read_tet_mesh(kBad + "open_surface.obj");
    FAIL("no exception");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("open_surface.obj: open surface: edge (") != std::string::npos);
    CHECK(what.find("belongs to 1 triangle") != std::string::npos);
  }
  try {
    read_tet_mesh(kBad + "self_intersecting.obj");
    FAIL("no exception");
  } catch (const InputError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("self_intersecting.obj: ") != std::string::npos);
    CHECK(what.find("intersects itself") != std::string::npos);
  }
  SurfaceMesh cube = read_obj(kMeshes + "cube.obj");
  SurfaceMesh nan = cube;
  nan.vertices(3, 1) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(tetrahedralize(nan, {}, "nan.obj"),
                    Catch::Contains("nan.obj: vertex 3 has a non-finite coordinate"));
  SurfaceMesh bad_index = cube;
  bad_index.triangles(5, 2) = 8;
  CHECK_THROWS_WITH(tetrahedralize(bad_index, {}, "idx.obj"),
                    Catch::Contains("triangle 5 references vertex 8 but the surface has 8"));
  SurfaceMesh flat = cube;
  flat.vertices.col(2).setZero();
  CHECK_THROWS_AS(tetrahedralize(flat, {}), InputError);
  SurfaceMesh empty;
  CHECK_THROWS_WITH(tetrahedralize(empty, {}, "e.obj"), Catch::Contains("no triangles"));
}

TEST_CASE("check_closed_surface names the offending edge, triangle or vertex",
          "[precompute][mesh]") {
  const SurfaceMesh cube = read_obj(kMeshes + "cube.obj");
  CHECK_NOTHROW(check_closed_surface(cube, "cube.obj"));
  SurfaceMesh open = cube;
  open.triangles.conservativeResize(11, 3);  // drop the last triangle (3, 6, 7) ... of face 5
  const Eigen::RowVector3i dropped = cube.triangles.row(11);
  try {
    check_closed_surface(open, "open.obj");
    FAIL("no exception");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.rfind("open.obj: open surface: edge (", 0) == 0);
    CHECK(what.find("belongs to 1 triangle") != std::string::npos);
    // The named edge is an edge of the removed triangle.
    int a = -1, b = -1;
    REQUIRE(std::sscanf(what.c_str(), "open.obj: open surface: edge (%d, %d)", &a, &b) == 2);
    CHECK((dropped.array() == a).any());
    CHECK((dropped.array() == b).any());
  }
  SurfaceMesh duplicate = cube;
  duplicate.triangles.conservativeResize(13, 3);
  duplicate.triangles.row(12) = cube.triangles.row(4).reverse();
  CHECK_THROWS_WITH(check_closed_surface(duplicate, "d.obj"),
                    Catch::Contains("triangles 4 and 12 are duplicates"));
  SurfaceMesh degenerate = cube;
  degenerate.triangles(2, 1) = degenerate.triangles(2, 0);
  CHECK_THROWS_WITH(check_closed_surface(degenerate, "g.obj"),
                    Catch::Contains("triangle 2") && Catch::Contains("is degenerate"));
  // A face shared by two closed parts gives edges used by 3 triangles: only internal faces allow
  // it.
  const SurfaceMesh boxes = read_obj(kMeshes + "two_boxes.obj");
  SurfaceMesh merged = boxes;
  for (int f = 0; f < merged.num_triangles(); ++f)
    for (int c = 0; c < 3; ++c) {
      int& v = merged.triangles(f, c);
      for (int w = 0; w < v; ++w)
        if (boxes.vertices.row(w) == boxes.vertices.row(v)) {
          v = w;
          break;
        }
    }
  merged.triangles.row(23) = merged.triangles.row(0);  // placeholder, replaced below
  // Remove the right box's copy of the shared face (triangles 16 and 17 of group "right").
  SurfaceMesh plc;
  plc.vertices = merged.vertices;
  plc.triangles.resize(22, 3);
  int k = 0;
  for (int f = 0; f < boxes.num_triangles(); ++f)
    if (f != 20 && f != 21) plc.triangles.row(k++) = merged.triangles.row(f);
  plc.triangles.row(21) = merged.triangles.row(0);
  CHECK_THROWS(check_closed_surface(plc, "plc.obj"));
}

TEST_CASE("TetGen's budget is scaled to its input", "[precompute][mesh]") {
  // An 8-vertex surface (12 triangles) that keeps TetGen refining is stopped in seconds.
  const TetgenBudget box = tetgen_budget(12, 1.0, 0);
  CHECK(box.cpu_seconds == 12);
  CHECK(box.bytes == Approx(268e6));
  // A max_volume bound adds its tets; the caps hold for the largest meshes.
  const TetgenBudget bounded = tetgen_budget(12, 1.0, 1e-6);
  CHECK(bounded.cpu_seconds == 112);
  CHECK(bounded.bytes == Approx(256e6 + 1.012e9));
  const TetgenBudget huge = tetgen_budget(1000000, 1.0, 1e-9);
  CHECK(huge.cpu_seconds == 600);
  CHECK(huge.bytes <= 16e9);
  CHECK(tetgen_budget(12, 1.0, 0.0).cpu_seconds == tetgen_budget(12, 0.0, 0.0).cpu_seconds);
}

TEST_CASE("TetGen's child dies with its parent", "[precompute][mesh]") {
  // A process tetrahedralizing a cube into about a million tets (seconds of TetGen) is ended by
  // SIGTERM; its TetGen child must not outlive it (before: re-parented, still running).
  const SurfaceMesh cube = read_surface_mesh(kMeshes + "cube.off");
  const pid_t worker = ::fork();
  REQUIRE(worker >= 0);
  if (worker == 0) {
    std::signal(SIGTERM, SIG_DFL);  // (not Catch2's handler, which this copy inherited)
    TetrahedralizeOptions options;
    options.max_volume = 1e-6;
    try {
      tetrahedralize(cube, options);
    } catch (...) {
    }
    _exit(0);
  }
  // Wait for the TetGen child to appear, then end the worker.
  const std::string children =
      "/proc/" + std::to_string(worker) + "/task/" + std::to_string(worker) + "/children";
  pid_t tetgen = 0;
  for (int k = 0; k < 200 && tetgen == 0; ++k) {
    std::ifstream(children) >> tetgen;
    if (tetgen == 0) ::usleep(20000);
  }
  ::kill(worker, SIGTERM);
  int status = 0;
  ::waitpid(worker, &status, 0);
  REQUIRE(tetgen > 0);
  // The child is gone (or a zombie awaiting its new parent) within a second.
  bool alive = true;
  for (int k = 0; k < 100 && alive; ++k) {
    std::ifstream stat("/proc/" + std::to_string(tetgen) + "/stat");
    std::string pid_text, name, state;
    alive = static_cast<bool>(stat >> pid_text >> name >> state) && state != "Z" && state != "X";
    if (alive) ::usleep(10000);
  }
  if (alive) ::kill(tetgen, SIGKILL);
  CHECK_FALSE(alive);
}
