// Linear modes, modal derivatives (Barbič & James 2005) and the mass-PCA reduction basis of a
// full-space StVK model with some vertices fixed (or none: a free body, whose 6 rigid modes are
// recognized, excluded and reported).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>

#include "ramus/precompute/fem/dof_map.h"
#include "ramus/precompute/fem/stvk_fem_model.h"

namespace ramus {

/// The r1 lowest elastic modes of K phi = lambda M phi over the free DOFs.
struct LinearModes {
  Eigen::VectorXd eigenvalues;  ///< r1, ascending, lambda = omega^2 (rad^2/s^2)
  Eigen::MatrixXd modes;        ///< 3#V by r1 (zero at fixed DOFs), mass-normalized
  int num_rigid_modes = 0;      ///< near-zero modes found and excluded (6 for a free body)
  Eigen::MatrixXd rigid_modes;  ///< 3#V by num_rigid_modes, mass-orthonormal (free body only)
};

/// The rest stiffness K and consistent mass M over the free DOFs (num_free_dofs square),
/// assembled once and shared by the stages below; K is factored (CHOLMOD) at most once, on first
/// use, and serves both the linear modes and the modal derivatives of an anchored body.
class FreeSystem {
 public:
  FreeSystem(const StvkFemModel& model, const DofMap& dofs);
  ~FreeSystem();
  FreeSystem(const FreeSystem&) = delete;
  FreeSystem& operator=(const FreeSystem&) = delete;
  const Eigen::SparseMatrix<double>& stiffness() const;  ///< K
  const Eigen::SparseMatrix<double>& mass() const;       ///< M

 private:
  friend struct FreeSystemAccess;  // the stages, in modal_analysis.cpp
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Shift-invert Lanczos (Spectra) with a CHOLMOD factorization of K - sigma M at the rest state:
/// sigma = 0 for an anchored body whose K is positive definite, else (a free body, or a piece no
/// anchor holds) sigma = -1e-6 max_i K_ii / M_ii. With no fixed vertices the 6 rigid modes are
/// found and excluded: an eigenvalue is rigid when below 1e-6 times the first one above 1e-10 max_i
/// K_ii / M_ii. Throws OptionError when num_modes is not in [1, free DOFs - rigid modes),
/// NumericalError when the solver fails, when a free body does not have exactly 6 rigid modes (e.g.
/// several disconnected pieces) or when a body with fixed vertices has a near-zero mode (a piece
/// that no fixed vertex holds).
LinearModes compute_linear_modes(const StvkFemModel& model, const DofMap& dofs, int num_modes);
/// The same with K, M and the factor of K from `system` (the modal derivatives then reuse it).
LinearModes compute_linear_modes(const StvkFemModel& model, const DofMap& dofs, int num_modes,
                                 FreeSystem& system);

/// Modal derivatives Psi_ij = -K^-1 (d^2 f_el/du^2 [phi_i, phi_j]) for i <= j (3#V by
/// r1 (r1 + 1) / 2 columns, in pair_index order), zero at fixed DOFs; rigid motion is projected
/// out (M-orthogonally) for a free body. One CHOLMOD factorization of K serves every right-hand
/// side; a free body's rigid loads are projected out and K + 1e-4 lambda_1 M is factored instead,
/// its error removed by iterative refinement. Throws OptionError when `modes` does not match the
/// model, NumericalError when the factorization fails.
Eigen::MatrixXd compute_modal_derivatives(const StvkFemModel& model, const DofMap& dofs,
                                          const LinearModes& modes);
/// The same with K, M and (anchored bodies) the factor of K from `system`.
Eigen::MatrixXd compute_modal_derivatives(const StvkFemModel& model, const DofMap& dofs,
                                          const LinearModes& modes, FreeSystem& system);

struct ReducedBasis {
  Eigen::MatrixXd basis;            ///< U: 3#V by r, Uᵀ M U = I to 1e-10
  Eigen::VectorXd eigenvalues;      ///< r: eigenvalues of Uᵀ K U, ascending (U is rotated so
                                    ///< that Uᵀ K U is diagonal)
  Eigen::VectorXd singular_values;  ///< r: 1 for the kept linear modes, then the mass-PCA
                                    ///< singular values of the derivative directions
};

/// The min(r, r1) lowest linear modes, kept exactly, plus (r > r1) the r - r1 leading mass-PCA
/// directions of the modal derivatives scaled by lambda_1^2 / (lambda_i lambda_j) and made
/// M-orthogonal to the modes; then rotated so that Uᵀ K U is diagonal (so its lowest r1
/// eigenvalues are the linear modes'). modal_derivatives is 3#V by r1 (r1 + 1) / 2, or has 0
/// columns for linear modes only. The free-body candidates are M-orthogonalized against the rigid
/// modes first. Mass-PCA is the SVD of L^T D (M = L L^T), so singular values down to 1e-10 of the
/// first scaled mode's M-norm are resolved; directions below that are dependent. Throws
/// OptionError when r < 1, r exceeds the number of independent candidates, or the inputs do not
/// match the model.
ReducedBasis compute_reduced_basis(const StvkFemModel& model, const DofMap& dofs,
                                   const LinearModes& modes,
                                   const Eigen::MatrixXd& modal_derivatives, int r);
/// The same with K and M from `system`.
ReducedBasis compute_reduced_basis(const StvkFemModel& model, const DofMap& dofs,
                                   const LinearModes& modes,
                                   const Eigen::MatrixXd& modal_derivatives, int r,
                                   FreeSystem& system);

}  // namespace ramus
