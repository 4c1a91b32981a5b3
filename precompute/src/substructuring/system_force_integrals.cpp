#include "ramus/precompute/substructuring/system_force_integrals.h"

#include <Eigen/SparseCore>
#include <string>

#include "ramus/error.h"

namespace ramus {

namespace {

// Component i (0, 1, 2) of every vertex of a flat 3#V by r matrix: #V by r, contiguous.
Eigen::MatrixXd component_rows(const Eigen::MatrixXd& flat, int i) {
  const Eigen::Index num_vertices = flat.rows() / 3;
  Eigen::MatrixXd rows(num_vertices, flat.cols());
  for (Eigen::Index l = 0; l < flat.cols(); ++l)
    for (Eigen::Index a = 0; a < num_vertices; ++a) rows(a, l) = flat(3 * a + i, l);
  return rows;
}

}  // namespace

// The consistent mass matrix of linear tets with per-tet density is M = M_s ⊗ I3 (M_s: the
// scalar #V by #V mass matrix), and ∫ρ f g dV = fᵀ M_s g for any two piecewise-linear scalar
// fields. Every W is built from such products between the components U_i (#V by r, component i
// of every vertex), (MU)_i = M_s U_i and the rest coordinates X_j (#V):
//   G_ij = U_iᵀ (MU)_j   (r by r): G_ij(l, p) = ∫ρ U_l,i U_p,j
//   H_ij = (MU)_iᵀ X_j   (r):      H_ij(l) = ∫ρ U_l,i X_j
// so that, with ε the Levi-Civita symbol,
//   W1(i, l) = -Σ_a (MU)_i(a, l)          W2(i, l) = ε_ijk H_kj(l)
//   W3(l) = Σ_j H_jj(l)                   W4 = Σ_i G_ii = Uᵀ M U
//   W5(i, 3l + j) = H_ij(l)               W6(p, 3l + i) = ε_ijk G_kj(l, p)
//   W7(3l + i, 3p + j) = G_ij(l, p).
// W6: the row p of W6_l is ∫ρ U_pᵀ Ũ_l, and U_pᵀ (U_l × ω) = (U_p × U_l)·ω; component i of
// U_p × U_l is ε_ijk U_p,j U_l,k, whose integral is ε_ijk G_kj(l, p).
SystemForceIntegrals compute_system_force_integrals(
    const StvkFemModel& model, const Eigen::MatrixXd& basis,
    const Eigen::MatrixX3d& rest_positions_in_frame) {
  const int num_vertices = model.num_vertices();
  if (basis.rows() != 3 * static_cast<Eigen::Index>(num_vertices))
    throw OptionError("compute_system_force_integrals: the basis has " +
                      std::to_string(basis.rows()) + " rows, the model " +
                      std::to_string(num_vertices) + " vertices (" +
                      std::to_string(3 * static_cast<long>(num_vertices)) + " DOFs)");
  if (rest_positions_in_frame.rows() != num_vertices)
    throw OptionError(
        "compute_system_force_integrals: " + std::to_string(rest_positions_in_frame.rows()) +
        " rest positions for a model of " + std::to_string(num_vertices) + " vertices");
  const Eigen::Index r = basis.cols();

  const Eigen::SparseMatrix<double> mass = model.consistent_mass_matrix();
  const Eigen::MatrixXd mass_basis = mass * basis;  // MU, 3#V by r
  Eigen::MatrixXd u[3], mu[3];
  for (int i = 0; i < 3; ++i) {
    u[i] = component_rows(basis, i);
    mu[i] = component_rows(mass_basis, i);
  }
  Eigen::MatrixXd g[3][3];  // g[i][j] = G_ij
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) g[i][j].noalias() = u[i].transpose() * mu[j];
  Eigen::VectorXd h[3][3];  // h[i][j] = H_ij
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      h[i][j].noalias() = mu[i].transpose() * rest_positions_in_frame.col(j);

  SystemForceIntegrals w;
  w.w1.resize(3, r);
  w.w2.resize(3, r);
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;  // ε_ijk = +1, ε_ikj = -1
    w.w1.row(i) = -mu[i].colwise().sum();
    w.w2.row(i) = (h[k][j] - h[j][k]).transpose();
  }
  w.w3 = h[0][0] + h[1][1] + h[2][2];
  w.w4 = g[0][0] + g[1][1] + g[2][2];
  w.w4 = (0.5 * (w.w4 + w.w4.transpose())).eval();  // symmetric up to rounding: make it exact

  w.w5.resize(3, 3 * r);
  w.w6.resize(r, 3 * r);
  w.w7.resize(3 * r, 3 * r);
  for (Eigen::Index l = 0; l < r; ++l)
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3, k = (i + 2) % 3;
      w.w6.col(3 * l + i) = (g[k][j].row(l) - g[j][k].row(l)).transpose();
      for (int c = 0; c < 3; ++c) {
        w.w5(i, 3 * l + c) = h[i][c](l);
        for (Eigen::Index p = 0; p < r; ++p) w.w7(3 * l + i, 3 * p + c) = g[i][c](l, p);
      }
    }
  // W7 is symmetric (W7_pl = W7_lpᵀ) up to rounding: make it exact.
  w.w7 = (0.5 * (w.w7 + w.w7.transpose())).eval();
  return w;
}

}  // namespace ramus
