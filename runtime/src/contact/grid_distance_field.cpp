#include "ramus/runtime/contact/grid_distance_field.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ramus {

LevelSetSample sample_grid_distance(const GridDistanceField& grid, const Eigen::Vector3d& p,
                                    bool with_hessian) noexcept {
  const Eigen::Vector3i& n = grid.samples;
  const auto value = [&](int i, int j, int k) {
    return static_cast<double>(
        grid.values[static_cast<std::size_t>(i) +
                    static_cast<std::size_t>(n(0)) *
                        (static_cast<std::size_t>(j) + static_cast<std::size_t>(n(1)) * k)]);
  };
  // Outside the grid: its nearest point, plus the distance to it.
  const Eigen::Vector3d upper =
      grid.origin + grid.spacing * (n - Eigen::Vector3i::Ones()).cast<double>();
  const Eigen::Vector3d clamped = p.cwiseMax(grid.origin).cwiseMin(upper);
  const Eigen::Vector3d outside = p - clamped;
  // The cell and the local coordinates t in [0, 1]^3.
  const Eigen::Vector3d u = (clamped - grid.origin) / grid.spacing;
  Eigen::Vector3i cell;
  Eigen::Vector3d t;
  for (int a = 0; a < 3; ++a) {
    cell(a) = std::clamp(static_cast<int>(std::floor(u(a))), 0, n(a) - 2);
    t(a) = u(a) - cell(a);
  }
  // f = sum over corners of w_x w_y w_z phi_corner; each w linear in its own coordinate.
  LevelSetSample s;
  for (int c = 0; c < 8; ++c) {
    const int dx = c & 1, dy = (c >> 1) & 1, dz = (c >> 2) & 1;
    const double phi = value(cell(0) + dx, cell(1) + dy, cell(2) + dz);
    const Eigen::Vector3d w(dx ? t(0) : 1 - t(0), dy ? t(1) : 1 - t(1), dz ? t(2) : 1 - t(2));
    const Eigen::Vector3d dw(dx ? 1.0 : -1.0, dy ? 1.0 : -1.0, dz ? 1.0 : -1.0);
    s.value += phi * w(0) * w(1) * w(2);
    s.gradient +=
        phi * Eigen::Vector3d(dw(0) * w(1) * w(2), w(0) * dw(1) * w(2), w(0) * w(1) * dw(2));
    if (!with_hessian) continue;
    s.hessian(0, 1) += phi * dw(0) * dw(1) * w(2);
    s.hessian(0, 2) += phi * dw(0) * w(1) * dw(2);
    s.hessian(1, 2) += phi * w(0) * dw(1) * dw(2);
  }
  s.gradient /= grid.spacing;
  s.hessian(1, 0) = s.hessian(0, 1);
  s.hessian(2, 0) = s.hessian(0, 2);
  s.hessian(2, 1) = s.hessian(1, 2);
  s.hessian /= grid.spacing * grid.spacing;
  // Beyond the grid the clamped coordinates do not move with p: there phi grows by the distance
  // alone (the free coordinates keep the interpolant's derivatives).
  const double away = outside.norm();
  if (away > 0) {
    const Eigen::Vector3d direction = outside / away;
    Eigen::Vector3d free = Eigen::Vector3d::Zero();
    for (int a = 0; a < 3; ++a) free(a) = outside(a) == 0 ? 1.0 : 0.0;
    s.value += away;
    s.gradient = free.cwiseProduct(s.gradient) + direction;
    if (with_hessian)
      s.hessian = free.asDiagonal() * s.hessian * free.asDiagonal() +
                  (Eigen::Vector3d::Ones() - free).asDiagonal().toDenseMatrix() / away -
                  direction * direction.transpose() / away;
  }
  return s;
}

const char* grid_distance_problem(const GridDistanceField& grid) noexcept {
  if (!grid.values) return "grid: values are NULL";
  if (!(std::isfinite(grid.spacing) && grid.spacing > 0)) return "grid: spacing must be positive";
  if (!grid.origin.allFinite()) return "grid: origin is not finite";
  if (!(grid.samples.minCoeff() >= 2)) return "grid: at least 2 samples each way";
  if (!(grid.samples.cast<double>().prod() <= 1e9)) return "grid: more than 1e9 samples";
  // (The message names the first bad value; static: the call allocates nothing.)
  static thread_local char message[96];
  const long long count = grid.samples.cast<long long>().prod();
  for (long long k = 0; k < count; ++k)
    if (!std::isfinite(grid.values[k])) {
      std::snprintf(message, sizeof(message), "grid: value %lld is not finite", k);
      return message;
    }
  return nullptr;
}

}  // namespace ramus
