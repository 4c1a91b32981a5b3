// ReducedStvkForces::evaluate must not touch the heap. This executable replaces the global
// operator new / delete with counting versions and, on glibc, also interposes malloc & co.:
// Eigen allocates its dynamic storage with std::malloc, which operator new would not see.
#include <Eigen/Core>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>

#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/reduction/reduced_stvk_coefficients.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"
#include "support/allocation_counter.h"
#include "support/test_meshes.h"

using ramus::test::count_allocations;

TEST_CASE("The allocation counter sees operator new and Eigen's heap storage",
          "[runtime][kernels]") {
  CHECK(count_allocations([] {
          int* volatile p = new int(3);
          delete p;
        }) >= 1);
  long eigen = count_allocations([] {
    Eigen::VectorXd v(1000);
    v.setZero();
  });
#if defined(__GLIBC__)
  CHECK(eigen >= 1);
#else
  (void)eigen;
#endif
}

TEST_CASE("ReducedStvkForces::evaluate allocates nothing after construction",
          "[runtime][kernels]") {
  const ramus::TetMesh mesh = ramus::test::box_mesh(4, 2, 2, 0.4, 0.2, 0.2);
  const ramus::StvkFemModel model(mesh, ramus::assign_materials(mesh, {1e6, 0.45, 1000}));
  for (const int r : {1, 7, 30}) {
    INFO("r = " << r);
    const Eigen::MatrixXd U = Eigen::MatrixXd::Random(3 * model.num_vertices(), r);
    const ramus::ReducedStvkPolynomial poly = ramus::compute_reduced_stvk_polynomial(model, U);
    ramus::ReducedStvkForces forces(poly);
    Eigen::VectorXd q = 1e-3 * Eigen::VectorXd::Random(r), g(r);
    Eigen::MatrixXd K(r, r);
    double energy = 0;
    const long allocations = count_allocations([&] {
      for (int step = 0; step < 3; ++step) {
        forces.evaluate(q, g, K);
        energy += forces.evaluate_energy(q, g, K);
        q *= 1.5;
      }
    });
    CHECK(allocations == 0);
    CHECK(energy > 0);
    CHECK(g.allFinite());
    // Outputs of the wrong size are resized: that is seen.
    Eigen::VectorXd g_empty;
    Eigen::MatrixXd K_empty;
    CHECK(count_allocations([&] { forces.evaluate(q, g_empty, K_empty); }) >= 1);
    forces.evaluate(q, g, K);
    CHECK(g_empty == g);
  }
}
