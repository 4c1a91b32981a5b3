// Finite-difference and invariance checks of the StVK energy, its derivatives, and the assembled
// full-space quantities (forces, stiffness, mass).
#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <random>

#include "ramus/error.h"
#include "ramus/precompute/fem/stvk_energy.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "support/finite_differences.h"
#include "support/test_meshes.h"
#include "support/test_tets.h"

using namespace ramus;
using test::deformed_tet;
using test::finite_gradient;
using test::finite_jacobian;
using test::flat;
using test::reference_tet;
using test::relative_error;
using test::unflat;

namespace {

const LameParameters kLame = lame_parameters({1e6, 0.45, 1000});

}  // namespace

TEST_CASE("Lame parameters from Young's modulus and Poisson ratio", "[precompute][fem]") {
  const LameParameters lame = lame_parameters({2.0e6, 0.25, 1000});
  CHECK(lame.mu == Approx(0.8e6));
  CHECK(lame.lambda == Approx(0.8e6));
  CHECK_THROWS_AS(lame_parameters({1e6, 0.5, 1000}), ramus::Error);
  CHECK_THROWS_AS(lame_parameters({-1, 0.3, 1000}), ramus::Error);
  CHECK_THROWS_AS(lame_parameters({1e6, 0.3, 0}), ramus::Error);
}

TEST_CASE("StVK stress is the derivative of the energy density (FD)", "[precompute][fem]") {
  std::mt19937 rng(1);
  std::normal_distribution<double> n(0, 0.3);
  for (int trial = 0; trial < 5; ++trial) {
    Eigen::Matrix3d F = Eigen::Matrix3d::Identity();
    for (int i = 0; i < 9; ++i) F.data()[i] += n(rng);
    const Eigen::Matrix3d P = stvk_first_piola_kirchhoff(F, kLame);
    const Matrix9d C = stvk_first_piola_kirchhoff_derivative(F, kLame);
    const Eigen::VectorXd F0 = flat(F);
    const Eigen::Matrix3d P_fd = unflat<3, 3>(finite_gradient(
        F0, [](const Eigen::VectorXd& f) { return stvk_energy_density(unflat<3, 3>(f), kLame); },
        1e-6));
    const Eigen::MatrixXd C_fd = finite_jacobian(
        F0,
        [](const Eigen::VectorXd& f) {
          return flat(stvk_first_piola_kirchhoff(unflat<3, 3>(f), kLame));
        },
        1e-6);
    CHECK(relative_error(P, P_fd) < 1e-7);
    CHECK(relative_error(C, C_fd) < 1e-7);
  }
}

TEST_CASE("StVK tet energy -> gradient -> Hessian by finite differences", "[precompute][fem]") {
  std::mt19937 rng(7);
  const LinearTetRest rest = linear_tet_rest(reference_tet());
  for (const std::string kind : {"random", "near-rest", "inverted"}) {
    SECTION(kind) {
      for (int trial = 0; trial < 4; ++trial) {
        const Matrix34d x = deformed_tet(kind, rng);
        if (kind == "inverted") {
          REQUIRE(deformation_gradient(x, rest).determinant() < 0);
        }
        const Vector12d g = stvk_tet_energy_gradient(x, rest, kLame);
        const Matrix12d H = stvk_tet_energy_hessian(x, rest, kLame);
        const auto energy = [&](const Eigen::VectorXd& y) {
          return stvk_tet_energy(unflat<3, 4>(y), rest, kLame);
        };
        const auto gradient = [&](const Eigen::VectorXd& y) -> Eigen::VectorXd {
          return stvk_tet_energy_gradient(unflat<3, 4>(y), rest, kLame);
        };
        const Eigen::VectorXd g_fd = finite_gradient(flat(x), energy, 1e-7);
        const Eigen::MatrixXd H_fd = finite_jacobian(flat(x), gradient, 1e-7);
        // Near rest the gradient is tiny, so compare against the Hessian's scale there.
        const double g_scale = kind == "near-rest" ? H.norm() * 1e-4 : g.norm();
        CHECK((g - g_fd).norm() / g_scale < 1e-5);
        CHECK(relative_error(H, H_fd) < 1e-6);
        CHECK((H - H.transpose()).norm() < 1e-12 * H.norm());
      }
    }
  }
}

TEST_CASE("Rigid motions produce zero force and leave the energy unchanged", "[precompute][fem]") {
  std::mt19937 rng(3);
  const Matrix34d X = reference_tet();
  const LinearTetRest rest = linear_tet_rest(X);
  const double force_scale = kLame.mu * 0.01;  // ~ force of a 1 % strain on a 0.1 m tet
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::Matrix3d R = Eigen::Quaterniond::UnitRandom().toRotationMatrix();
    const Eigen::Vector3d shift = Eigen::Vector3d::Random();
    const Matrix34d x_rigid = (R * X).colwise() + shift;
    CHECK(stvk_tet_energy(x_rigid, rest, kLame) < 1e-20 * kLame.mu);
    CHECK(stvk_tet_energy_gradient(x_rigid, rest, kLame).norm() < 1e-10 * force_scale);

    const Matrix34d x = deformed_tet("random", rng);
    const Matrix34d x_rotated = (R * x).colwise() + shift;
    const double energy = stvk_tet_energy(x, rest, kLame);
    CHECK(stvk_tet_energy(x_rotated, rest, kLame) == Approx(energy).epsilon(1e-12));
    // Forces rotate with the body.
    const Vector12d g = stvk_tet_energy_gradient(x, rest, kLame);
    const Vector12d g_rotated = stvk_tet_energy_gradient(x_rotated, rest, kLame);
    for (int a = 0; a < 4; ++a)
      CHECK((g_rotated.segment<3>(3 * a) - R * g.segment<3>(3 * a)).norm() < 1e-10 * g.norm());
  }
}

TEST_CASE("PSD projection clamps negative eigenvalues only", "[precompute][fem]") {
  std::mt19937 rng(5);
  const LinearTetRest rest = linear_tet_rest(reference_tet());
  const Matrix12d H = stvk_tet_energy_hessian(deformed_tet("inverted", rng), rest, kLame);
  Eigen::SelfAdjointEigenSolver<Matrix12d> before(H);
  REQUIRE(before.eigenvalues().minCoeff() < 0);
  const Matrix12d P = project_to_positive_semidefinite(H);
  Eigen::SelfAdjointEigenSolver<Matrix12d> after(P);
  CHECK(after.eigenvalues().minCoeff() > -1e-9 * H.norm());
  for (int k = 0; k < 12; ++k)
    if (before.eigenvalues()(k) > 0)
      CHECK(after.eigenvalues()(k) == Approx(before.eigenvalues()(k)).margin(1e-9 * H.norm()));
}

TEST_CASE("Assembled forces and stiffness match finite differences of the total energy",
          "[precompute][fem]") {
  TetMesh mesh = test::box_mesh(3, 2, 2, 0.3, 0.2, 0.2);
  const StvkFemModel model(mesh, assign_materials(mesh, {1e6, 0.4, 1000}));
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.02, 0.02);
  Eigen::VectorXd x = model.rest_positions();
  for (Eigen::Index k = 0; k < x.size(); ++k) x(k) += u(rng);

  const Eigen::VectorXd f = model.internal_forces(x);
  const Eigen::SparseMatrix<double> K = model.stiffness_matrix(x);
  // f = -dE/dx and K = -df/dx.
  const Eigen::VectorXd f_fd = -finite_gradient(
      x, [&](const Eigen::VectorXd& y) { return model.elastic_energy(y); }, 1e-7);
  const Eigen::MatrixXd K_fd = -finite_jacobian(
      x, [&](const Eigen::VectorXd& y) { return Eigen::VectorXd(model.internal_forces(y)); }, 1e-7);
  CHECK(relative_error(f, f_fd) < 1e-6);
  CHECK(relative_error(Eigen::MatrixXd(K), K_fd) < 1e-6);
  CHECK(f.reshaped(3, f.size() / 3).rowwise().sum().norm() < 1e-9 * f.norm());  // sum of forces
}

TEST_CASE("Rest stiffness of a free body has exactly six rigid null modes", "[precompute][fem]") {
  TetMesh mesh = test::box_mesh(2, 2, 1, 0.2, 0.2, 0.1);
  const StvkFemModel model(mesh, assign_materials(mesh, {1e6, 0.3, 1000}));
  const Eigen::MatrixXd K = model.stiffness_matrix(model.rest_positions());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(K);
  const Eigen::VectorXd lambda = eig.eigenvalues();
  const double scale = lambda.maxCoeff();
  CHECK(lambda.minCoeff() > -1e-10 * scale);
  CHECK(lambda(5) < 1e-10 * scale);
  CHECK(lambda(6) > 1e-4 * scale);
}

TEST_CASE("Mass matrices: totals and agreement between lumped and consistent",
          "[precompute][fem]") {
  TetMesh mesh = test::box_mesh(3, 2, 2, 0.3, 0.2, 0.1);
  mesh.labels = Eigen::VectorXi::Zero(mesh.num_tets());
  mesh.labels.head(mesh.num_tets() / 2).setOnes();
  const StvkFemModel model(mesh, assign_materials(mesh, {1e6, 0.4, 1000}, {{1, {1e6, 0.4, 3000}}}));
  double expected = 0;
  for (int t = 0; t < mesh.num_tets(); ++t)
    expected +=
        (mesh.labels(t) == 1 ? 3000 : 1000) * signed_tet_volume(mesh.rest_positions, mesh.tets, t);
  CHECK(model.total_mass() == Approx(expected).epsilon(1e-12));
  const Eigen::SparseMatrix<double> M = model.consistent_mass_matrix();
  CHECK(Eigen::MatrixXd(M).sum() / 3.0 == Approx(expected).epsilon(1e-12));
  // Row sums of the consistent mass are the lumped masses.
  const Eigen::VectorXd lumped = model.lumped_vertex_masses();
  const Eigen::VectorXd row_sums = Eigen::MatrixXd(M).rowwise().sum();
  for (int v = 0; v < mesh.num_vertices(); ++v)
    CHECK(row_sums(3 * v) == Approx(lumped(v)).epsilon(1e-12));
  // Kinetic energy of a uniform translation is the same with both.
  const Eigen::Vector3d g(0, 0, -9.81);
  CHECK(model.gravity_forces(g).sum() == Approx(-9.81 * expected).epsilon(1e-12));
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig{Eigen::MatrixXd(M)};
  CHECK(eig.eigenvalues().minCoeff() > 0);
}

TEST_CASE("Model construction rejects inverted tets and wrong material counts",
          "[precompute][fem]") {
  TetMesh mesh = test::box_mesh(1, 1, 1, 1, 1, 1);
  std::swap(mesh.tets(2, 1), mesh.tets(2, 2));
  try {
    StvkFemModel model(mesh, assign_materials(mesh, {}));
    FAIL("expected an exception");
  } catch (const MeshError& e) {
    CHECK(e.element() == 2);
    CHECK(std::string(e.what()).find("tet 2") != std::string::npos);
  }
  TetMesh good = test::box_mesh(1, 1, 1, 1, 1, 1);
  CHECK_THROWS_AS(StvkFemModel(good, std::vector<Material>(2)), OptionError);
}
