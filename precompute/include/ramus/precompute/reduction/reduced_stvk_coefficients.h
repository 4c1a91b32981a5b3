// Precomputation of the exact reduced StVK polynomial (ramus/runtime/reduced_stvk_polynomial.h)
// of a full-space model in a reduction basis U: E(q) = Phi(X + U q) for every q.
#pragma once

#include <Eigen/Core>

#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"

namespace ramus {

/// Coefficients of E(q) = elastic energy of `model` at X + U q, for any basis U (3#V by r; not
/// necessarily orthonormal; fixed DOFs are zero rows). O(#T r^4) work split over `num_threads`
/// threads (0: hardware concurrency). Throws OptionError for a wrong row count, r == 0 or a
/// non-finite basis entry.
ReducedStvkPolynomial compute_reduced_stvk_polynomial(const StvkFemModel& model,
                                                      const Eigen::MatrixXd& basis,
                                                      int num_threads = 0);

}  // namespace ramus
