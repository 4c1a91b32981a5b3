// The embedded rendering surface (substructuring paper §5, "Rendering"): a triangle mesh embedded
// in the tets of a substructured model, reproduced exactly at rest, clamped onto the nearest tet
// when slightly outside, rejected when far away, and moved with the C0 positions at runtime; and
// its VTU / PVD output.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>

#include "ramus/error.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/mesh/boundary_surface.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"
#include "ramus/precompute/substructuring/surface_embedding.h"
#include "ramus/runtime/dynamics/render_vertices.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"
#include "support/reduced_beams.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using namespace ramus;
using Catch::Matchers::Contains;

namespace {

using test::read_text;

// Beam 1 x 0.2 x 0.2 m, 16 x 2 x 2 cells, cut at x = 0.5 into 2 domains, clamped at x = 0 (or
// free: the root's frame is then at the centre of mass), r = 6 modes per domain.
TetMesh beam() {
  return test::box_mesh(16, 2, 2, 1.0, 0.2, 0.2);
}

std::shared_ptr<ReducedModel> split_beam(bool clamped) {
  const TetMesh mesh = beam();
  Eigen::VectorXi tet_domain(mesh.num_tets());
  for (int t = 0; t < mesh.num_tets(); ++t) {
    double x = 0;
    for (int c = 0; c < 4; ++c) x += mesh.rest_positions(mesh.tets(t, c), 0) / 4;
    tet_domain(t) = x < 0.5 ? 0 : 1;
  }
  const std::vector<int> anchors = clamped ? test::clamped_vertices(mesh) : std::vector<int>{};
  const DomainTree tree = build_domain_tree(mesh, tet_domain, anchors);
  ReductionSpec reduction;
  reduction.r = 6;
  reduction.linear_modes = 3;
  return std::make_shared<ReducedModel>(
      build_substructured_model(mesh, assign_materials(mesh, Material{1e6, 0.45, 1000}), tree,
                                anchors, std::vector<ReductionSpec>(2, reduction)));
}

// Positions of the embedded vertices from positions of the undivided mesh (global numbering).
Eigen::MatrixX3d barycentric_combination(const ReducedModel& model, const EmbeddedSurface& s,
                                         const Eigen::MatrixX3d& global) {
  Eigen::MatrixX3d x = Eigen::MatrixX3d::Zero(s.rest_positions.rows(), 3);
  for (Eigen::Index k = 0; k < x.rows(); ++k) {
    const ReducedDomain& d = model.domains[static_cast<size_t>(s.domain(k))];
    const ReducedPart& d_part = model.parts[static_cast<size_t>(s.domain(k))];
    for (int c = 0; c < 4; ++c)
      x.row(k) += s.barycentric(k, c) * global.row(d.global_vertices(d_part.tets(s.tet(k), c)));
  }
  return x;
}

Eigen::MatrixX3d rows(std::initializer_list<Eigen::RowVector3d> points) {
  Eigen::MatrixX3d m(static_cast<Eigen::Index>(points.size()), 3);
  Eigen::Index k = 0;
  for (const Eigen::RowVector3d& p : points) m.row(k++) = p;
  return m;
}

}  // namespace

TEST_CASE("embed_surface: the boundary of a 2-domain beam is reproduced exactly at rest",
          "[precompute][substructuring]") {
  for (const bool clamped : {true, false}) {
    CAPTURE(clamped);
    const std::shared_ptr<ReducedModel> model = split_beam(clamped);
    REQUIRE(model->domains.size() == 2);
    // A child frame sits at its interface centroid; a free root at the centre of mass.
    CHECK(model->domains[1].frame_origin.norm() > 0.1);
    const TetMesh mesh = beam();
    const Eigen::MatrixX3i triangles = boundary_triangles(mesh.tets);
    SurfaceEmbeddingStats stats;
    const EmbeddedSurface s = embed_surface(*model, mesh.rest_positions, triangles, {}, &stats);
    REQUIRE(s.rest_positions == mesh.rest_positions);
    REQUIRE(s.triangles == triangles);
    REQUIRE(s.domain.size() == mesh.num_vertices());
    REQUIRE(s.tet.size() == mesh.num_vertices());
    REQUIRE(s.barycentric.rows() == mesh.num_vertices());
    CHECK(stats.clamped == 0);
    CHECK(stats.max_distance < 1e-14);
    CHECK(stats.bounding_box_diagonal == Approx(std::sqrt(1.08)).epsilon(1e-12));
    for (Eigen::Index k = 0; k < s.domain.size(); ++k) {
      REQUIRE((s.domain(k) == 0 || s.domain(k) == 1));
      REQUIRE(s.tet(k) >= 0);
      REQUIRE(s.tet(k) < model->parts[static_cast<size_t>(s.domain(k))].tets.rows());
      CHECK(std::abs(s.barycentric.row(k).sum() - 1) < 1e-12);
      CHECK(s.barycentric.row(k).minCoeff() > -1e-12);
    }
    const Eigen::MatrixX3d rest = barycentric_combination(*model, s, global_rest_positions(*model));
    CHECK((rest - mesh.rest_positions).cwiseAbs().maxCoeff() < 1e-12);

    // Points inside the volume: in a tet (weights >= 0), reproduced exactly.
    std::mt19937 random(7);
    std::uniform_real_distribution<double> unit(0, 1);
    Eigen::MatrixX3d inside(200, 3);
    for (Eigen::Index k = 0; k < inside.rows(); ++k)
      inside.row(k) << unit(random), 0.2 * unit(random), 0.2 * unit(random);
    const EmbeddedSurface in = embed_surface(*model, inside, Eigen::MatrixX3i(0, 3), {}, &stats);
    CHECK(stats.outside == 0);
    CHECK(in.barycentric.minCoeff() >= 0);
    const Eigen::MatrixX3d inside_rest =
        barycentric_combination(*model, in, global_rest_positions(*model));
    CHECK((inside_rest - inside).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("embed_surface: vertices slightly outside are clamped onto the nearest tet",
          "[precompute][substructuring]") {
  const std::shared_ptr<ReducedModel> model = split_beam(true);
  // Above the top face, beyond the end's corner edge, barely outside (kept exact), inside.
  const Eigen::MatrixX3d points =
      rows({{0.55, 0.1, 0.21}, {1.03, 0.25, 0.1}, {0.3, -1e-9, 0.05}, {0.25, 0.05, 0.15}});
  SurfaceEmbeddingStats stats;
  const EmbeddedSurface s = embed_surface(*model, points, Eigen::MatrixX3i(0, 3), {}, &stats);
  CHECK(stats.outside == 3);
  CHECK(stats.clamped == 2);
  CHECK(stats.max_distance == Approx(std::hypot(0.03, 0.05)).epsilon(1e-12));
  CHECK(stats.max_distance_vertex == 1);
  const Eigen::MatrixX3d x = barycentric_combination(*model, s, global_rest_positions(*model));
  // Clamped: the closest point of the volume, all weights >= 0.
  CHECK((x.row(0) - Eigen::RowVector3d(0.55, 0.1, 0.2)).norm() < 1e-12);
  CHECK((x.row(1) - Eigen::RowVector3d(1.0, 0.2, 0.1)).norm() < 1e-12);
  CHECK(s.barycentric.topRows(2).minCoeff() >= 0);
  CHECK(s.domain(0) == 1);
  CHECK(s.domain(1) == 1);
  // Within the tolerance: the exact weights, so the vertex is reproduced exactly.
  CHECK((x.row(2) - points.row(2)).norm() < 1e-14);
  CHECK(s.barycentric.row(2).minCoeff() < 0);
  CHECK(s.barycentric.row(2).minCoeff() > -1e-6);
  CHECK(s.domain(2) == 0);
  CHECK((x.row(3) - points.row(3)).norm() < 1e-12);
  for (Eigen::Index k = 0; k < points.rows(); ++k)
    CHECK(std::abs(s.barycentric.row(k).sum() - 1) < 1e-12);

  // A larger tolerance keeps the first vertex exact too.
  SurfaceEmbeddingOptions loose;
  loose.clamp_tolerance = 0.05;
  const EmbeddedSurface e = embed_surface(*model, points.topRows(1), Eigen::MatrixX3i(0, 3), loose);
  const Eigen::MatrixX3d y = barycentric_combination(*model, e, global_rest_positions(*model));
  CHECK((y.row(0) - points.row(0)).norm() < 1e-12);
}

TEST_CASE("embed_surface: a surface that does not fit the volume is a MeshError naming the vertex",
          "[precompute][substructuring]") {
  const std::shared_ptr<ReducedModel> model = split_beam(true);
  const TetMesh mesh = beam();
  Eigen::MatrixX3d vertices = mesh.rest_positions;
  vertices.row(3) << 0.5, 0.1, 0.35;  // 0.15 m above the beam; 10 % of the diagonal is 0.104 m
  try {
    embed_surface(*model, vertices, boundary_triangles(mesh.tets));
    FAIL("no MeshError");
  } catch (const MeshError& e) {
    CHECK(e.vertex() == 3);
    CHECK_THAT(std::string(e.what()),
               Contains("render surface vertex 3 at (0.5, 0.1, 0.35) is 0.15 m from the nearest "
                        "tet, more than 10 % of the mesh's bounding-box diagonal (1.03923 m): the "
                        "surface does not fit the volume"));
  }
  vertices.row(3) << 40, 0.1, 0.1;  // far beyond the grid
  CHECK_THROWS_WITH(embed_surface(*model, vertices, Eigen::MatrixX3i(0, 3)),
                    Contains("render surface vertex 3 at (40, 0.1, 0.1) is 39 m from the nearest"));
  // Allowed with a looser limit: clamped onto the beam's end.
  SurfaceEmbeddingOptions loose;
  loose.max_distance = 0.2;
  vertices.row(3) << 0.5, 0.1, 0.35;
  const EmbeddedSurface s = embed_surface(*model, vertices, Eigen::MatrixX3i(0, 3), loose);
  const Eigen::MatrixX3d x = barycentric_combination(*model, s, global_rest_positions(*model));
  CHECK((x.row(3) - Eigen::RowVector3d(0.5, 0.1, 0.2)).norm() < 1e-12);

  vertices.row(3) << 0.5, std::nan(""), 0.1;
  CHECK_THROWS_WITH(embed_surface(*model, vertices, Eigen::MatrixX3i(0, 3)),
                    Contains("render surface vertex 3 is not finite"));
  Eigen::MatrixX3i bad = boundary_triangles(mesh.tets);
  bad(5, 2) = mesh.num_vertices();
  CHECK_THROWS_WITH(embed_surface(*model, mesh.rest_positions, bad),
                    Contains("render surface triangle 5 references vertex " +
                             std::to_string(mesh.num_vertices())));
  CHECK_THROWS_AS(embed_surface(ReducedModel{}, mesh.rest_positions, Eigen::MatrixX3i(0, 3)),
                  MeshError);
  const EmbeddedSurface empty =
      embed_surface(*model, Eigen::MatrixX3d(0, 3), Eigen::MatrixX3i(0, 3));
  CHECK(empty.rest_positions.rows() == 0);
  CHECK(empty.barycentric.rows() == 0);
}

TEST_CASE("Simulator: the embedded surface follows its domains' vertices",
          "[precompute][substructuring]") {
  for (const bool clamped : {true, false}) {
    CAPTURE(clamped);
    const std::shared_ptr<ReducedModel> model = split_beam(clamped);
    const TetMesh mesh = beam();
    model->embedded_surface =
        embed_surface(*model, mesh.rest_positions, boundary_triangles(mesh.tets));
    const auto compiled = compile_model(*model);
    const RenderMesh& render = compiled->render;
    REQUIRE(render.embedded_surface_vertices.size() == mesh.num_vertices());
    CHECK(render.num_triangles == boundary_triangles(mesh.tets).rows());
    RuntimeSettings settings = compiled->settings;
    settings.time_step = 0.01;
    settings.gravity = Eigen::Vector3d(0, 0, -9.81);
    Simulator sim(compiled, settings);
    if (!clamped)
      sim.set_root_motion(Eigen::Vector3d(0.5, 0.1, 0.1),
                          Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitY()).toRotationMatrix(),
                          Eigen::Vector3d(0.2, 0, 0), Eigen::Vector3d(0, 0, 1));
    sim.initialize();
    for (int step = 0; step < 10; ++step) REQUIRE(sim.step() == StepStatus::kOk);
    Eigen::MatrixX3d global;
    sim.global_positions(global);
    Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> drawn(render.num_vertices, 3);
    sim.render_vertices(drawn.data());
    Eigen::MatrixX3d surface(mesh.num_vertices(), 3), own(mesh.num_vertices(), 3);
    const EmbeddedSurface& e = model->embedded_surface;
    for (Eigen::Index v = 0; v < surface.rows(); ++v) {
      surface.row(v) = drawn.row(render.embedded_surface_vertices(v));
      // The barycentric combination of its own domain's vertex copies.
      Eigen::MatrixX3d x;
      sim.domain_world_positions(e.domain(v), x);
      own.row(v).setZero();
      for (int c = 0; c < 4; ++c)
        own.row(v) += e.barycentric(v, c) * x.row(compiled->part_of(e.domain(v)).tets(e.tet(v), c));
    }
    const double moved = (surface - mesh.rest_positions).rowwise().norm().maxCoeff();
    CHECK(moved > 1e-4);
    // Float tables: 7 digits of coordinates about 1 m.
    CHECK((surface - own).cwiseAbs().maxCoeff() < 1e-6);
    // Against the C0 mesh: apart by the interface's mismatch only.
    const double apart = (surface - global).rowwise().norm().maxCoeff();
    INFO("moved " << moved << " m, from the C0 mesh " << apart << " m");
    CHECK(apart < 0.01 * moved);  // (measured 0.2 % clamped, 1e-6 free)
  }
}

TEST_CASE("write_vtu_triangles and PvdSeriesWriter::add_surface_frame",
          "[precompute][substructuring]") {
  const test::TempDir temp("surface");
  const fs::path& dir = temp.path();
  const Eigen::MatrixX3d x = rows({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0.5}});
  Eigen::MatrixX3i triangles(2, 3);
  triangles << 0, 1, 2, 2, 1, 3;
  VtuFields fields;
  fields.point_data = {{"displacement", Eigen::MatrixXd::Constant(4, 3, 0.25)}};
  fields.cell_ints = {{"part", Eigen::Vector2i(7, 8)}};
  const std::string path = (dir / "surface.vtu").string();
  write_vtu_triangles(path, x, triangles, fields);
  const std::string text = read_text(path);
  CHECK_THAT(text, Contains("<VTKFile type=\"UnstructuredGrid\""));
  CHECK_THAT(text, Contains("<Piece NumberOfPoints=\"4\" NumberOfCells=\"2\">"));
  CHECK_THAT(text, Contains("Name=\"displacement\" NumberOfComponents=\"3\""));
  CHECK_THAT(text,
             Contains("Name=\"part\" NumberOfComponents=\"1\" format=\"ascii\">\n          7 8\n"));
  CHECK_THAT(
      text,
      Contains("Name=\"connectivity\" format=\"ascii\">\n          0 1 2\n          2 1 3\n"));
  CHECK_THAT(text, Contains("Name=\"offsets\" format=\"ascii\">\n          3 6\n"));
  CHECK_THAT(text, Contains("Name=\"types\" format=\"ascii\">\n          5 5\n"));
  CHECK_THAT(text, Contains("          1 1 0.5\n"));
  CHECK(text.rfind("</VTKFile>\n") == text.size() - 11);
  CHECK_FALSE(fs::exists(path + ".tmp"));
  // Balanced tags: every opened element is closed.
  const auto count = [&](const std::string& s) {
    std::size_t n = 0;
    for (std::size_t p = text.find(s); p != std::string::npos; p = text.find(s, p + 1)) ++n;
    return n;
  };
  for (const std::string tag :
       {"VTKFile", "UnstructuredGrid", "Piece", "PointData", "CellData", "Points", "Cells"}) {
    CAPTURE(tag);
    CHECK(count("<" + tag + ">") + count("<" + tag + " ") == 1);
    CHECK(count("</" + tag + ">") == 1);
  }
  CHECK(count("<DataArray ") == 6);
  CHECK(count("</DataArray>") == 6);
  // The tet reader rejects it clearly (triangles are not a volume mesh).
  CHECK_THROWS_AS(read_vtu(path), InputError);

  Eigen::MatrixX3i bad = triangles;
  bad(1, 2) = 4;
  CHECK_THROWS_WITH(write_vtu_triangles((dir / "bad.vtu").string(), x, bad),
                    Contains("triangle 1 references vertex 4 but there are 4 vertices"));
  fields.cell_ints = {{"part", Eigen::Vector3i(7, 8, 9)}};
  CHECK_THROWS_WITH(write_vtu_triangles((dir / "bad.vtu").string(), x, triangles, fields),
                    Contains("has 3 rows but there are 2 triangles"));
  CHECK_FALSE(fs::exists(dir / "bad.vtu"));

  {
    PvdSeriesWriter series((dir / "run_surface.pvd").string(), VtuEncoding::kAscii);
    series.add_surface_frame(0.0, x, triangles);
    series.add_surface_frame(0.5, x.array() + 1.0, triangles);
    series.finish();
    CHECK_THROWS_AS(series.add_surface_frame(1.0, x, triangles), Error);
  }
  const std::string pvd = read_text((dir / "run_surface.pvd").string());
  CHECK_THAT(pvd, Contains("timestep=\"0.5\" group=\"\" part=\"0\" "
                           "file=\"run_surface/run_surface_00001.vtu\""));
  const std::string frame = read_text((dir / "run_surface" / "run_surface_00001.vtu").string());
  CHECK_THAT(frame, Contains("NumberOfPoints=\"4\" NumberOfCells=\"2\""));
  CHECK_THAT(frame, Contains("          2 2 1.5\n"));
}

TEST_CASE("model spec: render_surface", "[precompute][substructuring]") {
  const ModelSpec spec = parse_model_spec(
      R"({"mesh": "beam.node", "render_surface": "skin/beam.obj"})", "/data/specs/beam.json");
  CHECK(spec.render_surface_path == "/data/specs/skin/beam.obj");
  CHECK(parse_model_spec(R"({"mesh": "a.obj", "render_surface": "/abs/skin.ply"})", "/data/a.json")
            .render_surface_path == "/abs/skin.ply");
  CHECK(parse_model_spec(R"({"mesh": "a.obj"})", "/data/a.json").render_surface_path.empty());
  CHECK_THROWS_WITH(parse_model_spec(R"({"mesh": "a.obj", "render_surface": ""})", "s.json"),
                    Contains("s.json: render_surface: expected a surface file name"));
  CHECK_THROWS_WITH(parse_model_spec(R"({"mesh": "a.obj", "render_surface": 3})", "s.json"),
                    Contains("s.json: render_surface: expected a surface file name"));
  CHECK_THROWS_WITH(parse_model_spec(R"({"mesh": "a.obj", "render_surfaces": "b.obj"})", "s.json"),
                    Contains("unknown key \"render_surfaces\""));
}

// Not run by default (`test_surface_embedding "[.perf]"`): 100k vertices in about 100k tets.
TEST_CASE("embed_surface: 100k vertices in 100k tets", "[precompute][substructuring][.perf]") {
  const TetMesh mesh = test::box_mesh(30, 30, 19, 1.0, 1.0, 0.6);
  ReducedModel model;
  model.domains.resize(1);
  model.parts[0].rest_positions = mesh.rest_positions;
  model.parts[0].tets = mesh.tets;
  std::mt19937 random(3);
  std::uniform_real_distribution<double> unit(-0.01, 1.01);
  Eigen::MatrixX3d points(100000, 3);
  for (Eigen::Index k = 0; k < points.rows(); ++k)
    points.row(k) << unit(random), unit(random), 0.6 * unit(random);
  SurfaceEmbeddingStats stats;
  const auto start = std::chrono::steady_clock::now();
  const EmbeddedSurface s = embed_surface(model, points, Eigen::MatrixX3i(0, 3), {}, &stats);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN(mesh.num_tets() << " tets, " << points.rows() << " vertices (" << stats.clamped
                       << " clamped): " << seconds << " s");
  CHECK(s.barycentric.rows() == points.rows());
  CHECK(seconds < 1.0);
}
