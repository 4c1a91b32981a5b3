// The spring of the mass-spring paper: its force against its energy's gradient, its Jacobian
// against the force's finite differences, and the compression-dropped Jacobian's definiteness.
#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>

#include "ramus/precompute/cloth/spring_forces.h"
#include "support/finite_differences.h"

using namespace ramus;

namespace {

const Eigen::Vector3d kXj(0.1, -0.2, 0.3);

// x_i at a length `scale` times the rest length 0.5, in a skew direction.
Eigen::Vector3d xi_at(double scale) {
  return kXj + scale * 0.5 * Eigen::Vector3d(1, 2, -2).normalized();
}

}  // namespace

TEST_CASE("A spring's force is minus its energy's gradient, stretched and compressed",
          "[precompute][cloth]") {
  const double L = 0.5, k = 300;
  for (double scale : {1.3, 0.6}) {
    CAPTURE(scale);
    const Eigen::Vector3d xi = xi_at(scale);
    const Eigen::Vector3d f_j = spring_force_on_j(xi - kXj, L, k);
    // The force on j is -dE/dx_j; on i, -dE/dx_i = -f_j.
    const Eigen::VectorXd dEdxj = test::finite_gradient(
        kXj, [&](const Eigen::VectorXd& xj) { return spring_energy(xi, xj, L, k); }, 1e-6,
        test::Stencil::kCentral4);
    const Eigen::VectorXd dEdxi = test::finite_gradient(
        xi, [&](const Eigen::VectorXd& x) { return spring_energy(x, kXj, L, k); }, 1e-6,
        test::Stencil::kCentral4);
    CHECK((f_j + dEdxj).norm() <= 1e-7 * f_j.norm());
    CHECK((-f_j + dEdxi).norm() <= 1e-7 * f_j.norm());
    // Newton's third law and its size: k | |d| - L |.
    CHECK(f_j.norm() == Approx(k * std::abs(scale - 1) * L));
  }
}

TEST_CASE(
    "A spring's Jacobian J_x = df_j/dx_i is the force's derivative, and dropped under "
    "compression it is positive semi-definite",
    "[precompute][cloth]") {
  const double L = 0.5, k = 300;
  for (double scale : {1.3, 0.6}) {
    CAPTURE(scale);
    const Eigen::Vector3d xi = xi_at(scale);
    const Eigen::MatrixXd fd = test::finite_jacobian(
        xi,
        [&](const Eigen::VectorXd& x) -> Eigen::VectorXd {
          return spring_force_on_j(x - kXj, L, k);
        },
        1e-6, test::Stencil::kCentral4);
    const Eigen::Matrix3d exact = spring_jacobian(xi - kXj, L, k, false);
    CHECK((exact - fd).norm() <= 1e-6 * exact.norm());
    CHECK((exact - exact.transpose()).norm() <= 1e-12 * exact.norm());
    // df_j/dx_j = -J_x as well (d = x_i - x_j).
    const Eigen::MatrixXd fd_j = test::finite_jacobian(
        kXj,
        [&](const Eigen::VectorXd& x) -> Eigen::VectorXd {
          return spring_force_on_j(xi - x, L, k);
        },
        1e-6, test::Stencil::kCentral4);
    CHECK((exact + fd_j).norm() <= 1e-6 * exact.norm());
    // Stretched: dropping changes nothing. Compressed: the exact one is indefinite, the dropped
    // one has eigenvalues k (along) and 0 (across).
    const Eigen::Matrix3d dropped = spring_jacobian(xi - kXj, L, k, true);
    const Eigen::Vector3d exact_eigen =
        Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(exact).eigenvalues();
    const Eigen::Vector3d dropped_eigen =
        Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(dropped).eigenvalues();
    if (scale > 1) {
      CHECK((dropped - exact).norm() == 0);
      CHECK(exact_eigen.minCoeff() > 0);
    } else {
      CHECK(exact_eigen.minCoeff() == Approx(k * (1 - 1 / scale)));
      CHECK(dropped_eigen.minCoeff() >= -1e-9 * k);
      CHECK(dropped_eigen.maxCoeff() == Approx(k));
    }
  }
  CHECK(spring_strain(xi_at(1.3) - kXj, L) == Approx(0.3));
  CHECK(spring_strain(xi_at(0.6) - kXj, L) == Approx(0.4));
}
