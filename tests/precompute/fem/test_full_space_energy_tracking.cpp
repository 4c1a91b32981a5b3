// The energy-tracking midpoint in the full space (stabilizing-integrators paper §4): a released
// beam keeps its energy where backward Euler loses it; an elastic cube dropped on a row of
// spheres (the paper's Fig. 15) bounces back to at least 90 % of its drop height, where
// backward Euler's bounce is much lower.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "support/test_meshes.h"

using namespace ramus;
using Eigen::Vector3d;

namespace {

constexpr double kGravity = 9.81;

// A 0.1 m cube (2 x 2 x 2 cells, 1 kg) whose lowest face is at height `drop` above the sphere
// tops (z = 0), over five spheres under its bottom corners and centre: symmetric, so it falls and
// bounces without turning.
struct CubeOnSpheres {
  TetMesh mesh;
  StvkFemModel model;
  explicit CubeOnSpheres(double drop)
      : mesh(lifted(drop)), model(mesh, assign_materials(mesh, {1e6, 0.3, 1000})) {}
  static TetMesh lifted(double drop) {
    TetMesh m = test::box_mesh(2, 2, 2, 0.1, 0.1, 0.1);
    m.rest_positions.col(2).array() += drop;
    return m;
  }
  FullSpaceOptions options(double time_step) const {
    FullSpaceOptions o;
    o.time_step = time_step;
    o.gravity = {0, 0, -kGravity};
    for (const Vector3d& top : {Vector3d(0, 0, 0), Vector3d(0.1, 0, 0), Vector3d(0, 0.1, 0),
                                Vector3d(0.1, 0.1, 0), Vector3d(0.05, 0.05, 0)}) {
      ColliderContact sphere;
      sphere.collider.shape = ColliderShape::kSphere;
      sphere.collider.size(0) = 0.04;
      sphere.collider.motion.initial.translation = top - Vector3d(0, 0, 0.04);
      sphere.model = ContactModel::kPenalty;
      sphere.stiffness = 1e6;  // J/m³: about 7 mm deep at the impact
      o.contact.colliders.push_back(sphere);
    }
    return o;
  }
  double centre_height(const FullSpaceState& s) const {
    const Eigen::VectorXd m = model.lumped_vertex_masses();
    double z = 0;
    for (int v = 0; v < mesh.num_vertices(); ++v) z += m(v) * s.positions(3 * v + 2);
    return z / m.sum();
  }
};

// The highest the cube's centre rises after its first bounce, as a fraction of the drop (its
// height above where it stood at the first touch); the deepest a vertex went into a sphere; and
// the largest change of H = T + V over the run.
struct Bounce {
  double fraction = 0, deepest = 0, energy_drift = 0;
};

template <typename Step>
Bounce bounce(const CubeOnSpheres& cube, FullSpaceSimulator& simulator, double drop, int steps,
              Step&& step) {
  FullSpaceState state = simulator.rest_state();
  const double touch = cube.centre_height(state) - drop;
  const double start_energy = simulator.total_energy(state);
  Bounce result;
  double highest = -INFINITY;
  bool touched = false, left = false;
  for (int k = 0; k < steps; ++k) {
    REQUIRE(step(simulator, state).converged);
    const ContactStatistics& contact = simulator.contact_statistics();
    touched = touched || contact.active_contacts > 0;
    left = left || (touched && contact.active_contacts == 0);
    if (left) highest = std::max(highest, cube.centre_height(state));
    result.deepest = std::max(result.deepest, -contact.smallest_distance);
    result.energy_drift =
        std::max(result.energy_drift, std::abs(simulator.total_energy(state) - start_energy));
  }
  result.fraction = (highest - touch) / drop;
  return result;
}

}  // namespace

TEST_CASE(
    "An elastic cube dropped on spheres bounces back to its height with the energy-tracking "
    "midpoint, not with backward Euler",
    "[precompute][fem][contact]") {
  // 10 cm dropped at 400 Hz for 0.6 s: it touches at 0.14 s and is back up at about 0.45 s.
  const double drop = 0.1, h = 0.0025;
  const int steps = 240;
  const CubeOnSpheres cube(drop);
  FullSpaceSimulator midpoint(cube.model, DofMap(cube.mesh.num_vertices(), {}), cube.options(h));
  const Bounce tracked = bounce(
      cube, midpoint, drop, steps,
      [](FullSpaceSimulator& s, FullSpaceState& x) { return s.step_energy_tracking_midpoint(x); });
  FullSpaceSimulator euler(cube.model, DofMap(cube.mesh.num_vertices(), {}), cube.options(h));
  const Bounce damped =
      bounce(cube, euler, drop, steps,
             [](FullSpaceSimulator& s, FullSpaceState& x) { return s.step_backward_euler(x); });
  WARN("bounce height / drop height: energy-tracking midpoint "
       << tracked.fraction << ", backward Euler " << damped.fraction << "; deepest "
       << tracked.deepest << " m; H drift " << tracked.energy_drift << " J of m g drop "
       << cube.model.total_mass() * kGravity * drop << " J");
  CHECK(tracked.fraction >= 0.9);
  CHECK(tracked.fraction <= 1.0);  // no higher than it fell from
  CHECK(damped.fraction < 0.5);
  CHECK(tracked.deepest < 0.01);
  // The penalty's energy is part of H: through the impact H stays within the 1 % tolerance of
  // its scale (the drop's m g h, about 1 J), allowing for the tolerance's steps.
  CHECK(tracked.energy_drift < 0.03 * cube.model.total_mass() * kGravity * drop);
}

TEST_CASE(
    "Without contact, the energy-tracking midpoint keeps a swinging beam's energy where "
    "backward Euler loses it",
    "[precompute][fem]") {
  // A 1 m beam clamped at one end, released from rest under gravity: it swings about its sagged
  // shape, with H = T + Phi - f.u = 0 throughout (the start's).
  const TetMesh mesh = test::box_mesh(10, 2, 2, 1.0, 0.1, 0.1);
  const StvkFemModel model(mesh, assign_materials(mesh, {1e6, 0.4, 1000}));
  std::vector<int> clamped;
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (mesh.rest_positions(v, 0) == 0.0) clamped.push_back(v);
  FullSpaceOptions options;
  options.time_step = 0.01;
  options.gravity = {0, 0, -kGravity};
  FullSpaceSimulator midpoint(model, DofMap(mesh.num_vertices(), clamped), options);
  FullSpaceSimulator euler(model, DofMap(mesh.num_vertices(), clamped), options);
  FullSpaceState tracked = midpoint.rest_state(), damped = euler.rest_state();
  double largest_kinetic = 0, tracked_drift = 0;
  for (int step = 0; step < 200; ++step) {
    REQUIRE(midpoint.step_energy_tracking_midpoint(tracked).converged);
    REQUIRE(euler.step_backward_euler(damped).converged);
    tracked_drift = std::max(tracked_drift, std::abs(midpoint.total_energy(tracked)));
    const Eigen::VectorXd& v = tracked.velocities;
    largest_kinetic = std::max(largest_kinetic, 0.5 * v.dot(model.consistent_mass_matrix() * v));
  }
  // The swing's energy scale is its largest kinetic energy; the midpoint keeps H within its 1 %
  // tolerance of the scale, while backward Euler has let the beam settle (H well below 0).
  WARN("largest kinetic energy " << largest_kinetic << " J; midpoint |H| at most " << tracked_drift
                                 << " J; backward Euler's H after 2 s "
                                 << euler.total_energy(damped) << " J");
  REQUIRE(largest_kinetic > 0.1);
  CHECK(tracked_drift < 0.02 * largest_kinetic);
  CHECK(euler.total_energy(damped) < -0.3 * largest_kinetic);
  CHECK(tracked.energy_target == Approx(0).margin(1e-12));
}
