// Writing a tet mesh in the format its file name asks for (shared by several commands).
#pragma once

#include <string>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus::cli {

/// Writes `mesh` as .node/.ele (basename), .msh (Gmsh 4.1; .msh22 for 2.2) or .vtu by extension,
/// or its boundary surface as .obj (one group per label).
void write_tet_mesh_by_extension(const TetMesh& mesh, const std::string& path);

}  // namespace ramus::cli
