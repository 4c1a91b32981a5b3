// Moving a tree's cuts (cut_adjustment.cpp): the interface rigidity measure against its
// definition (a weighted 6-parameter least-squares fit solved here by SVD), the basis residual
// against a QR least-squares fit, and the cut moved outward or the domain merged.
#include <Eigen/Dense>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/substructuring/cut_adjustment.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"

namespace {

using Eigen::Vector3d;
using ramus::DomainTree;
using ramus::TetMesh;

// A 1 m beam along x (8 by 2 by 2 cells) cut at x = 0.5: the root (anchored at x = 0) and
// "tip".
struct CutBeam {
  TetMesh mesh = ramus::make_cantilever_beam(8, 2, 2);
  std::vector<int> anchored;
  DomainTree tree;
  CutBeam() {
    Eigen::VectorXi tet_domain(mesh.num_tets());
    for (int t = 0; t < mesh.num_tets(); ++t) {
      double x = 0;
      for (int i = 0; i < 4; ++i) x += mesh.rest_positions(mesh.tets(t, i), 0) / 4;
      tet_domain(t) = x < 0.5 ? 0 : 1;
    }
    for (int v = 0; v < mesh.num_vertices(); ++v)
      if (mesh.rest_positions(v, 0) < 1e-9) anchored.push_back(v);
    tree = ramus::build_domain_tree(mesh, tet_domain, anchored, {{0, "root"}, {1, "tip"}});
  }
  double centroid_x(int t) const {
    double x = 0;
    for (int i = 0; i < 4; ++i) x += mesh.rest_positions(mesh.tets(t, i), 0) / 4;
    return x;
  }
};

// The measure by its definition: u ≈ t + θ × (X − c) fitted by weighted least squares (SVD of
// the 3n by 6 system), its RMS residual ρ, the RMS radius a, the subtree's reach L.
double expected_error(const CutBeam& beam, int domain, const Eigen::MatrixX3d& u) {
  const std::map<int, double> areas = ramus::interface_vertex_areas(beam.mesh, beam.tree)[1];
  double w_sum = 0;
  Vector3d c = Vector3d::Zero();
  for (const auto& [v, w] : areas) {
    w_sum += w;
    c += w * beam.mesh.rest_positions.row(v).transpose();
  }
  c /= w_sum;
  const auto n = static_cast<Eigen::Index>(areas.size());
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(3 * n, 6);
  Eigen::VectorXd b(3 * n);
  Eigen::Index k = 0;
  double radius2 = 0;
  for (const auto& [v, w] : areas) {
    const Vector3d p = beam.mesh.rest_positions.row(v).transpose() - c;
    const double s = std::sqrt(w);
    Eigen::Matrix3d cross;  // θ × p = −[p]× θ
    cross << 0, p.z(), -p.y(), -p.z(), 0, p.x(), p.y(), -p.x(), 0;
    A.block<3, 3>(3 * k, 0) = s * Eigen::Matrix3d::Identity();
    A.block<3, 3>(3 * k, 3) = s * cross;
    b.segment<3>(3 * k) = s * u.row(v).transpose();
    radius2 += w * p.squaredNorm();
    ++k;
  }
  const Eigen::VectorXd x = A.jacobiSvd(Eigen::ComputeThinU | Eigen::ComputeThinV).solve(b);
  const double rho = std::sqrt((A * x - b).squaredNorm() / w_sum);
  const double a = std::sqrt(radius2 / w_sum);
  double reach = 0;
  for (const int v : beam.tree.domain_vertices[static_cast<std::size_t>(domain)])
    reach = std::max(reach, (beam.mesh.rest_positions.row(v).transpose() - c).norm());
  return rho * (1 + reach / a) / u.rowwise().norm().maxCoeff();
}

}  // namespace

TEST_CASE("interface_rigidity_errors: zero for a rigid motion, the fit's definition otherwise",
          "[precompute][substructuring]") {
  const CutBeam beam;
  const Eigen::MatrixX3d& X = beam.mesh.rest_positions;
  // A small rigid motion: nothing at any interface.
  const Vector3d t(0.01, -0.02, 0.03), theta(0.002, -0.001, 0.003);
  Eigen::MatrixX3d rigid(X.rows(), 3);
  for (Eigen::Index v = 0; v < X.rows(); ++v)
    rigid.row(v) = (t + theta.cross(X.row(v).transpose())).transpose();
  const std::vector<double> none = ramus::interface_rigidity_errors(beam.mesh, beam.tree, rigid);
  REQUIRE(none.size() == 2);
  CHECK(none[0] == 0.0);
  CHECK(none[1] < 1e-12);
  // A field that warps the cut face (u_z = y² + z y, plus the rigid motion): the definition.
  Eigen::MatrixX3d warped = rigid;
  for (Eigen::Index v = 0; v < X.rows(); ++v) warped(v, 2) += X(v, 1) * X(v, 1) + X(v, 2) * X(v, 1);
  const std::vector<double> errors = ramus::interface_rigidity_errors(beam.mesh, beam.tree, warped);
  const double expected = expected_error(beam, 1, warped);
  CHECK(expected > 1e-3);
  CHECK(errors[1] == Approx(expected).epsilon(1e-9));
  // A share of the largest displacement: the field's scale drops out.
  CHECK(ramus::interface_rigidity_errors(beam.mesh, beam.tree, 7.0 * warped)[1] ==
        Approx(errors[1]).epsilon(1e-12));
  CHECK_THROWS_AS(ramus::interface_rigidity_errors(beam.mesh, beam.tree, warped.topRows(3)),
                  ramus::OptionError);
}

TEST_CASE("move_cut_outward hands the tets nearest the interface to the parent",
          "[precompute][substructuring]") {
  const CutBeam beam;
  const auto& tip = beam.tree.domain_tets[1];
  ramus::CutMove move;
  const DomainTree moved =
      ramus::move_cut_outward(beam.mesh, beam.tree, beam.anchored, 1, 0.5, 8, &move);
  REQUIRE(moved.num_domains == 2);
  CHECK(moved.names == beam.tree.names);
  CHECK_FALSE(move.merged);
  CHECK(move.parent == "root");
  CHECK(move.moved_tets == static_cast<int>(tip.size() / 2));
  CHECK(moved.domain_tets[1].size() == tip.size() - tip.size() / 2);
  // Every handed tet nearer the old cut (x = 0.5) than the tip's nearest by at most a cell.
  double nearest_kept = 1e9, farthest_moved = 0;
  for (const int t : tip)
    if (moved.tet_domain(t) == 1)
      nearest_kept = std::min(nearest_kept, beam.centroid_x(t));
    else
      farthest_moved = std::max(farthest_moved, beam.centroid_x(t));
  CHECK(farthest_moved <= nearest_kept + 0.125);
  CHECK(nearest_kept > 0.7);
  // The new cut lies further out: its interface vertices at x = 0.75.
  for (const int v : moved.interface_vertices[1])
    CHECK(beam.mesh.rest_positions(v, 0) == Approx(0.75));
}

TEST_CASE("move_cut_outward merges a domain too small to halve, and refuses the root",
          "[precompute][substructuring]") {
  const CutBeam beam;
  ramus::CutMove move;
  const int tip_tets = static_cast<int>(beam.tree.domain_tets[1].size());
  const DomainTree merged =
      ramus::move_cut_outward(beam.mesh, beam.tree, beam.anchored, 1, 0.5, tip_tets, &move);
  CHECK(move.merged);
  CHECK(move.moved_tets == tip_tets);
  REQUIRE(merged.num_domains == 1);
  CHECK(merged.names == std::vector<std::string>{"root"});
  CHECK(merged.domain_tets[0].size() == static_cast<std::size_t>(beam.mesh.num_tets()));
  CHECK_THROWS_AS(ramus::move_cut_outward(beam.mesh, beam.tree, beam.anchored, 0, 0.5, 8),
                  ramus::OptionError);
  CHECK_THROWS_AS(ramus::move_cut_outward(beam.mesh, beam.tree, beam.anchored, 1, 1.0, 8),
                  ramus::OptionError);
}

TEST_CASE("basis_residual_errors: zero in the basis's span, the least-squares residual otherwise",
          "[precompute][substructuring]") {
  const CutBeam beam;
  ramus::ReductionSpec reduction;
  reduction.linear_modes = 6;
  reduction.r = 6;
  reduction.modal_derivatives = false;
  const std::vector<ramus::Material> materials(static_cast<std::size_t>(beam.mesh.num_tets()),
                                               ramus::Material{});
  const ramus::ReducedModel model = ramus::build_substructured_model(
      beam.mesh, materials, beam.tree, beam.anchored, {reduction, reduction});
  // The tip's domain (by name) and its basis.
  const auto tip_domain = std::find_if(model.domains.begin(), model.domains.end(),
                                       [](const auto& d) { return d.name == "tip"; });
  REQUIRE(tip_domain != model.domains.end());
  const Eigen::MatrixXd& U = model.parts[static_cast<std::size_t>(tip_domain->part)].basis;
  const Eigen::VectorXi& global = tip_domain->global_vertices;
  const Eigen::MatrixX3d& X = beam.mesh.rest_positions;
  // A rigid motion plus a combination of the tip's basis: nothing left in the tip.
  const Vector3d t(0.01, 0.0, -0.02), theta(0.0, 0.01, 0.002);
  Eigen::MatrixX3d field(X.rows(), 3);
  for (Eigen::Index v = 0; v < X.rows(); ++v)
    field.row(v) = (t + theta.cross(X.row(v).transpose())).transpose();
  Eigen::VectorXd q(U.cols());
  q.setLinSpaced(0.02, -0.01);
  const Eigen::VectorXd in_span = U * q;
  Eigen::MatrixX3d spanned = field;
  for (Eigen::Index i = 0; i < global.size(); ++i)
    spanned.row(global(i)) += (tip_domain->frame_rotation * in_span.segment<3>(3 * i)).transpose();
  const std::vector<double> none =
      ramus::basis_residual_errors(beam.mesh, beam.tree, model, spanned);
  REQUIRE(none.size() == 2);
  CHECK(none[1] < 1e-9);
  // A field off the span at the tip's free end: its least-squares residual (QR here).
  Eigen::MatrixX3d off = field;
  Eigen::VectorXd local = Eigen::VectorXd::Zero(3 * global.size());
  for (Eigen::Index i = 0; i < global.size(); ++i) {
    const Vector3d X_i = X.row(global(i)).transpose();
    if (X_i.x() < 0.9) continue;
    const Vector3d bump(0.0, 0.003 * X_i.y(), 0.01 * X_i.z() * X_i.y());
    off.row(global(i)) += bump.transpose();
    local.segment<3>(3 * i) = tip_domain->frame_rotation.transpose() * bump;
  }
  const Eigen::VectorXd residual = local - U * U.householderQr().solve(local);
  double worst = 0;
  for (Eigen::Index i = 0; i < global.size(); ++i)
    worst = std::max(worst, residual.segment<3>(3 * i).norm());
  const std::vector<double> errors = ramus::basis_residual_errors(beam.mesh, beam.tree, model, off);
  CHECK(worst > 1e-6);
  CHECK(errors[1] == Approx(worst / off.rowwise().norm().maxCoeff()).epsilon(1e-8));
}
