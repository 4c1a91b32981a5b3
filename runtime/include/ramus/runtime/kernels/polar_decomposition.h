// Polar decomposition A = R S of a 3x3 matrix and the first and second time derivatives of its
// rotation (substructuring paper, Equations 5-9 and Appendix A). Fixed-size Eigen only: nothing
// here allocates or throws, so it can run inside the real-time step.
#pragma once

#include <Eigen/Core>

namespace ramus {

/// The skew-symmetric matrix w~ with w~ x = w × x.
Eigen::Matrix3d skew_matrix(const Eigen::Vector3d& w) noexcept;
/// The vector w with w~ = (M - Mᵀ) / 2 (inverse of skew_matrix on skew-symmetric M).
Eigen::Vector3d skew_vector(const Eigen::Matrix3d& M) noexcept;

/// A = R S with R a proper rotation (det R = +1) and S symmetric.
struct PolarDecomposition {
  Eigen::Matrix3d R, S;
};

/// Polar decomposition: for det(A) > 0 by Higham's scaled Newton iteration (to machine
/// precision, S = sym(Rᵀ A)); otherwise, or if it does not settle, by SVD (A = U Σ Vᵀ,
/// R = U diag(1, 1, d) Vᵀ, S = V diag(σ1, σ2, d σ3) Vᵀ, d = det(U Vᵀ)). det(A) > 0: S positive
/// definite; det(A) = 0: S positive semi-definite; det(A) < 0: S has one negative eigenvalue
/// (-σ_min), R is still a rotation and A = R S.
PolarDecomposition polar_decomposition(const Eigen::Matrix3d& A) noexcept;

/// Time derivatives of the polar decomposition of A(t); omega is the angular velocity in the
/// frame of A (Ṙ = omega~ R), omega_dot its derivative (R̈ = omega_dot~ R + omega~² R).
struct PolarRotationDerivatives {
  Eigen::Vector3d omega, omega_dot;
  Eigen::Matrix3d R_dot, R_ddot, S_dot;
};

/// Equations 7-9 from RS = polar_decomposition(A) and Ȧ, Ä. G = (tr(S) I - S) Rᵀ must be
/// invertible: true for det(A) > 0 (and rank 2); otherwise the results may be non-finite.
PolarRotationDerivatives polar_rotation_derivatives(const PolarDecomposition& RS,
                                                    const Eigen::Matrix3d& A_dot,
                                                    const Eigen::Matrix3d& A_ddot) noexcept;

}  // namespace ramus
