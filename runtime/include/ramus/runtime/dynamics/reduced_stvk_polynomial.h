// Exact reduced StVK elasticity as a polynomial in the reduced coordinates q (r):
//   E(q) = Uᵀ-projected elastic energy Phi(X + U q), a quartic polynomial with no constant or
//   linear term; its gradient g(q) = Uᵀ f_el(X + U q) (f_el = dPhi/dx, the negative internal
//   force) is cubic and its Hessian K(q) = dg/dq quadratic.
// Storage is "Hessian first": with p = r (r + 1) / 2 index pairs (i <= j, see pair_index),
//   K(q)_(ij) = quadratic_(ij) + sum_a cubic((ij), a) q_a + sum_(ab) quartic((ij), (ab)) m_(ab),
//   m_(ab) = q_a q_b (a < b) or q_a^2 / 2 (a == b),
// where quartic is the symmetric p by p matrix of the fully symmetric 4th-derivative tensor,
// and, by Euler's theorem for homogeneous polynomials,
//   g(q) = (K2 + K3(q) / 2 + K4(q) / 3) q,   E(q) = q ᵀ (K2 / 2 + K3(q) / 6 + K4(q) / 12) q.
// Evaluating K costs one p by p symmetric matrix-vector product (or, for many instances of one
// prototype, one matrix-matrix product).
#pragma once

#include <Eigen/Core>

#include <cstddef>
#include <memory>

namespace ramus {

class SymmetricPanelMatrix;  // the packed quartic (runtime internals)

/// Index of pair (i, j), i <= j < r, in the packed order (0,0), (0,1), ..., (0,r-1), (1,1), ...
inline int pair_index(int i, int j, int r) {
  return i * r - i * (i - 1) / 2 + (j - i);
}

/// Number of index pairs p = r (r + 1) / 2.
inline int num_pairs(int r) {
  return r * (r + 1) / 2;
}

/// Coefficients of the reduced StVK polynomial of one domain (see the file comment).
struct ReducedStvkPolynomial {
  int r = 0;                  ///< number of reduced coordinates
  Eigen::VectorXd quadratic;  ///< p: K2 = Uᵀ K(X) U, packed upper triangle
  Eigen::MatrixXd cubic;      ///< p by r: K3(q)_(ij) = sum_a cubic((ij), a) q_a
  /// p by p, symmetric: K4(q)_(ij) = sum_(ab) quartic((ij),(ab)) m_(ab). Both triangles are
  /// stored; ReducedStvkForces reads only the lower one.
  Eigen::MatrixXd quartic;
};

/// Scratch of one evaluation for r coordinates: sized by the constructor, reused without
/// allocation.
struct ReducedStvkScratch {
  ReducedStvkScratch() = default;
  explicit ReducedStvkScratch(int r);
  Eigen::VectorXd k3_packed;         ///< p: cubic q
  Eigen::VectorXd padded_monomials;  ///< padded p: the pair monomials m
  Eigen::VectorXd padded_k4;         ///< padded p: quartic m
};

/// Evaluates E, g and K of a ReducedStvkPolynomial. The constructor copies the quadratic and
/// cubic coefficients and packs the quartic once (shared, immutable: copies of this object share
/// it). The overloads taking a ReducedStvkScratch are const, allocate nothing and never throw;
/// the convenience overloads use a scratch of this object's own.
class ReducedStvkForces {
 public:
  ReducedStvkForces() = default;
  /// Throws OptionError when the coefficient shapes disagree with polynomial.r (quadratic p,
  /// cubic p by r, quartic p by p).
  explicit ReducedStvkForces(const ReducedStvkPolynomial& polynomial);

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
  ReducedStvkScratch scratch_;
};

}  // namespace ramus
