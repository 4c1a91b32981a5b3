// The reduced StVK polynomial (precomputed coefficients + runtime evaluation) against the
// full-space model projected on the basis: energy, gradient and Hessian at large displacements,
// finite differences, symmetry, and the packed pair order.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/reduction/reduced_stvk_coefficients.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"
#include "support/finite_differences.h"
#include "support/test_meshes.h"
#include "support/test_tets.h"

using namespace ramus;
using test::relative_error;

namespace {

// A 0.4 x 0.2 x 0.2 m box (96 tets); `mixed` gives half the tets an auxetic material (lambda < 0).
StvkFemModel box_model(bool mixed = false) {
  TetMesh mesh = test::box_mesh(4, 2, 2, 0.4, 0.2, 0.2);
  mesh.labels = Eigen::VectorXi::Zero(mesh.num_tets());
  mesh.labels.head(mesh.num_tets() / 2).setOnes();
  const std::map<int, Material> by_label = {{1, {3e6, mixed ? -0.3 : 0.3, 1000}}};
  return StvkFemModel(mesh, assign_materials(mesh, {1e6, 0.45, 1000}, by_label));
}

// Random dense basis (3#V by r); with `clamp`, the rows of the vertices at x == 0 are zero.
Eigen::MatrixXd random_basis(const StvkFemModel& model, int r, bool clamp, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Eigen::MatrixXd U(3 * model.num_vertices(), r);
  for (Eigen::Index k = 0; k < U.size(); ++k) U.data()[k] = u(rng);
  if (clamp)
    for (int v = 0; v < model.num_vertices(); ++v)
      if (model.mesh().rest_positions(v, 0) == 0.0) U.middleRows<3>(3 * v).setZero();
  return U;
}

// Random q scaled so the largest vertex displacement |U q| is `fraction` of the box length.
Eigen::VectorXd large_q(const Eigen::MatrixXd& U, double fraction, std::mt19937& rng) {
  std::normal_distribution<double> n(0, 1);
  Eigen::VectorXd q(U.cols());
  for (Eigen::Index a = 0; a < q.size(); ++a) q(a) = n(rng);
  const Eigen::VectorXd u = U * q;
  const double largest = u.reshaped(3, u.size() / 3).colwise().norm().maxCoeff();
  return q * (fraction * 0.4 / largest);
}

struct Projected {
  double energy;
  Eigen::VectorXd gradient;
  Eigen::MatrixXd hessian;
};

// Phi(X + U q), U^T grad Phi, U^T K U from the full-space model.
Projected project(const StvkFemModel& model, const Eigen::MatrixXd& U, const Eigen::VectorXd& q) {
  const Eigen::VectorXd x = model.rest_positions() + U * q;
  Eigen::VectorXd g = Eigen::VectorXd::Zero(x.size());
  model.add_elastic_energy_gradient(x, g);
  const Eigen::SparseMatrix<double> K = model.stiffness_matrix(x);
  return {model.elastic_energy(x), U.transpose() * g, U.transpose() * (K * U)};
}

struct Case {
  const char* name;
  bool mixed, clamp;
  int r;
};
const Case kCases[] = {{"r=4 free", false, false, 4},
                       {"r=6 clamped rows", false, true, 6},
                       {"r=8 lambda<0 in half", true, false, 8}};

}  // namespace

TEST_CASE("Reduced StVK energy, gradient and Hessian equal the projected full-space ones",
          "[precompute][reduction]") {
  for (const Case& c : kCases) {
    SECTION(c.name) {
      const StvkFemModel model = box_model(c.mixed);
      const Eigen::MatrixXd U = random_basis(model, c.r, c.clamp, 100 + c.r);
      const ReducedStvkPolynomial poly = compute_reduced_stvk_polynomial(model, U);
      ReducedStvkForces forces(poly);
      REQUIRE(forces.r() == c.r);
      std::mt19937 rng(c.r);
      for (const double fraction : {0.0, 0.01, 0.3, 0.6}) {
        const Eigen::VectorXd q =
            fraction > 0 ? large_q(U, fraction, rng) : Eigen::VectorXd::Zero(c.r).eval();
        Eigen::VectorXd g;
        Eigen::MatrixXd K;
        const double E = forces.evaluate_energy(q, g, K);
        const Projected full = project(model, U, q);
        INFO("displacement fraction " << fraction);
        if (fraction == 0.0) {
          CHECK(E == 0.0);
          CHECK(g.norm() == 0.0);
        } else {
          CHECK(std::abs(E - full.energy) <= 1e-10 * full.energy);
          CHECK(relative_error(g, full.gradient) < 1e-10);
        }
        CHECK(relative_error(K, full.hessian) < 1e-10);
        CHECK(K == K.transpose());
        // evaluate() gives the same gradient and Hessian.
        Eigen::VectorXd g2(c.r);
        Eigen::MatrixXd K2(c.r, c.r);
        forces.evaluate(q, g2, K2);
        CHECK(g2 == g);
        CHECK(K2 == K);
      }
    }
  }
}

TEST_CASE("Reduced Hessian is the Jacobian of the reduced gradient (exact 5-point stencil)",
          "[precompute][reduction]") {
  const StvkFemModel model = box_model(true);
  const Eigen::MatrixXd U = random_basis(model, 6, true, 7);
  const ReducedStvkPolynomial poly = compute_reduced_stvk_polynomial(model, U);
  ReducedStvkForces forces(poly);
  std::mt19937 rng(3);
  const Eigen::VectorXd q = large_q(U, 0.3, rng);
  Eigen::VectorXd g;
  Eigen::MatrixXd K, unused;
  forces.evaluate(q, g, K);
  // g is cubic: the 5-point derivative is exact up to rounding, so the step can be large.
  const double h = 0.1 * q.cwiseAbs().maxCoeff();
  const Eigen::MatrixXd K_fd = test::finite_jacobian(
      q,
      [&](const Eigen::VectorXd& y) {
        Eigen::VectorXd gy;
        forces.evaluate(y, gy, unused);
        return gy;
      },
      h, test::Stencil::kCentral4);
  CHECK(relative_error(K, K_fd) < 1e-11);
  // And the energy's derivative is the gradient (a quartic: exact for the 5-point rule too).
  const Eigen::VectorXd g_fd = test::finite_gradient(
      q,
      [&](const Eigen::VectorXd& y) {
        Eigen::VectorXd gy;
        return forces.evaluate_energy(y, gy, unused);
      },
      h, test::Stencil::kCentral4);
  CHECK(relative_error(g, g_fd) < 1e-9);
}

TEST_CASE("Reduced coefficient tensors are fully symmetric, thread count does not matter",
          "[precompute][reduction]") {
  const StvkFemModel model = box_model(true);
  const int r = 5;
  const Eigen::MatrixXd U = random_basis(model, r, false, 11);
  const ReducedStvkPolynomial poly = compute_reduced_stvk_polynomial(model, U, 1);
  const auto P = [r](int a, int b) { return pair_index(std::min(a, b), std::max(a, b), r); };
  CHECK(poly.quartic == poly.quartic.transpose());
  double cubic_asymmetry = 0, quartic_asymmetry = 0;
  for (int i = 0; i < r; ++i)
    for (int j = 0; j < r; ++j)
      for (int a = 0; a < r; ++a) {
        cubic_asymmetry =
            std::max(cubic_asymmetry, std::abs(poly.cubic(P(i, j), a) - poly.cubic(P(i, a), j)));
        for (int b = 0; b < r; ++b)
          quartic_asymmetry = std::max(quartic_asymmetry, std::abs(poly.quartic(P(i, j), P(a, b)) -
                                                                   poly.quartic(P(i, a), P(j, b))));
      }
  CHECK(cubic_asymmetry <= 1e-13 * poly.cubic.cwiseAbs().maxCoeff());
  CHECK(quartic_asymmetry <= 1e-13 * poly.quartic.cwiseAbs().maxCoeff());

  for (const int threads : {2, 3, 7}) {
    const ReducedStvkPolynomial other = compute_reduced_stvk_polynomial(model, U, threads);
    CHECK(relative_error(other.quadratic, poly.quadratic) < 1e-13);
    CHECK(relative_error(other.cubic, poly.cubic) < 1e-13);
    CHECK(relative_error(other.quartic, poly.quartic) < 1e-13);
  }
}

TEST_CASE("pair_index enumerates the p pairs i <= j bijectively in row order",
          "[precompute][reduction]") {
  for (int r = 1; r <= 12; ++r) {
    REQUIRE(num_pairs(r) == r * (r + 1) / 2);
    std::vector<int> seen(static_cast<size_t>(num_pairs(r)), 0);
    int expected = 0;
    for (int i = 0; i < r; ++i)
      for (int j = i; j < r; ++j) {
        const int k = pair_index(i, j, r);
        CHECK(k == expected++);
        REQUIRE(k >= 0);
        REQUIRE(k < num_pairs(r));
        ++seen[static_cast<size_t>(k)];
      }
    for (const int count : seen) CHECK(count == 1);
  }
}

TEST_CASE("Reduced StVK inputs are validated", "[precompute][reduction]") {
  const StvkFemModel model = box_model();
  CHECK_THROWS_AS(compute_reduced_stvk_polynomial(model, Eigen::MatrixXd::Ones(12, 3)),
                  OptionError);
  CHECK_THROWS_AS(
      compute_reduced_stvk_polynomial(model, Eigen::MatrixXd(3 * model.num_vertices(), 0)),
      OptionError);
  Eigen::MatrixXd U = random_basis(model, 3, false, 1);
  U(4, 1) = std::nan("");
  CHECK_THROWS_AS(compute_reduced_stvk_polynomial(model, U), OptionError);

  ReducedStvkPolynomial poly =
      compute_reduced_stvk_polynomial(model, random_basis(model, 3, false, 1));
  CHECK_NOTHROW(ReducedStvkForces(poly));
  poly.cubic.resize(6, 2);
  CHECK_THROWS_AS(ReducedStvkForces(poly), OptionError);

  ReducedStvkForces empty;  // default-constructed: r = 0, evaluates to empty outputs
  Eigen::VectorXd g(2);
  Eigen::MatrixXd K(2, 2);
  CHECK(empty.evaluate_energy(Eigen::VectorXd(), g, K) == 0.0);
  CHECK(g.size() == 0);
  CHECK(K.size() == 0);
}
