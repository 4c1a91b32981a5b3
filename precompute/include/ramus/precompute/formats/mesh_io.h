// One entry point for every tet mesh source Ramus accepts.
#pragma once

#include <string>

#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/mesh/tetrahedralize.h"

namespace ramus {

/// Reads a tet mesh, dispatching on the (case-insensitive) extension: .node/.ele (or a basename
/// with a .node next to it) TetGen, .msh Gmsh, .veg Vega, .vtu VTK; .obj/.off/.ply surfaces are
/// tetrahedralized with `options`. Unknown extension: InputError listing the supported ones.
/// The mesh is not validated: call validate_tet_mesh (mesh_checks.h) before simulating it.
TetMesh read_tet_mesh(const std::string& path, const TetrahedralizeOptions& options = {});

}  // namespace ramus
