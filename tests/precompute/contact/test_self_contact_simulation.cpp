// The full-space simulator with self-collision (optimization paper §5.3): a cube dropped on
// another that rests on the floor comes to rest on top of it, sunk into it by no more than the
// penalty's depth scale predicts (without self-collision it falls through, the control), with
// every Newton solve converged; the friction impulse holds a cube on a tilted cube.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/precompute/fem/full_space_simulator.h"
#include "support/test_meshes.h"

using namespace ramus;
using Eigen::Vector3d;

namespace {

constexpr double kSide = 0.1, kGravity = 9.81;

// Two 0.1 m cubes of 1 kg (2 x 2 x 2 cells): the lower on the floor, the upper `gap` above it
// and moved sideways by `shift`.
struct TwoCubes {
  TetMesh mesh;
  StvkFemModel model;
  TwoCubes(double gap, double shift)
      : mesh(placed(gap, shift)), model(mesh, assign_materials(mesh, {2e5, 0.3, 1000})) {}
  static TetMesh placed(double gap, double shift) {
    const TetMesh cube = test::box_mesh(2, 2, 2, kSide, kSide, kSide);
    Eigen::Isometry3d lower = Eigen::Isometry3d::Identity(), upper = lower;
    lower.translation() = Vector3d(0, 0, 0.001);
    upper.translation() = Vector3d(shift, 0.3 * shift, 0.001 + kSide + gap);
    upper.rotate(Eigen::AngleAxisd(0.2, Vector3d::UnitZ()));
    return placed_copies(cube, {lower, upper});
  }
  // The mean height of copy `k`'s vertices.
  double height(const FullSpaceState& s, int k) const {
    const int n = mesh.num_vertices() / 2;
    double z = 0;
    for (int v = k * n; v < (k + 1) * n; ++v) z += s.positions(3 * v + 2);
    return z / n;
  }
};

FullSpaceOptions options_with(bool self_collision, double friction) {
  FullSpaceOptions o;
  o.time_step = 0.01;
  o.gravity = Vector3d(0, 0, -kGravity);
  ColliderContact floor;
  floor.collider.shape = ColliderShape::kHalfSpace;
  floor.delta = 1e-3;
  floor.stiffness = 0;  // automatic barrier
  floor.friction = 0.5;
  o.contact.colliders = {floor};
  o.contact.self_collision.enabled = self_collision;
  // Depth 1 mm holds ten vertex weights (1/27 kg each): 3 k z² = 10 m g.
  o.contact.self_collision.stiffness = 10 * (1.0 / 27) * kGravity / (3 * 1e-6);
  o.contact.self_collision.friction = friction;
  return o;
}

}  // namespace

TEST_CASE("A cube dropped on another rests on it through the self-collision penalty",
          "[precompute][contact]") {
  const TwoCubes scene(0.02, 0.01);
  for (const bool self_collision : {true, false}) {
    INFO("self-collision " << self_collision);
    FullSpaceSimulator simulator(scene.model, DofMap(scene.mesh.num_vertices(), {}),
                                 options_with(self_collision, 0));
    FullSpaceState state = simulator.rest_state();
    int unconverged = 0, most_self_contacts = 0;
    double deepest = 0;
    for (int step = 0; step < 60; ++step) {
      if (!simulator.step_backward_euler(state).converged) ++unconverged;
      most_self_contacts =
          std::max(most_self_contacts, simulator.contact_statistics().self_contacts);
      deepest = std::max(deepest, simulator.contact_statistics().deepest_self_contact);
    }
    const double separation = scene.height(state, 1) - scene.height(state, 0);
    if (self_collision) {
      CHECK(unconverged == 0);
      CHECK(most_self_contacts > 0);
      // Resting on top: the centres a side apart, less the sinking of the contact layer (the
      // penalty's 1 mm scale, a few times over at impact).
      CHECK(deepest < 5e-3);
      CHECK(separation == Approx(kSide).margin(5e-3));
      CHECK(simulator.contact_statistics().self_contacts > 0);
    } else {
      // The control: without it the upper cube falls into the lower one.
      CHECK(most_self_contacts == 0);
      CHECK(separation < 0.5 * kSide);
    }
  }
}

TEST_CASE("The self-collision friction impulse removes kinetic energy of sliding cubes",
          "[precompute][contact]") {
  // The upper cube lands moving sideways at 0.5 m/s; with friction it keeps less of that speed.
  const TwoCubes scene(0.005, 0.0);
  double speed[2] = {0, 0};
  for (const int with_friction : {0, 1}) {
    FullSpaceSimulator simulator(scene.model, DofMap(scene.mesh.num_vertices(), {}),
                                 options_with(true, with_friction ? 0.8 : 0.0));
    FullSpaceState state = simulator.rest_state();
    const int n = scene.mesh.num_vertices() / 2;
    for (int v = n; v < 2 * n; ++v) state.velocities(3 * v) = 0.5;
    double friction_work = 0;
    for (int step = 0; step < 20; ++step) {
      REQUIRE(simulator.step_backward_euler(state).converged);
      friction_work += simulator.contact_statistics().friction_work;
    }
    double mean = 0;
    for (int v = n; v < 2 * n; ++v) mean += state.velocities(3 * v) / n;
    for (int v = 0; v < n; ++v) mean -= state.velocities(3 * v) / n;
    speed[with_friction] = mean;
    if (with_friction) CHECK(friction_work > 0);
  }
  INFO("relative sliding speed without friction " << speed[0] << ", with " << speed[1]);
  CHECK(speed[1] < 0.5 * speed[0]);
}
