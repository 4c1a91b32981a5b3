#include "ramus/precompute/fem/stvk_energy.h"

#include <Eigen/Dense>

#include "ramus/error.h"

namespace ramus {

namespace {

Eigen::Matrix3d green_strain(const Eigen::Matrix3d& F) {
  return 0.5 * (F.transpose() * F - Eigen::Matrix3d::Identity());
}

}  // namespace

// vec(F)(i + 3 j) depends on corner a's coordinate i with weight G(a, j).
Eigen::Matrix<double, 9, 12> deformation_gradient_jacobian(const LinearTetRest& rest) {
  Eigen::Matrix<double, 9, 12> B = Eigen::Matrix<double, 9, 12>::Zero();
  for (int a = 0; a < 4; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) B(i + 3 * j, 3 * a + i) = rest.shape_gradients(a, j);
  return B;
}

double stvk_energy_density(const Eigen::Matrix3d& F, const LameParameters& lame) {
  const Eigen::Matrix3d E = green_strain(F);
  const double trace = E.trace();
  return lame.mu * E.squaredNorm() + 0.5 * lame.lambda * trace * trace;
}

Eigen::Matrix3d stvk_first_piola_kirchhoff(const Eigen::Matrix3d& F, const LameParameters& lame) {
  const Eigen::Matrix3d E = green_strain(F);
  const Eigen::Matrix3d S =
      2.0 * lame.mu * E + lame.lambda * E.trace() * Eigen::Matrix3d::Identity();
  return F * S;
}

Matrix9d stvk_first_piola_kirchhoff_derivative(const Eigen::Matrix3d& F,
                                               const LameParameters& lame) {
  const Eigen::Matrix3d E = green_strain(F);
  const Eigen::Matrix3d S =
      2.0 * lame.mu * E + lame.lambda * E.trace() * Eigen::Matrix3d::Identity();
  Matrix9d C;
  for (int j = 0; j < 3; ++j) {
    for (int i = 0; i < 3; ++i) {
      Eigen::Matrix3d dF = Eigen::Matrix3d::Zero();
      dF(i, j) = 1.0;
      const Eigen::Matrix3d dE = 0.5 * (dF.transpose() * F + F.transpose() * dF);
      const Eigen::Matrix3d dS =
          2.0 * lame.mu * dE + lame.lambda * dE.trace() * Eigen::Matrix3d::Identity();
      const Eigen::Matrix3d dP = dF * S + F * dS;
      C.col(i + 3 * j) = Eigen::Map<const Eigen::Matrix<double, 9, 1>>(dP.data());
    }
  }
  return C;
}

LinearTetRest linear_tet_rest(const Matrix34d& X) {
  Eigen::Matrix3d Dm;
  for (int c = 0; c < 3; ++c) Dm.col(c) = X.col(c + 1) - X.col(0);
  const double volume = Dm.determinant() / 6.0;
  if (!(volume > 0)) throw MeshError("linear_tet_rest: tet has non-positive rest volume");
  const Eigen::Matrix3d Dm_inverse = Dm.inverse();
  LinearTetRest rest;
  rest.volume = volume;
  rest.shape_gradients.bottomRows<3>() = Dm_inverse;
  rest.shape_gradients.row(0) = -Dm_inverse.colwise().sum();
  return rest;
}

Eigen::Matrix3d deformation_gradient(const Matrix34d& x, const LinearTetRest& rest) {
  return x * rest.shape_gradients;
}

double stvk_tet_energy(const Matrix34d& x, const LinearTetRest& rest, const LameParameters& lame) {
  return rest.volume * stvk_energy_density(deformation_gradient(x, rest), lame);
}

Vector12d stvk_tet_energy_gradient(const Matrix34d& x, const LinearTetRest& rest,
                                   const LameParameters& lame) {
  const Eigen::Matrix3d P = stvk_first_piola_kirchhoff(deformation_gradient(x, rest), lame);
  const Matrix34d gradient = rest.volume * P * rest.shape_gradients.transpose();
  return Eigen::Map<const Vector12d>(gradient.data());
}

Matrix12d stvk_tet_energy_hessian(const Matrix34d& x, const LinearTetRest& rest,
                                  const LameParameters& lame) {
  const Matrix9d C = stvk_first_piola_kirchhoff_derivative(deformation_gradient(x, rest), lame);
  const Eigen::Matrix<double, 9, 12> B = deformation_gradient_jacobian(rest);
  const Matrix12d H = rest.volume * B.transpose() * C * B;
  return 0.5 * (H + H.transpose());
}

Vector12d stvk_tet_energy_third_derivative(const Matrix34d& x, const LinearTetRest& rest,
                                           const LameParameters& lame, const Vector12d& dx1,
                                           const Vector12d& dx2) {
  // P = F S(E): differentiate twice along dF1, dF2 (S is linear in E, E quadratic in F).
  const Eigen::Matrix<double, 4, 3>& G = rest.shape_gradients;
  const Eigen::Matrix3d F = x * G;
  const Eigen::Matrix3d dF1 = Eigen::Map<const Matrix34d>(dx1.data()) * G;
  const Eigen::Matrix3d dF2 = Eigen::Map<const Matrix34d>(dx2.data()) * G;
  const Eigen::Matrix3d I = Eigen::Matrix3d::Identity();
  auto stress = [&](const Eigen::Matrix3d& E) {
    return (2.0 * lame.mu * E + lame.lambda * E.trace() * I).eval();
  };
  const Eigen::Matrix3d dS1 = stress(0.5 * (dF1.transpose() * F + F.transpose() * dF1));
  const Eigen::Matrix3d dS2 = stress(0.5 * (dF2.transpose() * F + F.transpose() * dF2));
  const Eigen::Matrix3d d2S = stress(0.5 * (dF1.transpose() * dF2 + dF2.transpose() * dF1));
  const Eigen::Matrix3d d2P = dF1 * dS2 + dF2 * dS1 + F * d2S;
  const Matrix34d result = rest.volume * d2P * G.transpose();
  return Eigen::Map<const Vector12d>(result.data());
}

Matrix12d project_to_positive_semidefinite(const Matrix12d& H) {
  Eigen::SelfAdjointEigenSolver<Matrix12d> eig(H);
  const Vector12d clamped = eig.eigenvalues().cwiseMax(0.0);
  return eig.eigenvectors() * clamped.asDiagonal() * eig.eigenvectors().transpose();
}

}  // namespace ramus
