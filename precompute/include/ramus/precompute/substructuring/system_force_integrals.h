// The constant integrals W1..W7 of the reduced system forces (substructuring paper, Appendix B,
// Eq. 20-23) of one domain. With linear tets and per-tet density every integrand is a product of
// two linear fields, so each integral is exact through the consistent mass matrix:
// ∫ρ f g dV = fᵀ M g.
#pragma once

#include <Eigen/Core>

#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// W1..W7 for the basis U (3#V by r, r >= 0) of `model`, with rest positions X (#V by 3)
/// expressed in the domain's frame (model.rest_positions() minus the frame origin, rotated into
/// its axes). U's displacement vectors must be in the same axes as X (rotate a world-axes basis
/// vertex by vertex when the frame is rotated): W2, W5 and W6 mix the two. The mass comes from
/// model.consistent_mass_matrix() (per-tet density); W4 and W7 are symmetrized exactly. O(nnz(M) r
/// + #V r^2). Throws OptionError when the sizes do not match the model.
SystemForceIntegrals compute_system_force_integrals(
    const StvkFemModel& model, const Eigen::MatrixXd& basis,
    const Eigen::MatrixX3d& rest_positions_in_frame);

}  // namespace ramus
