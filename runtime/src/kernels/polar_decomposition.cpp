#include "ramus/runtime/kernels/polar_decomposition.h"

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>

namespace ramus {

Eigen::Matrix3d skew_matrix(const Eigen::Vector3d& w) noexcept {
  Eigen::Matrix3d m;
  m << 0, -w.z(), w.y(),  //
      w.z(), 0, -w.x(),   //
      -w.y(), w.x(), 0;
  return m;
}

Eigen::Vector3d skew_vector(const Eigen::Matrix3d& M) noexcept {
  return 0.5 * Eigen::Vector3d(M(2, 1) - M(1, 2), M(0, 2) - M(2, 0), M(1, 0) - M(0, 1));
}

namespace {

// Higham's scaled Newton iteration X ← (γ X + X⁻ᵀ / γ) / 2, γ = |det X|^-1/3, for det(A) > 0:
// quadratic convergence to the rotation factor (a domain's A is near a rotation: 3 to 5
// iterations, some 10x faster than the SVD). Once det X is within 1e-3 of 1 the scaling no
// longer speeds it up (Higham's advice: drop it near convergence) and γ = 1 saves the cube
// root. False when it does not settle (the SVD decides).
bool newton_polar(const Eigen::Matrix3d& A, Eigen::Matrix3d& R) noexcept {
  Eigen::Matrix3d X = A;
  for (int iteration = 0; iteration < 20; ++iteration) {
    const double det = X.determinant();
    if (!(det > 0) || !std::isfinite(det)) return false;
    const double gamma = std::abs(det - 1.0) < 1e-3 ? 1.0 : 1.0 / std::cbrt(det);
    // X⁻ᵀ = cofactor(X) / det(X) (one division, nine products: as the lane step's iteration).
    Eigen::Matrix3d cofactor;
    cofactor.col(0) = X.col(1).cross(X.col(2));
    cofactor.col(1) = X.col(2).cross(X.col(0));
    cofactor.col(2) = X.col(0).cross(X.col(1));
    const double inverse_gamma_det = 1.0 / (gamma * det);
    const Eigen::Matrix3d next = 0.5 * (gamma * X + cofactor * inverse_gamma_det);
    const double change = (next - X).cwiseAbs().maxCoeff();
    X = next;
    // The step's size is the old iterate's error e; the new one's is about e²/2 (S ← (S + S⁻¹)/2
    // with S = I + E gives E²/2): below 1e-9 the new iterate is converged to round-off.
    if (change <= 1e-9) {
      R = X;
      return true;
    }
  }
  return false;
}

}  // namespace

PolarDecomposition polar_decomposition(const Eigen::Matrix3d& A) noexcept {
  PolarDecomposition result;
  if (newton_polar(A, result.R)) {
    // Rᵀ A is symmetric to round-off when R is the polar factor; an ill-conditioned A that
    // leaves more asymmetry goes to the SVD.
    const Eigen::Matrix3d S = result.R.transpose() * A;
    if ((S - S.transpose()).cwiseAbs().maxCoeff() <= 2e-15 * S.cwiseAbs().maxCoeff()) {
      result.S = 0.5 * (S + S.transpose());
      return result;
    }
  }
  // Square fixed-size input: no QR preconditioner needed, and nothing is heap-allocated.
  // The two-sided Jacobi SVD is accurate to machine precision and well-behaved with repeated
  // singular values: U and V are then not unique, but R = U Vᵀ is whenever A is nonsingular.
  const Eigen::JacobiSVD<Eigen::Matrix3d, Eigen::NoQRPreconditioner> svd(
      A, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::Matrix3d& U = svd.matrixU();
  const Eigen::Matrix3d& V = svd.matrixV();
  Eigen::Vector3d sigma = svd.singularValues();  // descending, so the last is the smallest
  // For det(A) < 0 flip the direction of the smallest singular value: R stays a proper rotation
  // and S picks up the negative eigenvalue -σ3 (the rotation closest to A over all rotations).
  const double d = (U * V.transpose()).determinant() < 0 ? -1.0 : 1.0;
  Eigen::Matrix3d U_signed = U;
  U_signed.col(2) *= d;
  sigma(2) *= d;
  result.R = U_signed * V.transpose();
  const Eigen::Matrix3d S = V * sigma.asDiagonal() * V.transpose();
  result.S = 0.5 * (S + S.transpose());
  return result;
}

// Derivation check (Appendix A), with B = R(t0)ᵀ A(t) = (R(t0)ᵀ R(t)) S(t): the derivative of
// R(t0)ᵀ R(t) at t0 is the body-frame rate Rᵀ Ṙ = w_b~, so Rᵀ Ȧ = w_b~ S + Ṡ. For symmetric S,
// w~ S + S w~ = ((tr(S) I - S) w)~, hence 2 skew(Rᵀ Ȧ) = (tr(S) I - S) w_b. The paper's unknown
// is the spatial omega = R w_b (so that Ṙ = R w_b~ = omega~ R, Eq. 8), which turns the system
// into G omega = 2 skew(Rᵀ Ȧ) with G = (tr(S) I - S) Rᵀ (Eq. 7). Differentiating Eq. 7 gives
// Ġ omega + G omega_dot = 2 skew(Ṙᵀ Ȧ + Rᵀ Ä); Ṙᵀ = -Rᵀ omega~ so Ṙᵀ omega = 0 and only the
// (tr(Ṡ) I - Ṡ) Rᵀ part of Ġ survives, which is Eq. 9. The equations are correct as printed
// (and the tests confirm them against finite differences of polar_decomposition).
PolarRotationDerivatives polar_rotation_derivatives(const PolarDecomposition& RS,
                                                    const Eigen::Matrix3d& A_dot,
                                                    const Eigen::Matrix3d& A_ddot) noexcept {
  const Eigen::Matrix3d& R = RS.R;
  const Eigen::Matrix3d& S = RS.S;
  const Eigen::Matrix3d I = Eigen::Matrix3d::Identity();
  const Eigen::Matrix3d Rt = R.transpose();
  // G⁻¹ = R (tr(S) I - S)⁻¹: the symmetric factor's eigenvalues are sums of two of S's, far
  // from 0 for a polar factor, so its cofactor inverse is accurate (and cheaper than an LU).
  const Eigen::Matrix3d G_inverse = R * (S.trace() * I - S).inverse();

  PolarRotationDerivatives d;
  d.omega = G_inverse * (2.0 * skew_vector(Rt * A_dot));
  const Eigen::Matrix3d omega_tilde = skew_matrix(d.omega);
  d.R_dot = omega_tilde * R;
  d.S_dot = Rt * (A_dot - d.R_dot * S);
  d.S_dot = 0.5 * (d.S_dot + d.S_dot.transpose()).eval();
  const Eigen::Vector3d rhs = 2.0 * skew_vector(Rt * (A_ddot - omega_tilde * A_dot)) -
                              (d.S_dot.trace() * I - d.S_dot) * (Rt * d.omega);
  d.omega_dot = G_inverse * rhs;
  d.R_ddot = skew_matrix(d.omega_dot) * R + omega_tilde * d.R_dot;
  return d;
}

}  // namespace ramus
