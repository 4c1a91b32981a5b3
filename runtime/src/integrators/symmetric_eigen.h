// Eigen-decomposition of a dense symmetric matrix without allocation (runtime internals): Eigen's
// SelfAdjointEigenSolver algorithm (Householder tridiagonalization, implicit symmetric QR) with
// the workspace it would allocate on each call made once, up front.
#pragma once

#include <Eigen/Core>

namespace ramus {

class SymmetricEigenSolver {
 public:
  explicit SymmetricEigenSolver(int n = 0);
  /// Replaces the n by n symmetric `matrix` (its lower triangle is read) by its eigenvectors
  /// (columns, orthonormal) and fills `eigenvalues` (n, ascending). False when the QR iteration
  /// did not converge. Allocates nothing, never throws.
  bool compute(Eigen::MatrixXd& matrix, Eigen::Ref<Eigen::VectorXd> eigenvalues) noexcept;

 private:
  Eigen::VectorXd subdiagonal_, householder_, workspace_;
};

}  // namespace ramus
