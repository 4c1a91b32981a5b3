// The triangle surface bounding a tet mesh (for rendering, OBJ export and re-tetrahedralization).
#pragma once

#include "ramus/precompute/mesh/surface_mesh.h"
#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// Faces of the tets (#T by 4, positive volume) not shared by two tets, oriented outward
/// (#F by 3 vertex indices into the tet mesh's vertices).
Eigen::MatrixX3i boundary_triangles(const Eigen::MatrixX4i& tets);

/// Boundary surface of a tet mesh. With group_by_label, every label's region gets its own closed
/// surface (group = index in order of label, named after label_names or "label_<L>"), so faces
/// between two parts appear once in each group; otherwise one outer surface without groups.
/// Vertices are the mesh's vertices that appear on the surface (renumbered compactly).
SurfaceMesh extract_boundary_surface(const TetMesh& mesh, bool group_by_label = false);

}  // namespace ramus
