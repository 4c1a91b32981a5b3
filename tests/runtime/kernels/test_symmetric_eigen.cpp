// The runtime's allocation-free symmetric eigen-solvers (kernels/symmetric_eigen.h) against
// their definition A V = V Λ, Vᵀ V = I, and against Eigen's SelfAdjointEigenSolver.
#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include "kernels/symmetric_eigen.h"
#include "support/allocation_counter.h"

using namespace ramus;

namespace {

// A symmetric n by n matrix with eigenvalues `values`, rotated by a random orthogonal matrix
// that is `mixing` away from the identity (0: diagonal).
Eigen::MatrixXd symmetric_with(const Eigen::VectorXd& values, double mixing) {
  const Eigen::Index n = values.size();
  // Q of I + mixing R is orthogonal and within O(mixing) of the identity (up to column signs).
  const Eigen::MatrixXd near =
      Eigen::MatrixXd::Identity(n, n) + mixing * Eigen::MatrixXd::Random(n, n);
  const Eigen::MatrixXd rotation = Eigen::HouseholderQR<Eigen::MatrixXd>(near).householderQ();
  return rotation * values.asDiagonal() * rotation.transpose();
}

void check_decomposition(const Eigen::MatrixXd& a, const Eigen::MatrixXd& vectors,
                         const Eigen::VectorXd& values) {
  const Eigen::Index n = a.rows();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> reference(a);
  const double scale = a.norm();
  CHECK((values - reference.eigenvalues()).norm() < 1e-13 * scale);
  CHECK((a * vectors - vectors * values.asDiagonal()).norm() < 1e-12 * scale);
  CHECK((vectors.transpose() * vectors - Eigen::MatrixXd::Identity(n, n)).norm() < 1e-13);
  for (Eigen::Index i = 1; i < n; ++i) CHECK(values(i - 1) <= values(i));
}

}  // namespace

TEST_CASE("Jacobi rotations diagonalize nearly diagonal and general symmetric matrices",
          "[runtime][kernels]") {
  std::srand(7);
  Eigen::VectorXd values(5);
  values << 2e4, 119.0, 2346.0, 182.0, 2567.0;  // unsorted, spread as a beam's
  for (double mixing : {0.0, 1e-4, 1e-2, 1.0}) {
    INFO("mixing " << mixing);
    const Eigen::MatrixXd a = symmetric_with(values, mixing);
    Eigen::MatrixXd matrix = a, vectors(5, 5);
    Eigen::VectorXd eigenvalues(5);
    bool ok = false;
    const long allocations =
        test::count_allocations([&] { ok = jacobi_eigen(matrix, vectors, eigenvalues); });
    REQUIRE(ok);
    CHECK(allocations == 0);
    check_decomposition(a, vectors, eigenvalues);
  }
  // A repeated eigenvalue, and a negative one.
  values << -50.0, 3.0, 3.0, 7.0, 1e3;
  const Eigen::MatrixXd a = symmetric_with(values, 0.5);
  Eigen::MatrixXd matrix = a, vectors(5, 5);
  Eigen::VectorXd eigenvalues(5);
  REQUIRE(jacobi_eigen(matrix, vectors, eigenvalues));
  check_decomposition(a, vectors, eigenvalues);
  // Not a number: reported, not returned.
  matrix = a;
  matrix(1, 2) = matrix(2, 1) = std::nan("");
  CHECK_FALSE(jacobi_eigen(matrix, vectors, eigenvalues));
}

TEST_CASE("The allocation-free tridiagonal QR solver matches its definition",
          "[runtime][kernels]") {
  std::srand(11);
  for (int n : {1, 2, 8, 20}) {
    INFO("n " << n);
    const Eigen::VectorXd values = Eigen::VectorXd::LinSpaced(n, 1.0, 1e5);
    const Eigen::MatrixXd a = symmetric_with(values, 1.0);
    SymmetricEigenSolver solver(n);
    Eigen::MatrixXd matrix = a;
    Eigen::VectorXd eigenvalues(n);
    bool ok = false;
    const long allocations =
        test::count_allocations([&] { ok = solver.compute(matrix, eigenvalues); });
    REQUIRE(ok);
    CHECK(allocations == 0);
    check_decomposition(a, matrix, eigenvalues);
  }
}
