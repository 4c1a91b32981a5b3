// The energy-stabilized midpoint paper's Fig. 14: a soft bunny launched along a plane. Without
// friction it slides on at its launch speed, unturned; with friction it stops within about
// v² / (2 μ g) and the friction at its asymmetric base turns it.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/formats/mesh_io.h"

using namespace ramus;
using Eigen::Vector3d;

namespace {

constexpr double kGravity = 9.81, kSpeed = 1.0;

// The voxel bunny of data/contact/bunny.msh (scripts/make_voxel_bunny.py) on the floor z = 0.
struct Bunny {
  TetMesh mesh = read_tet_mesh(RAMUS_TEST_DATA_DIR "/../../data/contact/bunny.msh");
  StvkFemModel model{mesh, assign_materials(mesh, {2e5, 0.3, 1000})};
  Eigen::VectorXd masses = model.lumped_vertex_masses();

  FullSpaceOptions options(double friction, FrictionModel friction_model) const {
    FullSpaceOptions o;
    o.time_step = 0.01;
    o.gravity = {0, 0, -kGravity};
    ColliderContact floor;
    floor.collider.shape = ColliderShape::kHalfSpace;
    floor.collider.motion.initial.translation = Vector3d(0, 0, -3e-4);
    floor.delta = 2e-4;
    floor.stiffness = 0;  // automatic, adaptive
    floor.friction = friction;
    o.contact.colliders = {floor};
    o.contact.friction_model = friction_model;
    o.contact.friction_speed = 1e-3;
    return o;
  }
  FullSpaceState launched(const FullSpaceSimulator& simulator) const {
    FullSpaceState s = simulator.rest_state();
    for (int v = 0; v < mesh.num_vertices(); ++v) s.velocities(3 * v) = kSpeed;
    return s;
  }
  Vector3d centre(const Eigen::VectorXd& x) const {
    Vector3d c = Vector3d::Zero();
    for (int v = 0; v < mesh.num_vertices(); ++v) c += masses(v) * x.segment<3>(3 * v);
    return c / masses.sum();
  }
  // The rotation that best maps the rest shape onto x about the centres (the polar factor of the
  // mass-weighted covariance).
  Eigen::AngleAxisd turn(const Eigen::VectorXd& x) const {
    const Vector3d c = centre(x), c0 = centre(model.rest_positions());
    Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();
    for (int v = 0; v < mesh.num_vertices(); ++v)
      covariance += masses(v) * (x.segment<3>(3 * v) - c) *
                    (model.rest_positions().segment<3>(3 * v) - c0).transpose();
    const Eigen::JacobiSVD<Eigen::Matrix3d> svd(covariance,
                                                Eigen::ComputeFullU | Eigen::ComputeFullV);
    return Eigen::AngleAxisd(Eigen::Matrix3d(svd.matrixU() * svd.matrixV().transpose()));
  }
};

struct Slide {
  double distance = 0, speed = 0;     // m, m/s: the centre's travel and speed at the end
  double turn = 0, largest_turn = 0;  // degrees: at the end, and the largest on the way
  double vertical = 0;                // |z| of the end's rotation axis (1: a turn about z)
};

template <typename Step>
Slide slide(const Bunny& bunny, FullSpaceSimulator& simulator, int steps, Step&& step) {
  FullSpaceState state = bunny.launched(simulator);
  const Vector3d start = bunny.centre(state.positions);
  double largest_turn = 0;
  for (int k = 0; k < steps; ++k) {
    REQUIRE(step(simulator, state).converged);
    largest_turn = std::max(largest_turn, bunny.turn(state.positions).angle() * 180 / M_PI);
  }
  Vector3d velocity = Vector3d::Zero();
  for (int v = 0; v < bunny.mesh.num_vertices(); ++v)
    velocity += bunny.masses(v) * state.velocities.segment<3>(3 * v);
  const Eigen::AngleAxisd end_turn = bunny.turn(state.positions);
  return {(bunny.centre(state.positions) - start).x(), velocity.norm() / bunny.masses.sum(),
          end_turn.angle() * 180 / M_PI, largest_turn, std::abs(end_turn.axis().z())};
}

}  // namespace

TEST_CASE("A bunny launched along a plane slides on without friction, and stops and turns with it",
          "[precompute][contact]") {
  const Bunny bunny;
  const int steps = 60;  // 0.6 s
  const auto midpoint = [](FullSpaceSimulator& s, FullSpaceState& x) {
    return s.step_energy_tracking_midpoint(x);
  };
  const auto euler = [](FullSpaceSimulator& s, FullSpaceState& x) {
    return s.step_backward_euler(x);
  };
  FullSpaceSimulator frictionless(bunny.model, DofMap(bunny.mesh.num_vertices(), {}),
                                  bunny.options(0, FrictionModel::kAfterSolve));
  const Slide free = slide(bunny, frictionless, steps, midpoint);
  FullSpaceSimulator after_solve(bunny.model, DofMap(bunny.mesh.num_vertices(), {}),
                                 bunny.options(0.5, FrictionModel::kAfterSolve));
  const Slide braked = slide(bunny, after_solve, steps, midpoint);
  FullSpaceSimulator smoothed(bunny.model, DofMap(bunny.mesh.num_vertices(), {}),
                              bunny.options(0.5, FrictionModel::kSmoothedPotential));
  const Slide smooth = slide(bunny, smoothed, steps, euler);
  const double rigid_stop = kSpeed * kSpeed / (2 * 0.5 * kGravity);  // 0.102 m
  const auto text = [](const Slide& s) {
    return std::to_string(s.distance) + " m, " + std::to_string(s.speed) + " m/s, turned " +
           std::to_string(s.turn) + " deg (at most " + std::to_string(s.largest_turn) +
           ", axis z " + std::to_string(s.vertical) + ")";
  };
  WARN("in 0.6 s: frictionless " << text(free) << "; mu 0.5 im-blend after the solve "
                                 << text(braked) << "; mu 0.5 be smoothed " << text(smooth)
                                 << "; a rigid block stops after v²/(2 mu g) = " << rigid_stop
                                 << " m");

  // Frictionless: on at its launch speed, unturned.
  CHECK(free.distance == Approx(0.6).epsilon(0.005));
  CHECK(free.speed == Approx(kSpeed).epsilon(0.01));
  CHECK(free.largest_turn < 1);
  // The smoothed friction under backward Euler stops it where a rigid block would stop, unturned
  // (its numerical damping calms the rocking that would turn it).
  CHECK(smooth.speed < 0.01);
  CHECK(smooth.distance == Approx(rigid_stop).epsilon(0.1));
  CHECK(smooth.largest_turn < 2);
  // The paper's setting (its integrator, friction on the velocities after the step): it stops,
  // later than a rigid block (its rocking lifts the base off the floor at times), and friction
  // at the asymmetric base turns it about the vertical.
  CHECK(braked.speed < 0.02);
  CHECK(braked.distance > 0.7 * rigid_stop);
  CHECK(braked.distance < 1.6 * rigid_stop);
  CHECK(braked.turn > 3);
  CHECK(braked.vertical > 0.9);
}
