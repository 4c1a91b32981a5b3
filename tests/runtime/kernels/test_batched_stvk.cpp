// Batched StVK evaluation (ReducedStvkForces::evaluate_batch): the instances of one part in
// two matrix-matrix products equal the one-instance evaluation column by column, and allocate
// nothing at any r.
#include <catch2/catch.hpp>

#include "ramus/runtime/kernels/reduced_stvk_forces.h"
#include "support/allocation_counter.h"

using namespace ramus;

namespace {

// A polynomial with random coefficients (quartic symmetric): evaluation does not need an
// elastic one.
ReducedStvkPolynomial random_polynomial(int r) {
  const int p = num_pairs(r);
  ReducedStvkPolynomial poly;
  poly.r = r;
  poly.quadratic = Eigen::VectorXd::Random(p);
  poly.cubic = Eigen::MatrixXd::Random(p, r);
  const Eigen::MatrixXd a = Eigen::MatrixXd::Random(p, p);
  poly.quartic = a + a.transpose();
  return poly;
}

double relative(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / b.norm();
}

}  // namespace

TEST_CASE("A batch of instances evaluates g, K and E as each instance alone, without allocating",
          "[runtime][kernels][batch]") {
  for (const int r : {1, 4, 8, 20, 40}) {
    INFO("r = " << r);
    const ReducedStvkForces forces(random_polynomial(r), true);
    REQUIRE(forces.batched());
    const int columns = stvk_batch_columns(r), p = num_pairs(r);
    // Columns of very different sizes, one of them zero.
    Eigen::MatrixXd q = Eigen::MatrixXd::Random(r, columns);
    for (int c = 0; c < columns; ++c) q.col(c) *= std::pow(10.0, -(c % 5));
    q.col(columns / 2).setZero();
    ReducedStvkBatchScratch scratch(r, columns);
    Eigen::MatrixXd gradients(r, columns), stiffness(p, columns);
    Eigen::VectorXd energies(columns);
    const long allocations = test::count_allocations(
        [&] { forces.evaluate_batch(q, scratch, gradients, stiffness, energies); });
    CHECK(allocations == 0);

    ReducedStvkScratch single(r);
    Eigen::VectorXd g(r);
    Eigen::MatrixXd K(r, r), K_batch(r, r);
    double worst_g = 0, worst_K = 0, worst_E = 0;
    for (int c = 0; c < columns; ++c) {
      if (c == columns / 2) continue;
      const double E = forces.evaluate_energy(q.col(c), single, g, K);
      ReducedStvkForces::unpack_stiffness(stiffness.col(c).data(), r, K_batch);
      worst_g = std::max(worst_g, relative(gradients.col(c), g));
      worst_K = std::max(worst_K, relative(K_batch, K));
      // (The random polynomial is indefinite, so E may cancel: its error is measured against
      // the scale of its terms, |E| + |q| |g|.)
      const double scale = std::abs(E) + q.col(c).norm() * g.norm();
      worst_E = std::max(worst_E, std::abs(energies(c) - E) / scale);
    }
    CHECK(worst_g < 1e-14);
    CHECK(worst_K < 1e-14);
    INFO(std::scientific << "worst E " << worst_E << ", g " << worst_g << ", K " << worst_K);
    CHECK(worst_E < 1e-14);
    // The zero column: K = K2 exactly, g = 0, E = 0.
    forces.evaluate(q.col(columns / 2), single, g, K);
    ReducedStvkForces::unpack_stiffness(stiffness.col(columns / 2).data(), r, K_batch);
    CHECK(K_batch == K);
    CHECK(gradients.col(columns / 2).isZero(0));
    CHECK(energies(columns / 2) == 0);
    // A part of the scratch's columns.
    forces.evaluate_batch(q.leftCols(3 < columns ? 3 : columns), scratch, gradients, stiffness,
                          energies);
    CHECK(gradients.allFinite());
  }
  // Without `batched` there is no full quartic, and a batch call is a no-op.
  CHECK_FALSE(ReducedStvkForces(random_polynomial(3)).batched());
}

TEST_CASE("quartic_product is K4(q) = Q m(q) by its definition and is the quartic term of evaluate",
          "[runtime][kernels][batch]") {
  for (const int r : {1, 4, 8, 20}) {
    INFO("r = " << r);
    const ReducedStvkPolynomial polynomial = random_polynomial(r);
    const ReducedStvkForces forces(polynomial);
    const int p = num_pairs(r);
    const Eigen::VectorXd q = Eigen::VectorXd::Random(r);
    // m(q) in pair order: q_i q_j (i < j), q_i² / 2.
    Eigen::VectorXd m(p);
    for (int i = 0; i < r; ++i)
      for (int j = i; j < r; ++j) m(pair_index(i, j, r)) = i == j ? 0.5 * q(i) * q(i) : q(i) * q(j);
    const Eigen::VectorXd expected = polynomial.quartic * m;
    ReducedStvkScratch scratch(r);
    const long allocations = test::count_allocations([&] { forces.quartic_product(q, scratch); });
    CHECK(allocations == 0);
    const Eigen::VectorXd k4 = scratch.padded_k4.head(p);
    CHECK(relative(k4, expected) < 1e-14);
    // K from evaluate() less K2 and the cubic term: K4 (to the rounding of that difference).
    Eigen::VectorXd g(r);
    Eigen::MatrixXd K(r, r);
    forces.evaluate(q, scratch, g, K);
    const Eigen::VectorXd k3 = polynomial.cubic * q;
    Eigen::VectorXd rest(p);
    for (int i = 0; i < r; ++i)
      for (int j = i; j < r; ++j) {
        const int k = pair_index(i, j, r);
        rest(k) = K(i, j) - polynomial.quadratic(k) - k3(k);
      }
    CHECK(relative(rest, k4) < 1e-12);
  }
}
