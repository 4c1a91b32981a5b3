// Two square cloths in one surface, for the tests of a cloth against itself.
#pragma once

#include <Eigen/Geometry>
#include <cmath>

#include "ramus/precompute/cloth/mass_spring_cloth.h"

namespace ramus::test {

/// Two n by n cloths: one of `side` m in z = 0, one of `top_side` m turned 30 degrees about z and
/// lifted by `lift` m (vertices and triangles of the first, then of the second).
inline SurfaceMesh two_cloth_layers(int n, double side, double top_side, double lift) {
  const SurfaceMesh one = make_square_cloth(n, side);
  SurfaceMesh both;
  both.vertices.resize(2 * one.num_vertices(), 3);
  both.triangles.resize(2 * one.num_triangles(), 3);
  const Eigen::Matrix3d turn =
      (top_side / side) * Eigen::AngleAxisd(M_PI / 6, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  both.vertices.topRows(one.num_vertices()) = one.vertices;
  both.vertices.bottomRows(one.num_vertices()) =
      (one.vertices * turn.transpose()).rowwise() + Eigen::RowVector3d(0, 0, lift);
  both.triangles.topRows(one.num_triangles()) = one.triangles;
  both.triangles.bottomRows(one.num_triangles()) = one.triangles.array() + one.num_vertices();
  return both;
}

}  // namespace ramus::test
