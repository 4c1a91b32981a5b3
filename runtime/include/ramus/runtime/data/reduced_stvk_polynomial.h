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
// part, one matrix-matrix product).
#pragma once

#include <Eigen/Core>

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

}  // namespace ramus
