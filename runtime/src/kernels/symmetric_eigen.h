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

/// Eigen-decomposition of a small symmetric n by n `matrix` that is already nearly diagonal (the
/// split integrators' tracked Ritz problems) by cyclic Jacobi rotations, which converge
/// quadratically from there in a sweep or two where the tridiagonal QR above costs 8x more:
/// `matrix` (read in full, then overwritten) becomes diagonal, `vectors` (n by n) its orthonormal
/// eigenvectors, `eigenvalues` (n) ascending. False when 30 sweeps did not converge.
bool jacobi_eigen(Eigen::Ref<Eigen::MatrixXd> matrix, Eigen::Ref<Eigen::MatrixXd> vectors,
                  Eigen::Ref<Eigen::VectorXd> eigenvalues) noexcept;

}  // namespace ramus
