// TetGen .node / .ele files (https://wias-berlin.de/software/tetgen/fformats.html).
#pragma once

#include <string>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// Reads foo.node and foo.ele given "foo.node", "foo.ele" or the basename "foo". Indices may
/// start at 0 or 1 (taken from the first point). Linear tets only; the first tet attribute
/// becomes labels (#T, rounded), node boundary markers become vertex_flags (#V).
/// Throws InputError (file:line) on any malformed content.
TetMesh read_tetgen(const std::string& node_or_ele_path);

/// Writes basename.node and basename.ele (1-based; labels as the tet attribute, vertex_flags as
/// boundary markers, both only when present). Throws Error when a file can't be written.
void write_tetgen(const TetMesh& mesh, const std::string& basename);

}  // namespace ramus
