// The fixed corotated material (Stomakhin et al. 2012, the one the optimization paper's §3.3
// names as free of energy valleys): psi(F) = mu |F - R|² + lambda/2 (J - 1)², R the rotation of
// F's polar decomposition, J = det F. Unlike StVK it has no minimum at inversion: an inverted
// element is pushed back. Used by the full-space reference only (a reduced model needs StVK's
// cubic polynomial).
#pragma once

#include <Eigen/Core>

#include "ramus/precompute/fem/material.h"
#include "ramus/precompute/fem/stvk_energy.h"

namespace ramus {

/// psi(F) in J/m³.
double fixed_corotated_energy_density(const Eigen::Matrix3d& F, const LameParameters& lame);
/// P = d psi / dF = 2 mu (F - R) + lambda (J - 1) cof(F), in Pa.
Eigen::Matrix3d fixed_corotated_first_piola_kirchhoff(const Eigen::Matrix3d& F,
                                                      const LameParameters& lame);
/// dP/dF (9 by 9, column-major vec): 2 mu (I - dR/dF) + lambda vec(cof) vec(cof)ᵀ
/// + lambda (J - 1) d cof/dF, with dR/dF from the rotation-variant SVD (dR = U W Vᵀ,
/// W_ij = (M_ij - M_ji) / (s_i + s_j), M = Uᵀ dF V).
Matrix9d fixed_corotated_first_piola_kirchhoff_derivative(const Eigen::Matrix3d& F,
                                                          const LameParameters& lame);

}  // namespace ramus
