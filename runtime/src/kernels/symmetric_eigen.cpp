#include "symmetric_eigen.h"

#include <Eigen/Eigenvalues>
#include <Eigen/Jacobi>
#include <algorithm>
#include <cmath>
#include <utility>

namespace ramus {

SymmetricEigenSolver::SymmetricEigenSolver(int n)
    : subdiagonal_(Eigen::VectorXd::Zero(std::max(n - 1, 0))),
      householder_(Eigen::VectorXd::Zero(std::max(n - 1, 0))),
      workspace_(Eigen::VectorXd::Zero(n)) {}

bool SymmetricEigenSolver::compute(Eigen::MatrixXd& matrix,
                                   Eigen::Ref<Eigen::VectorXd> eigenvalues) noexcept {
  const Eigen::Index n = matrix.rows();
  if (n != matrix.cols() || n != eigenvalues.size() || n != workspace_.size()) return false;
  if (n == 1) {
    eigenvalues(0) = matrix(0, 0);
    matrix(0, 0) = 1;
    return std::isfinite(eigenvalues(0));
  }
  // Scale to [-1, 1] against over- and underflow, as SelfAdjointEigenSolver does.
  double scale = 0;
  for (Eigen::Index j = 0; j < n; ++j)
    scale = std::max(scale, matrix.col(j).tail(n - j).cwiseAbs().maxCoeff());
  if (!std::isfinite(scale)) return false;
  if (scale == 0) scale = 1;
  matrix.triangularView<Eigen::Lower>() /= scale;
  // Tridiagonalize in place; Q from the Householder reflectors, in place, with our workspace.
  Eigen::internal::tridiagonalization_inplace(matrix, householder_);
  eigenvalues = matrix.diagonal();
  subdiagonal_ = matrix.diagonal<-1>();
  Eigen::HouseholderSequence<Eigen::MatrixXd, Eigen::VectorXd> q(matrix, householder_);
  q.setLength(n - 1).setShift(1);
  q.evalTo(matrix, workspace_);
  // Implicit symmetric QR on the tridiagonal matrix, eigenvalues sorted ascending.
  Eigen::VectorXd& diagonal_ref = workspace_;  // reused as the diagonal (size n)
  diagonal_ref = eigenvalues;
  const Eigen::ComputationInfo info = Eigen::internal::computeFromTridiagonal_impl(
      diagonal_ref, subdiagonal_, 30 * n, true, matrix);
  eigenvalues = diagonal_ref * scale;
  return info == Eigen::Success;
}

bool jacobi_eigen(Eigen::Ref<Eigen::MatrixXd> matrix, Eigen::Ref<Eigen::MatrixXd> vectors,
                  Eigen::Ref<Eigen::VectorXd> eigenvalues) noexcept {
  const Eigen::Index n = matrix.rows();
  vectors.setIdentity();
  // Sweeps of one rotation per off-diagonal pair that is not yet negligible against its
  // diagonal pair (|a_pq| <= 1e-14 sqrt|a_pp a_qq|, or round-off of the largest entry), until a
  // sweep rotates nothing.
  const double floor = 1e-28 * matrix.diagonal().cwiseAbs2().maxCoeff();
  bool converged = false;
  for (int sweep = 0; sweep < 30 && !converged; ++sweep) {
    converged = true;
    for (Eigen::Index p = 0; p < n; ++p)
      for (Eigen::Index q = p + 1; q < n; ++q) {
        const double pq = matrix(p, q);
        if (pq * pq <= std::max(1e-28 * std::abs(matrix(p, p) * matrix(q, q)), floor)) continue;
        Eigen::JacobiRotation<double> rotation;
        if (!rotation.makeJacobi(matrix, p, q)) continue;
        matrix.applyOnTheLeft(p, q, rotation.adjoint());
        matrix.applyOnTheRight(p, q, rotation);
        vectors.applyOnTheRight(p, q, rotation);
        converged = false;
      }
  }
  if (!converged || !matrix.diagonal().allFinite()) return false;
  eigenvalues = matrix.diagonal();
  // Ascending, by selection (n is small).
  for (Eigen::Index i = 0; i + 1 < n; ++i) {
    Eigen::Index smallest = i;
    eigenvalues.tail(n - i).minCoeff(&smallest);
    smallest += i;
    if (smallest == i) continue;
    std::swap(eigenvalues(i), eigenvalues(smallest));
    vectors.col(i).swap(vectors.col(smallest));
  }
  return true;
}

}  // namespace ramus
