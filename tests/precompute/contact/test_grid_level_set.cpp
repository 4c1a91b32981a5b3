// Grid level sets of closed meshes (OpenVDB's signed distance, trilinear interpolation): the
// distance of a box's surface against the analytic one; the interpolant's gradient and Hessian
// against finite differences; beyond the grid; bad surfaces; and a block resting on a mesh floor
// as it rests on the analytic half-space.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "ramus/error.h"
#include "ramus/precompute/contact/grid_level_set.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/mesh/boundary_surface.h"
#include "support/finite_differences.h"
#include "support/test_meshes.h"

using namespace ramus;
using Eigen::Vector3d;
using test::finite_gradient;
using test::finite_jacobian;
using test::relative_error;

namespace {

// The closed surface of the box [lower, upper] (12 triangles, outward).
SurfaceMesh box_surface(const Vector3d& lower, const Vector3d& upper) {
  TetMesh cell = test::box_mesh(1, 1, 1, 1, 1, 1);
  SurfaceMesh s;
  s.triangles = boundary_triangles(cell.tets);
  s.vertices = cell.rest_positions;
  for (int v = 0; v < s.num_vertices(); ++v)
    s.vertices.row(v) =
        (lower + s.vertices.row(v).transpose().cwiseProduct(upper - lower)).transpose();
  return s;
}

// The exact signed distance of that box.
double box_distance(const Vector3d& p, const Vector3d& lower, const Vector3d& upper) {
  const Vector3d centre = 0.5 * (lower + upper), half = 0.5 * (upper - lower);
  const Vector3d q = (p - centre).cwiseAbs() - half;
  return q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
}

}  // namespace

TEST_CASE("A box mesh's grid level set is its signed distance", "[precompute][contact]") {
  const Vector3d lower(0, 0, 0), upper(0.4, 0.3, 0.2);
  const double voxel = 0.01, band = 0.05;
  const GridLevelSet grid =
      grid_level_set_from_surface(box_surface(lower, upper), voxel, band, "box");
  std::mt19937 random(5);
  std::uniform_real_distribution<double> unit(0, 1);
  double largest_error = 0;
  int flat_points = 0;
  for (int k = 0; k < 2000; ++k) {
    // Inside the box, or outside within the band.
    const Vector3d p = lower - Vector3d::Constant(band) +
                       Vector3d(unit(random), unit(random), unit(random))
                           .cwiseProduct(upper - lower + Vector3d::Constant(2 * band));
    const double exact = box_distance(p, lower, upper);
    if (exact > band - voxel) continue;
    const double error = std::abs(grid.sample(p).value - exact);
    largest_error = std::max(largest_error, error);
    // Where the distance is one face's (linear over the cell), the interpolant is exact.
    const Vector3d q = (p - 0.5 * (lower + upper)).cwiseAbs() - 0.5 * (upper - lower);
    std::sort(const_cast<double*>(q.data()), const_cast<double*>(q.data()) + 3);
    if (exact > 0 && q(1) < -2 * voxel) {
      ++flat_points;
      CHECK(error < 1e-5);
    }
  }
  INFO("largest error " << largest_error << " m over the box and band");
  CHECK(largest_error < voxel);
  CHECK(flat_points > 100);
}

TEST_CASE("The grid level set's gradient and Hessian are its interpolant's",
          "[precompute][contact]") {
  const Vector3d lower(0, 0, 0), upper(0.4, 0.3, 0.2);
  const GridLevelSet grid =
      grid_level_set_from_surface(box_surface(lower, upper), 0.01, 0.05, "box");
  std::mt19937 random(9);
  std::uniform_real_distribution<double> unit(-0.03, 0.43);
  for (int k = 0; k < 50; ++k) {
    Vector3d p(unit(random), 0.75 * unit(random), 0.5 * unit(random));
    // Away from cell faces, where the trilinear interpolant is smooth.
    const Vector3d cell = (p - grid.origin()) / grid.spacing();
    if (((cell.array() - cell.array().floor()) - 0.5).abs().maxCoeff() > 0.4) continue;
    INFO("p = " << p.transpose());
    const LevelSetSample s = grid.sample(p);
    const auto value = [&](const Eigen::VectorXd& x) { return grid.sample(x).value; };
    const auto gradient = [&](const Eigen::VectorXd& x) -> Eigen::VectorXd {
      return grid.sample(x).gradient;
    };
    CHECK(relative_error(s.gradient, finite_gradient(p, value, 1e-6)) < 1e-6);
    CHECK((s.hessian - finite_jacobian(p, gradient, 1e-6)).norm() < 1e-4 * (1 + s.hessian.norm()));
  }
  // Beyond the grid, phi grows by the distance, continuously from its edge.
  const Vector3d far(2.0, 0.1, 0.1),
      edge = grid.origin() +
             grid.spacing() * (grid.samples() - Eigen::Vector3i::Ones()).cast<double>();
  CHECK(grid.sample(far).value ==
        Approx(grid.sample(Vector3d(edge.x(), 0.1, 0.1)).value + (2.0 - edge.x())));
  CHECK(grid.sample(far).gradient.isApprox(Vector3d::UnitX()));
  CHECK(grid.sample(Vector3d(edge.x() - 1e-9, 0.1, 0.1)).value ==
        Approx(grid.sample(Vector3d(edge.x() + 1e-9, 0.1, 0.1)).value).margin(1e-8));
}

TEST_CASE("A grid level set refuses open surfaces and oversized grids", "[precompute][contact]") {
  SurfaceMesh open = box_surface(Vector3d::Zero(), Vector3d::Ones());
  open.triangles.conservativeResize(open.triangles.rows() - 1, 3);
  CHECK_THROWS_AS(grid_level_set_from_surface(open, 0.1, 0.1, "open.obj"), InputError);
  CHECK_THROWS_WITH(grid_level_set_from_surface(box_surface(Vector3d::Zero(), Vector3d::Ones()),
                                                1e-4, 0.1, "box", 1 << 20),
                    Catch::Contains("use a larger voxel size"));
}

TEST_CASE("A block rests on a mesh floor as on the analytic half-space", "[precompute][contact]") {
  TetMesh block = test::box_mesh(2, 2, 2, 0.1, 0.1, 0.1);
  for (int v = 0; v < block.num_vertices(); ++v) block.rest_positions(v, 2) += 0.01;
  const StvkFemModel model(block, assign_materials(block, {2e5, 0.3, 1000}));
  const auto rest_height = [&](ColliderContact floor) {
    FullSpaceOptions o;
    o.time_step = 0.01;
    o.gravity = Vector3d(0, 0, -9.81);
    floor.delta = 2e-3;
    floor.stiffness = 0;
    o.contact.colliders = {floor};
    FullSpaceSimulator simulator(model, DofMap(block.num_vertices(), {}), o);
    FullSpaceState state = simulator.rest_state();
    double smallest = INFINITY;
    for (int step = 0; step < 100; ++step) {
      REQUIRE(simulator.step_backward_euler(state).converged);
      smallest = std::min(smallest, simulator.contact_statistics().smallest_distance);
    }
    CHECK(smallest > 0);
    CHECK(simulator.contact_statistics().normal_force ==
          Approx(model.total_mass() * 9.81).epsilon(0.03));
    double lowest = INFINITY;
    for (int v = 0; v < block.num_vertices(); ++v)
      lowest = std::min(lowest, state.positions(3 * v + 2));
    return lowest;
  };
  ColliderContact analytic;
  analytic.collider.shape = ColliderShape::kHalfSpace;
  ColliderContact mesh;
  mesh.collider.shape = ColliderShape::kMesh;
  mesh.collider.grid = std::make_shared<const GridLevelSet>(grid_level_set_from_surface(
      box_surface(Vector3d(-0.5, -0.5, -0.2), Vector3d(0.5, 0.5, 0)), 0.004, 0.01, "floor"));
  const double on_analytic = rest_height(analytic), on_mesh = rest_height(mesh);
  INFO("lowest vertex on the half-space " << on_analytic << " m, on the mesh " << on_mesh << " m");
  CHECK(on_mesh > 0);
  CHECK(on_mesh == Approx(on_analytic).margin(2e-4));
}

TEST_CASE("A block slides down a mesh ramp at g (sin theta - mu cos theta)",
          "[precompute][contact]") {
  // The wedge of data/contact/ramp.obj: tan(theta) = 0.8, falling towards +y.
  SurfaceMesh ramp;
  ramp.vertices.resize(6, 3);
  ramp.vertices << -0.2, 0, 0, 0.2, 0, 0, 0.2, 0.5, 0, -0.2, 0.5, 0, -0.2, 0, 0.4, 0.2, 0, 0.4;
  ramp.triangles.resize(8, 3);
  ramp.triangles << 0, 2, 1, 0, 3, 2, 0, 1, 5, 0, 5, 4, 1, 2, 5, 0, 4, 3, 3, 5, 2, 3, 4, 5;
  ColliderContact collider;
  collider.collider.shape = ColliderShape::kMesh;
  collider.collider.grid =
      std::make_shared<const GridLevelSet>(grid_level_set_from_surface(ramp, 0.01, 0.02, "ramp"));
  collider.delta = 0.005;
  collider.stiffness = 0;
  collider.friction = 0.5;
  // The block turned onto the slope, 6 mm above it.
  const double theta = std::atan(0.8);
  const Eigen::Matrix3d turn = Eigen::AngleAxisd(-theta, Vector3d::UnitX()).toRotationMatrix();
  const Vector3d normal(0, std::sin(theta), std::cos(theta)),
      down_slope(0, std::cos(theta), -std::sin(theta));
  TetMesh block = test::box_mesh(2, 2, 2, 0.1, 0.1, 0.1);
  const Vector3d offset = Vector3d(0, 0.25, 0.2) + 0.006 * normal - turn * Vector3d(0.05, 0.05, 0);
  for (int v = 0; v < block.num_vertices(); ++v)
    block.rest_positions.row(v) =
        (turn * block.rest_positions.row(v).transpose() + offset).transpose();
  const StvkFemModel model(block, assign_materials(block, {2e5, 0.3, 1000}));
  FullSpaceOptions o;
  o.time_step = 0.01;
  o.gravity = Vector3d(0, 0, -9.81);
  o.contact.friction_speed = 1e-4;
  o.contact.colliders = {collider};
  FullSpaceSimulator simulator(model, DofMap(block.num_vertices(), {}), o);
  FullSpaceState state = simulator.rest_state();
  const Eigen::VectorXd masses = model.lumped_vertex_masses();
  const auto speed_along = [&] {
    double s = 0;
    for (int v = 0; v < block.num_vertices(); ++v)
      s += masses(v) * down_slope.dot(state.velocities.segment<3>(3 * v));
    return s / masses.sum();
  };
  double speed_then = 0;
  for (int step = 1; step <= 30; ++step) {
    REQUIRE(simulator.step_backward_euler(state).converged);
    CHECK(simulator.contact_statistics().smallest_distance > 0);
    if (step == 10) speed_then = speed_along();
  }
  const double acceleration = (speed_along() - speed_then) / 0.2;
  const double expected = 9.81 * (std::sin(theta) - 0.5 * std::cos(theta));
  INFO("acceleration " << acceleration << " m/s², expected " << expected);
  CHECK(acceleration == Approx(expected).epsilon(0.05));
}
