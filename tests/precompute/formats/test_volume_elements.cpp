// Hexahedra, prisms, pyramids and higher-order cells read as tets (Gmsh .msh ASCII and binary,
// legacy .vtk ASCII and binary, .vtu): volume kept, every tet positive, neighbours conforming;
// points no tet uses dropped with a note by every reader.
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <string>

#include "ramus/precompute/formats/gmsh_io.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/formats/vtk_legacy_io.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "support/temp_dir.h"

using namespace ramus;

namespace {

const std::string kMeshes = std::string(RAMUS_TEST_DATA_DIR) + "/meshes/";

double total_volume(const TetMesh& m) {
  double v = 0;
  for (int t = 0; t < m.num_tets(); ++t) v += signed_tet_volume(m.rest_positions, m.tets, t);
  return v;
}

double smallest_volume(const TetMesh& m) {
  double v = 1e300;
  for (int t = 0; t < m.num_tets(); ++t)
    v = std::min(v, signed_tet_volume(m.rest_positions, m.tets, t));
  return v;
}

// Faces used by one tet only (the boundary) and the largest number of tets on one face: a
// conforming split has boundary area = the solid's surface area and no face on 3+ tets.
struct FaceCount {
  double boundary_area = 0;
  int most_tets_on_a_face = 0;
};
FaceCount count_faces(const TetMesh& m) {
  std::map<std::array<int, 3>, int> count;
  for (int t = 0; t < m.num_tets(); ++t)
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f{};
      int k = 0;
      for (int c = 0; c < 4; ++c)
        if (c != skip) f[static_cast<std::size_t>(k++)] = m.tets(t, c);
      std::sort(f.begin(), f.end());
      ++count[f];
    }
  FaceCount out;
  for (const auto& [f, n] : count) {
    out.most_tets_on_a_face = std::max(out.most_tets_on_a_face, n);
    if (n != 1) continue;
    const Eigen::Vector3d a = m.rest_positions.row(f[0]), b = m.rest_positions.row(f[1]),
                          c = m.rest_positions.row(f[2]);
    out.boundary_area += 0.5 * (b - a).cross(c - a).norm();
  }
  return out;
}

bool has_note(const TetMesh& m, const std::string& text) {
  return std::any_of(m.read_notes.begin(), m.read_notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("Gmsh hexahedra split into 6 conforming tets each, ASCII and binary alike",
          "[precompute][formats]") {
  // hex_beam.geo: a 0.4 x 0.1 x 0.1 m beam of 16 hexahedra in physical volumes left and right.
  const TetMesh ascii = read_gmsh(kMeshes + "hex_beam_41.msh");
  REQUIRE(ascii.num_tets() == 16 * 6);
  CHECK(ascii.num_vertices() == 45);
  CHECK(total_volume(ascii) == Approx(0.4 * 0.1 * 0.1).epsilon(1e-12));
  CHECK(smallest_volume(ascii) > 0);
  const FaceCount faces = count_faces(ascii);
  CHECK(faces.most_tets_on_a_face == 2);
  CHECK(faces.boundary_area == Approx(2 * (0.04 + 0.04 + 0.01)).epsilon(1e-12));
  CHECK_NOTHROW(validate_tet_mesh(ascii, "hex_beam_41.msh"));
  REQUIRE(ascii.has_labels());
  CHECK((ascii.labels.array() == 1).count() == 48);
  CHECK((ascii.labels.array() == 2).count() == 48);
  CHECK(ascii.label_names.at(1) == "left");
  CHECK(has_note(ascii, "16 hexahedra split into 6 tets each"));

  // The same mesh written by Gmsh as binary MSH 4.1 (with its surfaces and curves, skipped) and
  // binary MSH 2.2: the same tets.
  for (const char* name : {"hex_beam_41_binary.msh", "hex_beam_22_binary.msh"}) {
    CAPTURE(name);
    const TetMesh binary = read_gmsh(kMeshes + name);
    // (Gmsh's ASCII prints 16 significant digits, its binary holds the doubles.)
    CHECK((binary.rest_positions - ascii.rest_positions).cwiseAbs().maxCoeff() < 1e-15);
    CHECK(binary.tets == ascii.tets);
    CHECK(binary.labels == ascii.labels);
    CHECK(binary.label_names == ascii.label_names);
  }
}

TEST_CASE("Second-order Gmsh hexahedra are read by their corners", "[precompute][formats]") {
  const TetMesh linear = read_gmsh(kMeshes + "hex_beam_41.msh");
  const TetMesh quadratic = read_gmsh(kMeshes + "hex_beam_order2_41.msh");
  CHECK(quadratic.rest_positions == linear.rest_positions);  // the 27-node hexes' extra nodes
  CHECK(quadratic.tets == linear.tets);                      // are gone
  CHECK(has_note(quadratic, "16 higher-order hexahedra (Gmsh type 12, 27 nodes)"));
}

TEST_CASE("Gmsh prisms split into 3 conforming tets each", "[precompute][formats]") {
  // prism_slab.geo: a 0.3 x 0.2 m triangulated plate extruded 0.05 m in 2 layers of prisms.
  const TetMesh ascii = read_gmsh(kMeshes + "prism_slab_22.msh");
  const TetMesh binary = read_gmsh(kMeshes + "prism_slab_41_binary.msh");
  for (const TetMesh* m : {&ascii, &binary}) {
    CHECK(m->num_tets() % 3 == 0);
    CHECK(total_volume(*m) == Approx(0.3 * 0.2 * 0.05).epsilon(1e-12));
    CHECK(smallest_volume(*m) > 0);
    const FaceCount faces = count_faces(*m);
    CHECK(faces.most_tets_on_a_face == 2);
    CHECK(faces.boundary_area == Approx(2 * (0.06 + 0.015 + 0.01)).epsilon(1e-12));
    CHECK_NOTHROW(validate_tet_mesh(*m, "prism_slab"));
    CHECK(has_note(*m, "prisms split into 3 tets each"));
  }
  CHECK(ascii.num_tets() == binary.num_tets());
  CHECK(total_volume(ascii) == Approx(total_volume(binary)).epsilon(1e-14));
  CHECK((ascii.labels.array() == 7).all());
}

TEST_CASE("legacy VTK: hexahedra from Gmsh, ASCII and binary, equal the .msh",
          "[precompute][formats]") {
  const TetMesh msh = read_gmsh(kMeshes + "hex_beam_41.msh");
  const TetMesh ascii = read_tet_mesh(kMeshes + "hex_beam.vtk");
  const TetMesh binary = read_vtk_legacy(kMeshes + "hex_beam_binary.vtk");
  CHECK((binary.rest_positions - ascii.rest_positions).cwiseAbs().maxCoeff() < 1e-15);
  CHECK(ascii.tets == binary.tets);
  CHECK(ascii.labels == binary.labels);
  REQUIRE(ascii.num_tets() == msh.num_tets());
  CHECK(total_volume(ascii) == Approx(total_volume(msh)).epsilon(1e-14));
  CHECK(count_faces(ascii).boundary_area == Approx(count_faces(msh).boundary_area));
  CHECK(smallest_volume(ascii) > 0);
  // Gmsh writes the volume entity of each cell as CellEntityIds: the two boxes.
  REQUIRE(ascii.has_labels());
  CHECK((ascii.labels.array() == 1).count() == 48);
  CHECK((ascii.labels.array() == 2).count() == 48);
}

TEST_CASE("legacy VTK 5.1: six pyramids fill a cube, with labels and vertex flags",
          "[precompute][formats]") {
  const TetMesh m = read_tet_mesh(kMeshes + "pyramid_cube.vtk");
  REQUIRE(m.num_tets() == 12);
  CHECK(total_volume(m) == Approx(1.0).epsilon(1e-12));
  CHECK(smallest_volume(m) > 0);
  const FaceCount faces = count_faces(m);
  CHECK(faces.most_tets_on_a_face == 2);
  CHECK(faces.boundary_area == Approx(6.0).epsilon(1e-12));
  CHECK_NOTHROW(validate_tet_mesh(m, "pyramid_cube.vtk"));
  REQUIRE(m.has_labels());
  CHECK((m.labels.array() == 2).count() == 4);
  REQUIRE(m.vertex_flags.size() == 9);
  CHECK(m.vertex_flags.sum() == 4);
  CHECK(has_note(m, "6 pyramids split into 2 tets each"));
}

TEST_CASE("VTU: hexahedron, voxel, wedge and quadratic tet are read, the triangle skipped",
          "[precompute][formats]") {
  VtuFields fields;
  const TetMesh m = read_vtu(kMeshes + "mixed_cells.vtu", &fields);
  REQUIRE(m.num_tets() == 6 + 6 + 3 + 1);
  CHECK(m.num_vertices() == 26);  // the quadratic tet's 6 mid-edge nodes are dropped
  CHECK(total_volume(m) == Approx(1.0 + 1.0 + 0.5 + 1.0 / 6.0).epsilon(1e-12));
  CHECK(smallest_volume(m) > 0);
  // Each tet keeps its cell's label; point data follows the kept points.
  REQUIRE(m.has_labels());
  CHECK((m.labels.array() == 1).count() == 6);
  CHECK((m.labels.array() == 2).count() == 6);
  CHECK((m.labels.array() == 3).count() == 3);
  CHECK((m.labels.array() == 4).count() == 1);
  CHECK((m.labels.array() == 9).count() == 0);
  REQUIRE(fields.point_data.size() == 1);
  const Eigen::MatrixXd& temperature = fields.point_data[0].second;
  REQUIRE(temperature.rows() == 26);
  CHECK(temperature(25, 0) == 0.5 * 25);  // the quadratic tet's last corner, point 25
  CHECK(has_note(m, "1 higher-order cells (VTK type 24, 10 nodes)"));
  CHECK(has_note(m, "1 cells of points, lines or surfaces were skipped"));
  CHECK(has_note(m, "2 hexahedra split into 6 tets each"));
  CHECK(has_note(m, "1 prisms split into 3 tets each"));
}

TEST_CASE("Points no tet uses are dropped with a note by every reader", "[precompute][formats]") {
  // One tet on points 0, 1, 2 and 4 of five; point 3 (far off) belongs to no tet, as a Gmsh
  // VTK export's geometry points or a surface's extra vertices do.
  const test::TempDir dir("unused_points");
  const std::map<std::string, std::string> files = {
      {"tet.node", "5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 9 9 9\n5 0 0 1\n"},
      {"tet.ele", "1 4 0\n1 1 2 3 5\n"},
      {"tet.veg",
       "*VERTICES\n5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 9 9 9\n5 0 0 1\n*ELEMENTS\nTET\n1 4 "
       "0\n1 1 2 3 5\n"},
      {"tet.msh",
       "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 9 9 9\n5 "
       "0 0 1\n$EndNodes\n$Elements\n1\n1 4 2 0 1 1 2 3 5\n$EndElements\n"},
      {"tet.vtk",
       "# vtk DataFile Version 3.0\none tet\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 5 "
       "double\n0 0 0\n1 0 0\n0 1 0\n9 9 9\n0 0 1\nCELLS 1 5\n4 0 1 2 4\nCELL_TYPES 1\n10\n"},
      {"tet.vtu",
       "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" "
       "byte_order=\"LittleEndian\">\n<UnstructuredGrid><Piece NumberOfPoints=\"5\" "
       "NumberOfCells=\"1\">\n<Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" "
       "format=\"ascii\">0 0 0 1 0 0 0 1 0 9 9 9 0 0 1</DataArray></Points>\n<Cells><DataArray "
       "type=\"Int32\" Name=\"connectivity\" format=\"ascii\">0 1 2 4</DataArray>\n<DataArray "
       "type=\"Int32\" Name=\"offsets\" format=\"ascii\">4</DataArray>\n<DataArray "
       "type=\"UInt8\" Name=\"types\" format=\"ascii\">10</DataArray></Cells>\n</Piece></"
       "UnstructuredGrid></VTKFile>\n"}};
  for (const auto& [name, text] : files) std::ofstream(dir / name) << text;
  for (const std::string name : {"tet.node", "tet.veg", "tet.msh", "tet.vtk", "tet.vtu"}) {
    INFO(name);
    const TetMesh m = read_tet_mesh(dir / name);
    CHECK(m.num_vertices() == 4);
    REQUIRE(m.num_tets() == 1);
    CHECK(m.rest_positions.maxCoeff() == 1);  // (9, 9, 9) is gone
    CHECK(m.rest_positions.row(m.tets(0, 3)) == Eigen::RowVector3d(0, 0, 1));
    CHECK(has_note(m, "1 of the file's 5 "));
    CHECK(has_note(m, "used by no tet and were dropped"));
    CHECK_NOTHROW(validate_tet_mesh(m, name));
  }
  // A file without unused points gets no such note.
  CHECK_FALSE(has_note(read_tet_mesh(kMeshes + "two_tets.node"), "were dropped"));
}
