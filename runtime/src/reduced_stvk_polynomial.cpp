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
  k3_packed_.setZero(p);
}

void ReducedStvkForces::evaluate(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                                 Eigen::MatrixXd& hessian) noexcept {
  const int r = r_;
  gradient.resize(r);  // no-ops when the sizes are right
  hessian.resize(r, r);
  if (r == 0) return;
  const ReducedStvkPolynomial& poly = *polynomial_;

  // Pair monomials m_(ij) = q_i q_j (i < j), q_i^2 / 2 (i == j), in packed order, written
  // straight into the padded input of the symmetric product.
  const double* qd = q.data();
  double* m = padded_monomials_.data();
  for (int i = 0, k = 0; i < r; ++i) {
    m[k++] = 0.5 * qd[i] * qd[i];
    for (int j = i + 1; j < r; ++j) m[k++] = qd[i] * qd[j];
  }
  // The two products: all the work.
  k3_packed_.noalias() = poly.cubic * q;
  quartic_panels_.multiply(m, padded_k4_.data());
  // One fused pass over the pairs: K = K2 + K3 + K4 into both triangles, and
  // gradient = (K2 + K3 / 2 + K4 / 3) q from the same packed entries.
  const double* k2 = poly.quadratic.data();
  const double* k3 = k3_packed_.data();
  const double* k4 = padded_k4_.data();
  double* g = gradient.data();
  double* H = hessian.data();
  for (int i = 0; i < r; ++i) g[i] = 0.0;
  for (int i = 0, k = 0; i < r; ++i) {
    const double qi = qd[i];
    double gi = 0.0;
    for (int j = i; j < r; ++j, ++k) {
      const double K = k2[k] + k3[k] + k4[k];
      const double e = k2[k] + 0.5 * k3[k] + (1.0 / 3.0) * k4[k];
      H[i * r + j] = K;
      H[j * r + i] = K;
      gi += e * qd[j];
      if (j != i) g[j] += e * qi;
    }
    g[i] += gi;
  }
}

double ReducedStvkForces::evaluate_energy(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                                          Eigen::MatrixXd& hessian) noexcept {
  evaluate(q, gradient, hessian);
  if (r_ == 0) return 0.0;
  // E = q^T (K2 / 2 + K3 / 6 + K4 / 12) q = sum_(ij) (K2 + K3 / 3 + K4 / 6)_(ij) m_(ij).
  const Eigen::Index p = k3_packed_.size();
  const auto m = padded_monomials_.head(p);
  return m.dot(polynomial_->quadratic) + m.dot(k3_packed_) * (1.0 / 3.0) +
         m.dot(padded_k4_.head(p)) / 6.0;
}

}  // namespace ramus
