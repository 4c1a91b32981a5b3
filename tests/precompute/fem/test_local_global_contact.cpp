// The local/global solver's colliders (Projective Dynamics' collision constraints): a cloth
// dropped on a sphere comes to rest on it, no vertex deeper than the weight's g h² / c, where
// without the sphere it falls through; the midpoint paper's Fig. 15: a corotated block dropped on
// five spheres bounces back near its height with the energy-stabilized midpoint and barely with
// backward Euler; Coulomb friction on an incline against its closed form; the cloth repulsion
// keeps a layer thrown onto another a thickness above it.
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/precompute/fem/local_global_integrator.h"
#include "support/cloth_layers.h"
#include "support/test_meshes.h"

using namespace ramus;
using Eigen::Vector3d;

namespace {

LevelSetCollider sphere(double radius, const Vector3d& centre) {
  LevelSetCollider c;
  c.shape = ColliderShape::kSphere;
  c.size(0) = radius;
  c.motion.initial.translation = centre;
  return c;
}

Eigen::VectorXd flat(const Eigen::MatrixX3d& rows) {
  const VertexRows r = rows;
  return Eigen::Map<const Eigen::VectorXd>(r.data(), r.size());
}

}  // namespace

TEST_CASE("a cloth dropped on a sphere rests on it (local/global colliders)", "[local_global]") {
  // A free 0.5 m cloth of 9 x 9 particles, 5 cm above a sphere of radius 0.15 m, h = 1/60 s.
  ClothSettings settings;
  settings.stretch_stiffness = 300;
  const MassSpringCloth cloth =
      build_mass_spring_cloth(make_square_cloth(9, 0.5), settings, {}, "test");
  const ProjectiveEnergy energy = projective_cloth_energy(cloth);
  const Vector3d centre(0, 0, -0.2);
  const int middle = 40;  // the particle at the cloth's centre, over the sphere's top
  REQUIRE(cloth.rest_positions.row(middle).head<2>().norm() < 1e-12);
  for (const bool with_sphere : {true, false}) {
    CAPTURE(with_sphere);
    LocalGlobalOptions o;
    o.time_step = 1.0 / 60;
    o.gravity = {0, 0, -9.81};
    o.momentum_damping = 0.05;
    if (with_sphere) o.colliders = {sphere(0.15, centre)};
    LocalGlobalIntegrator lg(energy,
                             Eigen::VectorXd::Constant(cloth.num_particles(), cloth.particle_mass),
                             {}, flat(cloth.rest_positions), o);
    FullSpaceState state = lg.rest_state();
    double deepest = 0;
    for (int step = 0; step < 180; ++step)
      deepest = std::max(deepest, lg.step(state, LocalGlobalMethod::kBackwardEuler).deepest);
    const double z = state.positions(3 * middle + 2);
    if (with_sphere) {
      CHECK(std::abs(z - (centre.z() + 0.15)) < 0.005);
      CHECK(deepest < 0.005);
      CHECK(state.velocities.cwiseAbs().maxCoeff() < 0.05);  // at rest
    } else {
      CHECK(z < -0.6);  // in free fall: ½ g t² = 4.9 m in 3 s
    }
  }
}

TEST_CASE(
    "a corotated block bounces on spheres with the local/global blend, barely with "
    "backward Euler (the midpoint paper's Fig. 15)",
    "[local_global]") {
  // The 10 cm block (2³ cells, E = 1e6 Pa, nu = 0) dropped 12 cm onto five spheres of radius
  // 4 cm under its corners and centre, h = 2.5 ms, 0.6 s.
  TetMesh mesh = test::box_mesh(2, 2, 2, 0.1, 0.1, 0.1);
  const double drop = 0.12;
  mesh.rest_positions.col(2).array() += drop;
  const StvkFemModel model(mesh,
                           assign_materials(mesh, {1e6, 0, 1000, ElasticModel::kFixedCorotated}));
  const ProjectiveEnergy energy = projective_corotated_energy(model);
  LocalGlobalOptions o;
  o.time_step = 0.0025;
  o.gravity = {0, 0, -9.81};
  for (const Vector3d& top : {Vector3d(0, 0, 0), Vector3d(0.1, 0, 0), Vector3d(0, 0.1, 0),
                              Vector3d(0.1, 0.1, 0), Vector3d(0.05, 0.05, 0)})
    o.colliders.push_back(sphere(0.04, top - Vector3d(0, 0, 0.04)));
  LocalGlobalIntegrator lg(energy, model.lumped_vertex_masses(), {}, model.rest_positions(), o);
  const Eigen::VectorXd m = model.lumped_vertex_masses();
  const auto centre_height = [&](const FullSpaceState& s) {
    double z = 0;
    for (int v = 0; v < mesh.num_vertices(); ++v) z += m(v) * s.positions(3 * v + 2);
    return z / m.sum();
  };
  // The highest the centre rises after the first touch, as a fraction of the drop; the deepest
  // vertex; the largest change of H.
  struct Bounce {
    double fraction = 0, deepest = 0, drift = 0;
  };
  const auto bounce = [&](LocalGlobalMethod method) {
    FullSpaceState state = lg.rest_state();
    const double touch = centre_height(state) - drop, start = lg.total_energy(state);
    double highest = -INFINITY;
    bool left = false;
    Bounce b;
    for (int step = 0; step < 240; ++step) {
      b.deepest = std::max(b.deepest, lg.step(state, method).deepest);
      b.drift = std::max(b.drift, std::abs(lg.total_energy(state) - start));
      if (state.time > 0.2 && state.velocities.segment<3>(0).z() > 0) left = true;
      if (left) highest = std::max(highest, centre_height(state));
    }
    b.fraction = (highest - touch) / drop;
    return b;
  };
  const Bounce blend = bounce(LocalGlobalMethod::kEnergyStabilizedMidpoint);
  const Bounce euler = bounce(LocalGlobalMethod::kBackwardEuler);
  const double fall = model.total_mass() * 9.81 * drop;
  CAPTURE(blend.fraction, blend.drift / fall, euler.fraction, euler.drift / fall, blend.deepest);
  CHECK(blend.fraction >= 0.5);   // the rest of its energy shakes and turns it
  CHECK(blend.fraction <= 1.02);  // no higher than it fell from
  CHECK(blend.drift < 0.03 * fall);
  CHECK(euler.fraction > -0.1);  // held by the spheres (a fall past them: below -0.5)
  CHECK(euler.fraction < 0.2);
  CHECK(euler.drift > 0.3 * fall);  // backward Euler's impact dissipates
  CHECK(blend.deepest < 0.01);
  CHECK(euler.deepest < 0.01);
}

TEST_CASE(
    "local/global colliders' Coulomb friction: a cloth on an incline sticks for mu > tan(theta) "
    "and slides at g (sin theta - mu cos theta) below",
    "[local_global]") {
  // A 5 x 5 cloth of 0.2 m on the floor z = 0, gravity tilted by 20 degrees, 2 s of backward
  // Euler (Projective Dynamics).
  const double theta = 20 * M_PI / 180, g = 9.81, seconds = 2;
  ClothSettings settings;
  settings.stretch_stiffness = 300;
  const MassSpringCloth cloth =
      build_mass_spring_cloth(make_square_cloth(5, 0.2), settings, {}, "test");
  const ProjectiveEnergy energy = projective_cloth_energy(cloth);
  LevelSetCollider floor;
  floor.shape = ColliderShape::kHalfSpace;
  for (const double mu : {0.0, 0.2, 0.5}) {
    CAPTURE(mu);
    LocalGlobalOptions o;
    o.time_step = 0.01;
    o.gravity = Vector3d(g * std::sin(theta), 0, -g * std::cos(theta));
    o.colliders = {floor};
    o.collider_friction = {mu};
    LocalGlobalIntegrator lg(energy,
                             Eigen::VectorXd::Constant(cloth.num_particles(), cloth.particle_mass),
                             {}, flat(cloth.rest_positions), o);
    FullSpaceState state = lg.rest_state();
    double taken = 0;
    for (int step = 0; step < 200; ++step)
      taken += lg.step(state, LocalGlobalMethod::kBackwardEuler).friction_loss;
    const Eigen::Vector3d v = state.velocities.reshaped(3, cloth.num_particles()).rowwise().mean();
    const double expected = std::max(0.0, g * (std::sin(theta) - mu * std::cos(theta))) * seconds;
    // Backward Euler's closed form for a constant acceleration a: x_n = x_0 + a h² n (n + 1) / 2.
    const double moved = (state.positions - flat(cloth.rest_positions))
                             .reshaped(3, cloth.num_particles())
                             .row(0)
                             .mean();
    CHECK(std::abs(moved - expected / seconds * 0.01 * 0.01 * 200 * 201 / 2) < 1e-5);
    if (mu == 0) {
      CHECK(std::abs(v.x() - expected) < 1e-9 * expected);
      CHECK(taken == 0);
    } else {
      CHECK(std::abs(v.x() - expected) < 1e-6 * g * seconds);
      CHECK(taken > 0);
    }
    CHECK(std::abs(v.y()) < 1e-9);
    CHECK(std::abs(v.z()) < 1e-3);
  }
  // A friction for each collider, each finite and >= 0.
  LocalGlobalOptions bad;
  bad.colliders = {floor};
  bad.collider_friction = {-0.1};
  CHECK_THROWS_WITH(
      LocalGlobalIntegrator(energy, Eigen::VectorXd::Constant(cloth.num_particles(), 1e-3), {},
                            flat(cloth.rest_positions), bad),
      Catch::Contains("collider 0's friction must be a finite mu >= 0"));
  bad.collider_friction = {0.1, 0.2};
  CHECK_THROWS_WITH(
      LocalGlobalIntegrator(energy, Eigen::VectorXd::Constant(cloth.num_particles(), 1e-3), {},
                            flat(cloth.rest_positions), bad),
      Catch::Contains("2 friction coefficients for 1 colliders"));
}

TEST_CASE(
    "local/global with the cloth's repulsion: a cloth thrown down onto another on the floor rests "
    "a thickness above it, without the repulsion it passes into it",
    "[local_global]") {
  // A 0.2 m cloth turned 30 degrees, 5 cm over a 0.3 m one on the floor, thrown down at 3 m/s;
  // 1 s of backward Euler (Projective Dynamics).
  ClothSettings settings;
  settings.stretch_stiffness = 300;
  const MassSpringCloth cloth = build_mass_spring_cloth(test::two_cloth_layers(10, 0.3, 0.2, 0.05),
                                                        settings, {}, "two layers");
  const ProjectiveEnergy energy = projective_cloth_energy(cloth);
  const int half = cloth.num_particles() / 2;
  LevelSetCollider floor;
  floor.shape = ColliderShape::kHalfSpace;
  for (const bool repulsion : {true, false}) {
    CAPTURE(repulsion);
    LocalGlobalOptions o;
    o.time_step = 1.0 / 60;
    o.gravity = {0, 0, -9.81};
    o.momentum_damping = 0.05;
    o.colliders = {floor};
    ClothSelfRepulsionOptions thickness;
    thickness.thickness = 0.005;
    thickness.stiffness = settings.stretch_stiffness;
    if (repulsion) o.self_contact = LocalGlobalSelfContact{cloth.triangles, thickness};
    LocalGlobalIntegrator lg(energy,
                             Eigen::VectorXd::Constant(cloth.num_particles(), cloth.particle_mass),
                             {}, flat(cloth.rest_positions), o);
    FullSpaceState state = lg.rest_state();
    for (int p = half; p < cloth.num_particles(); ++p) state.velocities(3 * p + 2) = -3;
    double lowest = 1;
    int impulses = 0;
    for (int step = 0; step < 60; ++step) {
      impulses += lg.step(state, LocalGlobalMethod::kBackwardEuler).self_impulses;
      lowest = std::min(
          lowest, state.positions.reshaped(3, cloth.num_particles()).row(2).tail(half).minCoeff());
    }
    const double top = state.positions.reshaped(3, cloth.num_particles()).row(2).tail(half).mean();
    if (repulsion) {
      CHECK_THROWS_WITH(lg.step(state, LocalGlobalMethod::kEnergyStabilizedMidpoint),
                        Catch::Contains("steps with backward Euler only"));
      CHECK(impulses > 0);
      CHECK(lowest > 0.9 * thickness.thickness);
      CHECK(top == Approx(thickness.thickness).margin(0.001));
      CHECK(state.velocities.cwiseAbs().maxCoeff() < 0.05);
    } else {
      CHECK(impulses == 0);
      CHECK(lowest < 0.1 * thickness.thickness);
    }
  }
}
