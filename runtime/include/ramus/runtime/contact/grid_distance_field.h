// A signed distance sampled on a regular grid: the collider of a shape no analytic one fits
// (the optimization paper's §5.2, "we found linear interpolation to work well"). The values
// belong to whoever made them (the game, or precompute's GridLevelSet); the field points at them.
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/contact/level_set_shapes.h"

namespace ramus {

/// phi (m, negative inside) at origin + spacing (i, j, k) of the collider's frame, i fastest:
/// samples(0) by samples(1) by samples(2) floats at `values` (not owned: they must outlive every
/// collider that holds the field).
struct GridDistanceField {
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();   ///< the first sample (m)
  double spacing = 0;                                 ///< m
  Eigen::Vector3i samples = Eigen::Vector3i::Zero();  ///< at least 2 each way
  const float* values = nullptr;
};

/// The trilinear interpolant at p (m, the grid's frame) with its exact gradient and, with
/// `with_hessian`, its Hessian; outside the grid, phi at the grid's nearest point plus the
/// distance to it (an upper bound of the distance it samples), with the derivatives of that.
LevelSetSample sample_grid_distance(const GridDistanceField& grid, const Eigen::Vector3d& p,
                                    bool with_hessian = true) noexcept;

/// nullptr when the grid can be sampled; otherwise what is wrong ("grid: values are NULL",
/// "grid: spacing must be positive", "grid: value 17 is not finite", ...). Reads every value.
const char* grid_distance_problem(const GridDistanceField& grid) noexcept;

}  // namespace ramus
