#include "symmetric_eigen.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>

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

}  // namespace ramus
