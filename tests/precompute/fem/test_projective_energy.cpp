// The projective energies against their full-space definitions: a cloth's equals the sum of its
// spring energies, a corotated tet mesh's the fixed corotated energy with lambda = 0; the
// gradient L x - J p(x) against finite differences; L's null space (translations); bad input.
#include <catch2/catch.hpp>
#include <random>

#include "ramus/error.h"
#include "ramus/precompute/cloth/spring_forces.h"
#include "ramus/precompute/fem/fixed_corotated_energy.h"
#include "ramus/precompute/fem/projective_energy.h"
#include "support/finite_differences.h"
#include "support/test_meshes.h"

using namespace ramus;

namespace {

MassSpringCloth small_cloth() {
  return build_mass_spring_cloth(make_square_cloth(5, 0.4), ClothSettings{}, {0, 4}, "test");
}

StvkFemModel corotated_block(double poisson_ratio = 0) {
  TetMesh mesh = test::box_mesh(2, 1, 1, 0.2, 0.1, 0.1);
  Material material{1e5, poisson_ratio, 500, ElasticModel::kFixedCorotated};
  return StvkFemModel(mesh, assign_materials(mesh, material));
}

// Positions moved from rest by a smooth field plus noise (3#V flat).
Eigen::VectorXd deformed(const Eigen::MatrixX3d& rest, double amplitude) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  Eigen::VectorXd x(3 * rest.rows());
  for (Eigen::Index v = 0; v < rest.rows(); ++v)
    for (int c = 0; c < 3; ++c) x(3 * v + c) = rest(v, c) * (1 + 0.1 * c) + amplitude * u(rng);
  return x;
}

VertexRows rows(const Eigen::VectorXd& flat) {
  return Eigen::Map<const VertexRows>(flat.data(), flat.size() / 3, 3);
}

}  // namespace

TEST_CASE("a cloth's projective energy is the sum of its spring energies", "[local_global]") {
  const MassSpringCloth cloth = small_cloth();
  const ProjectiveEnergy energy = projective_cloth_energy(cloth);
  const Eigen::VectorXd x = deformed(cloth.rest_positions, 0.02);
  double springs = 0;
  for (const ClothSpring& s : cloth.springs)
    springs +=
        spring_energy(x.segment<3>(3 * s.i), x.segment<3>(3 * s.j), s.rest_length, s.stiffness);
  CHECK(springs > 0);
  CHECK(energy.energy(rows(x)) == Approx(springs).epsilon(1e-12));
  CHECK(energy.energy(VertexRows(cloth.rest_positions)) == Approx(0).margin(1e-20));
}

TEST_CASE("a corotated mesh's projective energy is fixed corotated with lambda 0",
          "[local_global]") {
  const StvkFemModel model = corotated_block();
  const ProjectiveEnergy energy = projective_corotated_energy(model);
  const Eigen::VectorXd x = deformed(model.mesh().rest_positions, 0.01);
  CHECK(model.lame()[0].lambda == 0);
  CHECK(model.elastic_energy(x) > 0);
  CHECK(energy.energy(rows(x)) == Approx(model.elastic_energy(x)).epsilon(1e-10));
}

TEST_CASE("the projective gradient L x - J p(x) matches finite differences", "[local_global]") {
  const MassSpringCloth cloth = small_cloth();
  const StvkFemModel model = corotated_block();
  for (int which = 0; which < 2; ++which) {
    CAPTURE(which);
    const ProjectiveEnergy energy =
        which == 0 ? projective_cloth_energy(cloth) : projective_corotated_energy(model);
    const Eigen::MatrixX3d rest = which == 0 ? cloth.rest_positions : model.mesh().rest_positions;
    const Eigen::VectorXd x = deformed(rest, 0.01);
    const VertexRows analytic = energy.gradient(rows(x));
    const Eigen::VectorXd numeric = test::finite_gradient(
        x, [&](const Eigen::VectorXd& y) { return energy.energy(rows(y)); }, 1e-6,
        test::Stencil::kCentral4);
    const Eigen::VectorXd flat =
        Eigen::Map<const Eigen::VectorXd>(analytic.data(), analytic.size());
    CHECK(test::relative_error(flat, numeric) < 1e-7);
    // Against the element forces of the full-space model (tets) too.
    if (which == 1) {
      Eigen::VectorXd fem = Eigen::VectorXd::Zero(x.size());
      model.add_elastic_energy_gradient(x, fem);
      CHECK(test::relative_error(flat, fem) < 1e-10);
    }
  }
}

TEST_CASE("L annihilates translations and the gradient vanishes at rest", "[local_global]") {
  const StvkFemModel model = corotated_block();
  const ProjectiveEnergy energy = projective_corotated_energy(model);
  const Eigen::SparseMatrix<double> L = energy.laplacian();
  CHECK((L * Eigen::VectorXd::Ones(L.cols())).cwiseAbs().maxCoeff() < 1e-9 * L.norm());
  const VertexRows rest = model.mesh().rest_positions;
  CHECK(energy.gradient(rest).cwiseAbs().maxCoeff() < 1e-9 * L.norm());
}

TEST_CASE("the local/global energy refuses materials it does not solve exactly", "[local_global]") {
  CHECK_THROWS_WITH(projective_corotated_energy(corotated_block(0.3)),
                    Catch::Contains("tet 0") && Catch::Contains("poisson_ratio 0.3"));
  TetMesh mesh = test::box_mesh(1, 1, 1, 0.1, 0.1, 0.1);
  const StvkFemModel stvk(mesh, assign_materials(mesh, Material{}));
  CHECK_THROWS_WITH(projective_corotated_energy(stvk), Catch::Contains("got stvk"));
  ProjectiveSprings springs;
  springs.ends.resize(1, 2);
  springs.ends << 0, 3;
  springs.rest_lengths = Eigen::VectorXd::Ones(1);
  springs.weights = Eigen::VectorXd::Ones(1);
  CHECK_THROWS_WITH(ProjectiveEnergy(3, springs, {}), Catch::Contains("spring 0"));
  springs.ends << 0, 1;
  springs.rest_lengths(0) = 0;
  CHECK_THROWS_WITH(ProjectiveEnergy(3, springs, {}), Catch::Contains("rest length"));
}
