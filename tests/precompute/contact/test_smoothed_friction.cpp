// Finite-difference checks of the smoothed friction (survey Eq. 32) on its sticking and sliding
// branches, and the Coulomb limit it approaches: a sliding contact feels mu lambda against its
// slip, a sticking one a force that grows from zero with the slip.
#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/precompute/contact/smoothed_friction.h"
#include "support/finite_differences.h"

using namespace ramus;
using Eigen::Vector3d;
using test::finite_gradient;
using test::finite_jacobian;
using test::relative_error;

TEST_CASE("The pre-sliding function's integral, value and slope agree", "[precompute][contact]") {
  const double eps = 1e-3;
  for (const double y : {0.0, 1e-5, 4e-4, 9.99e-4, 1.5e-3, 0.2}) {
    INFO("y = " << y);
    const double h = 1e-8;
    const auto at = [&](double t) { return friction_smoothing(std::max(t, 0.0), eps); };
    if (y > h) {
      CHECK(at(y).value ==
            Approx((at(y + h).integral - at(y - h).integral) / (2 * h)).epsilon(1e-6));
      CHECK(at(y).slope ==
            Approx((at(y + h).value - at(y - h).value) / (2 * h)).epsilon(1e-5).margin(1e-6));
      CHECK(at(y).value_over_y == Approx(at(y).value / y).epsilon(1e-12));
    }
  }
  // C¹ at eps: value 1 and slope 0 from both sides; 2/eps the limit of s(y)/y at 0.
  CHECK(friction_smoothing(eps * (1 - 1e-9), eps).value == Approx(1.0));
  CHECK(friction_smoothing(eps * (1 - 1e-9), eps).slope == Approx(0.0).margin(1e-3));
  CHECK(friction_smoothing(0, eps).value_over_y == Approx(2 / eps));
}

TEST_CASE("The lagged friction potential's gradient and Hessian match finite differences",
          "[precompute][contact]") {
  const double h = 0.01, eps = 1e-3;
  Eigen::VectorXd start(9);
  start << 0, 0, 0, 1, 0, 0, 0, 1, 0;
  std::vector<FrictionContact> contacts(3);
  contacts[0] = {0, Vector3d::UnitZ(), 2.0, 0.5, Vector3d::Zero()};
  contacts[1] = {1, Vector3d(0, 0.6, 0.8), 1.0, 0.3, Vector3d(0.2, 0, 0)};
  contacts[2] = {2, Vector3d::UnitX(), 3.0, 0.8, Vector3d::Zero()};
  LaggedFrictionPotential friction;
  friction.begin_step(contacts, start, h, eps);
  Eigen::VectorXd x = start;
  x.segment<3>(0) += Vector3d(3e-6, -2e-6, 1e-6);  // sticking: slip 0.36 mm/s < eps
  x.segment<3>(3) += Vector3d(1e-3, 4e-4, -1e-4);  // sliding
  x.segment<3>(6) += Vector3d(0, 2e-3, 1e-3);      // sliding
  Eigen::VectorXd gradient = Eigen::VectorXd::Zero(9);
  CHECK(friction.add_gradient(x, gradient) == Approx(friction.value(x)));
  const auto value = [&](const Eigen::VectorXd& y) { return friction.value(y); };
  CHECK(relative_error(gradient, finite_gradient(x, value, 1e-9)) < 1e-5);
  const Eigen::MatrixXd hessian = finite_jacobian(
      x,
      [&](const Eigen::VectorXd& y) {
        Eigen::VectorXd g = Eigen::VectorXd::Zero(9);
        friction.add_gradient(y, g);
        return g;
      },
      1e-10);
  Eigen::MatrixXd blocks = Eigen::MatrixXd::Zero(9, 9);
  friction.add_hessian_blocks(x, [&](int v, const Eigen::Matrix3d& block) {
    blocks.block<3, 3>(3 * v, 3 * v) += block;
    CHECK(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(block).eigenvalues().minCoeff() > -1e-9);
  });
  CHECK(relative_error(blocks, hessian) < 1e-4);
  // Sliding: the force -dD/dx is mu lambda against the slip, tangent to the collider.
  const Vector3d force = -gradient.segment<3>(6);
  const Vector3d slip = friction.slip_velocity(x, contacts[2]);
  CHECK(force.norm() == Approx(0.8 * 3.0));
  CHECK(force.normalized().dot(slip.normalized()) == Approx(-1.0));
  CHECK(std::abs(force.dot(Vector3d::UnitX())) < 1e-12);
  // Sticking: smaller than the Coulomb bound.
  CHECK(gradient.segment<3>(0).norm() < 0.5 * 2.0);
}
