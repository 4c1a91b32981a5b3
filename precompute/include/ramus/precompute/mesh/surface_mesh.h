// Triangle surface meshes: the input of tetrahedralize() and the render surfaces; their files
// are read by formats/surface_mesh_io.h.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace ramus {

/// A triangle soup / surface, 0-based.
struct SurfaceMesh {
  Eigen::MatrixX3d vertices;             ///< #V by 3
  Eigen::MatrixX3i triangles;            ///< #F by 3, 0-based vertex indices
  Eigen::VectorXi groups;                ///< #F: OBJ 'g'/'o' group index, or empty
  std::vector<std::string> group_names;  ///< name of each group index (OBJ only)

  int num_vertices() const { return static_cast<int>(vertices.rows()); }
  int num_triangles() const { return static_cast<int>(triangles.rows()); }
};

/// Throws InputError (prefixed by file_for_messages) naming the first offending item if the
/// surface cannot bound a volume: non-finite coordinates, out-of-range indices, degenerate
/// (zero-area) or duplicate triangles, or an edge not shared by exactly 2 triangles. With
/// allow_internal_faces, edges shared by more than 2 triangles (internal facets separating
/// regions) are accepted; every edge still needs at least 2.
void check_closed_surface(const SurfaceMesh& surface, const std::string& file_for_messages,
                          bool allow_internal_faces = false);

}  // namespace ramus
