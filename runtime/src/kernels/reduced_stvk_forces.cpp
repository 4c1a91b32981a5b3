#include "ramus/runtime/kernels/reduced_stvk_forces.h"

#include <algorithm>
#include <string>

#include "ramus/error.h"
#include "symmetric_panel_matrix.h"

namespace ramus {

namespace {

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + " by " + std::to_string(cols);
}

// The pair monomials m_(ij) = q_i q_j (i < j), q_i^2 / 2 (i == j) of q (r), in packed order.
void pair_monomials(const double* q, int r, double* m) noexcept {
  for (int i = 0, k = 0; i < r; ++i) {
    m[k++] = 0.5 * q[i] * q[i];
    for (int j = i + 1; j < r; ++j) m[k++] = q[i] * q[j];
  }
}

// One fused pass over the pairs: K = K2 + K3 + K4 (its upper triangle by `store(i, j, k, K)`)
// and gradient = (K2 + K3 / 2 + K4 / 3) q from the same packed entries.
template <class Store>
void assemble_gradient_and_stiffness(const double* k2, const double* k3, const double* k4,
                                     const double* q, int r, double* g, Store store) noexcept {
  for (int i = 0; i < r; ++i) g[i] = 0.0;
  for (int i = 0, k = 0; i < r; ++i) {
    const double qi = q[i];
    double gi = 0.0;
    for (int j = i; j < r; ++j, ++k) {
      const double K = k2[k] + k3[k] + k4[k];
      const double e = k2[k] + 0.5 * k3[k] + (1.0 / 3.0) * k4[k];
      store(i, j, k, K);
      gi += e * q[j];
      if (j != i) g[j] += e * qi;
    }
    g[i] += gi;
  }
}

}  // namespace

ReducedStvkBatchScratch::ReducedStvkBatchScratch(int r, int columns) {
  const Eigen::Index p = num_pairs(r);
  monomials.setZero(p, columns);
  k3.setZero(p, columns);
  k4.setZero(p, columns);
}

ReducedStvkScratch::ReducedStvkScratch(int r) {
  const Eigen::Index p = num_pairs(r);
  const Eigen::Index padded = SymmetricPanelMatrix::padded_size_for(p);
  k3_packed.setZero(p);
  padded_monomials.setZero(padded);
  padded_k4.setZero(padded);
}

ReducedStvkForces::ReducedStvkForces(const ReducedStvkPolynomial& polynomial, bool batched)
    : r_(polynomial.r) {
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
  if (batched && r_ > 0) {
    // Both triangles from the lower one (the one the packed product reads).
    Eigen::MatrixXd full = polynomial.quartic.selfadjointView<Eigen::Lower>();
    quartic_full_ = std::make_shared<const Eigen::MatrixXd>(std::move(full));
  }
  scratch_ = ReducedStvkScratch(r_);
}

std::size_t ReducedStvkForces::coefficient_bytes() const {
  return sizeof(double) * static_cast<std::size_t>(quadratic_.size() + cubic_.size()) +
         (quartic_panels_ ? quartic_panels_->bytes() : 0) +
         (quartic_full_ ? sizeof(double) * static_cast<std::size_t>(quartic_full_->size()) : 0);
}

void ReducedStvkForces::evaluate(const Eigen::Ref<const Eigen::VectorXd>& q,
                                 ReducedStvkScratch& scratch, Eigen::Ref<Eigen::VectorXd> gradient,
                                 Eigen::Ref<Eigen::MatrixXd> hessian) const noexcept {
  const int r = r_;
  if (r == 0) return;

  // The pair monomials, written straight into the padded input of the symmetric product.
  const double* qd = q.data();
  pair_monomials(qd, r, scratch.padded_monomials.data());
  // The two products: all the work.
  scratch.k3_packed.noalias() = cubic_ * q;
  quartic_panels_->multiply(scratch.padded_monomials.data(), scratch.padded_k4.data());
  double* H = hessian.data();
  const Eigen::Index ld = hessian.outerStride();
  assemble_gradient_and_stiffness(quadratic_.data(), scratch.k3_packed.data(),
                                  scratch.padded_k4.data(), qd, r, gradient.data(),
                                  [H, ld](int i, int j, int, double K) {
                                    H[i * ld + j] = K;
                                    H[j * ld + i] = K;
                                  });
}

void ReducedStvkForces::quartic_product(const Eigen::Ref<const Eigen::VectorXd>& q,
                                        ReducedStvkScratch& scratch) const noexcept {
  if (r_ == 0) return;
  pair_monomials(q.data(), r_, scratch.padded_monomials.data());
  quartic_panels_->multiply(scratch.padded_monomials.data(), scratch.padded_k4.data());
}

void ReducedStvkForces::evaluate_batch(const Eigen::Ref<const Eigen::MatrixXd>& q,
                                       ReducedStvkBatchScratch& scratch,
                                       Eigen::Ref<Eigen::MatrixXd> gradients,
                                       Eigen::Ref<Eigen::MatrixXd> stiffness_packed,
                                       Eigen::Ref<Eigen::VectorXd> energies) const noexcept {
  const int r = r_;
  const Eigen::Index n = q.cols();
  if (r == 0 || n == 0 || !quartic_full_) return;
  const Eigen::Index p = quadratic_.size();
  auto monomials = scratch.monomials.leftCols(n);
  auto k3 = scratch.k3.leftCols(n);
  auto k4 = scratch.k4.leftCols(n);
  for (Eigen::Index c = 0; c < n; ++c) pair_monomials(q.col(c).data(), r, monomials.col(c).data());
  // K3 and K4 of every instance: two matrix-matrix products (row blocks keep Eigen's packing
  // buffers on the stack: no allocation).
  const Eigen::Index kRows = std::clamp<Eigen::Index>(kStvkBatchBlockDoubles / p, 8, 48);
  for (Eigen::Index i = 0; i < p; i += kRows) {
    const Eigen::Index rows = std::min(kRows, p - i);
    k3.middleRows(i, rows).noalias() = cubic_.middleRows(i, rows) * q;
    k4.middleRows(i, rows).noalias() = quartic_full_->middleRows(i, rows) * monomials;
  }
  // Per instance: g and packed K (the single evaluation's fused pass), and
  // E = Σ_(ij) (K2 + K3 / 3 + K4 / 6)_(ij) m_(ij).
  for (Eigen::Index c = 0; c < n; ++c) {
    double* packed = stiffness_packed.col(c).data();
    assemble_gradient_and_stiffness(quadratic_.data(), k3.col(c).data(), k4.col(c).data(),
                                    q.col(c).data(), r, gradients.col(c).data(),
                                    [packed](int, int, int k, double K) { packed[k] = K; });
    energies(c) = monomials.col(c).dot(quadratic_) + monomials.col(c).dot(k3.col(c)) * (1.0 / 3.0) +
                  monomials.col(c).dot(k4.col(c)) / 6.0;
  }
}

void ReducedStvkForces::unpack_stiffness(const double* packed, int r,
                                         Eigen::Ref<Eigen::MatrixXd> hessian) noexcept {
  double* H = hessian.data();
  const Eigen::Index ld = hessian.outerStride();
  for (int i = 0, k = 0; i < r; ++i)
    for (int j = i; j < r; ++j, ++k) {
      H[i * ld + j] = packed[k];
      H[j * ld + i] = packed[k];
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
