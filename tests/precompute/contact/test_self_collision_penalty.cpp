// The self-collision penalty (optimization paper §5.3): the point-triangle distance and its
// derivatives against finite differences on every feature (face, edges, corners) and against a
// sampled minimum; detection against a brute-force search; the energy's gradient and Hessian
// against finite differences; the friction impulse's conservation and dissipation.
#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "ramus/precompute/contact/self_collision_penalty.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/mesh/boundary_surface.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "support/finite_differences.h"

using namespace ramus;
using Eigen::Vector3d;
using Vector12d = Eigen::Matrix<double, 12, 1>;
using test::finite_gradient;
using test::finite_jacobian;
using test::relative_error;

namespace {

double distance_at(const Eigen::VectorXd& q) {
  return point_triangle_distance(q.segment<3>(0), q.segment<3>(3), q.segment<3>(6), q.segment<3>(9),
                                 false)
      .squared_distance;
}

// Two unit cubes of 2x2x2 cells, the second moved by `offset` (m) and turned about z.
TetMesh two_cubes(const Vector3d& offset, double degrees) {
  const TetMesh cube = make_box_tet_mesh(Vector3d::Ones(), 2, 2, 2);
  Eigen::Isometry3d second = Eigen::Isometry3d::Identity();
  second.translate(offset).rotate(Eigen::AngleAxisd(degrees * M_PI / 180, Vector3d::UnitZ()));
  return placed_copies(cube, {Eigen::Isometry3d::Identity(), second});
}

// Self-collision switched on with penalty stiffness k (J/m³), no friction.
SelfCollisionOptions enabled_with(double stiffness) {
  SelfCollisionOptions options;
  options.enabled = true;
  options.stiffness = stiffness;
  return options;
}

Eigen::VectorXd flat_positions(const TetMesh& mesh) {
  const Eigen::MatrixX3d transposed = mesh.rest_positions;
  Eigen::VectorXd x(3 * mesh.num_vertices());
  for (int v = 0; v < mesh.num_vertices(); ++v) x.segment<3>(3 * v) = transposed.row(v);
  return x;
}

}  // namespace

TEST_CASE("The point-triangle distance and its derivatives hold on every feature",
          "[precompute][contact]") {
  const Vector3d t0(0, 0, 0), t1(1, 0.1, 0), t2(0.2, 0.9, 0.1);
  // Points over the face, beyond each edge and each corner (number of positive weights: 3, 2, 1).
  const std::vector<std::pair<Vector3d, int>> cases = {
      {{0.3, 0.3, 0.4}, 3},  {{0.3, 0.3, -0.2}, 3},  {{0.5, -0.4, 0.1}, 2}, {{0.8, 0.8, -0.1}, 2},
      {{-0.4, 0.4, 0.2}, 2}, {{-0.5, -0.5, 0.3}, 1}, {{1.6, -0.2, 0.2}, 1}, {{0.1, 1.5, 0.3}, 1}};
  for (const auto& [p, features] : cases) {
    INFO("p = " << p.transpose());
    const PointTriangleDistance d = point_triangle_distance(p, t0, t1, t2);
    CHECK((d.weights.array() > 0).count() == features);
    CHECK(d.weights.sum() == Approx(1.0));
    // Against the minimum over a fine sampling of the triangle: never below it, and close.
    double sampled = INFINITY;
    for (int i = 0; i <= 200; ++i)
      for (int j = 0; i + j <= 200; ++j)
        sampled = std::min(
            sampled, (p - (t0 + (t1 - t0) * i / 200.0 + (t2 - t0) * j / 200.0)).squaredNorm());
    CHECK(d.squared_distance <= sampled + 1e-12);
    CHECK(d.squared_distance == Approx(sampled).epsilon(1e-3));
    // Gradient and Hessian against central differences in all 12 coordinates.
    Vector12d q;
    q << p, t0, t1, t2;
    const Eigen::VectorXd fd_gradient = finite_gradient(q, distance_at, 1e-6);
    CHECK(relative_error(d.gradient, fd_gradient) < 1e-7);
    const Eigen::MatrixXd fd_hessian = finite_jacobian(
        q,
        [](const Eigen::VectorXd& y) -> Eigen::VectorXd {
          return point_triangle_distance(y.segment<3>(0), y.segment<3>(3), y.segment<3>(6),
                                         y.segment<3>(9))
              .gradient;
        },
        1e-6);
    CHECK(relative_error(d.hessian, fd_hessian) < 1e-6);
  }
}

TEST_CASE("The self-collision penalty k d sqrt(d + eps) has the derivatives of its value",
          "[precompute][contact]") {
  const double k = 1e6, eps = 1e-15;
  for (const double d : {1e-14, 1e-8, 1e-4, 0.3}) {
    INFO("d = " << d);
    const double h = 1e-5 * d;
    const auto value = [&](double s) { return self_penalty(s, k, eps).value; };
    const auto first = [&](double s) { return self_penalty(s, k, eps).first; };
    CHECK(self_penalty(d, k, eps).first ==
          Approx((value(d + h) - value(d - h)) / (2 * h)).epsilon(1e-6));
    CHECK(self_penalty(d, k, eps).second ==
          Approx((first(d + h) - first(d - h)) / (2 * h)).epsilon(1e-5));
  }
  // About k |depth|³: depth 1 mm costs 1e6 * 1e-9 J.
  CHECK(self_penalty(1e-6, k, eps).value == Approx(1e-3).epsilon(1e-6));
  CHECK(self_penalty(0, k, eps).value == 0);
}

TEST_CASE("Self-collision finds exactly the surface vertices inside foreign tets",
          "[precompute][contact]") {
  SelfCollisionOptions options = enabled_with(1e5);
  // Apart, and one cube alone at rest: nothing.
  {
    const TetMesh mesh = two_cubes({1.5, 0, 0}, 0);
    const SelfCollisionPenalty penalty(mesh.tets, mesh.num_vertices(), options);
    CHECK(penalty.find_contacts(flat_positions(mesh), false).empty());
  }
  // Overlapping by 0.3 m, turned 20°: the brute force over every surface vertex and tet agrees.
  const TetMesh mesh = two_cubes({0.7, 0.2, 0.1}, 20);
  const SelfCollisionPenalty penalty(mesh.tets, mesh.num_vertices(), options);
  const Eigen::VectorXd x = flat_positions(mesh);
  std::vector<int> found;
  for (const SelfContact& c : penalty.find_contacts(x, false)) found.push_back(c.vertex);
  std::vector<int> expected;
  const Eigen::MatrixX3i surface = boundary_triangles(mesh.tets);
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    if (!(surface.array() == v).any()) continue;
    bool inside = false;
    for (int t = 0; t < mesh.num_tets() && !inside; ++t) {
      if ((mesh.tets.row(t).array() == v).any()) continue;
      Eigen::Matrix3d edges;
      for (int k = 0; k < 3; ++k)
        edges.col(k) = x.segment<3>(3 * mesh.tets(t, k + 1)) - x.segment<3>(3 * mesh.tets(t, 0));
      const Vector3d lambda =
          edges.inverse() * (x.segment<3>(3 * v) - x.segment<3>(3 * mesh.tets(t, 0)));
      inside = lambda.minCoeff() >= 0 && lambda.sum() <= 1;
    }
    if (inside) expected.push_back(v);
  }
  CHECK(!expected.empty());
  CHECK(found == expected);
  // Each contact's triangle is the nearest foreign one, nearer than the containing cube's faces
  // (a point inside a unit cube is within 0.5 m of one).
  for (const SelfContact& c : penalty.find_contacts(x, false)) {
    CHECK(std::sqrt(c.distance.squared_distance) < 0.5);
    for (Eigen::Index f = 0; f < surface.rows(); ++f) {
      if ((surface.row(f).array() == c.vertex).any()) continue;
      CHECK(point_triangle_distance(x.segment<3>(3 * c.vertex), x.segment<3>(3 * surface(f, 0)),
                                    x.segment<3>(3 * surface(f, 1)),
                                    x.segment<3>(3 * surface(f, 2)), false)
                .squared_distance >= c.distance.squared_distance - 1e-15);
    }
  }
}

TEST_CASE("The self-collision energy's gradient and Hessian match finite differences",
          "[precompute][contact]") {
  SelfCollisionOptions options = enabled_with(1e4);
  const TetMesh mesh = two_cubes({0.9, 0.15, 0.05}, 10);
  const SelfCollisionPenalty penalty(mesh.tets, mesh.num_vertices(), options);
  Eigen::VectorXd x = flat_positions(mesh);
  std::mt19937 random(7);
  std::uniform_real_distribution<double> jitter(-0.02, 0.02);
  for (Eigen::Index i = 0; i < x.size(); ++i) x(i) += jitter(random);
  REQUIRE(!penalty.find_contacts(x, false).empty());
  Eigen::VectorXd gradient = Eigen::VectorXd::Zero(x.size());
  const double energy = penalty.add_gradient(x, gradient);
  CHECK(energy == Approx(penalty.value(x)));
  CHECK(energy > 0);
  const auto value = [&](const Eigen::VectorXd& y) { return penalty.value(y); };
  CHECK(relative_error(gradient, finite_gradient(x, value, 1e-7)) < 1e-6);
  Eigen::MatrixXd hessian = Eigen::MatrixXd::Zero(x.size(), x.size());
  penalty.add_hessian_blocks(
      x, false, [&](const std::array<int, 4>& nodes, const Eigen::Matrix<double, 12, 12>& block) {
        for (int a = 0; a < 4; ++a)
          for (int b = 0; b < 4; ++b)
            hessian.block<3, 3>(3 * nodes[a], 3 * nodes[b]) += block.block<3, 3>(3 * a, 3 * b);
      });
  const Eigen::MatrixXd fd_hessian = finite_jacobian(
      x,
      [&](const Eigen::VectorXd& y) -> Eigen::VectorXd {
        Eigen::VectorXd g = Eigen::VectorXd::Zero(y.size());
        penalty.add_gradient(y, g);
        return g;
      },
      1e-7);
  CHECK(relative_error(hessian, fd_hessian) < 1e-5);
  // The projected blocks are positive semidefinite.
  for (const SelfContact& c : penalty.find_contacts(x, true))
    CHECK(Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 12, 12>>(
              penalty.contact_hessian(c, true))
              .eigenvalues()
              .minCoeff() > -1e-9 * penalty.contact_hessian(c, true).norm());
}

TEST_CASE("The self-collision friction impulse keeps momentum and only removes kinetic energy",
          "[precompute][contact]") {
  SelfCollisionOptions options = enabled_with(1e6);
  const TetMesh mesh = two_cubes({0.9, 0.15, 0.05}, 10);
  const Eigen::VectorXd x = flat_positions(mesh);
  const Eigen::VectorXd masses = Eigen::VectorXd::LinSpaced(mesh.num_vertices(), 0.5, 2.0);
  std::mt19937 random(3);
  std::uniform_real_distribution<double> speed(-1, 1);
  Eigen::VectorXd velocities(x.size());
  for (Eigen::Index i = 0; i < x.size(); ++i) velocities(i) = speed(random);
  const auto momentum = [&](const Eigen::VectorXd& v) {
    Vector3d p = Vector3d::Zero();
    for (int i = 0; i < mesh.num_vertices(); ++i) p += masses(i) * v.segment<3>(3 * i);
    return p;
  };
  const auto kinetic = [&](const Eigen::VectorXd& v) {
    double e = 0;
    for (int i = 0; i < mesh.num_vertices(); ++i)
      e += 0.5 * masses(i) * v.segment<3>(3 * i).squaredNorm();
    return e;
  };
  for (const double mu : {0.1, 100.0}) {
    INFO("mu = " << mu);
    options.friction = mu;
    const SelfCollisionPenalty penalty(mesh.tets, mesh.num_vertices(), options);
    REQUIRE(!penalty.find_contacts(x, false).empty());
    Eigen::VectorXd after = velocities;
    double force = 0;
    const double removed = penalty.apply_friction(x, masses, 0.01, after, force);
    CHECK(relative_error(momentum(after), momentum(velocities)) < 1e-12);
    CHECK(removed > 0);
    CHECK(kinetic(velocities) - kinetic(after) == Approx(removed).epsilon(1e-9));
    CHECK(force > 0);
  }
  // With a cap far above the impulse, the last contact's relative tangential velocity is gone.
  options.friction = 1e9;
  const SelfCollisionPenalty penalty(mesh.tets, mesh.num_vertices(), options);
  Eigen::VectorXd after = velocities;
  double force = 0;
  penalty.apply_friction(x, masses, 0.01, after, force);
  const SelfContact last = penalty.find_contacts(x, false).back();
  Vector3d relative = -after.segment<3>(3 * last.vertex);
  for (int k = 0; k < 3; ++k)
    relative += last.distance.weights(k) * after.segment<3>(3 * last.triangle[k]);
  const Vector3d normal = last.distance.gradient.head<3>().normalized();
  CHECK((relative - normal * normal.dot(relative)).norm() < 1e-12);
}
