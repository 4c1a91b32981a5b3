// Grid level sets of closed triangle meshes, for colliders no analytic shape fits (the
// optimization paper's §5.2): the signed distance sampled on a regular grid by OpenVDB's
// mesh-to-level-set conversion, interpolated trilinearly with the interpolant's own exact
// gradient and Hessian (the paper's choice: "we found linear interpolation to work well").
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "ramus/precompute/contact/level_set_collider.h"
#include "ramus/precompute/mesh/surface_mesh.h"
#include "ramus/runtime/contact/grid_distance_field.h"

namespace ramus {

/// phi sampled at origin + spacing (i, j, k), i fastest; negative inside the mesh.
class GridLevelSet {
 public:
  GridLevelSet() = default;
  GridLevelSet(Eigen::Vector3d origin, double spacing, Eigen::Vector3i samples,
               std::vector<float> values, SurfaceMesh surface);

  /// The trilinear interpolant at p (m) with its exact gradient and Hessian (zero diagonal);
  /// outside the grid, phi at the nearest grid point plus the distance to it
  /// (sample_grid_distance).
  LevelSetSample sample(const Eigen::Vector3d& p) const;

  /// The runtime's view of it (pointing at its values: valid while it lives, unmoved).
  GridDistanceField field() const { return {origin_, spacing_, samples_, values_.data()}; }
  double spacing() const { return spacing_; }
  const Eigen::Vector3i& samples() const { return samples_; }
  const Eigen::Vector3d& origin() const { return origin_; }
  /// The mesh it was built from (local frame, m), for drawing.
  const SurfaceMesh& surface() const { return surface_; }

 private:
  Eigen::Vector3d origin_ = Eigen::Vector3d::Zero();
  double spacing_ = 1;
  Eigen::Vector3i samples_ = Eigen::Vector3i::Zero();
  std::vector<float> values_;
  SurfaceMesh surface_;
};

/// The signed distance of a closed surface (m) on a grid of `voxel_size` (m) covering its box
/// padded by `exterior_band` (m) and two voxels: exact within the band outside and everywhere
/// inside. Throws InputError (naming `file_for_messages`) when the surface is not closed, and
/// OptionError when the grid would exceed `max_samples`.
GridLevelSet grid_level_set_from_surface(const SurfaceMesh& surface, double voxel_size,
                                         double exterior_band, const std::string& file_for_messages,
                                         long long max_samples = 64LL << 20);

}  // namespace ramus
