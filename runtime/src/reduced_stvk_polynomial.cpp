#include "ramus/runtime/reduced_stvk_polynomial.h"

#include <string>

#include "ramus/error.h"

namespace ramus {

namespace {

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + " by " + std::to_string(cols);
}

}  // namespace

ReducedStvkForces::ReducedStvkForces(const ReducedStvkPolynomial& polynomial)
    : polynomial_(&polynomial), r_(polynomial.r) {
  if (r_ < 0) throw OptionError("ReducedStvkPolynomial: negative r = " + std::to_string(r_));
  const Eigen::Index p = num_pairs(r_);
  if (polynomial.quadratic.size() != p || polynomial.cubic.rows() != p ||
      polynomial.cubic.cols() != r_ || polynomial.quartic.rows() != p ||
      polynomial.quartic.cols() != p)
    throw OptionError("ReducedStvkPolynomial: r = " + std::to_string(r_) + " needs quadratic " +
                      std::to_string(p) + ", cubic " + shape(p, r_) + ", quartic " + shape(p, p) +
                      "; got " + std::to_string(polynomial.quadratic.size()) + ", " +
                      shape(polynomial.cubic.rows(), polynomial.cubic.cols()) + ", " +
                      shape(polynomial.quartic.rows(), polynomial.quartic.cols()));
  quartic_panels_ = SymmetricPanelMatrix(polynomial.quartic);
  padded_monomials_.setZero(quartic_panels_.padded_size());
  padded_k4_.setZero(quartic_panels_.padded_size());
  pair_monomials_.setZero(p);
  k3_packed_.setZero(p);
  k4_packed_.setZero(p);
  k_packed_.setZero(p);
  euler_packed_.setZero(p);
}

void ReducedStvkForces::evaluate(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                                 Eigen::MatrixXd& hessian) noexcept {
  const int r = r_;
  gradient.resize(r);  // no-ops when the sizes are right
  hessian.resize(r, r);
  if (r == 0) return;
  const ReducedStvkPolynomial& poly = *polynomial_;

  // Pair monomials m_(ij) = q_i q_j (i < j), q_i^2 / 2 (i == j), in packed order.
  for (int i = 0, k = 0; i < r; k += r - i, ++i) {
    pair_monomials_(k) = 0.5 * q(i) * q(i);
    pair_monomials_.segment(k + 1, r - i - 1) = q(i) * q.tail(r - i - 1);
  }
  // The two products: all the work. The symmetric one reads only the lower triangle.
  k3_packed_.noalias() = poly.cubic * q;
  padded_monomials_.head(pair_monomials_.size()) = pair_monomials_;
  quartic_panels_.multiply(padded_monomials_.data(), padded_k4_.data());
  k4_packed_ = padded_k4_.head(k4_packed_.size());
  k_packed_ = poly.quadratic + k3_packed_ + k4_packed_;
  euler_packed_ = poly.quadratic + 0.5 * k3_packed_ + (1.0 / 3.0) * k4_packed_;

  // Unpack K into both triangles; gradient = (K2 + K3 / 2 + K4 / 3) q from the packed rows.
  gradient.setZero();
  for (int i = 0, k = 0; i < r; k += r - i, ++i) {
    const int n = r - i;
    hessian.col(i).tail(n) = k_packed_.segment(k, n);
    hessian.row(i).tail(n - 1) = k_packed_.segment(k + 1, n - 1).transpose();
    gradient(i) += euler_packed_.segment(k, n).dot(q.tail(n));
    gradient.tail(n - 1) += q(i) * euler_packed_.segment(k + 1, n - 1);
  }
}

double ReducedStvkForces::evaluate_energy(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                                          Eigen::MatrixXd& hessian) noexcept {
  evaluate(q, gradient, hessian);
  if (r_ == 0) return 0.0;
  // E = q^T (K2 / 2 + K3 / 6 + K4 / 12) q = sum_(ij) (K2 + K3 / 3 + K4 / 6)_(ij) m_(ij).
  return pair_monomials_.dot(polynomial_->quadratic) +
         pair_monomials_.dot(k3_packed_) * (1.0 / 3.0) + pair_monomials_.dot(k4_packed_) / 6.0;
}

}  // namespace ramus
