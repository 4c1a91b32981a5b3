// The integrators' scratch (runtime internals): the buffers one domain's integrator needs for r
// reduced coordinates, sized once when a Workspace is made and reused by every domain of one part
// in turn. Each integrator family owns its group; the implicit stage's buffers are shared by every
// family that takes an implicit stage (integrators/domain_equation.h).
#pragma once

#include <Eigen/Core>
#include <Eigen/Dense>

#include "../kernels/symmetric_eigen.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// Dense matrices of at most kMaxSplitModes rows and columns, stored inline (the
/// split integrators' Ritz problems: no allocation for any s).
using SplitMatrix =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, kMaxSplitModes, kMaxSplitModes>;

/// The exponential and split integrators' own buffers (ERE, SIERE, SBDF2ERE, STR-SBDF2ERE).
struct ExponentialScratch {
  ExponentialScratch() = default;
  explicit ExponentialScratch(int r);
  /// Generalized eigen-decomposition K X = M' X Λ of all r modes (ERE, the split integrators'
  /// refresh): M' = L Lᵀ, the r by r L⁻¹ K L⁻ᵀ and its eigen-solver.
  Eigen::MatrixXd mass_factor, eigen_matrix;
  Eigen::VectorXd eigenvalues;  ///< r
  SymmetricEigenSolver eigen;
  /// r by min(r, kMaxSplitModes): K X, M' X and the Ritz-updated X of the split integrators.
  Eigen::MatrixXd split_stiffness, split_mass, split_basis;
  SplitMatrix ritz_stiffness, ritz_mass, ritz_vectors;  ///< s by s: Zᵀ K Z, Zᵀ M' Z, eigenvectors
  Eigen::Matrix<double, Eigen::Dynamic, 1, 0, kMaxSplitModes, 1> ritz_values;  ///< s
  Eigen::VectorXd modal_q, modal_v;  ///< r: modal increments (the first s or r entries)
};

/// The energy-tracking midpoint's own buffer (im-blend).
struct MidpointScratch {
  MidpointScratch() = default;
  explicit MidpointScratch(int r) : rigid_basis(Eigen::Matrix3Xd::Zero(3, r)) {}
  Eigen::Matrix3Xd rigid_basis;  ///< 3 by r: momentum-preserving damping (W2 - Σ q C)
};

/// Buffers of one domain's integration with r coordinates: the internal forces, the symmetric
/// solves and the implicit stage every family uses, and each family's own group.
struct IntegratorScratch {
  IntegratorScratch() = default;
  explicit IntegratorScratch(int r);
  ReducedStvkScratch polynomial;
  Eigen::VectorXd gradient;                              ///< r: s g(q)
  Eigen::VectorXd residual, delta, scratch;              ///< r: Newton
  Eigen::VectorXd q_trial, q_predicted, qdot_predicted;  ///< r: the integrator's unknowns
  Eigen::MatrixXd stiffness;                             ///< r by r: s K(q)
  Eigen::MatrixXd jacobian, factor;   ///< r by r: Newton matrix and its Cholesky factor
  Eigen::LDLT<Eigen::MatrixXd> ldlt;  ///< fallback for an indefinite Newton matrix
  /// r each: stages of the implicit and exponential integrators (integrators/domain_equation.h).
  Eigen::VectorXd force, q_hat, p_hat, q_stage, v_stage, q_start, v_start, q_blend, v_blend;
  Eigen::VectorXd scaled_q;  ///< q̃ = s^-5/2 q of a scaled domain (integrate_domain.cpp)
  Eigen::MatrixXd damping;   ///< r by r: β K at a stage's start (damping lagged over the stage)
  /// A semi-implicit stage in contact: q_lin, g and K there (r, r, r by r; implicit_stage.cpp).
  Eigen::VectorXd q_linearization, gradient_linearization;
  Eigen::MatrixXd stiffness_linearization;
  ExponentialScratch exponential;
  MidpointScratch midpoint;
};

}  // namespace ramus
