// Triangle surface meshes (OBJ, OFF, PLY, STL): the input of tetrahedralize().
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

/// Wavefront OBJ: 'v' and 'f' (polygons fan-triangulated; "i", "i/t", "i//n", "i/t/n" and
/// negative relative indices). 'g'/'o' statements define groups (indices in order of first
/// appearance; faces before the first one form group "default"); groups stays empty if there
/// are none. Other statements are ignored. Throws InputError (file:line).
SurfaceMesh read_obj(const std::string& path);

/// OFF (also COFF / NOFF ...: extra per-vertex values are ignored); polygons fan-triangulated.
SurfaceMesh read_off(const std::string& path);

/// PLY, ASCII or binary_little_endian: vertex x y z (any numeric type) and face vertex_indices
/// (or vertex_index) lists; other elements and properties are skipped.
SurfaceMesh read_ply(const std::string& path);

/// STL, ASCII or binary (told apart by the binary size 84 + 50 n): corners with identical
/// coordinates are welded into one vertex (STL stores triangles by value).
SurfaceMesh read_stl(const std::string& path);

/// Dispatches on the extension: .obj, .off, .ply, .stl (case-insensitive); otherwise InputError.
SurfaceMesh read_surface_mesh(const std::string& path);

/// Writes a Wavefront OBJ (exact doubles), one 'g' statement per group when groups are set
/// (named from group_names, else "group_<g>"); atomically (path.tmp, then rename).
void write_obj(const SurfaceMesh& surface, const std::string& path);

/// Throws InputError (prefixed by file_for_messages) naming the first offending item if the
/// surface cannot bound a volume: non-finite coordinates, out-of-range indices, degenerate
/// (zero-area) or duplicate triangles, or an edge not shared by exactly 2 triangles. With
/// allow_internal_faces, edges shared by more than 2 triangles (internal facets separating
/// regions) are accepted; every edge still needs at least 2.
void check_closed_surface(const SurfaceMesh& surface, const std::string& file_for_messages,
                          bool allow_internal_faces = false);

}  // namespace ramus
