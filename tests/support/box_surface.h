// A closed box surface for tests: 8 vertices (vertex i takes x from bit 0, y from bit 1, z from
// bit 2 of i: lo or hi) and 12 outward triangles.
#pragma once

#include <Eigen/Core>

#include "ramus/precompute/mesh/surface_mesh.h"

namespace ramus::test {

inline SurfaceMesh box_surface(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) {
  SurfaceMesh m;
  m.vertices.resize(8, 3);
  for (int i = 0; i < 8; ++i)
    m.vertices.row(i) << (i & 1 ? hi : lo).x(), ((i >> 1) & 1 ? hi : lo).y(),
        (i >> 2 ? hi : lo).z();
  m.triangles.resize(12, 3);
  m.triangles << 0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2,
      4, 6, 1, 3, 5, 3, 7, 5;
  return m;
}

}  // namespace ramus::test
