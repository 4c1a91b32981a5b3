// Finite-difference checks of the contact potentials on each of their branches (inside delta,
// at delta, far; inside and outside a penalty collider), and of the vertex-collider potential's
// gradient and Hessian blocks.
#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "ramus/precompute/contact/contact_potentials.h"
#include "support/finite_differences.h"

using namespace ramus;
using Eigen::Vector3d;
using test::finite_gradient;
using test::finite_jacobian;
using test::relative_error;

namespace {

// (f(x + h) - f(x - h)) / 2h of a scalar function.
template <typename F>
double slope(F f, double x, double h) {
  return (f(x + h) - f(x - h)) / (2 * h);
}

}  // namespace

TEST_CASE("The log barrier's derivatives match finite differences on each branch",
          "[precompute][contact]") {
  const double delta = 1e-2;
  const auto b = [&](double d) { return log_barrier(d, delta).value; };
  const auto b1 = [&](double d) { return log_barrier(d, delta).first; };
  for (const double d : {1e-5, 1e-4, 2.5e-3, 5e-3, 9.9e-3, 2e-2}) {
    INFO("d = " << d);
    const double h = 1e-6 * d;
    CHECK(log_barrier(d, delta).first == Approx(slope(b, d, h)).epsilon(1e-6).margin(1e-12));
    CHECK(log_barrier(d, delta).second == Approx(slope(b1, d, h)).epsilon(1e-6).margin(1e-10));
  }
  // Zero beyond delta, C² at delta (value, slope and curvature all vanish there), +inf at 0.
  CHECK(log_barrier(delta, delta).value == 0);
  CHECK(std::abs(log_barrier(delta * (1 - 1e-6), delta).second) < 1e-5);
  CHECK(log_barrier(0.0, delta).value == INFINITY);
  CHECK(log_barrier(-1e-3, delta).value == INFINITY);
  // It pushes away from the collider, harder closer: b' < 0 and b'' > 0 inside delta.
  CHECK(log_barrier(1e-3, delta).first < log_barrier(5e-3, delta).first);
  CHECK(log_barrier(5e-3, delta).second > 0);
}

TEST_CASE("The cubic penalty's derivatives match finite differences", "[precompute][contact]") {
  const double k = 1e5;
  const auto p = [&](double phi) { return cubic_penalty(phi, k).value; };
  const auto p1 = [&](double phi) { return cubic_penalty(phi, k).first; };
  for (const double phi : {-0.2, -1e-3, 0.05}) {
    INFO("phi = " << phi);
    CHECK(cubic_penalty(phi, k).first == Approx(slope(p, phi, 1e-7)).epsilon(1e-6).margin(1e-9));
    CHECK(cubic_penalty(phi, k).second == Approx(slope(p1, phi, 1e-7)).epsilon(1e-6).margin(1e-9));
  }
  CHECK(cubic_penalty(-0.1, k).value == Approx(100.0));  // k |phi|³ = 1e5 * 1e-3
  CHECK(cubic_penalty(0.1, k).value == 0);
}

TEST_CASE("The vertex-collider potential's gradient and Hessian match finite differences",
          "[precompute][contact]") {
  // A sphere with a barrier and a tilted floor with a penalty; 12 vertices near both.
  ColliderContact sphere;
  sphere.collider.shape = ColliderShape::kSphere;
  sphere.collider.size = Eigen::Vector4d(0.5, 0, 0, 0);
  sphere.model = ContactModel::kBarrier;
  sphere.delta = 0.1;
  sphere.stiffness = 50;
  ColliderContact floor;
  floor.collider.shape = ColliderShape::kHalfSpace;
  floor.collider.motion.initial.rotation =
      Eigen::AngleAxisd(0.3, Vector3d::UnitX()).toRotationMatrix();
  floor.collider.motion.initial.translation = Vector3d(0, 0, -0.6);
  floor.model = ContactModel::kPenalty;
  floor.stiffness = 1e4;
  const VertexColliderPotential potential({sphere, floor});
  std::mt19937 random(5);
  std::uniform_real_distribution<double> radius(0.52, 0.59), angle(-3.1, 3.1);
  Eigen::VectorXd x(36);
  for (int v = 0; v < 12; ++v) {
    const double a = angle(random), b = 0.5 * angle(random), r = radius(random);
    x.segment<3>(3 * v) =
        r * Vector3d(std::cos(a) * std::cos(b), std::sin(a) * std::cos(b), std::sin(b));
    if (v % 3 == 0) x(3 * v + 2) = -0.65;  // below the floor: the penalty acts
  }
  Eigen::VectorXd gradient = Eigen::VectorXd::Zero(x.size());
  const double energy = potential.add_gradient(x, gradient);
  CHECK(energy == Approx(potential.value(x)));
  CHECK(energy > 0);
  const auto value = [&](const Eigen::VectorXd& y) { return potential.value(y); };
  CHECK(relative_error(gradient, finite_gradient(x, value, 1e-7)) < 1e-6);
  const Eigen::MatrixXd hessian = finite_jacobian(
      x,
      [&](const Eigen::VectorXd& y) {
        Eigen::VectorXd g = Eigen::VectorXd::Zero(y.size());
        potential.add_gradient(y, g);
        return g;
      },
      1e-7);
  for (int v = 0; v < 12; ++v) {
    INFO("vertex " << v);
    const Eigen::Matrix3d block = hessian.block<3, 3>(3 * v, 3 * v);
    CHECK(relative_error(potential.vertex_hessian(x, v, false), block) < 1e-5);
    // Vertices do not couple; the projection leaves no negative eigenvalue.
    if (v + 1 < 12)
      CHECK(hessian.block<3, 3>(3 * v, 3 * v + 3).norm() < 1e-6 * block.norm() + 1e-9);
    const Eigen::Matrix3d projected = potential.vertex_hessian(x, v, true);
    CHECK(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(projected).eigenvalues().minCoeff() >=
          -1e-9 * std::max(1.0, projected.norm()));
  }
  // Smallest distance: the deepest penalty vertex, 0.65 below the floor's origin, tilted.
  CHECK(potential.smallest_distance(x) < 0);
}
