// The implicit Euler cloth against colliders (Baraff and Witkin's constraints): the filtered CG
// step against the dense constrained solve, a cloth dropped on a sphere resting on it, Coulomb
// friction on an incline against its closed form (stick, and slide at g (sin θ - μ cos θ)), a hold
// let go when the cloth leaves, and a rising floor carrying the cloth.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/precompute/cloth/implicit_euler_cloth.h"

using namespace ramus;
using Eigen::Vector3d;

namespace {

ClothSettings tight_cloth() {
  ClothSettings s;
  s.stretch_stiffness = 300;
  s.cg_tolerance = 1e-12;
  s.cg_iterations = 10000;
  return s;
}

// The plane z = 0 (solid below), moving up at `speed` (m/s), with Coulomb's mu.
ClothCollider floor_plane(double mu, double speed = 0) {
  ClothCollider c;
  c.collider.shape = ColliderShape::kHalfSpace;
  c.collider.motion.linear_velocity = Vector3d(0, 0, speed);
  c.friction = mu;
  c.delta = 1e-3;
  return c;
}

ClothCollider sphere(double radius, const Vector3d& centre) {
  ClothCollider c;
  c.collider.shape = ColliderShape::kSphere;
  c.collider.size(0) = radius;
  c.collider.motion.initial.translation = centre;
  c.delta = 1e-3;
  return c;
}

// The mean of the particles' velocities (m/s).
Vector3d mean_velocity(const ClothState& s) {
  return s.velocities.reshaped(3, s.velocities.size() / 3).rowwise().mean();
}

}  // namespace

TEST_CASE(
    "A step with held particles is the dense constrained solve: their normal velocity the "
    "collider's, the free rows solved, the impulses pushing",
    "[precompute][cloth]") {
  // A 4 by 4 cloth on the floor, its middle pressed down and sliding, held by the floor.
  const MassSpringCloth cloth =
      build_mass_spring_cloth(make_square_cloth(4, 0.3), tight_cloth(), {}, "square");
  const double h = 0.01;
  ImplicitEulerCloth sim(cloth, tight_cloth(), h, Vector3d(0, 0, -9.81));
  sim.set_colliders({floor_plane(0)});
  ClothState s = sim.rest_state();
  for (int p = 0; p < cloth.num_particles(); ++p)
    s.velocities.segment<3>(3 * p) = Vector3d(0.3, -0.1 * p, -0.5);
  const ClothState start = s;
  // The dense system and right-hand side at the start, and the constrained solve by definition:
  // every particle held (all on the floor), Δv_z = -v_z, (A Δv - b)_xy = 0.
  const Eigen::VectorXd b = sim.prepare(start, Eigen::VectorXd(), h);
  const Eigen::Index n = b.size();
  Eigen::MatrixXd A(n, n);
  Eigen::VectorXd column;
  for (Eigen::Index j = 0; j < n; ++j) {
    sim.system().multiply_unfiltered(Eigen::VectorXd::Unit(n, j), column);
    A.col(j) = column;
  }
  std::vector<Eigen::Index> tangential;
  Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
  for (int p = 0; p < cloth.num_particles(); ++p) {
    tangential.push_back(3 * p);
    tangential.push_back(3 * p + 1);
    z(3 * p + 2) = -start.velocities(3 * p + 2);
  }
  const Eigen::VectorXd rhs = (b - A * z)(tangential);
  Eigen::VectorXd expected = z;
  const Eigen::MatrixXd A_tangential = A(tangential, tangential);
  const Eigen::VectorXd dv_tangential = A_tangential.ldlt().solve(rhs);
  expected(tangential) = dv_tangential;
  // The step.
  bool converged = false;
  ClothStepReport report;
  sim.step(s, Eigen::VectorXd(), h, converged, &report);
  CHECK(converged);
  CHECK(report.contacts == cloth.num_particles());
  CHECK(report.releases == 0);
  const Eigen::VectorXd dv = s.velocities - start.velocities;
  CHECK((dv - expected).norm() <= 1e-8 * expected.norm());
  const Eigen::VectorXd impulse = A * dv - b;
  for (int p = 0; p < cloth.num_particles(); ++p) {
    CHECK(std::abs(s.velocities(3 * p + 2)) < 1e-12);
    CHECK(impulse(3 * p + 2) > 0);
    CHECK(std::abs(s.positions(3 * p + 2)) < 1e-12);  // on the floor
  }
}

TEST_CASE("A cloth dropped on a sphere comes to rest on it (implicit Euler, constraints)",
          "[precompute][cloth]") {
  // A free 0.5 m cloth of 9 x 9 particles, 5 cm above a sphere of radius 0.15 m, h = 1/60 s.
  ClothSettings settings;
  settings.stretch_stiffness = 300;
  settings.spring_damping = 0.01;
  const MassSpringCloth cloth =
      build_mass_spring_cloth(make_square_cloth(9, 0.5), settings, {}, "square");
  const Vector3d centre(0, 0, -0.2);
  const int middle = 40;  // the particle at the cloth's centre, over the sphere's top
  REQUIRE(cloth.rest_positions.row(middle).head<2>().norm() < 1e-12);
  for (const bool with_sphere : {true, false}) {
    CAPTURE(with_sphere);
    ImplicitEulerCloth sim(cloth, settings, 1.0 / 60, Vector3d(0, 0, -9.81));
    if (with_sphere) sim.set_colliders({sphere(0.15, centre)});
    ClothState state = sim.rest_state();
    double deepest = 0;
    for (int frame = 0; frame < 180; ++frame) {
      const ClothStepReport report = sim.advance(state, Eigen::VectorXd());
      if (with_sphere) deepest = std::max(deepest, -report.smallest_distance);
    }
    const double z = state.positions(3 * middle + 2);
    if (with_sphere) {
      CHECK(std::abs(z - (centre.z() + 0.15)) < 0.002);
      CHECK(deepest < 1e-3);
      CHECK(state.velocities.cwiseAbs().maxCoeff() < 0.05);  // at rest
    } else {
      CHECK(z < -0.6);
    }
  }
}

TEST_CASE(
    "Coulomb friction on an incline: the cloth sticks for mu > tan(theta) and slides at g (sin "
    "theta - mu cos theta) below",
    "[precompute][cloth]") {
  // A 5 by 5 cloth lying on the floor, gravity tilted by 20 degrees (the incline), 1 s.
  const double theta = 20 * M_PI / 180, g = 9.81, h = 0.01;
  const Vector3d gravity(g * std::sin(theta), 0, -g * std::cos(theta));
  const MassSpringCloth cloth =
      build_mass_spring_cloth(make_square_cloth(5, 0.2), tight_cloth(), {}, "square");
  for (const double mu : {0.0, 0.2, 0.5}) {
    CAPTURE(mu);
    ImplicitEulerCloth sim(cloth, tight_cloth(), h, gravity);
    sim.set_colliders({floor_plane(mu)});
    ClothState state = sim.rest_state();
    for (int frame = 0; frame < 100; ++frame) sim.advance(state, Eigen::VectorXd());
    const double expected = std::max(0.0, g * (std::sin(theta) - mu * std::cos(theta))) * 1.0;
    const Vector3d v = mean_velocity(state);
    CHECK(std::abs(v.x() - expected) <= 1e-6 + 1e-6 * expected);
    CHECK(std::abs(v.y()) < 1e-9);
    CHECK(state.positions.reshaped(3, cloth.num_particles()).row(2).cwiseAbs().maxCoeff() < 1e-9);
  }
}

TEST_CASE("A cloth thrown up off the floor is let go, a rising floor carries it",
          "[precompute][cloth]") {
  const MassSpringCloth cloth =
      build_mass_spring_cloth(make_square_cloth(5, 0.2), tight_cloth(), {}, "square");
  const double h = 0.01;
  SECTION("thrown up at 1 m/s: every hold pulls, is let go, the cloth rises") {
    ImplicitEulerCloth sim(cloth, tight_cloth(), h, Vector3d(0, 0, -9.81));
    sim.set_colliders({floor_plane(0.5)});
    ClothState state = sim.rest_state();
    for (int p = 0; p < cloth.num_particles(); ++p) state.velocities(3 * p + 2) = 1.0;
    bool converged = false;
    ClothStepReport report;
    sim.step(state, Eigen::VectorXd(), h, converged, &report);
    CHECK(report.releases == cloth.num_particles());
    CHECK(report.contacts == 0);
    CHECK(std::abs(mean_velocity(state).z() - (1.0 - 9.81 * h)) < 1e-9);
  }
  SECTION("a floor rising at 0.3 m/s lifts the cloth with it, none of it inside") {
    ImplicitEulerCloth sim(cloth, tight_cloth(), h, Vector3d(0, 0, -9.81));
    sim.set_colliders({floor_plane(0, 0.3)});
    ClothState state = sim.rest_state();
    double deepest = 0;
    for (int frame = 0; frame < 50; ++frame)
      deepest = std::max(deepest, -sim.advance(state, Eigen::VectorXd()).smallest_distance);
    CHECK(deepest < 1e-9);
    CHECK(std::abs(mean_velocity(state).z() - 0.3) < 1e-9);
    CHECK(std::abs(state.positions(2) - 0.15) < 1e-9);
  }
}
