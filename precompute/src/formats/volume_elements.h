// Private helper of the mesh readers (not installed): hexahedra, prisms (wedges) and pyramids
// split into tetrahedra so that neighbouring elements stay conforming.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus::detail {

/// The linear volume elements a reader may meet; corners in Gmsh / VTK order (both agree):
/// tet 0-3; pyramid base 0-3, apex 4; prism triangles 0-2 and 3-5; hex faces 0-3 and 4-7.
enum class VolumeShape { kTet, kPyramid, kPrism, kHex };

/// Number of corners of a shape (4, 5, 6, 8).
int corner_count(VolumeShape shape);

/// Plural name for messages ("hexahedra", "prisms", ...).
std::string shape_name(VolumeShape shape);

/// Appends the tets of one element, given its corners as global vertex ids (corner_count).
/// Every quad face is cut along the diagonal through its smallest id, and the element is
/// pulled from its smallest corner (the cone from that corner over the faces not touching it:
/// hex 6 tets, prism 3, pyramid 2, tet 1). Two elements sharing a face cut it the same way, so
/// the result is conforming (Dompierre et al. 1999, "How to subdivide pyramids, prisms and
/// hexahedra into tetrahedra"); no vertex is added. Orientation is left to orient_tets.
void split_into_tets(VolumeShape shape, std::span<const long long> corners,
                     std::vector<std::array<long long, 4>>& tets);

/// The reader's note for `count` elements of `shape` split into tets; id_name: what the
/// smallest-id rule ordered by ("node tag", "vertex index").
std::string split_note(VolumeShape shape, long long count, const std::string& id_name);

/// Swaps two corners of every tet t with split[t] != 0 (#T) and a negative signed volume at
/// positions X (#V by 3), so the tets of split elements are positively oriented.
void orient_split_tets(const Eigen::MatrixX3d& X, std::span<const char> split,
                       Eigen::MatrixX4i& tets);

/// A file's volume element type: its shape and node count (corners first; the other nodes,
/// on edges, faces and inside, are dropped).
struct VolumeType {
  VolumeShape shape;
  int nodes;
};

/// VTK cell types (vtkCellType.h) that are volume elements, linear or higher order (Lagrange
/// cells excepted); nullopt otherwise.
std::optional<VolumeType> vtk_volume_type(long long type);

/// VTK cell types of points, lines, triangles, quads and polygons (any order): skipped by a
/// tet mesh reader.
bool is_vtk_lower_dimensional_type(long long type);

/// A VTK cell list (connectivity, end offsets and types, as in a .vtu) read as tets.
struct VtkCellTets {
  Eigen::MatrixX4i tets;           ///< #T by 4, positively oriented where split
  std::vector<int> source_cell;    ///< #T: the cell each tet comes from
  std::vector<std::string> notes;  ///< what was split, dropped or skipped
  bool dropped_nodes = false;      ///< some higher-order cell's extra nodes were dropped
};

/// Converts cells to tets: tets as they are, other volume cells split (split_into_tets), the
/// extra nodes of higher-order cells dropped, lower-dimensional cells skipped. fail(array,
/// message) must throw; array is "connectivity", "offsets" or "types".
VtkCellTets vtk_cells_to_tets(
    std::span<const double> connectivity, std::span<const double> offsets,
    std::span<const double> types, const Eigen::MatrixX3d& points,
    const std::function<void(const std::string& array, const std::string& message)>& fail);

/// Removes the vertices no tet uses (higher-order nodes, a surface's or a point cloud's) from
/// mesh (rest_positions, tets, vertex_flags), with a note in mesh.read_notes when there were any;
/// returns each old vertex's new index or -1.
std::vector<int> drop_unused_vertices(TetMesh& mesh);

}  // namespace ramus::detail
