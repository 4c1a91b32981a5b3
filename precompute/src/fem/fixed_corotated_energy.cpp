#include "ramus/precompute/fem/fixed_corotated_energy.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace ramus {

namespace {

// F = U diag(s) Vᵀ with U, V rotations (an inverted F gets a negative last s).
struct RotationSvd {
  Eigen::Matrix3d U, V;
  Eigen::Vector3d s;
};

RotationSvd rotation_variant_svd(const Eigen::Matrix3d& F) {
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(F, Eigen::ComputeFullU | Eigen::ComputeFullV);
  RotationSvd r{svd.matrixU(), svd.matrixV(), svd.singularValues()};
  if (r.U.determinant() < 0) {
    r.U.col(2) *= -1;
    r.s(2) *= -1;
  }
  if (r.V.determinant() < 0) {
    r.V.col(2) *= -1;
    r.s(2) *= -1;
  }
  return r;
}

// cof(F) = J F⁻ᵀ by columns: [f1 x f2, f2 x f0, f0 x f1]; defined for singular F too.
Eigen::Matrix3d cofactor(const Eigen::Matrix3d& F) {
  Eigen::Matrix3d c;
  c.col(0) = F.col(1).cross(F.col(2));
  c.col(1) = F.col(2).cross(F.col(0));
  c.col(2) = F.col(0).cross(F.col(1));
  return c;
}

// d cof(F)[dF].
Eigen::Matrix3d cofactor_derivative(const Eigen::Matrix3d& F, const Eigen::Matrix3d& dF) {
  Eigen::Matrix3d c;
  c.col(0) = dF.col(1).cross(F.col(2)) + F.col(1).cross(dF.col(2));
  c.col(1) = dF.col(2).cross(F.col(0)) + F.col(2).cross(dF.col(0));
  c.col(2) = dF.col(0).cross(F.col(1)) + F.col(0).cross(dF.col(1));
  return c;
}

}  // namespace

double fixed_corotated_energy_density(const Eigen::Matrix3d& F, const LameParameters& lame) {
  const RotationSvd r = rotation_variant_svd(F);
  const double J = F.determinant();
  return lame.mu * (r.s - Eigen::Vector3d::Ones()).squaredNorm() +
         0.5 * lame.lambda * (J - 1) * (J - 1);
}

Eigen::Matrix3d fixed_corotated_first_piola_kirchhoff(const Eigen::Matrix3d& F,
                                                      const LameParameters& lame) {
  const RotationSvd r = rotation_variant_svd(F);
  const Eigen::Matrix3d R = r.U * r.V.transpose();
  return 2 * lame.mu * (F - R) + lame.lambda * (F.determinant() - 1) * cofactor(F);
}

Matrix9d fixed_corotated_first_piola_kirchhoff_derivative(const Eigen::Matrix3d& F,
                                                          const LameParameters& lame) {
  const RotationSvd r = rotation_variant_svd(F);
  const Eigen::Matrix3d cof = cofactor(F);
  const double J = F.determinant();
  const Eigen::Map<const Eigen::Matrix<double, 9, 1>> cof_vec(cof.data());
  Matrix9d C = lame.lambda * cof_vec * cof_vec.transpose();
  // The sums s_i + s_j vanish only where two singular values cancel (a degenerate inversion);
  // kept away from zero there.
  const auto pair_sum = [&](int i, int j) {
    const double sum = r.s(i) + r.s(j);
    return std::abs(sum) < 1e-12 ? std::copysign(1e-12, sum) : sum;
  };
  for (int column = 0; column < 9; ++column) {
    Eigen::Matrix3d dF = Eigen::Matrix3d::Zero();
    dF(column % 3, column / 3) = 1;
    // dR = U W Vᵀ, W skew with W_ij = (M_ij - M_ji) / (s_i + s_j), M = Uᵀ dF V.
    const Eigen::Matrix3d M = r.U.transpose() * dF * r.V;
    Eigen::Matrix3d W = Eigen::Matrix3d::Zero();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        if (i != j) W(i, j) = (M(i, j) - M(j, i)) / pair_sum(i, j);
    const Eigen::Matrix3d dP = 2 * lame.mu * (dF - r.U * W * r.V.transpose()) +
                               lame.lambda * (J - 1) * cofactor_derivative(F, dF);
    C.col(column) += Eigen::Map<const Eigen::Matrix<double, 9, 1>>(dP.data());
  }
  return 0.5 * (C + C.transpose());
}

}  // namespace ramus
