// Vega FEM .veg files (http://barbic.usc.edu/vega/), linear tet meshes only.
#pragma once

#include <string>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// Reads the *VERTICES (#V by 3, 1-based "idx x y z") and *ELEMENTS / TET ("idx v1 v2 v3 v4")
/// sections of a .veg file. *MATERIAL, *REGION, *SET and '#' comments are ignored (no labels);
/// *INCLUDE and CUBIC elements are errors. Throws InputError (file:line).
TetMesh read_vega(const std::string& path);

}  // namespace ramus
