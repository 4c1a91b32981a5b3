#include "ramus/precompute/contact/collider_surface.h"

#include "ramus/precompute/contact/grid_level_set.h"

#include <cmath>
#include <vector>

namespace ramus {

namespace {

// A grid of (rows + 1) x (columns + 1) points, appended, as 2 triangles per cell.
void add_grid(std::vector<Eigen::Vector3d>& points, std::vector<Eigen::Vector3i>& triangles,
              int rows, int columns, const auto& point_at) {
  const int first = static_cast<int>(points.size());
  for (int i = 0; i <= rows; ++i)
    for (int j = 0; j <= columns; ++j) points.push_back(point_at(i, j));
  const auto id = [&](int i, int j) { return first + i * (columns + 1) + j; };
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < columns; ++j) {
      triangles.emplace_back(id(i, j), id(i + 1, j), id(i + 1, j + 1));
      triangles.emplace_back(id(i, j), id(i + 1, j + 1), id(i, j + 1));
    }
}

// The point where the ray from the origin along `direction` leaves the shape (phi = 0), by
// bisection: the origin is inside every convex shape here.
Eigen::Vector3d surface_along(const LevelSetCollider& c, const Eigen::Vector3d& direction) {
  const Eigen::Vector3d d = direction.normalized();
  double inside = 0, outside = 1;
  while (sample_local_level_set(c.shape, c.size, outside * d).value < 0) outside *= 2;
  for (int k = 0; k < 60; ++k) {
    const double middle = 0.5 * (inside + outside);
    (sample_local_level_set(c.shape, c.size, middle * d).value < 0 ? inside : outside) = middle;
  }
  return outside * d;
}

// The bowl's wall outline in (rho, z): inner arc, rounded rim, outer arc.
std::vector<Eigen::Vector2d> bowl_outline(double inner, double thickness, int resolution) {
  std::vector<Eigen::Vector2d> outline;
  const double outer = inner + thickness, middle = inner + 0.5 * thickness;
  for (int k = 0; k <= resolution; ++k) {  // inner arc, bottom to rim
    const double a = -0.5 * M_PI + 0.5 * M_PI * k / resolution;
    outline.emplace_back(inner * std::cos(a), inner * std::sin(a));
  }
  for (int k = 1; k < resolution; ++k) {  // rim, a half circle over the top
    const double a = M_PI - M_PI * k / resolution;
    outline.emplace_back(middle + 0.5 * thickness * std::cos(a), 0.5 * thickness * std::sin(a));
  }
  for (int k = resolution; k >= 0; --k) {  // outer arc, rim to bottom
    const double a = -0.5 * M_PI + 0.5 * M_PI * k / resolution;
    outline.emplace_back(outer * std::cos(a), outer * std::sin(a));
  }
  return outline;
}

}  // namespace

ColliderSurface collider_surface(const LevelSetCollider& collider, double extent, int resolution) {
  std::vector<Eigen::Vector3d> points;
  std::vector<Eigen::Vector3i> triangles;
  const int n = std::max(2, resolution);
  if (collider.shape == ColliderShape::kMesh) {
    // The mesh the grid was built from.
    ColliderSurface surface;
    if (collider.grid) {
      surface.positions = collider.grid->surface().vertices;
      surface.triangles = collider.grid->surface().triangles;
    }
    return surface;
  }
  if (collider.shape == ColliderShape::kHalfSpace) {
    add_grid(points, triangles, 1, 1, [&](int i, int j) {
      return Eigen::Vector3d(extent * (i - 0.5), extent * (j - 0.5), 0);
    });
  } else if (collider.shape == ColliderShape::kBowl) {
    const std::vector<Eigen::Vector2d> outline =
        bowl_outline(collider.size(0), collider.size(1), n);
    add_grid(points, triangles, static_cast<int>(outline.size()) - 1, 4 * n, [&](int i, int j) {
      const double a = 2 * M_PI * j / (4 * n);
      const Eigen::Vector2d& p = outline[static_cast<std::size_t>(i)];
      return Eigen::Vector3d(p(0) * std::cos(a), p(0) * std::sin(a), p(1));
    });
  } else {
    // The six faces of a cube, each an n x n grid of directions.
    for (int axis = 0; axis < 3; ++axis)
      for (const double sign : {-1.0, 1.0}) {
        const int b = (axis + 1) % 3, c = (axis + 2) % 3;
        add_grid(points, triangles, n, n, [&](int i, int j) {
          Eigen::Vector3d d = Eigen::Vector3d::Zero();
          d(axis) = sign;
          d(b) = sign * (2.0 * i / n - 1);
          d(c) = 2.0 * j / n - 1;
          return surface_along(collider, d);
        });
      }
  }
  ColliderSurface surface;
  surface.positions.resize(static_cast<Eigen::Index>(points.size()), 3);
  for (std::size_t k = 0; k < points.size(); ++k)
    surface.positions.row(static_cast<Eigen::Index>(k)) = points[k].transpose();
  surface.triangles.resize(static_cast<Eigen::Index>(triangles.size()), 3);
  for (std::size_t k = 0; k < triangles.size(); ++k)
    surface.triangles.row(static_cast<Eigen::Index>(k)) = triangles[k].transpose();
  return surface;
}

Eigen::MatrixX3d placed_surface(const ColliderSurface& surface, const LevelSetCollider& collider,
                                double time) {
  const RigidPose pose = collider.motion.pose_at(time);
  return ((surface.positions * pose.rotation.transpose()).rowwise() + pose.translation.transpose());
}

}  // namespace ramus
