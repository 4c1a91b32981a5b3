#include "ramus/precompute/contact/grid_level_set.h"

#include <openvdb/openvdb.h>
#include <openvdb/tools/MeshToVolume.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ramus/error.h"

namespace ramus {

GridLevelSet::GridLevelSet(Eigen::Vector3d origin, double spacing, Eigen::Vector3i samples,
                           std::vector<float> values, SurfaceMesh surface)
    : origin_(std::move(origin)),
      spacing_(spacing),
      samples_(std::move(samples)),
      values_(std::move(values)),
      surface_(std::move(surface)) {}

LevelSetSample GridLevelSet::sample(const Eigen::Vector3d& p) const {
  return sample_grid_distance(field(), p);
}

GridLevelSet grid_level_set_from_surface(const SurfaceMesh& surface, double voxel_size,
                                         double exterior_band, const std::string& file_for_messages,
                                         long long max_samples) {
  check_closed_surface(surface, file_for_messages);
  if (!(voxel_size > 0) || !std::isfinite(voxel_size))
    throw OptionError("voxel size must be positive, got " + std::to_string(voxel_size));
  // The grid: the surface's box padded by the band and two voxels.
  const Eigen::Vector3d padding = Eigen::Vector3d::Constant(exterior_band + 2 * voxel_size);
  const Eigen::Vector3d lower = surface.vertices.colwise().minCoeff().transpose() - padding;
  const Eigen::Vector3d upper = surface.vertices.colwise().maxCoeff().transpose() + padding;
  const Eigen::Vector3d cells = ((upper - lower) / voxel_size).array().ceil();
  const double count = (cells.array() + 1).prod();
  if (!(count <= static_cast<double>(max_samples)))
    throw OptionError("a grid of voxel size " + std::to_string(voxel_size) + " m has " +
                      std::to_string(static_cast<long long>(count)) + " samples, more than " +
                      std::to_string(max_samples) + ": use a larger voxel size");
  const Eigen::Vector3i samples = (cells.array() + 1).cast<int>();
  // OpenVDB's signed distance: exterior band in voxels, the interior filled.
  openvdb::initialize();
  const auto transform = openvdb::math::Transform::createLinearTransform(voxel_size);
  std::vector<openvdb::Vec3s> points(static_cast<std::size_t>(surface.num_vertices()));
  for (int v = 0; v < surface.num_vertices(); ++v)
    points[static_cast<std::size_t>(v)] =  // world coordinates: the conversion applies transform
        openvdb::Vec3s(static_cast<float>(surface.vertices(v, 0)),
                       static_cast<float>(surface.vertices(v, 1)),
                       static_cast<float>(surface.vertices(v, 2)));
  std::vector<openvdb::Vec3I> triangles(static_cast<std::size_t>(surface.num_triangles()));
  for (int f = 0; f < surface.num_triangles(); ++f)
    triangles[static_cast<std::size_t>(f)] =
        openvdb::Vec3I(static_cast<unsigned>(surface.triangles(f, 0)),
                       static_cast<unsigned>(surface.triangles(f, 1)),
                       static_cast<unsigned>(surface.triangles(f, 2)));
  // (An interior band of half the largest side reaches every inside point; an unbounded one
  // makes OpenVDB dilate without end.)
  const float band = static_cast<float>(exterior_band / voxel_size) + 2.0f;
  const float interior = static_cast<float>(0.5 * (upper - lower).maxCoeff() / voxel_size) + 2.0f;
  const openvdb::FloatGrid::Ptr grid =
      openvdb::tools::meshToSignedDistanceField<openvdb::FloatGrid>(
          *transform, points, triangles, std::vector<openvdb::Vec4I>(), band, interior);
  // Sampled onto the dense grid (index space of the same transform, offset to `lower`).
  const Eigen::Vector3i first = (lower / voxel_size).array().floor().cast<int>();
  const Eigen::Vector3d origin = first.cast<double>() * voxel_size;
  std::vector<float> values(static_cast<std::size_t>(count));
  const openvdb::FloatGrid::ConstAccessor access = grid->getConstAccessor();
  std::size_t n = 0;
  for (int k = 0; k < samples(2); ++k)
    for (int j = 0; j < samples(1); ++j)
      for (int i = 0; i < samples(0); ++i)
        values[n++] = access.getValue(openvdb::Coord(first(0) + i, first(1) + j, first(2) + k));
  return GridLevelSet(origin, voxel_size, samples, std::move(values), surface);
}

}  // namespace ramus
