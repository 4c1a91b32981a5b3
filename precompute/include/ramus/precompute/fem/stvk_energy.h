// Saint Venant–Kirchhoff hyperelasticity on linear tetrahedra:
//   Psi(F) = mu tr(E^2) + lambda/2 tr(E)^2,  E = (F^T F - I) / 2,  P = F (2 mu E + lambda tr(E) I).
// Defined (and polynomial) for every F, including inverted elements.
#pragma once

#include <Eigen/Core>

#include "ramus/precompute/fem/material.h"

namespace ramus {

using Matrix34d = Eigen::Matrix<double, 3, 4>;
using Vector12d = Eigen::Matrix<double, 12, 1>;
using Matrix12d = Eigen::Matrix<double, 12, 12>;
using Matrix9d = Eigen::Matrix<double, 9, 9>;

/// Energy density Psi(F) in J/m^3.
double stvk_energy_density(const Eigen::Matrix3d& F, const LameParameters& lame);

/// First Piola–Kirchhoff stress P = dPsi/dF (3 by 3).
Eigen::Matrix3d stvk_first_piola_kirchhoff(const Eigen::Matrix3d& F, const LameParameters& lame);

/// dvec(P)/dvec(F) (9 by 9, column-major vec: index i + 3 j for entry (i, j)).
Matrix9d stvk_first_piola_kirchhoff_derivative(const Eigen::Matrix3d& F,
                                               const LameParameters& lame);

/// Rest data of one linear tet: shape-function gradients and rest volume.
struct LinearTetRest {
  Eigen::Matrix<double, 4, 3> shape_gradients;  ///< row a = dN_a/dX (4 by 3)
  double volume = 0;                            ///< rest volume (m^3), > 0
};

/// dF/dx of a linear tet (9 by 12): vec(F) (column-major) against its corners' coordinates.
Eigen::Matrix<double, 9, 12> deformation_gradient_jacobian(const LinearTetRest& rest);

/// Rest data from the rest corner positions X (3 by 4, columns = corners); needs volume > 0.
LinearTetRest linear_tet_rest(const Matrix34d& X);

/// Deformation gradient F = sum_a x_a dN_a/dX^T for deformed corners x (3 by 4).
Eigen::Matrix3d deformation_gradient(const Matrix34d& x, const LinearTetRest& rest);

/// Elastic energy V Psi(F) of one tet with deformed corners x (3 by 4).
double stvk_tet_energy(const Matrix34d& x, const LinearTetRest& rest, const LameParameters& lame);

/// Gradient of stvk_tet_energy w.r.t. the 12 corner coordinates (x0,y0,z0,x1,...); force = -grad.
Vector12d stvk_tet_energy_gradient(const Matrix34d& x, const LinearTetRest& rest,
                                   const LameParameters& lame);

/// Hessian of stvk_tet_energy (12 by 12, symmetric, indefinite under compression).
Matrix12d stvk_tet_energy_hessian(const Matrix34d& x, const LinearTetRest& rest,
                                  const LameParameters& lame);

/// Third derivative T of stvk_tet_energy contracted with two directions: sum_kl T_ikl dx1_k dx2_l
/// (12), i.e. d/dt1 d/dt2 of the gradient at x + t1 dx1 + t2 dx2, t = 0. Symmetric in dx1, dx2.
Vector12d stvk_tet_energy_third_derivative(const Matrix34d& x, const LinearTetRest& rest,
                                           const LameParameters& lame, const Vector12d& dx1,
                                           const Vector12d& dx2);

/// The symmetric positive semidefinite matrix nearest to H (negative eigenvalues clamped to 0).
Matrix12d project_to_positive_semidefinite(const Matrix12d& H);

}  // namespace ramus
