// The stage solve's in-place Cholesky (integrators/domain_equation.h, cholesky_solve_in_place)
// against its definition: L lower with L Lᵀ = A, A x = b; false and x untouched when A is not
// positive definite; only A's lower triangle read; no allocation.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "integrators/domain_equation.h"
#include "support/allocation_counter.h"

using namespace ramus;

namespace {

// A symmetric positive definite n by n matrix with condition number about 1e3.
Eigen::MatrixXd positive_definite(Eigen::Index n) {
  const Eigen::MatrixXd g = Eigen::MatrixXd::Random(n, n);
  return g * g.transpose() + 1e-2 * static_cast<double>(n) * Eigen::MatrixXd::Identity(n, n);
}

}  // namespace

TEST_CASE("cholesky_solve_in_place factors A = L Lt and solves A x = b for every size up to 41",
          "[runtime][integrators]") {
  std::srand(7);
  for (Eigen::Index n = 0; n <= 41; ++n) {
    const Eigen::MatrixXd a = positive_definite(n);
    const Eigen::VectorXd b = Eigen::VectorXd::Random(n);
    Eigen::MatrixXd factor = a;
    // Garbage above the diagonal: only the lower triangle may be read.
    factor.triangularView<Eigen::StrictlyUpper>().setConstant(1e30);
    Eigen::VectorXd x(n);
    bool ok = false;
    const long allocations =
        test::count_allocations([&] { ok = cholesky_solve_in_place(factor, b, x); });
    INFO("n = " << n);
    REQUIRE(ok);
    CHECK(allocations == 0);
    const Eigen::MatrixXd lower = factor.triangularView<Eigen::Lower>();
    const double scale = std::max(1.0, a.norm());
    CHECK((lower * lower.transpose() - a).norm() <= 1e-13 * scale);
    CHECK((lower.diagonal().array() > 0).all());
    // Residual relative to ‖A‖ ‖x‖ (backward stable), and against Eigen's LLT.
    CHECK((a * x - b).norm() <= 1e-13 * scale * std::max(1.0, x.norm()));
    const Eigen::VectorXd reference = a.llt().solve(b);
    CHECK((x - reference).norm() <= 1e-10 * std::max(1.0, reference.norm()));
  }
}

TEST_CASE("cholesky_solve_in_place refuses an indefinite or singular matrix and keeps x",
          "[runtime][integrators]") {
  // Indefinite: A = L D Lᵀ with D = diag(1, ..., 1, -1), so the last pivot is -L_55².
  const Eigen::MatrixXd l = positive_definite(6).llt().matrixL();
  Eigen::VectorXd d = Eigen::VectorXd::Ones(6);
  d(5) = -1.0;
  const Eigen::MatrixXd indefinite = l * d.asDiagonal() * l.transpose();
  // Singular: an exact zero pivot in the middle.
  const Eigen::MatrixXd singular = Eigen::Vector4d(1.0, 2.0, 0.0, 3.0).asDiagonal();
  for (const Eigen::MatrixXd& a : {indefinite, singular}) {
    const Eigen::VectorXd b = Eigen::VectorXd::Ones(a.rows());
    Eigen::VectorXd x = Eigen::VectorXd::Constant(a.rows(), 42.0);
    Eigen::MatrixXd factor = a;
    INFO("n = " << a.rows());
    CHECK_FALSE(cholesky_solve_in_place(factor, b, x));
    CHECK(x == Eigen::VectorXd::Constant(a.rows(), 42.0));
  }
}

TEST_CASE("cholesky_solve_in_place carries a NaN entry to a NaN solution",
          "[runtime][integrators]") {
  Eigen::MatrixXd a = positive_definite(5);
  a(3, 1) = a(1, 3) = std::numeric_limits<double>::quiet_NaN();
  const Eigen::VectorXd b = Eigen::VectorXd::Ones(5);
  Eigen::VectorXd x(5);
  cholesky_solve_in_place(a, b, x);
  CHECK_FALSE(x.allFinite());
}

TEST_CASE(
    "inverse_diagonal_cholesky_solve solves L Lt x = b from L with 1 / L_jj on its diagonal") {
  std::srand(11);
  for (Eigen::Index n = 0; n <= 24; ++n) {
    const Eigen::MatrixXd a = positive_definite(n);
    const Eigen::VectorXd b = Eigen::VectorXd::Random(n);
    // The lanes' layout: L's strict lower triangle, 1 / L_jj on the diagonal, garbage above.
    const Eigen::MatrixXd lower = a.llt().matrixL();
    Eigen::MatrixXd factor = lower;
    factor.diagonal() = lower.diagonal().cwiseInverse();
    factor.triangularView<Eigen::StrictlyUpper>().setConstant(1e30);
    Eigen::VectorXd x = b;
    const long allocations =
        test::count_allocations([&] { inverse_diagonal_cholesky_solve(factor.data(), x); });
    INFO("n = " << n);
    CHECK(allocations == 0);
    const double scale = std::max(1.0, a.norm());
    CHECK((a * x - b).norm() <= 1e-13 * scale * std::max(1.0, x.norm()));
  }
}
