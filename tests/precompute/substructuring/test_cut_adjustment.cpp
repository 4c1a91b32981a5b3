// Moving a tree's cuts (cut_adjustment.cpp): the interface rigidity measure against its
// definition (a weighted 6-parameter least-squares fit solved here by SVD), and the cut moved
// outward or the domain merged.
#include <Eigen/Dense>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/substructuring/cut_adjustment.h"

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
