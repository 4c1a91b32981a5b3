// The surface readers (OBJ, OFF, PLY, STL) and the per-tet label files.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "ramus/error.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "ramus/precompute/formats/tet_label_file.h"
#include "support/temp_dir.h"

using namespace ramus;

namespace {

using Catch::Matchers::Contains;
using test::TempDir;

const std::string kMeshes = std::string(RAMUS_TEST_DATA_DIR) + "/meshes/";

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("STL, ASCII and binary (whose header starts with 'solid'), welds the cube's corners",
          "[precompute][formats]") {
  for (const char* file : {"cube.stl", "cube_binary.stl"}) {
    INFO(file);
    const SurfaceMesh s = read_surface_mesh(kMeshes + file);
    REQUIRE(s.num_vertices() == 8);  // 36 corners by value, 8 distinct
    REQUIRE(s.num_triangles() == 12);
    CHECK_NOTHROW(check_closed_surface(s, file));
    double v = 0;
    for (int f = 0; f < 12; ++f)
      v += s.vertices.row(s.triangles(f, 0))
               .dot(s.vertices.row(s.triangles(f, 1)).cross(s.vertices.row(s.triangles(f, 2))));
    CHECK(v / 6 == Approx(1.0));
    CHECK(s.vertices.colwise().minCoeff() == Eigen::RowVector3d(0, 0, 0));
    CHECK(s.vertices.colwise().maxCoeff() == Eigen::RowVector3d(1, 1, 1));
  }
}

TEST_CASE("ASCII PLY: a face on the file's last line, with or without its newline, is read",
          "[precompute][formats]") {
  // (The list length was checked against the bytes after the line: the last face failed.)
  const SurfaceMesh tetra = read_ply(kMeshes + "tetra_last_line.ply");
  REQUIRE(tetra.num_triangles() == 4);
  CHECK(tetra.triangles.row(3) == Eigen::RowVector3i(1, 2, 3));
  CHECK_NOTHROW(check_closed_surface(tetra, "tetra"));
}

TEST_CASE("surface readers: OBJ, OFF, ASCII and binary PLY describe the same cube",
          "[precompute][formats]") {
  const SurfaceMesh obj = read_obj(kMeshes + "cube.obj");
  const SurfaceMesh off = read_off(kMeshes + "cube.off");
  const SurfaceMesh ply = read_ply(kMeshes + "cube.ply");
  const SurfaceMesh bin = read_ply(kMeshes + "cube_binary.ply");
  for (const SurfaceMesh* s : {&obj, &off, &ply, &bin}) {
    REQUIRE(s->num_vertices() == 8);
    REQUIRE(s->num_triangles() == 12);
    CHECK(s->vertices == obj.vertices);
    CHECK_NOTHROW(check_closed_surface(*s, "cube"));
    // Signed enclosed volume (outward orientation) is exactly 1.
    double v = 0;
    for (int f = 0; f < 12; ++f)
      v += s->vertices.row(s->triangles(f, 0))
               .dot(s->vertices.row(s->triangles(f, 1)).cross(s->vertices.row(s->triangles(f, 2))));
    CHECK(v / 6 == Approx(1.0));
  }
  CHECK(obj.triangles == off.triangles);  // same quads, same fan triangulation
  CHECK(bin.triangles == off.triangles);
  // "o Cube" is the only group.
  REQUIRE(obj.groups.size() == 12);
  CHECK(obj.group_names == std::vector<std::string>{"Cube"});
  CHECK(read_surface_mesh(kMeshes + "cube.off").triangles == off.triangles);
}

TEST_CASE("OBJ groups: two_boxes has a 'left' and a 'right' group", "[precompute][formats]") {
  const SurfaceMesh s = read_obj(kMeshes + "two_boxes.obj");
  CHECK(s.num_vertices() == 16);
  REQUIRE(s.num_triangles() == 24);
  REQUIRE(s.group_names == std::vector<std::string>{"left", "right"});
  CHECK((s.groups.array() == 0).count() == 12);
  CHECK((s.groups.array() == 1).count() == 12);
  // Each box has its own 8 vertices, so the soup is two separate closed boxes.
  CHECK_NOTHROW(check_closed_surface(s, "two_boxes.obj"));
  CHECK(s.vertices.row(1) == s.vertices.row(8));  // but they touch: (1,0,0) twice
}

TEST_CASE("read_tet_label_file: labels, names and located errors", "[precompute][formats]") {
  using Catch::Matchers::Contains;
  TempDir dir("labels");
  const std::string good = dir / "good.labels";
  write_text(good, "# three tets\nname 7 upper stem\n\n7\n 3 # a comment\n7\nname 3 leaf\n");
  const TetLabels read = read_tet_label_file(good, 3);
  CHECK(read.labels == (Eigen::Vector3i() << 7, 3, 7).finished());
  CHECK(read.label_names == std::map<int, std::string>{{3, "leaf"}, {7, "upper stem"}});

  const auto error = [&](const std::string& text, int num_tets) -> std::string {
    const std::string path = dir / "bad.labels";
    write_text(path, text);
    try {
      read_tet_label_file(path, num_tets);
    } catch (const InputError& e) {
      return e.what();
    }
    return "no InputError";
  };
  CHECK_THAT(error("1\n2\n", 3), Contains("bad.labels: 2 labels for a mesh of 3 tets"));
  CHECK_THAT(error("1\n2\n3\n4\n", 3), Contains("bad.labels:4: more labels than the mesh's 3"));
  CHECK_THAT(error("1\n2 5\n3\n", 3), Contains("bad.labels:2: expected one label per line"));
  CHECK_THAT(error("1\nx\n3\n", 3), Contains("bad.labels:2: expected an integer for the label"));
  CHECK_THAT(error("name 1 a\nname 1 b\n1\n", 1), Contains("bad.labels:2: label 1 is named twice"));
  CHECK_THAT(error("1\nname 4 a\n", 1), Contains("bad.labels:2: names label 4, which no tet has"));
  CHECK_THAT(error("name 1\n1\n", 1), Contains("bad.labels:1: expected 'name <label> <text>'"));
  CHECK_THAT(error("99999999999\n", 1), Contains("out of range"));
  CHECK(error("1\n", 1) == "no InputError");
  CHECK_THROWS_AS(read_tet_label_file(dir / "missing.labels", 1), InputError);
}
