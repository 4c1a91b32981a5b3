// Evaluation of the reduced StVK polynomial (data/reduced_stvk_polynomial.h): E(q), g(q) and
// K(q) of one domain, or of many instances of one part at once, from coefficients packed once at
// load. Allocation-free and noexcept in the step.
#pragma once

#include <Eigen/Core>

#include <algorithm>
#include <cstddef>
#include <memory>

#include "ramus/runtime/data/reduced_stvk_polynomial.h"

namespace ramus {

class SymmetricPanelMatrix;  // the packed quartic (runtime internals)

/// Scratch of one evaluation for r coordinates: sized by the constructor, reused without
/// allocation.
struct ReducedStvkScratch {
  ReducedStvkScratch() = default;
  explicit ReducedStvkScratch(int r);
  Eigen::VectorXd k3_packed;         ///< p: cubic q
  Eigen::VectorXd padded_monomials;  ///< padded p: the pair monomials m
  Eigen::VectorXd padded_k4;         ///< padded p: quartic m
};

/// Scratch of a batched evaluation of up to `columns` instances at once (evaluate_batch).
struct ReducedStvkBatchScratch {
  ReducedStvkBatchScratch() = default;
  ReducedStvkBatchScratch(int r, int columns);
  Eigen::MatrixXd monomials;  ///< p by columns: the pair monomials m of each instance
  Eigen::MatrixXd k3, k4;     ///< p by columns: cubic q and quartic m
};

/// Doubles in each operand block of a batched product: Eigen packs blocks of this size on the
/// stack (its heap threshold is 128 KB), so evaluate_batch allocates nothing.
constexpr int kStvkBatchBlockDoubles = 12288;

/// Instances one batched product takes for r coordinates: kStvkBatchBlockDoubles / p, within
/// [8, 256].
inline int stvk_batch_columns(int r) {
  const int p = num_pairs(r);
  return p > 0 ? std::clamp(kStvkBatchBlockDoubles / p, 8, 256) : 8;
}

/// Evaluates E, g and K of a ReducedStvkPolynomial. The constructor copies the quadratic and
/// cubic coefficients and packs the quartic once (shared, immutable: copies of this object share
/// it). The overloads taking a ReducedStvkScratch are const, allocate nothing and never throw;
/// the convenience overloads use a scratch of this object's own.
class ReducedStvkForces {
 public:
  ReducedStvkForces() = default;
  /// Throws OptionError when the coefficient shapes disagree with polynomial.r (quadratic p,
  /// cubic p by r, quartic p by p).
  /// `batched`: also keep the full p by p quartic for evaluate_batch (twice the packed
  /// quartic's memory).
  explicit ReducedStvkForces(const ReducedStvkPolynomial& polynomial, bool batched = false);

  int r() const { return r_; }
  /// Bytes of the packed coefficients (quadratic, cubic, packed quartic).
  std::size_t coefficient_bytes() const;

  /// Gradient g(q) (r) and Hessian K(q) (r by r, symmetric) at q (r); outputs must have size r.
  void evaluate(const Eigen::Ref<const Eigen::VectorXd>& q, ReducedStvkScratch& scratch,
                Eigen::Ref<Eigen::VectorXd> gradient,
                Eigen::Ref<Eigen::MatrixXd> hessian) const noexcept;
  /// Energy E(q), with gradient and Hessian as evaluate().
  double evaluate_energy(const Eigen::Ref<const Eigen::VectorXd>& q, ReducedStvkScratch& scratch,
                         Eigen::Ref<Eigen::VectorXd> gradient,
                         Eigen::Ref<Eigen::MatrixXd> hessian) const noexcept;

  /// The quartic term alone, K4(q) = Q m(q) (packed, pair order), into the first p entries of
  /// scratch.padded_k4: the product evaluate() computes, to the bit.
  void quartic_product(const Eigen::Ref<const Eigen::VectorXd>& q,
                       ReducedStvkScratch& scratch) const noexcept;

  /// Whether evaluate_batch may be called (constructed `batched`, r > 0).
  bool batched() const { return quartic_full_ != nullptr; }
  /// The coefficients: K2 packed (p), the cubic term's p by r, and (batched only) the quartic's
  /// full p by p, both triangles: K = K2 + C q + Q m in pair order (m the pair monomials).
  const Eigen::VectorXd& quadratic() const { return quadratic_; }
  const Eigen::MatrixXd& cubic() const { return cubic_; }
  const Eigen::MatrixXd* quartic_full() const { return quartic_full_.get(); }
  /// g, K and E of n instances at once, n = q.cols() ≤ the scratch's columns: q (r by n) their
  /// coordinates side by side; gradients (r by n), stiffness_packed (p by n: each K's upper
  /// triangle in pair order, unpack_stiffness), energies (n). K3 and K4 of all n are two
  /// matrix-matrix products. Equals evaluate() per column up to rounding (1e-15 relative).
  void evaluate_batch(const Eigen::Ref<const Eigen::MatrixXd>& q, ReducedStvkBatchScratch& scratch,
                      Eigen::Ref<Eigen::MatrixXd> gradients,
                      Eigen::Ref<Eigen::MatrixXd> stiffness_packed,
                      Eigen::Ref<Eigen::VectorXd> energies) const noexcept;
  /// The symmetric r by r K from its packed upper triangle (p, pair order).
  static void unpack_stiffness(const double* packed, int r,
                               Eigen::Ref<Eigen::MatrixXd> hessian) noexcept;

  /// As above with this object's scratch; outputs of another size are resized (allocates).
  void evaluate(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                Eigen::MatrixXd& hessian) noexcept;
  double evaluate_energy(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                         Eigen::MatrixXd& hessian) noexcept;

 private:
  int r_ = 0;
  Eigen::VectorXd quadratic_;                                   // p
  Eigen::MatrixXd cubic_;                                       // p by r
  std::shared_ptr<const SymmetricPanelMatrix> quartic_panels_;  // p by p, packed lower triangle
  std::shared_ptr<const Eigen::MatrixXd> quartic_full_;         // p by p (batched only)
  ReducedStvkScratch scratch_;
};

}  // namespace ramus
