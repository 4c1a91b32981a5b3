// Grid distance fields as colliders (runtime/contact/grid_distance_field.h): the trilinear
// interpolant's gradient and Hessian against finite differences, its values against the
// analytic distance it samples, malformed grids refused by name, and a beam falling onto a
// sphere given as a grid resting where it rests on the analytic sphere.
#include <catch2/catch.hpp>

#include <cstring>

#include "ramus/runtime/contact/contact_samples.h"
#include "ramus/runtime/contact/grid_distance_field.h"
#include "ramus/runtime/contact/reduced_contact.h"
#include "ramus/runtime/dynamics/reconstruction.h"
#include "ramus/runtime/dynamics/step.h"
#include "support/finite_differences.h"
#include "support/random_models.h"
#include "support/split_beams.h"

namespace ramus {
namespace {

constexpr double kRadius = 0.1, kSpacing = 0.01;

// The signed distance of a sphere of kRadius about the origin on a grid of kSpacing covering
// [-1.5, 1.5] radii each way.
struct SphereGrid {
  std::vector<float> values;
  GridDistanceField field;
  SphereGrid() {
    const int n = 31;
    field.origin = Eigen::Vector3d::Constant(-1.5 * kRadius);
    field.spacing = kSpacing;
    field.samples = Eigen::Vector3i::Constant(n);
    values.resize(static_cast<std::size_t>(n * n * n));
    for (int k = 0; k < n; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          values[static_cast<std::size_t>(i + n * (j + n * k))] = static_cast<float>(
              (field.origin + kSpacing * Eigen::Vector3d(i, j, k)).norm() - kRadius);
    field.values = values.data();
  }
};

}  // namespace

TEST_CASE("a grid distance field interpolates its samples with exact derivatives",
          "[contact][grid][fd]") {
  const SphereGrid grid;
  test::Random random(3);
  for (int trial = 0; trial < 20; ++trial) {
    // Inside the grid (away from cell faces, where the interpolant's gradient jumps) and beyond.
    Eigen::Vector3d p = random.matrix(3, 1, 1.3 * kRadius);
    p = (p / kSpacing).array().floor() * kSpacing + kSpacing * random.between(3, 0.2, 0.8).array();
    const bool inside = trial % 4 != 3;
    if (!inside) p *= 3;  // outside the grid
    const LevelSetSample s = sample_grid_distance(grid.field, p);
    INFO("p = " << p.transpose());
    // The interpolant's error on a sphere of radius 10 spacings: below spacing² / radius;
    // beyond the grid, an upper bound.
    if (inside)
      CHECK(std::abs(s.value - (p.norm() - kRadius)) < kSpacing * kSpacing / kRadius);
    else
      CHECK(s.value >= p.norm() - kRadius - kSpacing * kSpacing / kRadius);
    const auto value = [&](const Eigen::VectorXd& x) {
      return sample_grid_distance(grid.field, x).value;
    };
    const auto gradient = [&](const Eigen::VectorXd& x) -> Eigen::VectorXd {
      return sample_grid_distance(grid.field, x).gradient;
    };
    const Eigen::VectorXd g_fd = test::finite_gradient(p, value, 1e-6, test::Stencil::kCentral4);
    CHECK((s.gradient - g_fd).norm() <= 1e-6 * s.gradient.norm());
    const Eigen::MatrixXd H_fd = test::finite_jacobian(p, gradient, 1e-6, test::Stencil::kCentral4);
    CHECK((s.hessian - H_fd).norm() <= 1e-5 * std::max(1.0, s.hessian.norm()));
    // Without its Hessian: the same value and gradient.
    const LevelSetSample lean = sample_grid_distance(grid.field, p, false);
    CHECK(lean.value == s.value);
    CHECK((lean.gradient - s.gradient).norm() == 0);
  }
}

TEST_CASE("malformed grids are refused by name", "[contact][grid]") {
  SphereGrid grid;
  CHECK(grid_distance_problem(grid.field) == nullptr);
  GridDistanceField bad = grid.field;
  bad.values = nullptr;
  CHECK(std::strcmp(grid_distance_problem(bad), "grid: values are NULL") == 0);
  bad = grid.field;
  bad.spacing = 0;
  CHECK(std::strcmp(grid_distance_problem(bad), "grid: spacing must be positive") == 0);
  bad = grid.field;
  bad.samples(1) = 1;
  CHECK(std::strcmp(grid_distance_problem(bad), "grid: at least 2 samples each way") == 0);
  grid.values[17] = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::strcmp(grid_distance_problem(grid.field), "grid: value 17 is not finite") == 0);
  // As a collider: refused with the grid's reason, the state untouched.
  const auto model = compile_model(*test::split_beam(1, 12));
  State state = make_state(*model);
  Collider collider;
  collider.shape = ColliderShape::kMesh;
  collider.grid = grid.field;
  collider.pose.translation = Eigen::Vector3d(0, 0, -1);
  const ColliderResult result = add_collider(*model, state, collider);
  CHECK(result.status == ColliderStatus::kInvalid);
  CHECK(std::string(result.message).find("value 17 is not finite") != std::string::npos);
  CHECK(state.colliders.empty());
}

TEST_CASE("a beam falls onto a sphere given as a grid and rests where it rests on the sphere",
          "[contact][grid]") {
  const SphereGrid grid;
  std::shared_ptr<ReducedModel> data = test::split_beam(1, 12);
  for (ReducedPart& part : data->parts) attach_contact_samples(part, kMaxContactSamples);
  const auto model = compile_model(*data);
  const int tip = test::split_beam_tip(test::split_beam_mesh());
  // The analytic sphere and the grid, 5 cm below the beam's bottom face at x = 0.8 m.
  Collider sphere;
  sphere.shape = ColliderShape::kSphere;
  sphere.size(0) = kRadius;
  sphere.pose.translation = Eigen::Vector3d(0.8, 0.1, -0.05 - kRadius);
  Collider gridded = sphere;
  gridded.shape = ColliderShape::kMesh;
  gridded.size.setZero();
  gridded.grid = grid.field;
  double tip_z[2] = {0, 0}, smallest[2] = {INFINITY, INFINITY};
  for (int c = 0; c < 2; ++c) {
    State state = make_state(*model);
    Workspace workspace(*model);
    state.settings.time_step = 0.01;
    for (DomainSettings& d : state.settings.domains) d.rayleigh_mass = 2;
    REQUIRE(add_collider(*model, state, c == 0 ? sphere : gridded).status == ColliderStatus::kOk);
    for (int step = 0; step < 150; ++step) {
      REQUIRE(ramus::step(*model, state, workspace) == StepStatus::kOk);
      smallest[c] = std::min(smallest[c], measure_contact(*model, state).smallest_distance);
    }
    Eigen::MatrixX3d positions;
    global_positions(*model, state, positions);
    tip_z[c] = positions(tip, 2);
  }
  WARN("tip at rest: " << tip_z[0] << " m on the sphere, " << tip_z[1] << " m on the grid; "
                       << "smallest distance " << smallest[0] << " and " << smallest[1] << " m");
  CHECK(std::abs(tip_z[1] - tip_z[0]) < 1e-3);
  CHECK(smallest[1] > 0);
}

}  // namespace ramus
