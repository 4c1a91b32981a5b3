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

#include "ramus/runtime/symmetric_panel_matrix.h"

namespace ramus {

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

/// Evaluates E, g and K of a ReducedStvkPolynomial. All scratch memory is allocated by the
/// constructor: evaluate() allocates nothing (given outputs of the right size) and never throws.
class ReducedStvkForces {
 public:
  ReducedStvkForces() = default;
  /// Keeps a pointer to `polynomial`, which must outlive this object. Throws OptionError when the
  /// coefficient shapes disagree with polynomial.r (quadratic p, cubic p by r, quartic p by p).
  explicit ReducedStvkForces(const ReducedStvkPolynomial& polynomial);

  int r() const { return r_; }
  /// Gradient g(q) (r) and Hessian K(q) (r by r, symmetric) at q (r). Outputs of another size are
  /// resized (allocates); size them once and every later call is allocation-free.
  void evaluate(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                Eigen::MatrixXd& hessian) noexcept;
  /// Energy E(q), gradient (r) and Hessian (r by r), as evaluate().
  double evaluate_energy(const Eigen::VectorXd& q, Eigen::VectorXd& gradient,
                         Eigen::MatrixXd& hessian) noexcept;

 private:
  const ReducedStvkPolynomial* polynomial_ = nullptr;
  int r_ = 0;
  // Packed (p) scratch: pair monomials m, K3 = cubic q, K4 = quartic m, K = K2 + K3 + K4 and the
  // Euler combination K2 + K3 / 2 + K4 / 3 whose product with q is the gradient.
  SymmetricPanelMatrix quartic_panels_;           // quartic, packed for the single-instance product
  Eigen::VectorXd k3_packed_;                     // p
  Eigen::VectorXd padded_monomials_, padded_k4_;  // padded_size() long
};

}  // namespace ramus
