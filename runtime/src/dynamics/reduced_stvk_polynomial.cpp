#include "ramus/runtime/dynamics/reduced_stvk_polynomial.h"

#include <string>

#include "ramus/error.h"
#include "symmetric_panel_matrix.h"

namespace ramus {

namespace {

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + " by " + std::to_string(cols);
}

}  // namespace

ReducedStvkScratch::ReducedStvkScratch(int r) {
  const Eigen::Index p = num_pairs(r);
  const Eigen::Index padded = SymmetricPanelMatrix::padded_size_for(p);
  k3_packed.setZero(p);
  padded_monomials.setZero(padded);
  padded_k4.setZero(padded);
}

ReducedStvkForces::ReducedStvkForces(const ReducedStvkPolynomial& polynomial) : r_(polynomial.r) {
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
  quadratic_ = polynomial.quadratic;
  cubic_ = polynomial.cubic;
  quartic_panels_ = std::make_shared<const SymmetricPanelMatrix>(polynomial.quartic);
  scratch_ = ReducedStvkScratch(r_);
}

std::size_t ReducedStvkForces::coefficient_bytes() const {
  return sizeof(double) * static_cast<std::size_t>(quadratic_.size() + cubic_.size()) +
         (quartic_panels_ ? quartic_panels_->bytes() : 0);
}

void ReducedStvkForces::evaluate(const Eigen::Ref<const Eigen::VectorXd>& q,
                                 ReducedStvkScratch& scratch, Eigen::Ref<Eigen::VectorXd> gradient,
                                 Eigen::Ref<Eigen::MatrixXd> hessian) const noexcept {
  const int r = r_;
  if (r == 0) return;

  // Pair monomials m_(ij) = q_i q_j (i < j), q_i^2 / 2 (i == j), in packed order, written
  // straight into the padded input of the symmetric product.
  const double* qd = q.data();
  double* m = scratch.padded_monomials.data();
  for (int i = 0, k = 0; i < r; ++i) {
    m[k++] = 0.5 * qd[i] * qd[i];
    for (int j = i + 1; j < r; ++j) m[k++] = qd[i] * qd[j];
  }
  // The two products: all the work.
  scratch.k3_packed.noalias() = cubic_ * q;
  quartic_panels_->multiply(m, scratch.padded_k4.data());
  // One fused pass over the pairs: K = K2 + K3 + K4 into both triangles, and
  // gradient = (K2 + K3 / 2 + K4 / 3) q from the same packed entries.
  const double* k2 = quadratic_.data();
  const double* k3 = scratch.k3_packed.data();
  const double* k4 = scratch.padded_k4.data();
  double* g = gradient.data();
  double* H = hessian.data();
  const Eigen::Index ld = hessian.outerStride();
  for (int i = 0; i < r; ++i) g[i] = 0.0;
  for (int i = 0, k = 0; i < r; ++i) {
    const double qi = qd[i];
    double gi = 0.0;
    for (int j = i; j < r; ++j, ++k) {
      const double K = k2[k] + k3[k] + k4[k];
      const double e = k2[k] + 0.5 * k3[k] + (1.0 / 3.0) * k4[k];
      H[i * ld + j] = K;
      H[j * ld + i] = K;
      gi += e * qd[j];
      if (j != i) g[j] += e * qi;
    }
    g[i] += gi;
  }
}

double ReducedStvkForces::evaluate_energy(const Eigen::Ref<const Eigen::VectorXd>& q,
                                          ReducedStvkScratch& scratch,
                                          Eigen::Ref<Eigen::VectorXd> gradient,
                                          Eigen::Ref<Eigen::MatrixXd> hessian) const noexcept {
  evaluate(q, scratch, gradient, hessian);
  if (r_ == 0) return 0.0;
  // E = q^T (K2 / 2 + K3 / 6 + K4 / 12) q = sum_(ij) (K2 + K3 / 3 + K4 / 6)_(ij) m_(ij).
  const Eigen::Index p = scratch.k3_packed.size();
  const auto m = scratch.padded_monomials.head(p);
  return m.dot(quadratic_) + m.dot(scratch.k3_packed) * (1.0 / 3.0) +
         m.dot(scratch.padded_k4.head(p)) / 6.0;
}

void ReducedStvkForces::evaluate(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                                 Eigen::MatrixXd& hessian) noexcept {
  gradient.resize(r_);  // no-ops when the sizes are right
  hessian.resize(r_, r_);
  evaluate(q, scratch_, gradient, hessian);
}

double ReducedStvkForces::evaluate_energy(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                                          Eigen::MatrixXd& hessian) noexcept {
  gradient.resize(r_);
  hessian.resize(r_, r_);
  return evaluate_energy(q, scratch_, gradient, hessian);
}

}  // namespace ramus
