// Frame kinematics of the domain tree (substructuring paper, Eq. 1-12; runtime internals): a
// child's frame relative to its parent from the parent's reduced state, and its world frame.
#pragma once

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// Eq. 1-2 and their derivatives for `child` from its parent's q, q̇, q̈: y = (â q, vec(Σ_l A^l
/// q_l)) (12: the centroid's displacement, then the linear map's change column by column), ẏ, ÿ.
void interface_motion(const Model& model, const State& state, int child,
                      Eigen::Matrix<double, 12, 1>& y, Eigen::Matrix<double, 12, 1>& y_dot,
                      Eigen::Matrix<double, 12, 1>& y_ddot) noexcept;

/// x_ij, v_ij, a_ij, R_ij, S_ij, ω_ij, ω̇_ij (Eq. 1-2, 5-9) of `child` from its parent's q, q̇,
/// q̈, into state.relative_*; with `need_partial_alpha` also ω̇_ij without its q̈ term (L2, L3).
void compute_relative_kinematics(const Model& model, State& state, int child,
                                 bool need_partial_alpha) noexcept;

/// World frame of non-root `domain` (rotation, origin, and velocities and accelerations in its own
/// axes, Eq. 10-12) from its parent's frame and its relative kinematics.
void update_child_frame(const Model& model, State& state, int domain) noexcept;

/// Columns l of dω_ij/dq̇_i (3 by r_i, Eq. 7 with Ṙ from A^l) for `child`, from the stored R_ij
/// and S_ij: G⁻¹ 2 skew(R_ijᵀ A^l_ij), G = (tr(S) I - S) R_ijᵀ.
void relative_rotation_jacobian(const Model& model, const State& state, int child,
                                Eigen::MatrixXd& jacobian) noexcept;

}  // namespace ramus
