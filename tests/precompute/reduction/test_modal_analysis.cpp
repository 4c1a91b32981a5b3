// Linear modes, modal derivatives and the mass-PCA reduced basis (modal_analysis.h), checked
// against dense eigen solves, finite differences and Euler–Bernoulli beam theory; and the StVK
// third-derivative kernel they rest on.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/stvk_energy.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/reduction/modal_analysis.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"
#include "support/finite_differences.h"
#include "support/test_meshes.h"
#include "support/test_tets.h"

using namespace ramus;
using test::deformed_tet;
using test::reference_tet;
using test::relative_error;

namespace {

const Material kMaterial{1e6, 0.45, 1000};
const LameParameters kLame = lame_parameters(kMaterial);

// Vertices on the plane x == 0.
std::vector<int> vertices_at_x0(const TetMesh& mesh) {
  std::vector<int> fixed;
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (mesh.rest_positions(v, 0) == 0.0) fixed.push_back(v);
  return fixed;
}

StvkFemModel make_model(const TetMesh& mesh, const Material& material = kMaterial) {
  return StvkFemModel(mesh, assign_materials(mesh, material));
}

// Dense free-DOF block of a 3#V square matrix (built independently of TetMatrixAssembler's
// free-DOF pattern).
Eigen::MatrixXd free_block(const Eigen::SparseMatrix<double>& A, const DofMap& dofs) {
  const Eigen::MatrixXd dense(A);
  return dense(dofs.free_dofs(), dofs.free_dofs());
}

Eigen::MatrixXd free_rows(const Eigen::MatrixXd& A, const DofMap& dofs) {
  return A(dofs.free_dofs(), Eigen::all);
}

// Largest entry of A at fixed DOFs (must be exactly zero).
double max_at_fixed(const Eigen::MatrixXd& A, const DofMap& dofs) {
  double largest = 0;
  for (int dof = 0; dof < dofs.num_dofs(); ++dof)
    if (dofs.free_index(dof) < 0) largest = std::max(largest, A.row(dof).cwiseAbs().maxCoeff());
  return largest;
}

// -T[phi_i, phi_j] on the free DOFs, assembled here from the per-tet kernel.
Eigen::VectorXd kernel_rhs(const StvkFemModel& model, const DofMap& dofs, const Eigen::VectorXd& a,
                           const Eigen::VectorXd& b) {
  Eigen::VectorXd full = Eigen::VectorXd::Zero(dofs.num_dofs());
  const Eigen::VectorXd& X = model.rest_positions();
  for (int t = 0; t < model.num_tets(); ++t) {
    const Matrix34d da = model.tet_corners(a, t), db = model.tet_corners(b, t);
    const Vector12d f = stvk_tet_energy_third_derivative(
        model.tet_corners(X, t), model.rest_data()[static_cast<size_t>(t)],
        model.lame()[static_cast<size_t>(t)], Eigen::Map<const Vector12d>(da.data()),
        Eigen::Map<const Vector12d>(db.data()));
    for (int c = 0; c < 4; ++c) full.segment<3>(3 * model.mesh().tets(t, c)) -= f.segment<3>(3 * c);
  }
  return dofs.restrict_to_free(full);
}

// Two boxes with no shared vertex: 12 rigid modes.
TetMesh two_disconnected_boxes() {
  const TetMesh a = test::box_mesh(3, 2, 2, 0.3, 0.2, 0.2);
  TetMesh mesh = a;
  mesh.rest_positions.resize(2 * a.num_vertices(), 3);
  mesh.rest_positions << a.rest_positions, a.rest_positions.rowwise() + Eigen::RowVector3d(1, 0, 0);
  mesh.tets.resize(2 * a.num_tets(), 4);
  mesh.tets << a.tets, a.tets.array() + a.num_vertices();
  return mesh;
}

}  // namespace

TEST_CASE("StVK tet third derivative matches finite differences of the Hessian",
          "[precompute][reduction]") {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-0.01, 0.01);
  const LinearTetRest rest = linear_tet_rest(reference_tet());
  for (const std::string kind : {"random", "near-rest", "inverted"}) {
    SECTION(kind) {
      for (int trial = 0; trial < 4; ++trial) {
        const Matrix34d x = deformed_tet(kind, rng);
        Vector12d dx1, dx2;
        for (int k = 0; k < 12; ++k) dx1(k) = u(rng), dx2(k) = u(rng);
        const Vector12d T = stvk_tet_energy_third_derivative(x, rest, kLame, dx1, dx2);
        // The Hessian is quadratic in x, so its central difference is exact but for roundoff.
        const Matrix34d direction = Eigen::Map<const Matrix34d>(dx1.data());
        const Vector12d T_fd = test::finite_derivative(
            0.0,
            [&](double t) -> Eigen::VectorXd {
              return stvk_tet_energy_hessian(x + t * direction, rest, kLame) * dx2;
            },
            0.5);
        CHECK(relative_error(T, T_fd) < 1e-9);
        CHECK(relative_error(stvk_tet_energy_third_derivative(x, rest, kLame, dx2, dx1), T) <
              1e-13);
      }
    }
  }
}

TEST_CASE("Anchors that are one point or one line are refused before the eigensolve",
          "[precompute][reduction]") {
  const TetMesh mesh = test::box_mesh(6, 2, 2, 0.6, 0.2, 0.2);
  const StvkFemModel model = make_model(mesh);
  // The clamped face's vertices on the edge y = z = 0: collinear, the beam turns about them.
  std::vector<int> edge;
  for (int v : vertices_at_x0(mesh))
    if (mesh.rest_positions(v, 2) == 0) edge.push_back(v);
  REQUIRE(edge.size() >= 2);
  CHECK_THROWS_WITH(compute_linear_modes(model, DofMap(model.num_vertices(), edge), 4),
                    Catch::Contains("fixed vertices lie on one line") &&
                        Catch::Contains("fix at least 3 vertices not on one line"));
  CHECK_THROWS_WITH(compute_linear_modes(model, DofMap(model.num_vertices(), {edge[0]}), 4),
                    Catch::Contains("only 1 vertex is fixed"));
  // Three vertices not on one line hold it.
  const std::vector<int> face = vertices_at_x0(mesh);
  CHECK_NOTHROW(compute_linear_modes(model, DofMap(model.num_vertices(), face), 4));
}

TEST_CASE("Linear modes of a clamped beam match a dense generalized eigen solve",
          "[precompute][reduction]") {
  const TetMesh mesh = test::box_mesh(6, 2, 2, 0.6, 0.2, 0.2);
  const StvkFemModel model = make_model(mesh);
  const DofMap dofs(model.num_vertices(), vertices_at_x0(mesh));
  const int r1 = 10;
  const LinearModes modes = compute_linear_modes(model, dofs, r1);
  REQUIRE(modes.eigenvalues.size() == r1);
  REQUIRE(modes.modes.rows() == dofs.num_dofs());
  REQUIRE(modes.modes.cols() == r1);
  CHECK(modes.num_rigid_modes == 0);
  CHECK(modes.rigid_modes.cols() == 0);
  CHECK(max_at_fixed(modes.modes, dofs) == 0.0);

  const Eigen::MatrixXd K = free_block(model.stiffness_matrix(model.rest_positions()), dofs);
  const Eigen::MatrixXd M = free_block(model.consistent_mass_matrix(), dofs);
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> dense(K, M);
  for (int k = 0; k < r1; ++k)
    CHECK(std::abs(modes.eigenvalues(k) / dense.eigenvalues()(k) - 1) < 1e-8);

  const Eigen::MatrixXd phi = free_rows(modes.modes, dofs);
  CHECK((phi.transpose() * M * phi - Eigen::MatrixXd::Identity(r1, r1)).norm() < 1e-10);
  for (int k = 0; k < r1; ++k) {
    const Eigen::VectorXd Mphi = M * phi.col(k);
    CHECK((K * phi.col(k) - modes.eigenvalues(k) * Mphi).norm() <
          1e-8 * modes.eigenvalues(k) * Mphi.norm());
  }

  CHECK_THROWS_AS(compute_linear_modes(model, dofs, 0), OptionError);
  CHECK_THROWS_AS(compute_linear_modes(model, dofs, dofs.num_free_dofs()), OptionError);
}

TEST_CASE("A free body has exactly six rigid modes, reported apart from the elastic ones",
          "[precompute][reduction]") {
  const TetMesh mesh = test::box_mesh(4, 2, 2, 0.4, 0.2, 0.2);
  const StvkFemModel model = make_model(mesh);
  const DofMap dofs(model.num_vertices(), {});
  const int r1 = 8;
  const LinearModes modes = compute_linear_modes(model, dofs, r1);
  REQUIRE(modes.num_rigid_modes == 6);
  REQUIRE(modes.rigid_modes.rows() == dofs.num_dofs());
  REQUIRE(modes.rigid_modes.cols() == 6);

  const Eigen::MatrixXd K = Eigen::MatrixXd(model.stiffness_matrix(model.rest_positions()));
  const Eigen::MatrixXd M = Eigen::MatrixXd(model.consistent_mass_matrix());
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> dense(K, M);
  for (int k = 0; k < r1; ++k)
    CHECK(std::abs(modes.eigenvalues(k) / dense.eigenvalues()(6 + k) - 1) < 1e-8);

  const Eigen::MatrixXd& R = modes.rigid_modes;
  const Eigen::MatrixXd& phi = modes.modes;
  CHECK((R.transpose() * M * R - Eigen::MatrixXd::Identity(6, 6)).norm() < 1e-10);
  CHECK((R.transpose() * M * phi).norm() < 1e-10);
  CHECK((phi.transpose() * M * phi - Eigen::MatrixXd::Identity(r1, r1)).norm() < 1e-10);
  // The rigid modes span the translations and the infinitesimal rotations.
  const Eigen::MatrixX3d& X = mesh.rest_positions;
  Eigen::MatrixXd rigid(dofs.num_dofs(), 6);
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    rigid.block<3, 3>(3 * v, 0).setIdentity();
    for (int axis = 0; axis < 3; ++axis)
      rigid.block<3, 1>(3 * v, 3 + axis) = Eigen::Vector3d::Unit(axis).cross(X.row(v).transpose());
  }
  const Eigen::MatrixXd outside = rigid - R * (R.transpose() * M * rigid);
  CHECK((outside.transpose() * M * outside).norm() <
        1e-16 * (rigid.transpose() * M * rigid).norm());

  CHECK_THROWS_AS(compute_linear_modes(model, dofs, dofs.num_free_dofs() - 6), OptionError);
  CHECK_NOTHROW(compute_linear_modes(model, dofs, 1));
}

TEST_CASE("Disconnected pieces are reported: more than six rigid modes, or a loose piece",
          "[precompute][reduction]") {
  const TetMesh mesh = two_disconnected_boxes();
  const StvkFemModel model = make_model(mesh);
  CHECK_THROWS_WITH(compute_linear_modes(model, DofMap(model.num_vertices(), {}), 8),
                    Catch::Contains("exactly 6 rigid modes") && Catch::Contains("disconnected"));
  // Only the first box is clamped: the second floats.
  CHECK_THROWS_AS(
      compute_linear_modes(model, DofMap(model.num_vertices(), vertices_at_x0(mesh)), 4),
      NumericalError);
}

TEST_CASE("Modal derivatives solve K Psi_ij = -T[phi_i, phi_j] and match finite differences",
          "[precompute][reduction]") {
  const TetMesh mesh = test::box_mesh(6, 2, 2, 0.6, 0.2, 0.2);
  const StvkFemModel model = make_model(mesh);
  const DofMap dofs(model.num_vertices(), vertices_at_x0(mesh));
  const int r1 = 4;
  const LinearModes modes = compute_linear_modes(model, dofs, r1);
  const Eigen::MatrixXd psi = compute_modal_derivatives(model, dofs, modes);
  REQUIRE(psi.rows() == dofs.num_dofs());
  REQUIRE(psi.cols() == num_pairs(r1));
  CHECK(max_at_fixed(psi, dofs) == 0.0);

  const Eigen::VectorXd& X = model.rest_positions();
  const Eigen::MatrixXd K = free_block(model.stiffness_matrix(X), dofs);
  const Eigen::LDLT<Eigen::MatrixXd> K_solver(K);
  const double eps = 1e-3;
  for (int i = 0; i < r1; ++i)
    for (int j = i; j < r1; ++j) {
      const Eigen::VectorXd psi_ij = dofs.restrict_to_free(psi.col(pair_index(i, j, r1)));
      const Eigen::VectorXd rhs = kernel_rhs(model, dofs, modes.modes.col(i), modes.modes.col(j));
      CHECK((K * psi_ij - rhs).norm() < 1e-8 * rhs.norm());
      // Independent of the kernel: K(x) is quadratic, so its central difference is exact.
      const Eigen::VectorXd dx = eps * modes.modes.col(j);
      const Eigen::MatrixXd dK = (free_block(model.stiffness_matrix(X + dx), dofs) -
                                  free_block(model.stiffness_matrix(X - dx), dofs)) /
                                 (2 * eps);
      const Eigen::VectorXd psi_fd =
          -K_solver.solve(dK * dofs.restrict_to_free(modes.modes.col(i)));
      CHECK(relative_error(psi_ij, psi_fd) < 1e-7);
    }

  // Symmetry and pair order: reversing the mode order gives the same derivatives, permuted.
  LinearModes reversed = modes;
  reversed.eigenvalues = modes.eigenvalues.reverse();
  reversed.modes = modes.modes.rowwise().reverse();
  const Eigen::MatrixXd psi_reversed = compute_modal_derivatives(model, dofs, reversed);
  for (int i = 0; i < r1; ++i)
    for (int j = i; j < r1; ++j) {
      const int a = r1 - 1 - j, b = r1 - 1 - i;  // (j, i) in the reversed order, a <= b
      CHECK(relative_error(psi_reversed.col(pair_index(a, b, r1)), psi.col(pair_index(i, j, r1))) <
            1e-10);
    }
}

TEST_CASE("Free-body modal derivatives are mass-orthogonal to the rigid modes",
          "[precompute][reduction]") {
  const TetMesh mesh = test::box_mesh(4, 2, 2, 0.4, 0.2, 0.2);
  const StvkFemModel model = make_model(mesh);
  const DofMap dofs(model.num_vertices(), {});
  const int r1 = 3;
  const LinearModes modes = compute_linear_modes(model, dofs, r1);
  const Eigen::MatrixXd psi = compute_modal_derivatives(model, dofs, modes);
  REQUIRE(psi.cols() == num_pairs(r1));
  const Eigen::MatrixXd K = Eigen::MatrixXd(model.stiffness_matrix(model.rest_positions()));
  const Eigen::MatrixXd M = Eigen::MatrixXd(model.consistent_mass_matrix());
  const Eigen::MatrixXd& R = modes.rigid_modes;
  const double psi_mass_norm = std::sqrt((psi.transpose() * M * psi).trace());
  CHECK((R.transpose() * M * psi).norm() < 1e-10 * psi_mass_norm);
  for (int i = 0; i < r1; ++i)
    for (int j = i; j < r1; ++j) {
      const Eigen::VectorXd rhs = kernel_rhs(model, dofs, modes.modes.col(i), modes.modes.col(j));
      const Eigen::VectorXd projected = rhs - M * R * (R.transpose() * rhs);
      CHECK((K * psi.col(pair_index(i, j, r1)) - projected).norm() < 1e-8 * projected.norm());
    }
}

TEST_CASE("Reduced basis: mass-orthonormal, diagonal stiffness, contains the linear modes",
          "[precompute][reduction]") {
  const TetMesh mesh = test::box_mesh(6, 2, 2, 0.6, 0.2, 0.2);
  const StvkFemModel model = make_model(mesh);
  const DofMap dofs(model.num_vertices(), vertices_at_x0(mesh));
  const int r1 = 5, p = num_pairs(r1);
  const LinearModes modes = compute_linear_modes(model, dofs, r1);
  const Eigen::MatrixXd psi = compute_modal_derivatives(model, dofs, modes);
  const Eigen::MatrixXd K = free_block(model.stiffness_matrix(model.rest_positions()), dofs);
  const Eigen::MatrixXd M = free_block(model.consistent_mass_matrix(), dofs);

  for (const int r : {8, r1 + p}) {
    const ReducedBasis basis = compute_reduced_basis(model, dofs, modes, psi, r);
    REQUIRE(basis.basis.rows() == dofs.num_dofs());
    REQUIRE(basis.basis.cols() == r);
    REQUIRE(basis.eigenvalues.size() == r);
    REQUIRE(basis.singular_values.size() == r);
    CHECK(max_at_fixed(basis.basis, dofs) == 0.0);
    const Eigen::MatrixXd U = free_rows(basis.basis, dofs);
    CHECK((U.transpose() * M * U - Eigen::MatrixXd::Identity(r, r)).norm() < 1e-10);
    const Eigen::MatrixXd UKU = U.transpose() * K * U;
    const Eigen::MatrixXd diagonal = basis.eigenvalues.asDiagonal();
    CHECK((UKU - diagonal).norm() < 1e-10 * basis.eigenvalues.maxCoeff());
    for (int k = 1; k < r; ++k) CHECK(basis.eigenvalues(k) >= basis.eigenvalues(k - 1));
    for (int k = 1; k < r; ++k) CHECK(basis.singular_values(k) <= basis.singular_values(k - 1));
    // Rayleigh–Ritz: every Ritz value is bounded below by the matching exact eigenvalue.
    for (int k = 0; k < r1; ++k) CHECK(basis.eigenvalues(k) >= modes.eigenvalues(k) * (1 - 1e-10));
  }

  // With every candidate kept the span holds the linear modes exactly, so their eigenvalues are
  // Ritz values of the basis.
  const ReducedBasis full = compute_reduced_basis(model, dofs, modes, psi, r1 + p);
  const Eigen::MatrixXd U = free_rows(full.basis, dofs);
  for (int k = 0; k < r1; ++k) {
    const Eigen::VectorXd phi = dofs.restrict_to_free(modes.modes.col(k));
    const Eigen::VectorXd rest = phi - U * (U.transpose() * (M * phi));
    CHECK(std::sqrt(rest.dot(M * rest)) < 1e-8);
    CHECK(std::abs(full.eigenvalues(k) / modes.eigenvalues(k) - 1) < 1e-8);
  }

  CHECK_THROWS_AS(compute_reduced_basis(model, dofs, modes, psi, r1 + p + 1), OptionError);
  CHECK_THROWS_AS(compute_reduced_basis(model, dofs, modes, psi, 0), OptionError);
  // Without modal derivatives (none, or all zero) only the r1 linear modes are independent.
  const ReducedBasis linear = compute_reduced_basis(model, dofs, modes, Eigen::MatrixXd(), r1);
  CHECK(relative_error(linear.eigenvalues, modes.eigenvalues) < 1e-10);
  CHECK_THROWS_AS(compute_reduced_basis(model, dofs, modes, Eigen::MatrixXd(), r1 + 1),
                  OptionError);
  CHECK_THROWS_AS(compute_reduced_basis(model, dofs, modes, psi.leftCols(3), r1), OptionError);
  const Eigen::MatrixXd no_derivatives = Eigen::MatrixXd::Zero(psi.rows(), psi.cols());
  CHECK_NOTHROW(compute_reduced_basis(model, dofs, modes, no_derivatives, r1));
  CHECK_THROWS_WITH(compute_reduced_basis(model, dofs, modes, no_derivatives, r1 + 1),
                    Catch::Contains("r = 6 but only 5 independent directions"));
}

TEST_CASE("Free-body reduced basis excludes rigid motion", "[precompute][reduction]") {
  const TetMesh mesh = test::box_mesh(4, 2, 2, 0.4, 0.2, 0.2);
  const StvkFemModel model = make_model(mesh);
  const DofMap dofs(model.num_vertices(), {});
  const int r1 = 4, r = r1 + num_pairs(r1);
  const LinearModes modes = compute_linear_modes(model, dofs, r1);
  const Eigen::MatrixXd psi = compute_modal_derivatives(model, dofs, modes);
  const ReducedBasis basis = compute_reduced_basis(model, dofs, modes, psi, r);
  const Eigen::MatrixXd M = Eigen::MatrixXd(model.consistent_mass_matrix());
  CHECK((modes.rigid_modes.transpose() * M * basis.basis).norm() < 1e-10);
  CHECK((basis.basis.transpose() * M * basis.basis - Eigen::MatrixXd::Identity(r, r)).norm() <
        1e-10);
  for (int k = 0; k < r1; ++k)
    CHECK(basis.eigenvalues(k) == Approx(modes.eigenvalues(k)).epsilon(1e-8));
}

TEST_CASE("First bending frequency of a slender clamped beam approaches Euler–Bernoulli",
          "[precompute][reduction]") {
  // 1 m x 5 cm x 5 cm, nu = 0 (no Poisson stiffening, so beam theory applies unchanged).
  const Material material{1e6, 0.0, 1000};
  const double L = 1.0, a = 0.05, I = a * a * a * a / 12, A = a * a;
  const double omega_theory =
      1.875104 * 1.875104 *
      std::sqrt(material.youngs_modulus * I / (material.density * A * L * L * L * L));
  auto omega_1 = [&](int nx, int n) {
    const TetMesh mesh = make_cantilever_beam(nx, n, n, L, a);
    std::vector<int> fixed;
    for (int v = 0; v < mesh.num_vertices(); ++v)
      if (mesh.vertex_flags(v) == 1) fixed.push_back(v);
    const StvkFemModel model(mesh, assign_materials(mesh, material));
    return std::sqrt(
        compute_linear_modes(model, DofMap(model.num_vertices(), fixed), 1).eigenvalues(0));
  };
  const double coarse = omega_1(40, 2), fine = omega_1(80, 4);
  const double error_coarse = coarse / omega_theory - 1, error_fine = fine / omega_theory - 1;
  // Conforming linear tets are too stiff in bending (shear locking): the frequency is an upper
  // bound (up to the ~0.1 % by which a 3D beam of L/a = 20 is softer than Euler–Bernoulli) and
  // the error falls like h^2: measured 26.6 % (40x2x2) and 7.3 % (80x4x4), ratio 3.7.
  CHECK(error_coarse > 0.0);
  CHECK(error_fine > 0.0);
  CHECK(error_fine < 0.1);
  const double ratio = error_coarse / error_fine;
  CHECK(ratio > 3.0);
  CHECK(ratio < 5.0);
  // Richardson extrapolation of the h^2 error lands on beam theory (measured 0.8 % high).
  const double extrapolated = fine + (fine - coarse) / 3;
  CHECK(std::abs(extrapolated / omega_theory - 1) < 0.02);
}
