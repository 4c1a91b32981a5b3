// render_vertices and the render mesh (model/render_mesh.h, dynamics/render_vertices.h): each
// drawn vertex where its domain's own vertices put it, the modal normals against the normals of
// the drawn triangles and their basis against finite differences, the vertex-shader data
// (transforms, tables, q) rebuilding the same vertices, a placement folded in, no allocation.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "ramus/runtime/dynamics/render_vertices.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/small_trees.h"

using namespace ramus;

namespace {

using Rows3d = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>;
using Rows6f = Eigen::Matrix<float, Eigen::Dynamic, 6, Eigen::RowMajor>;

// The small tree (24 leaf blades in their part's piece; trunk and branches drawn from their
// boundary) swayed: 60 steps under a side gravity with a pull on a leaf.
std::unique_ptr<Simulator> swayed_tree() {
  auto sim = std::make_unique<Simulator>(test::small_tree());
  RuntimeSettings settings = sim->model().settings;
  settings.gravity = Eigen::Vector3d(3, 0, -9.81);
  sim->set_settings(settings);
  sim->add_vertex_force(sim->num_domains() - 1, 1, Eigen::Vector3d(0, 0.05, 0.05));
  REQUIRE(sim->initialize() == StepStatus::kOk);
  for (int k = 0; k < 60; ++k) REQUIRE(sim->step() == StepStatus::kOk);
  return sim;
}

// Area-weighted unit vertex normals of triangles over positions (3 by S).
Eigen::Matrix3Xd triangle_normals(const Eigen::Matrix3Xd& x, const RenderTriangles& triangles) {
  Eigen::Matrix3Xd n = Eigen::Matrix3Xd::Zero(3, x.cols());
  for (Eigen::Index f = 0; f < triangles.rows(); ++f) {
    const Eigen::Vector3d a = x.col(triangles(f, 0)), b = x.col(triangles(f, 1)),
                          c = x.col(triangles(f, 2));
    for (int k = 0; k < 3; ++k) n.col(triangles(f, k)) += (b - a).cross(c - a);
  }
  return n.colwise().normalized();
}

// Column l of a by-coordinate basis (3S rows: c S + v) as 3 by S, in double.
Eigen::Matrix3Xd vertex_columns(const Eigen::MatrixXf& basis, int l, int S) {
  return Eigen::Map<const Eigen::MatrixXf>(basis.col(l).data(), S, 3).transpose().cast<double>();
}

// Piece p's vertices for domain copy j, from the drawn buffer (3 by S).
Eigen::Matrix3Xd piece_positions(const RenderPiece& p, Eigen::Index j, const Rows6f& drawn) {
  return drawn.middleRows(p.first_vertex + j * p.size(), p.size())
      .leftCols(3)
      .transpose()
      .cast<double>();
}

}  // namespace

TEST_CASE("Render vertices lie where their domains' vertices are", "[runtime][render]") {
  const auto sim = swayed_tree();
  const Model& model = sim->model();
  const RenderMesh& mesh = model.render;
  // The leaf blades: one piece of their part, drawn by its 24 domains.
  const Part& leaf = model.parts.back();
  int blades = 0;
  for (const RenderPiece& p : mesh.pieces) {
    CHECK(p.rest.rows() == p.size());
    CHECK(p.position_basis.rows() == 3 * p.size());
    if (!p.from_boundary) {
      ++blades;
      CHECK(p.domains == leaf.domains);
    }
  }
  CHECK(blades == 1);
  Rows6f drawn(mesh.num_vertices, 6);
  Rows3d exact(mesh.num_vertices, 3);
  sim->render_vertices(drawn.data(), true);
  sim->render_vertices(exact.data());
  // A boundary piece's vertex is a part vertex: its domain's own copy, in double.
  double worst = 0, size = 0;
  for (const RenderPiece& p : mesh.pieces) {
    for (std::size_t j = 0; j < p.domains.size(); ++j) {
      Eigen::MatrixX3d x;
      sim->domain_world_positions(p.domains[j], x);
      for (int v = 0; v < p.size(); ++v) {
        const Eigen::Index k = p.first_vertex + static_cast<Eigen::Index>(j) * p.size() + v;
        size = std::max(size, x.row(p.nearest_part_vertex(v)).norm());
        if (p.from_boundary)
          worst = std::max(worst, (exact.row(k) - x.row(p.nearest_part_vertex(v))).norm());
        worst = std::max(worst, (exact.row(k) - drawn.row(k).leftCols(3).cast<double>()).norm());
      }
    }
  }
  INFO("worst " << worst << " m of " << size << " m");
  CHECK(worst < 2e-7 * size);  // (float tables)
  CHECK(mesh.num_triangles == [&] {
    long n = 0;
    for (const RenderPiece& p : mesh.pieces)
      n += static_cast<long>(p.domains.size()) * p.triangles.rows();
    return static_cast<int>(n + mesh.seam_triangles.rows());
  }());
}

TEST_CASE("Modal normals follow the drawn triangles", "[runtime][render]") {
  const auto sim = swayed_tree();
  const RenderMesh& mesh = sim->model().render;
  Rows6f drawn(mesh.num_vertices, 6);
  sim->render_vertices(drawn.data(), true);
  double worst = 0, sum = 0, moved = 0;
  long count = 0;
  for (const RenderPiece& p : mesh.pieces)
    for (std::size_t j = 0; j < p.domains.size(); ++j) {
      const Eigen::Matrix3Xd x = piece_positions(p, static_cast<Eigen::Index>(j), drawn);
      const Eigen::Matrix3Xd expected = triangle_normals(x, p.triangles);
      const Eigen::Index first = p.first_vertex + static_cast<Eigen::Index>(j) * p.size();
      for (int v = 0; v < p.size(); ++v) {
        const Eigen::Vector3d n = drawn.row(first + v).rightCols(3).transpose().cast<double>();
        CHECK(std::abs(n.norm() - 1) < 1e-5);
        const double angle = std::acos(std::clamp(n.dot(expected.col(v)), -1.0, 1.0));
        worst = std::max(worst, angle);
        sum += angle;
        ++count;
      }
      const Domain& d = sim->model().domains[static_cast<std::size_t>(p.domains[j])];
      moved = std::max(moved, d.scale.basis * sim->state().q.segment(d.dof_offset, d.r).norm());
    }
  const double degrees = 180 / 3.14159265358979;
  INFO("modal normals off the triangles' by " << worst * degrees << " deg at most, "
                                              << sum / static_cast<double>(count) * degrees
                                              << " deg on average; largest |s_b q| " << moved);
  CHECK(moved > 1e-3);
  CHECK(worst * degrees < 0.25);  // (measured 0.024 deg)
  CHECK(sum / static_cast<double>(count) * degrees < 0.05);
}

TEST_CASE("The normal basis is the unit normal's derivative (finite differences)",
          "[runtime][render]") {
  const Model& model = *test::small_tree();
  for (const RenderPiece& p : model.render.pieces) {
    const Part& part = model.parts[static_cast<std::size_t>(p.part)];
    const Eigen::Matrix3Xd X = p.rest.transpose().cast<double>();
    const Eigen::MatrixXd P = p.position_basis.cast<double>();
    // The unit normals of the piece displaced by P q (by coordinate: S by 3 columns).
    auto normals_at = [&](const Eigen::VectorXd& q) {
      const Eigen::VectorXd u = P * q;
      return triangle_normals(
          X + Eigen::Map<const Eigen::MatrixXd>(u.data(), p.size(), 3).transpose(), p.triangles);
    };
    const double h = 1e-4 * X.cwiseAbs().maxCoeff() / std::max(1e-12, P.cwiseAbs().maxCoeff());
    double worst = 0, scale = 0;
    for (int l = 0; l < part.r; ++l) {
      const Eigen::VectorXd e = Eigen::VectorXd::Unit(part.r, l);
      const Eigen::Matrix3Xd fd = (normals_at(h * e) - normals_at(-h * e)) / (2 * h);
      const Eigen::Matrix3Xd analytic = vertex_columns(p.normal_basis, l, p.size());
      worst = std::max(worst, (fd - analytic).cwiseAbs().maxCoeff());
      scale = std::max(scale, fd.cwiseAbs().maxCoeff());
    }
    CAPTURE(p.part, worst, scale);
    CHECK(worst <= 1e-4 * scale + 1e-9);
  }
}

TEST_CASE("The vertex-shader data rebuild the drawn vertices, with a placement folded in",
          "[runtime][render]") {
  const auto sim = swayed_tree();
  const Model& model = sim->model();
  const RenderMesh& mesh = model.render;
  RenderPlacement placement;
  placement.rotation = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).matrix();
  placement.translation = Eigen::Vector3d(4, -2, 1);
  Rows6f drawn(mesh.num_vertices, 6), placed(mesh.num_vertices, 6);
  std::vector<float> transforms(kRenderTransformFloats *
                                static_cast<std::size_t>(model.num_domains()));
  const long allocations = test::count_allocations([&] {
    sim->render_vertices(drawn.data(), true);
    sim->render_vertices(placed.data(), true, placement);
    render_transforms(model, sim->state(), transforms.data(), placement);
  });
  CHECK(allocations == 0);
  const Eigen::VectorXf q = sim->state().q.cast<float>();
  double worst_position = 0, worst_normal = 0, worst_placed = 0;
  for (const RenderPiece& p : mesh.pieces) {
    const int r = model.parts[static_cast<std::size_t>(p.part)].r;
    for (std::size_t j = 0; j < p.domains.size(); ++j) {
      // As a shader would: x = o + R (s X + s_b P q), n = R normalize(n + (s_b / s) N q).
      const float* t = transforms.data() + kRenderTransformFloats * p.domains[j];
      const Eigen::Map<const Eigen::Matrix3f> R(t);
      const Eigen::Map<const Eigen::Vector3f> o(t + 9);
      const int offset = model.domains[static_cast<std::size_t>(p.domains[j])].dof_offset;
      for (int v = 0; v < p.size(); ++v) {
        Eigen::Vector3f u = Eigen::Vector3f::Zero(), dn = Eigen::Vector3f::Zero();
        for (int c = 0; c < 3 && r > 0; ++c) {
          // (Tables by coordinate: row c S + v.)
          u(c) = p.position_basis.row(c * p.size() + v).dot(q.segment(offset, r));
          dn(c) = p.normal_basis.row(c * p.size() + v).dot(q.segment(offset, r));
        }
        const Eigen::Vector3f x = o + R * (t[12] * p.rest.row(v).transpose() + t[13] * u);
        const Eigen::Vector3f n = R * (p.rest_normals.row(v).transpose() + t[14] * dn).normalized();
        const Eigen::Index k = p.first_vertex + static_cast<Eigen::Index>(j) * p.size() + v;
        worst_position =
            std::max(worst_position,
                     static_cast<double>((x - placed.row(k).leftCols(3).transpose()).norm()));
        worst_normal = std::max(
            worst_normal, static_cast<double>((n - placed.row(k).rightCols(3).transpose()).norm()));
        // The placement: R_p x + t_p of the unplaced vertex, R_p n of its normal.
        const Eigen::Vector3d unplaced = drawn.row(k).leftCols(3).transpose().cast<double>();
        worst_placed =
            std::max(worst_placed, (placement.rotation * unplaced + placement.translation -
                                    placed.row(k).leftCols(3).transpose().cast<double>())
                                       .norm());
      }
    }
  }
  CAPTURE(worst_position, worst_normal, worst_placed);
  CHECK(worst_position < 1e-5);
  CHECK(worst_normal < 1e-5);
  CHECK(worst_placed < 1e-5);
  // Another model's State or Workspace writes nothing.
  const auto other = test::compiled_small_tree(8);
  Workspace workspace(*other);
  CHECK(render_vertices(*other, sim->state(), workspace, drawn.data(), false) ==
        StepStatus::kWrongModel);
}
