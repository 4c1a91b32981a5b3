// Triangle surface files (OBJ, OFF, PLY, STL) read into a SurfaceMesh, and OBJ written.
#pragma once

#include <string>

#include "ramus/precompute/mesh/surface_mesh.h"

namespace ramus {

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

}  // namespace ramus
