// Implicit Euler for the mass-spring cloth: the matrix-free system against the one assembled from
// the forces' finite differences, the CG step against a dense solve, free fall against its closed
// form, rest against the static equilibrium, and the strain rule on a yanked cloth.
#include <Eigen/Dense>
#include <catch2/catch.hpp>

#include "ramus/precompute/cloth/implicit_euler_cloth.h"
#include "support/finite_differences.h"

using namespace ramus;

namespace {

ClothSettings soft_cloth() {
  ClothSettings s;
  s.stretch_stiffness = 200;
  s.bend_stiffness = 5;
  s.spring_damping = 0.05;
  s.cg_tolerance = 1e-12;
  s.cg_iterations = 10000;
  return s;
}

// A state stretched 5 % (every spring in tension) with some velocity.
ClothState stretched(const ImplicitEulerCloth& sim) {
  ClothState s = sim.rest_state();
  s.positions *= 1.05;
  s.velocities = Eigen::VectorXd::LinSpaced(s.positions.size(), -0.3, 0.4);
  for (int p : sim.cloth().pinned) s.velocities.segment<3>(3 * p).setZero();
  return s;
}

}  // namespace

TEST_CASE(
    "The matrix-free system is M - h df/dv - h^2 df/dx of the forces' finite differences, "
    "pinned rows the identity",
    "[precompute][cloth]") {
  const MassSpringCloth cloth =
      build_mass_spring_cloth(make_square_cloth(4, 1.0), soft_cloth(), {0, 3}, "square");
  const double h = 0.02;
  ImplicitEulerCloth sim(cloth, soft_cloth(), h, Eigen::Vector3d(0, 0, -9.81));
  const ClothState s = stretched(sim);
  const Eigen::VectorXd b = sim.prepare(s, Eigen::VectorXd(), h);
  // df/dx and df/dv by central differences of f(x, v).
  const Eigen::MatrixXd dfdx = test::finite_jacobian(
      s.positions,
      [&](const Eigen::VectorXd& x) -> Eigen::VectorXd {
        return sim.forces({x, s.velocities, 0}, Eigen::VectorXd());
      },
      1e-6, test::Stencil::kCentral4);
  const Eigen::MatrixXd dfdv = test::finite_jacobian(
      s.velocities,
      [&](const Eigen::VectorXd& v) -> Eigen::VectorXd {
        return sim.forces({s.positions, v, 0}, Eigen::VectorXd());
      },
      1e-6, test::Stencil::kCentral4);
  const Eigen::Index n = s.positions.size();
  Eigen::MatrixXd A =
      cloth.particle_mass * Eigen::MatrixXd::Identity(n, n) - h * dfdv - h * h * dfdx;
  Eigen::VectorXd b_expected = h * (sim.forces(s, Eigen::VectorXd()) + h * dfdx * s.velocities);
  for (int p : cloth.pinned)
    for (int c = 0; c < 3; ++c) {
      A.row(3 * p + c).setZero();
      A.col(3 * p + c).setZero();
      A(3 * p + c, 3 * p + c) = 1;
      b_expected(3 * p + c) = 0;
    }
  const Eigen::VectorXd probe = Eigen::VectorXd::LinSpaced(n, 1, -2).array().sin();
  Eigen::VectorXd product;
  sim.system().multiply(probe, product);
  CHECK((product - A * probe).norm() <= 1e-6 * (A * probe).norm());
  CHECK((b - b_expected).norm() <= 1e-7 * b_expected.norm());
  CHECK((sim.system().inverse_diagonal().cwiseInverse() - A.diagonal()).norm() <=
        1e-6 * A.diagonal().norm());
  // One step: CG's Δv is the dense solve's.
  ClothState stepped = s;
  bool converged = false;
  const int iterations = sim.step(stepped, Eigen::VectorXd(), h, converged);
  CHECK(converged);
  CHECK(iterations > 0);
  const Eigen::VectorXd dv = A.ldlt().solve(b_expected);
  CHECK((stepped.velocities - s.velocities - dv).norm() <= 1e-6 * dv.norm());
  CHECK((stepped.positions - s.positions - h * stepped.velocities).norm() <= 1e-14);
  CHECK(stepped.time == Approx(h));
}

TEST_CASE("A free cloth at rest falls as implicit Euler's closed form", "[precompute][cloth]") {
  const MassSpringCloth cloth =
      build_mass_spring_cloth(make_square_cloth(5, 1.0), soft_cloth(), {}, "square");
  const double h = 0.01;
  const Eigen::Vector3d g(0.5, 0, -9.81);
  ImplicitEulerCloth sim(cloth, soft_cloth(), h, g);
  ClothState s = sim.rest_state();
  const ClothState rest = s;
  for (int k = 0; k < 10; ++k) sim.advance(s, Eigen::VectorXd());
  // v_k = k h g, x_k = x_0 + h² g (1 + ... + k): no spring stretched.
  for (int p = 0; p < cloth.num_particles(); ++p) {
    CHECK((s.velocities.segment<3>(3 * p) - 10 * h * g).norm() <= 1e-9);
    CHECK((s.positions.segment<3>(3 * p) - rest.positions.segment<3>(3 * p) - 55 * h * h * g)
              .norm() <= 1e-9);
  }
  CHECK(s.time == Approx(10 * h));
}

TEST_CASE("A cloth pinned at two corners comes to rest at the static equilibrium, losing energy",
          "[precompute][cloth]") {
  ClothSettings settings = soft_cloth();
  settings.spring_damping = 0.5;
  settings.cg_tolerance = 1e-10;
  const SurfaceMesh surface = make_square_cloth(6, 1.0);
  // Hung in the x-z plane, the top corners pinned.
  SurfaceMesh hung = surface;
  hung.vertices.col(2) = surface.vertices.col(1);
  hung.vertices.col(1).setZero();
  const MassSpringCloth cloth = build_mass_spring_cloth(hung, settings, {30, 35}, "hung");
  ImplicitEulerCloth sim(cloth, settings, 1.0 / 60, Eigen::Vector3d(0, 0, -9.81));
  ClothState s = sim.rest_state();
  double energy = sim.energy(s);
  const double start = energy;
  for (int frame = 0; frame < 600; ++frame) {
    sim.advance(s, Eigen::VectorXd());
    const double e = sim.energy(s);
    CHECK(e <= energy + 1e-9 * std::abs(start) + 1e-12);
    energy = e;
  }
  // At rest: every free particle's net force below 1e-4 of its weight.
  const Eigen::VectorXd f = sim.forces(s, Eigen::VectorXd());
  const double weight = cloth.particle_mass * 9.81;
  for (int p = 0; p < cloth.num_particles(); ++p) {
    if (p == 30 || p == 35) continue;
    CHECK(f.segment<3>(3 * p).norm() <= 1e-4 * weight);
  }
  CHECK(s.velocities.cwiseAbs().maxCoeff() <= 1e-4);
  CHECK(energy < start);
}

TEST_CASE(
    "A yanked cloth's steps are halved until no stretch spring changes by more than the "
    "limit in a step, then return to the frame's size",
    "[precompute][cloth]") {
  // An 8 by 8 cloth pinned at its two corners at y = +0.5 m, falling; from t = 0.5 s a 14 N pull
  // on a free corner for three frames. Run with the rule, and with it off (max_halvings 0).
  const auto run = [](int max_halvings, int& discarded, double& largest) {
    ClothSettings settings;
    settings.stretch_stiffness = 400;
    settings.strain_limit = 0.1;
    settings.max_halvings = max_halvings;
    settings.cg_tolerance = 1e-8;
    settings.cg_iterations = 2000;
    const int n = 8;
    const MassSpringCloth cloth = build_mass_spring_cloth(make_square_cloth(n, 1.0), settings,
                                                          {n * (n - 1), n * n - 1}, "sq");
    const double frame = 1.0 / 60;
    ImplicitEulerCloth sim(cloth, settings, frame, Eigen::Vector3d(0, 0, -9.81));
    ClothState s = sim.rest_state();
    discarded = 0;
    largest = 0;
    int frames_after = 0;
    for (int f = 0; f < 90; ++f) {
      Eigen::VectorXd pull = Eigen::VectorXd::Zero(3 * cloth.num_particles());
      if (s.time >= 0.5 && s.time < 0.55) pull.segment<3>(0) = Eigen::Vector3d(-8, -8, -8);
      const ClothStepReport report = sim.advance(s, pull);
      discarded += report.discarded;
      largest = std::max(largest, report.largest_step_strain);
      CHECK(report.cg_converged);
      if (max_halvings == 0) continue;
      CHECK_FALSE(report.strain_kept_over);
      if (report.discarded > 0) CHECK(report.steps > 1);
      // Back to one step a frame once the pull is over.
      if (s.time > 0.7) {
        ++frames_after;
        CHECK(report.next_step == Approx(frame));
        CHECK(report.steps == 1);
      }
    }
    CHECK(s.positions.allFinite());
    if (max_halvings > 0) CHECK(frames_after > 0);
  };
  int discarded = 0, discarded_off = 0;
  double largest = 0, largest_off = 0;
  run(10, discarded, largest);
  run(0, discarded_off, largest_off);
  CHECK(discarded > 0);
  CHECK(largest <= 0.1);
  CHECK(discarded_off == 0);
  CHECK(largest_off > 0.1);
}
