// Mesh readers and writers: known files, round trips, and a corpus of malformed files.
#include <sys/stat.h>

#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/formats/gmsh_io.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "ramus/precompute/formats/tet_label_file.h"
#include "ramus/precompute/formats/tetgen_io.h"
#include "ramus/precompute/formats/vega_io.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/model/model_spec.h"
#include "support/temp_dir.h"
#include "support/test_meshes.h"

namespace fs = std::filesystem;
using namespace ramus;

namespace {

const std::string kMeshes = std::string(RAMUS_TEST_DATA_DIR) + "/meshes/";
const std::string kBad = std::string(RAMUS_TEST_DATA_DIR) + "/bad/";

using test::read_text;
using test::TempDir;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

double total_volume(const TetMesh& m) {
  double v = 0;
  for (int t = 0; t < m.num_tets(); ++t) v += signed_tet_volume(m.rest_positions, m.tets, t);
  return v;
}

bool all_positive(const TetMesh& m) {
  for (int t = 0; t < m.num_tets(); ++t)
    if (!(signed_tet_volume(m.rest_positions, m.tets, t) > 0)) return false;
  return true;
}

// A small labelled mesh with awkward coordinates (exact round trip needs full precision).
TetMesh labelled_mesh() {
  TetMesh m = read_tetgen(kMeshes + "two_tets");
  m.rest_positions(1, 0) = 0.1 + 0.2;  // 0.30000000000000004
  m.rest_positions(2, 1) = 1.0 / 3.0;
  m.rest_positions(4, 2) = -1e-300 - 1.0;
  return m;
}

void require_same_mesh(const TetMesh& a, const TetMesh& b) {
  REQUIRE(a.num_vertices() == b.num_vertices());
  REQUIRE(a.num_tets() == b.num_tets());
  CHECK(a.rest_positions == b.rest_positions);  // bit-exact
  CHECK(a.tets == b.tets);
  CHECK(a.labels == b.labels);
}

}  // namespace

TEST_CASE("read_tetgen reads two_tets from .node, .ele or the basename", "[precompute][formats]") {
  for (const std::string& path :
       {kMeshes + "two_tets.node", kMeshes + "two_tets.ele", kMeshes + "two_tets"}) {
    const TetMesh m = read_tetgen(path);
    REQUIRE(m.num_vertices() == 5);
    REQUIRE(m.num_tets() == 2);
    CHECK(m.tets.row(0) == Eigen::RowVector4i(0, 1, 2, 3));
    CHECK(m.tets.row(1) == Eigen::RowVector4i(0, 2, 1, 4));
    CHECK(m.rest_positions.row(4) == Eigen::RowVector3d(0, 0, -1));
    REQUIRE(m.labels.size() == 2);
    CHECK(m.labels(0) == 1);
    CHECK(m.labels(1) == 2);
    REQUIRE(m.vertex_flags.size() == 5);
    CHECK(m.vertex_flags(0) == 1);
    CHECK(m.vertex_flags(2) == 0);
    CHECK(m.vertex_flags(4) == 2);
    CHECK(total_volume(m) == Approx(1.0 / 3.0));
    CHECK(all_positive(m));
  }
}

TEST_CASE("read_gmsh reads MSH 2.2 and 4.1 with physical groups and non-contiguous tags",
          "[precompute][formats]") {
  for (const char* file : {"cube_groups_22.msh", "cube_groups_41.msh"}) {
    INFO(file);
    const TetMesh m = read_gmsh(kMeshes + file);
    REQUIRE(m.num_vertices() == 8);
    REQUIRE(m.num_tets() == 6);
    REQUIRE(m.labels.size() == 6);
    CHECK((m.labels.array() == 1).count() == 2);
    CHECK((m.labels.array() == 2).count() == 4);
    CHECK(m.labels(0) == 1);
    CHECK(m.labels(5) == 2);
    REQUIRE(m.label_names.size() == 2);  // the 2D group "skin" is not a label
    CHECK(m.label_names.at(1) == "steel");
    CHECK(m.label_names.at(2) == "rubber");
    CHECK(total_volume(m) == Approx(1.0).epsilon(1e-14));
    CHECK(all_positive(m));
    // Node tag 10*(i+1) holds corner i: (i&1, (i>>1)&1, (i>>2)&1); all kept, in file order.
    for (int i = 0; i < 8; ++i)
      CHECK(m.rest_positions.row(i) == Eigen::RowVector3d(i & 1, (i >> 1) & 1, (i >> 2) & 1));
  }
  // Both versions describe the same mesh.
  const TetMesh a = read_gmsh(kMeshes + "cube_groups_22.msh");
  const TetMesh b = read_gmsh(kMeshes + "cube_groups_41.msh");
  CHECK(a.tets == b.tets);
  CHECK(a.labels == b.labels);
}

TEST_CASE("read_vega reads a .veg with materials, sets and regions", "[precompute][formats]") {
  const TetMesh m = read_vega(kMeshes + "cube.veg");
  REQUIRE(m.num_vertices() == 8);
  REQUIRE(m.num_tets() == 6);
  CHECK(m.labels.size() == 0);
  CHECK(total_volume(m) == Approx(1.0));
  CHECK(all_positive(m));
  CHECK(m.tets == read_gmsh(kMeshes + "cube_groups_22.msh").tets);
}

TEST_CASE("VTU keeps label names (Gmsh physical names) and string field data through a round trip",
          "[precompute][formats]") {
  TempDir dir("vtu_names");
  const TetMesh gmsh = read_gmsh(kMeshes + "cube_groups_41.msh");
  REQUIRE(gmsh.label_names.size() == 2);
  const std::string path = (dir.path() / "named.vtu").string();
  VtuFields fields;
  fields.strings = {{"domain_names", {"stem", "leaf 1", ""}}};
  write_vtu(path, gmsh, fields);
  VtuFields read_back;
  const TetMesh vtu = read_vtu(path, &read_back);
  CHECK(vtu.label_names == gmsh.label_names);
  CHECK(vtu.labels == gmsh.labels);
  REQUIRE(read_back.strings.size() == 1);
  CHECK(read_back.strings[0].first == "domain_names");
  CHECK(read_back.strings[0].second == std::vector<std::string>{"stem", "leaf 1", ""});
}

TEST_CASE("TetGen .node/.ele round trip is exact", "[precompute][formats]") {
  TempDir dir("tetgen_rt");
  const TetMesh m = labelled_mesh();
  write_tetgen(m, dir / "out");
  const TetMesh r = read_tetgen(dir / "out.ele");
  require_same_mesh(m, r);
  CHECK(r.vertex_flags == m.vertex_flags);
  // Without labels and flags, none come back.
  TetMesh plain = m;
  plain.labels.resize(0);
  plain.vertex_flags.resize(0);
  write_tetgen(plain, dir / "plain");
  const TetMesh p = read_tetgen(dir / "plain");
  CHECK(p.labels.size() == 0);
  CHECK(p.vertex_flags.size() == 0);
  CHECK(p.rest_positions == m.rest_positions);
}

TEST_CASE("Gmsh round trip, versions 2.2 and 4.1", "[precompute][formats]") {
  TempDir dir("gmsh_rt");
  TetMesh m = read_gmsh(kMeshes + "cube_groups_41.msh");
  m.rest_positions *= 1.0 / 3.0;  // non-representable decimals
  m.labels(3) = 7;                // a label without a name
  m.labels(4) = 0;                // label 0 = no physical group
  for (int version : {22, 41}) {
    INFO(version);
    const std::string path = dir / ("out" + std::to_string(version) + ".msh");
    write_gmsh(m, path, version);
    CHECK(read_text(path).rfind(version == 22 ? "$MeshFormat\n2.2 0 8" : "$MeshFormat\n4.1 0 8",
                                0) == 0);
    const TetMesh r = read_gmsh(path);
    require_same_mesh(m, r);
    CHECK(r.label_names == m.label_names);
  }
  TetMesh unlabelled = m;
  unlabelled.labels.resize(0);
  write_gmsh(unlabelled, dir / "plain.msh");
  CHECK(read_gmsh(dir / "plain.msh").labels.size() == 0);
  TetMesh negative = m;
  negative.labels(0) = -1;
  CHECK_THROWS_AS(write_gmsh(negative, dir / "neg.msh"), Error);
  CHECK_THROWS_AS(write_gmsh(m, dir / "v3.msh", 30), Error);
  CHECK_FALSE(fs::exists(dir / "neg.msh"));
}

TEST_CASE("VTU round trip keeps positions, tets, labels and fields exactly",
          "[precompute][formats]") {
  TempDir dir("vtu_rt");
  const TetMesh m = labelled_mesh();
  VtuFields fields;
  Eigen::MatrixXd u = Eigen::MatrixXd::Random(m.num_vertices(), 3);
  u(0, 0) = 1e-310;  // subnormal
  Eigen::MatrixXd s = Eigen::MatrixXd::Random(m.num_vertices(), 1);
  Eigen::MatrixXd stress = Eigen::MatrixXd::Random(m.num_tets(), 1);
  Eigen::VectorXi part(m.num_tets());
  part << 5, -3;
  fields.point_data = {{"displacement", u}, {"temperature <K>", s}};
  fields.cell_data = {{"von Mises", stress}};
  fields.cell_ints = {{"part", part}};
  write_vtu(dir / "m.vtu", m, fields);
  VtuFields back;
  const TetMesh r = read_vtu(dir / "m.vtu", &back);
  require_same_mesh(m, r);
  CHECK(r.vertex_flags == m.vertex_flags);
  REQUIRE(back.point_data.size() == 2);
  CHECK(back.point_data[0].first == "displacement");
  CHECK(back.point_data[0].second == u);
  CHECK(back.point_data[1].first == "temperature <K>");
  CHECK(back.point_data[1].second == s);
  REQUIRE(back.cell_data.size() == 1);
  CHECK(back.cell_data[0].second == stress);
  REQUIRE(back.cell_ints.size() == 1);
  CHECK(back.cell_ints[0].first == "part");
  CHECK(back.cell_ints[0].second == part);
  // read_tet_mesh dispatches .vtu too.
  CHECK(read_tet_mesh(dir / "m.vtu").tets == m.tets);
  // Mismatched field sizes are refused before anything is written.
  fields.cell_data[0].second.resize(7, 1);
  CHECK_THROWS_AS(write_vtu(dir / "bad.vtu", m, fields), Error);
  CHECK_FALSE(fs::exists(dir / "bad.vtu"));
}

TEST_CASE("PVD series: relative frame paths next to the .pvd", "[precompute][formats]") {
  TempDir dir("pvd");
  const TetMesh m = read_tetgen(kMeshes + "two_tets");
  {
    PvdSeriesWriter series(dir / "out.pvd");
    for (int k = 0; k < 3; ++k) {
      VtuFields f;
      f.point_data = {{"u", Eigen::MatrixXd::Constant(m.num_vertices(), 3, 0.5 * k)}};
      series.add_frame(0.01 * k, m.rest_positions.array() + 0.5 * k, m.tets, f);
    }
    CHECK(series.num_frames() == 3);
    CHECK_FALSE(fs::exists(dir / "out.pvd"));  // (staged until finished)
    series.finish();
    CHECK(series.frame_path(2) == (dir.path() / "out" / "out_00002.vtu").string());
    CHECK_THROWS_AS(series.add_frame(1.0, m.rest_positions, m.tets), Error);
  }
  const std::string pvd = read_text(dir / "out.pvd");
  CHECK(pvd.find("type=\"Collection\"") != std::string::npos);
  CHECK(pvd.find("file=\"out/out_00000.vtu\"") != std::string::npos);
  CHECK(pvd.find("timestep=\"0.02\" group=\"\" part=\"0\" file=\"out/out_00002.vtu\"") !=
        std::string::npos);
  VtuFields f;
  const TetMesh frame = read_vtu((dir.path() / "out" / "out_00002.vtu").string(), &f);
  CHECK(frame.rest_positions == (m.rest_positions.array() + 1.0).matrix());
  REQUIRE(f.point_data.size() == 1);
  CHECK(f.point_data[0].second(0, 0) == 1.0);
  CHECK_FALSE(fs::exists(dir / "out.pvd.tmp"));
}

TEST_CASE("writers fail cleanly and never leave partial files", "[precompute][formats]") {
  TempDir dir("atomic");
  const TetMesh m = read_tetgen(kMeshes + "two_tets");
  const std::string missing_folder = dir / "no/such/folder/out";
  CHECK_THROWS_AS(write_tetgen(m, missing_folder), Error);
  CHECK_THROWS_AS(write_gmsh(m, missing_folder + ".msh"), Error);
  CHECK_THROWS_AS(write_vtu(missing_folder + ".vtu", m), Error);
  // An existing target survives a failed write (bad tet index detected before writing).
  write_vtu(dir / "keep.vtu", m);
  const std::string before = read_text(dir / "keep.vtu");
  TetMesh broken = m;
  broken.tets(1, 3) = 99;
  CHECK_THROWS_AS(write_vtu(dir / "keep.vtu", broken), Error);
  CHECK(read_text(dir / "keep.vtu") == before);
  CHECK_FALSE(fs::exists(dir / "keep.vtu.tmp"));
}

TEST_CASE("a FIFO or a folder as an input is refused before it is opened",
          "[precompute][formats]") {
  // (An open of a FIFO blocks until a writer comes: the tool hung.)
  using Catch::Matchers::Contains;
  const test::TempDir dir("fifo_input");
  for (const std::string name : {"pipe.msh", "pipe.obj", "pipe.json"}) {
    const std::string path = dir.file(name);
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  }
  CHECK_THROWS_WITH(read_tet_mesh(dir.file("pipe.msh")),
                    Contains("pipe.msh: cannot open file: not a regular file"));
  CHECK_THROWS_WITH(read_surface_mesh(dir.file("pipe.obj")),
                    Contains("pipe.obj: cannot open file: not a regular file"));
  CHECK_THROWS_WITH(load_model_spec(dir.file("pipe.json")),
                    Contains("pipe.json: cannot open file: not a regular file"));
}

TEST_CASE("read_tet_mesh dispatches on the extension", "[precompute][formats]") {
  CHECK(read_tet_mesh(kMeshes + "two_tets.node").num_tets() == 2);
  CHECK(read_tet_mesh(kMeshes + "two_tets").num_tets() == 2);
  CHECK(read_tet_mesh(kMeshes + "cube_groups_41.msh").num_tets() == 6);
  CHECK(read_tet_mesh(kMeshes + "cube.veg").num_tets() == 6);
  CHECK(read_tet_mesh(kMeshes + "cube.stl").num_vertices() >= 8);  // tetrahedralized
  try {
    read_tet_mesh(kMeshes + "model.step");
    FAIL("no exception");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("model.step") != std::string::npos);
    CHECK(what.find("'.step'") != std::string::npos);
    for (const char* ext : {".node", ".msh", ".veg", ".vtu", ".obj", ".off", ".ply", ".stl"})
      CHECK(what.find(ext) != std::string::npos);
  }
}

namespace {

struct BadCase {
  std::string file;
  std::function<void(const std::string&)> read;
  std::vector<std::string> expected;  // substrings of what()
};

void any_tet_reader(const std::string& p) {
  read_tet_mesh(p);
}
void tetgen_reader(const std::string& p) {
  read_tetgen(p);
}
void gmsh_reader(const std::string& p) {
  read_gmsh(p);
}
void vega_reader(const std::string& p) {
  read_vega(p);
}
void vtu_reader(const std::string& p) {
  read_vtu(p);
}
void surface_reader(const std::string& p) {
  read_surface_mesh(p);
}

}  // namespace

TEST_CASE("malformed files give located InputErrors", "[precompute][formats]") {
  const std::vector<BadCase> cases = {
      {"truncated.node",
       tetgen_reader,
       {"truncated.node:5: ", "unexpected end of file: expected 5 points, found 3"}},
      {"wrong_count.ele",
       tetgen_reader,
       {"wrong_count.ele:2: ", "expected 4 vertex indices for tet 1, found 3"}},
      {"nan_coordinate.node",
       tetgen_reader,
       {"nan_coordinate.node:4: ", "vertex 3 has a non-finite coordinate (nan)"}},
      {"out_of_range.ele",
       tetgen_reader,
       {"out_of_range.ele:4: ", "tet 2 references vertex 99 but the file defines 4 vertices"}},
      {"negative_index.node",
       tetgen_reader,
       {"negative_index.ele:2: ", "tet 0 references vertex -1"}},
      {"garbage_token.node",
       tetgen_reader,
       {"garbage_token.node:3: ", "expected a number", "'0x'"}},
      {"quadratic.node",
       tetgen_reader,
       {"quadratic.ele:1: ", "quadratic (10-node) tets are not supported"}},
      {"huge_count.node",
       tetgen_reader,
       {"huge_count.node:1: ", "implausible number of points (1000000000000)"}},
      {"missing_ele.node", tetgen_reader, {"missing_ele.ele: cannot open file"}},
      {"empty.node", tetgen_reader, {"empty.node: empty file"}},
      {"does_not_exist.msh", gmsh_reader, {"does_not_exist.msh: cannot open file"}},
      {"binary.msh", gmsh_reader, {"binary.msh:", "no $Nodes section"}},
      {"big_endian.msh",
       gmsh_reader,
       {"big_endian.msh:2: ", "other byte order (big-endian): save it as ASCII"}},
      {"truncated.msh",
       gmsh_reader,
       {"truncated.msh:8: ",
        "unexpected end of file while reading $Nodes: expected 120 nodes, found 3"}},
      {"missing_node.msh",
       gmsh_reader,
       {"missing_node.msh:13: ", "tet element 1 references node 7 which is not in $Nodes"}},
      {"unknown_volume_type.msh",
       gmsh_reader,
       {"unknown_volume_type.msh:18: ", "element type 99 is not a volume element Ramus knows"}},
      {"structured_points.vtk",
       any_tet_reader,
       {"structured_points.vtk:4: ", "DATASET STRUCTURED_POINTS holds no tetrahedra"}},
      {"cell_types_mismatch.vtk",
       any_tet_reader,
       {"cell_types_mismatch.vtk:", "CELL_TYPES has 2 entries but CELLS has 1 cells"}},
      {"short_tet.msh",
       gmsh_reader,
       {"short_tet.msh:19: ", "expected 4 node tags for element 1 (type 4), found 3"}},
      {"cubic.veg",
       vega_reader,
       {"cubic.veg:13: ", "CUBIC (hexahedral) elements are not supported"}},
      {"include.veg", vega_reader, {"include.veg:2: ", "*INCLUDE is not supported"}},
      {"out_of_range.veg",
       vega_reader,
       {"out_of_range.veg:10: ", "tet 1 references vertex 5 but the file defines 4 vertices"}},
      {"binary.vtu",
       vtu_reader,
       {"binary.vtu:6: ", "truncated base64 data (array)"}},  // (claims 96 bytes, holds 0)
      {"bad_index.off",
       surface_reader,
       {"bad_index.off:10: ", "face 3 references vertex 4 but the file defines 4 vertices"}},
      {"truncated_binary.ply",
       surface_reader,
       {"truncated_binary.ply: ", "unexpected end of file while reading face 5"}},
      {"surface_groups_only.msh",
       gmsh_reader,
       {"surface_groups_only.msh: no tetrahedra: the 1 elements are surface, curve or point "
        "elements",
        "Physical Volume"}},
      {"short_list.ply",
       surface_reader,
       {"short_list.ply:17: ", "face 3: list length 3 is more than the 2 values on its line"}},
      {"not_stl.stl", surface_reader, {"not_stl.stl: not an STL file"}},
      {"bad_vertex.stl", surface_reader, {"bad_vertex.stl:4: ", "expected 'vertex x y z'"}},
      {"empty.obj", surface_reader, {"empty.obj: the file contains no faces"}},
      {"open_surface.obj",
       any_tet_reader,
       {"open_surface.obj: open surface: edge (", ") belongs to 1 triangle",
        "only a closed surface bounds a volume"}},
  };
  for (const BadCase& c : cases) {
    INFO(c.file);
    bool thrown = false;
    try {
      c.read(kBad + c.file);
    } catch (const InputError& e) {
      thrown = true;
      const std::string what = e.what();
      INFO(what);
      CHECK(e.file().find("/bad/") != std::string::npos);
      for (const std::string& s : c.expected) CHECK(what.find(s) != std::string::npos);
    }
    CHECK(thrown);
  }
}

TEST_CASE("truncated and corrupted copies of valid files never crash the readers",
          "[precompute][formats]") {
  TempDir dir("fuzz");
  struct Source {
    std::string file;
    std::function<void(const std::string&)> read;
  };
  const std::vector<Source> sources = {
      {"two_tets.node", tetgen_reader},
      {"cube_groups_22.msh", gmsh_reader},
      {"cube_groups_41.msh", gmsh_reader},
      {"cube.veg", vega_reader},
      {"hex_beam_41_binary.msh", gmsh_reader},
      {"hex_beam_22_binary.msh", gmsh_reader},
      {"hex_beam.vtk", any_tet_reader},
      {"hex_beam_binary.vtk", any_tet_reader},
      {"pyramid_cube.vtk", any_tet_reader},
      {"cube.obj", surface_reader},
      {"cube.off", surface_reader},
      {"cube.ply", surface_reader},
      {"cube_binary.ply", surface_reader},
  };
  std::mt19937 rng(1234);
  const std::string garbage = "-9e999 nan 1e400 \n\t$#*/x0\xff";
  int errors = 0, successes = 0;
  for (const Source& s : sources) {
    const std::string text = read_text(kMeshes + s.file);
    const std::string ext = fs::path(s.file).extension().string();
    const std::string path = dir / ("fuzz" + ext);
    if (ext == ".node") fs::copy_file(kMeshes + "two_tets.ele", dir / "fuzz.ele");
    std::vector<std::string> variants;
    for (std::size_t cut = 0; cut < text.size(); cut += 3) variants.push_back(text.substr(0, cut));
    for (int k = 0; k < 60; ++k) {
      std::string v = text;
      v[rng() % v.size()] = garbage[rng() % garbage.size()];
      variants.push_back(v);
    }
    for (const std::string& v : variants) {
      write_text(path, v);
      try {
        s.read(path);
        ++successes;
      } catch (const Error&) {
        ++errors;
      }
    }
  }
  CHECK(errors > 500);   // most variants are rejected ...
  CHECK(successes > 0);  // ... but harmless edits (e.g. in comments) still read
}

TEST_CASE("a vtu written by write_vtu survives corruption", "[precompute][formats]") {
  TempDir dir("fuzz_vtu");
  write_vtu(dir / "m.vtu", read_tetgen(kMeshes + "two_tets"));
  const std::string text = read_text(dir / "m.vtu");
  int errors = 0;
  for (std::size_t cut = 0; cut < text.size(); cut += 7) {
    write_text(dir / "cut.vtu", text.substr(0, cut));
    try {
      read_vtu(dir / "cut.vtu");
    } catch (const InputError&) {
      ++errors;
    }
  }
  CHECK(errors == static_cast<int>((text.size() + 6) / 7));
}

TEST_CASE("Second-order Gmsh tets are read by their corners and the reader says so",
          "[precompute][formats]") {
  // two_tets with the 10-node tets of Gmsh type 11 (9 mid-edge nodes), in MSH 2.2 and 4.1.
  const TetMesh linear = read_tetgen(kMeshes + "two_tets");
  for (const char* name : {"two_tets_order2_22.msh", "two_tets_order2_41.msh"}) {
    CAPTURE(name);
    const TetMesh mesh = read_gmsh(kMeshes + name);
    CHECK(mesh.rest_positions == linear.rest_positions);  // the mid-edge nodes are gone
    CHECK(mesh.tets == linear.tets);
    // One note for the cells, one for the nodes they leave unused.
    REQUIRE(mesh.read_notes.size() == 2);
    CHECK_THAT(mesh.read_notes[1],
               Catch::Matchers::Contains("2 higher-order tetrahedra (Gmsh type 11, 10 nodes)") &&
                   Catch::Matchers::Contains("dropped"));
    CHECK_THAT(mesh.read_notes[0],
               Catch::Matchers::Contains("9 of the file's 14 nodes are used by no tet"));
  }
  CHECK(read_gmsh(kMeshes + "cube_groups_22.msh").read_notes.empty());
}

TEST_CASE("read_vtu reads VTK's binary layouts written by an independent encoder",
          "[precompute][formats]") {
  // tests/data/meshes/vtk_binary/make_files.py (Python's zlib and base64) wrote two_tets as
  // inline binary and appended data (raw and base64), plain and zlib-compressed (blocks of 16
  // bytes), UInt32 and UInt64 headers, Float32 and Float64 points, Int32 and Int64 cells.
  const TetMesh expected = read_tetgen(kMeshes + "two_tets");
  for (const char* name : {"inline_uint32.vtu", "inline_zlib_uint64.vtu", "appended_raw_zlib.vtu",
                           "appended_raw_uint32.vtu", "appended_base64_zlib_uint32.vtu"}) {
    CAPTURE(name);
    const TetMesh mesh = read_vtu(kMeshes + "vtk_binary/" + name);
    CHECK(mesh.rest_positions == expected.rest_positions);  // (exact in Float32 too)
    CHECK(mesh.tets == expected.tets);
    CHECK(mesh.labels == expected.labels);
    CHECK(mesh.vertex_flags == expected.vertex_flags);
  }
}

TEST_CASE("write_vtu compressed is smaller and reads back bit for bit and corruption is named",
          "[precompute][formats]") {
  using Catch::Matchers::Contains;
  TempDir dir("compressed_vtu");
  const TetMesh mesh = test::box_mesh(6, 3, 3, 1.0, 0.3, 0.3);
  VtuFields fields;
  Eigen::MatrixXd velocity = Eigen::MatrixXd::Random(mesh.num_vertices(), 3) / 3.0;
  fields.point_data = {{"velocity", velocity}};
  fields.cell_ints = {{"domain", Eigen::VectorXi::LinSpaced(mesh.num_tets(), 0, 5)}};
  fields.strings = {{"domain_names", {"stem", "leaf 1"}}};
  write_vtu(dir / "ascii.vtu", mesh, fields, VtuEncoding::kAscii);
  write_vtu(dir / "zlib.vtu", mesh, fields, VtuEncoding::kCompressed);
  const std::string text = read_text(dir / "zlib.vtu");
  CHECK(text.size() < read_text(dir / "ascii.vtu").size() / 2);
  CHECK_THAT(text, Contains("compressor=\"vtkZLibDataCompressor\""));
  VtuFields found;
  const TetMesh back = read_vtu(dir / "zlib.vtu", &found);
  CHECK(back.rest_positions == mesh.rest_positions);
  CHECK(back.tets == mesh.tets);
  REQUIRE(found.point_data.size() == 1);
  CHECK(found.point_data[0].second == velocity);
  REQUIRE(found.cell_ints.size() == 1);
  CHECK(found.cell_ints[0].second == fields.cell_ints[0].second);
  REQUIRE(found.strings.size() == 1);
  CHECK(found.strings[0].second == fields.strings[0].second);

  // A flipped byte in the compressed points (appended raw data): an error naming the array.
  std::string broken = text;
  const std::size_t points = broken.find("Name=\"Points\"");
  const std::size_t offset_at = broken.find("offset=\"", points) + 8;
  const std::size_t start = broken.find('_', broken.find("<AppendedData")) + 1;
  const std::size_t data =
      start + std::stoul(broken.substr(offset_at, 12)) + 48;  // (past its header)
  broken[data] = static_cast<char>(broken[data] ^ 0x5a);
  write_text(dir / "broken.vtu", broken);
  CHECK_THROWS_WITH(read_vtu(dir / "broken.vtu"), Contains("DataArray 'Points'"));
  // Truncated anywhere: an InputError, never a crash.
  int errors = 0, cuts = 0;
  for (std::size_t cut = 0; cut < text.size(); cut += 97, ++cuts) {
    write_text(dir / "cut.vtu", text.substr(0, cut));
    try {
      read_vtu(dir / "cut.vtu");
    } catch (const InputError&) {
      ++errors;
    }
  }
  CHECK(errors == cuts);
}
