// Collisions as constraints (optimization paper §5.1): the projection lands on the surface and
// is idempotent; the gradient of E'(P(x)) through P and its Hessian at an active vertex match
// finite differences (sphere: curved, so the curvature term counts); a block dropped on a
// constraint floor rests exactly on it carrying its weight; on a slope it sticks or slides with
// g (sin theta - mu cos theta) under friction after the solve; a sphere collider is never
// entered.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/precompute/contact/constraint_projection.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "support/finite_differences.h"
#include "support/test_meshes.h"

using namespace ramus;
using Eigen::Vector3d;

namespace {

constexpr double kGravity = 9.81;

ColliderContact constraint(ColliderShape shape, const Vector3d& position, double radius = 0) {
  ColliderContact c;
  c.collider.shape = shape;
  c.collider.size(0) = radius;
  c.collider.motion.initial.translation = position;
  c.model = ContactModel::kConstraint;
  return c;
}

// The 10 cm cube of 1 kg (2 x 2 x 2 cells) with its bottom `height` above z = 0, falling under
// gravity at h = 10 ms onto `collider`.
struct FallingBlock {
  TetMesh mesh;
  StvkFemModel model;
  FullSpaceOptions options;
  FallingBlock(double height, const ColliderContact& collider)
      : mesh(lifted(height)), model(mesh, assign_materials(mesh, {2e5, 0.3, 1000})) {
    options.time_step = 0.01;
    options.gravity = {0, 0, -kGravity};
    options.contact.colliders = {collider};
  }
  static TetMesh lifted(double height) {
    TetMesh m = test::box_mesh(2, 2, 2, 0.1, 0.1, 0.1);
    m.rest_positions.col(2).array() += height;
    return m;
  }
};

// E'(x) = sum_v |x_v - t_v|^4 / 4 + w_v . x_v: smooth, with a non-trivial Hessian.
struct Quartic {
  Eigen::VectorXd targets, weights;
  double value(const Eigen::VectorXd& x) const {
    double e = 0;
    for (Eigen::Index v = 0; v < x.size() / 3; ++v) {
      const double r2 = (x.segment<3>(3 * v) - targets.segment<3>(3 * v)).squaredNorm();
      e += 0.25 * r2 * r2 + weights.segment<3>(3 * v).dot(x.segment<3>(3 * v));
    }
    return e;
  }
  Eigen::VectorXd gradient(const Eigen::VectorXd& x) const {
    Eigen::VectorXd g(x.size());
    for (Eigen::Index v = 0; v < x.size() / 3; ++v) {
      const Vector3d d = x.segment<3>(3 * v) - targets.segment<3>(3 * v);
      g.segment<3>(3 * v) = d.squaredNorm() * d + weights.segment<3>(3 * v);
    }
    return g;
  }
  Eigen::Matrix3d hessian(const Eigen::VectorXd& x, int v) const {
    const Vector3d d = x.segment<3>(3 * v) - targets.segment<3>(3 * v);
    return d.squaredNorm() * Eigen::Matrix3d::Identity() + 2 * d * d.transpose();
  }
};

}  // namespace

TEST_CASE(
    "The constraint projection lands on the surface, and E'(P(x)) has the derivatives its "
    "Jacobian and curvature terms give",
    "[precompute][contact]") {
  const std::vector<ColliderContact> colliders = {
      constraint(ColliderShape::kSphere, Vector3d(0, 0, 0), 0.5)};
  ConstraintProjection projection(colliders, 3);
  // Vertex 0 inside the sphere, 1 outside, 2 inside and deeper.
  Eigen::VectorXd x(9);
  x << 0.3, 0.1, 0.2, 0.9, -0.2, 0.1, -0.1, 0.15, -0.05;
  Eigen::VectorXd p = x;
  projection.project(colliders, 0, p);
  CHECK(p.segment<3>(0).norm() == Approx(0.5).epsilon(1e-14));
  CHECK(p.segment<3>(3) == x.segment<3>(3));
  CHECK(p.segment<3>(6).norm() == Approx(0.5).epsilon(1e-14));
  Eigen::VectorXd twice = p;
  projection.project(colliders, 0, twice);
  CHECK((twice - p).norm() < 1e-15);

  // The gradient through P at the unprojected x, violated vertices projected.
  Quartic e;
  e.targets = Eigen::VectorXd::Constant(9, 0.1);
  e.weights = Eigen::VectorXd::LinSpaced(9, -1, 1);
  const auto projected_energy = [&](const Eigen::VectorXd& y) {
    Eigen::VectorXd q = y;
    projection.project(colliders, 0, q);
    return e.value(q);
  };
  Eigen::VectorXd gradient = e.gradient(p);
  projection.pull_back_gradient(colliders, 0, x, gradient);
  const Eigen::VectorXd numeric = test::finite_gradient(x, projected_energy, 1e-6);
  CHECK(test::relative_error(gradient, numeric) < 1e-7);

  // At the projected point, vertex 0 active (E' pushes it inward): the Hessian of E'(P(x)) is
  // J H' J + the curvature term on its block.
  // Vertices 0 and 2 touch; E' made to press both inward (g' = 3 x_v, along n).
  for (int v : {0, 2})
    e.weights.segment<3>(3 * v) += 3.0 * p.segment<3>(3 * v) - e.gradient(p).segment<3>(3 * v);
  projection.update_active(colliders, 0, p, e.gradient(p));
  Eigen::MatrixXd analytic = Eigen::MatrixXd::Zero(9, 9);
  for (int v = 0; v < 3; ++v) analytic.block<3, 3>(3 * v, 3 * v) = e.hessian(p, v);
  int active = 0;
  projection.for_each_active(colliders, 0, p, e.gradient(p),
                             [&](int v, const Eigen::Matrix3d& j, const Eigen::Matrix3d& curv) {
                               ++active;
                               analytic.block<3, 3>(3 * v, 3 * v) = j * e.hessian(p, v) * j + curv;
                             });
  REQUIRE(active == 2);
  const auto active_energy = [&](const Eigen::VectorXd& y) {
    Eigen::VectorXd q = y;
    projection.project(colliders, 0, q);
    return e.value(q);
  };
  const Eigen::MatrixXd numeric_hessian = test::finite_hessian(p, active_energy, 1e-5);
  CHECK(test::relative_error(analytic, numeric_hessian) < 1e-5);
}

TEST_CASE("A block dropped on a constraint floor rests exactly on it and carries its weight",
          "[precompute][contact]") {
  const FallingBlock block(0.05, constraint(ColliderShape::kHalfSpace, Vector3d::Zero()));
  const TetMesh& mesh = block.mesh;
  const StvkFemModel& model = block.model;
  FullSpaceSimulator simulator(model, DofMap(mesh.num_vertices(), {}), block.options);
  FullSpaceState state = simulator.rest_state();
  double lowest = INFINITY;
  for (int step = 0; step < 150; ++step) {
    REQUIRE(simulator.step_backward_euler(state).converged);
    for (int v = 0; v < mesh.num_vertices(); ++v)
      lowest = std::min(lowest, state.positions(3 * v + 2));
  }
  CHECK(lowest > -1e-12);  // never inside
  const ContactStatistics& s = simulator.contact_statistics();
  CHECK(std::abs(s.smallest_distance) < 1e-12);  // resting on it
  CHECK(s.active_contacts == 9);
  CHECK(s.normal_force == Approx(model.total_mass() * kGravity).epsilon(1e-6));
  CHECK(s.contact_energy == 0);
}

TEST_CASE(
    "On a constraint slope a block sticks below the friction angle and slides with "
    "g (sin theta - mu cos theta) above it",
    "[precompute][contact]") {
  const auto run = [](double tan_theta, double mu, FrictionModel friction_model) {
    const double theta = std::atan(tan_theta);
    const Eigen::Matrix3d tilt = Eigen::AngleAxisd(theta, Vector3d::UnitY()).toRotationMatrix();
    TetMesh mesh = test::box_mesh(2, 2, 2, 0.1, 0.1, 0.1);
    for (int v = 0; v < mesh.num_vertices(); ++v)
      mesh.rest_positions.row(v) = (tilt * mesh.rest_positions.row(v).transpose()).transpose();
    const StvkFemModel model(mesh, assign_materials(mesh, {2e5, 0.3, 1000}));
    FullSpaceOptions options;
    options.time_step = 0.01;
    options.gravity = {0, 0, -kGravity};
    ColliderContact slope = constraint(ColliderShape::kHalfSpace, Vector3d::Zero());
    slope.collider.motion.initial.rotation = tilt;
    slope.friction = mu;
    options.contact.colliders = {slope};
    options.contact.friction_model = friction_model;
    FullSpaceSimulator simulator(model, DofMap(mesh.num_vertices(), {}), options);
    FullSpaceState state = simulator.rest_state();
    const Vector3d down_slope = tilt * Vector3d::UnitX();
    const auto centre = [&](const FullSpaceState& s) -> Vector3d {
      return Eigen::Map<const Eigen::Matrix3Xd>(s.positions.data(), 3, mesh.num_vertices())
          .rowwise()
          .mean();
    };
    // Settle for 0.5 s, then over 1 s: the distance along the slope and the acceleration.
    for (int step = 0; step < 50; ++step) REQUIRE(simulator.step_backward_euler(state).converged);
    const Vector3d start = centre(state);
    const auto speed = [&](const FullSpaceState& s) {
      const Vector3d v =
          Eigen::Map<const Eigen::Matrix3Xd>(s.velocities.data(), 3, mesh.num_vertices())
              .rowwise()
              .mean();
      return v.dot(down_slope);
    };
    const double start_speed = speed(state);
    for (int step = 0; step < 100; ++step) REQUIRE(simulator.step_backward_euler(state).converged);
    const double travelled = (centre(state) - start).dot(down_slope);
    return std::pair<double, double>{travelled, (speed(state) - start_speed) / 1.0};
  };
  // The smoothed friction (its normal force the last step's multiplier) sticks; friction after
  // the solve creeps a little under backward Euler, as with the potentials.
  const double stuck = run(0.3, 0.5, FrictionModel::kSmoothedPotential).first;
  const double crept = run(0.3, 0.5, FrictionModel::kAfterSolve).first;
  const double free_slide = run(0.3, 0, FrictionModel::kAfterSolve).first;
  const double smoothed = run(0.8, 0.5, FrictionModel::kSmoothedPotential).second;
  const double after_solve = run(0.8, 0.5, FrictionModel::kAfterSolve).second;
  const double theta = std::atan(0.8);
  const double expected = kGravity * (std::sin(theta) - 0.5 * std::cos(theta));
  WARN("constraint slope: stuck drift "
       << stuck << " m (after the solve " << crept << " m; frictionless " << free_slide
       << " m); sliding acceleration " << smoothed << ", " << after_solve << " m/s^2 (expected "
       << expected << ")");
  CHECK(std::abs(stuck) < 1e-3);
  CHECK(std::abs(crept) < 0.05 * free_slide);
  CHECK(smoothed == Approx(expected).epsilon(0.05));
  CHECK(after_solve == Approx(expected).epsilon(0.05));
}

TEST_CASE("A block dropped onto a constraint sphere never enters it", "[precompute][contact]") {
  const FallingBlock block(0.02,
                           constraint(ColliderShape::kSphere, Vector3d(0.05, 0.05, -0.05), 0.05));
  FullSpaceSimulator simulator(block.model, DofMap(block.mesh.num_vertices(), {}), block.options);
  FullSpaceState state = simulator.rest_state();
  int largest = 0;
  for (int step = 0; step < 40; ++step) {
    REQUIRE(simulator.step_backward_euler(state).converged);
    CHECK(simulator.contact_statistics().smallest_distance > -1e-12);
    largest = std::max(largest, simulator.contact_statistics().active_contacts);
  }
  CHECK(largest >= 1);  // the bottom face's centre vertex lands on the sphere's top
}
