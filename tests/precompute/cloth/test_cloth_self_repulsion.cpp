// The cloth against itself (repulsion impulses): a particle closing on a triangle stops at the
// thickness within the step, one inside it is pushed out at 0.1 d / h, momentum kept, friction
// slowing the slip by mu times the normal change; a cloth layer thrown down at 3 m/s onto another
// lying on the floor comes to rest on it a thickness above, where without the repulsion it passes
// into it.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/precompute/cloth/implicit_euler_cloth.h"
#include "support/cloth_layers.h"

using namespace ramus;
using Eigen::Vector3d;

namespace {

// One triangle (particles 0-2) in z = 0 and a free particle 3 above the point (0.2, 0.2, 0).
struct PointOverTriangle {
  Eigen::MatrixX3i triangles = Eigen::RowVector3i(0, 1, 2);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(12);
  Eigen::VectorXd v = Eigen::VectorXd::Zero(12);
  PointOverTriangle(double height, const Vector3d& velocity) {
    x.segment<3>(3) = Vector3d(1, 0, 0);
    x.segment<3>(6) = Vector3d(0, 1, 0);
    x.segment<3>(9) = Vector3d(0.2, 0.2, height);
    v.segment<3>(9) = velocity;
  }
  Vector3d momentum() const { return v.reshaped(3, 4).rowwise().sum(); }
  // The particle's velocity against the triangle's point under it (weights 0.6, 0.2, 0.2).
  Vector3d relative() const {
    return v.segment<3>(9) - 0.6 * v.segment<3>(0) - 0.2 * v.segment<3>(3) - 0.2 * v.segment<3>(6);
  }
};

}  // namespace

TEST_CASE("A particle closing on a triangle stops at the thickness within the step, momentum kept",
          "[precompute][cloth]") {
  const double h = 0.01, mass = 1e-3;
  ClothSelfRepulsionOptions options;
  options.thickness = 0.005;
  PointOverTriangle s(0.01, Vector3d(0, 0, -2));
  const Vector3d momentum = s.momentum();
  const ClothSelfRepulsionReport report =
      apply_cloth_self_repulsion(s.triangles, mass, s.x, h, options, {}, s.v);
  CHECK(report.pairs == 1);
  CHECK(report.closest == Approx(0.01));
  // Closing 5 mm in the step: -0.5 m/s relative, the rest shared by the weights.
  CHECK(s.relative().z() == Approx(-(0.01 - 0.005) / h));
  CHECK((s.momentum() - momentum).norm() < 1e-15);
  CHECK(s.v(11) > -2);
  CHECK(s.v(2) < 0);  // the triangle's corners pushed down
}

TEST_CASE("A particle inside the thickness is pushed out at 0.1 d / h, its slip slowed by friction",
          "[precompute][cloth]") {
  const double h = 0.01, mass = 1e-3;
  ClothSelfRepulsionOptions options;
  options.thickness = 0.005;
  options.stiffness = 1000;
  SECTION("at rest 2 mm over it") {
    PointOverTriangle s(0.002, Vector3d::Zero());
    apply_cloth_self_repulsion(s.triangles, mass, s.x, h, options, {}, s.v);
    CHECK(s.relative().z() == Approx(0.1 * 0.003 / h));
  }
  SECTION("a soft repulsion: h k d / m below 0.1 d / h") {
    options.stiffness = 1;
    PointOverTriangle s(0.002, Vector3d::Zero());
    apply_cloth_self_repulsion(s.triangles, mass, s.x, h, options, {}, s.v);
    CHECK(s.relative().z() == Approx(h * 1 * 0.003 / mass));
  }
  SECTION("sliding at 1 m/s while closing at 1 m/s, mu = 0.2") {
    options.friction = 0.2;
    PointOverTriangle s(0.002, Vector3d(1, 0, -1));
    const Vector3d momentum = s.momentum();
    const ClothSelfRepulsionReport report =
        apply_cloth_self_repulsion(s.triangles, mass, s.x, h, options, {}, s.v);
    const double normal_change = 0.1 * 0.003 / h + 1;  // to +0.03 m/s from -1 m/s
    CHECK(s.relative().z() == Approx(0.1 * 0.003 / h));
    CHECK(s.relative().x() == Approx(1 - 0.2 * normal_change));
    CHECK((s.momentum() - momentum).norm() < 1e-14);
    CHECK(report.friction_work > 0);
  }
}

TEST_CASE(
    "A cloth thrown down onto another lying on the floor rests a thickness above it, without the "
    "repulsion it passes into it",
    "[precompute][cloth]") {
  ClothSettings settings;
  settings.stretch_stiffness = 300;
  settings.thickness = 0.005;
  const MassSpringCloth cloth = build_mass_spring_cloth(test::two_cloth_layers(10, 0.3, 0.3, 0.05),
                                                        settings, {}, "two layers");
  const int half = cloth.num_particles() / 2;
  for (const bool repulsion : {true, false}) {
    CAPTURE(repulsion);
    ImplicitEulerCloth sim(cloth, settings, 1.0 / 60, Vector3d(0, 0, -9.81));
    ClothCollider floor;
    floor.collider.shape = ColliderShape::kHalfSpace;
    floor.delta = 1e-3;
    sim.set_colliders({floor});
    if (repulsion) {
      ClothSelfRepulsionOptions options;
      options.thickness = settings.thickness;
      options.stiffness = settings.stretch_stiffness;
      sim.set_self_repulsion(options);
    }
    ClothState state = sim.rest_state();
    for (int p = half; p < cloth.num_particles(); ++p) state.velocities(3 * p + 2) = -3;
    // Over 1 s, the top layer's particles over the bottom one (its corners past it fall to the
    // floor): the lowest and, at the end, their mean height (the bottom stays on the floor).
    std::vector<int> over;
    for (int p = half; p < cloth.num_particles(); ++p)
      if (cloth.rest_positions.row(p).head<2>().cwiseAbs().maxCoeff() < 0.1) over.push_back(p);
    REQUIRE(over.size() > 30);
    double lowest = 1;
    for (int frame = 0; frame < 60; ++frame) {
      sim.advance(state, Eigen::VectorXd());
      for (int p : over) lowest = std::min(lowest, state.positions(3 * p + 2));
    }
    double top = 0;
    for (int p : over) top += state.positions(3 * p + 2) / static_cast<double>(over.size());
    if (repulsion) {
      CHECK(lowest > 0.9 * settings.thickness);
      CHECK(top == Approx(settings.thickness).margin(0.001));
      CHECK(state.velocities.cwiseAbs().maxCoeff() < 0.05);
    } else {
      CHECK(lowest < 0.1 * settings.thickness);
    }
  }
}
