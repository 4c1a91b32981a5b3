// A tree mesh from a 3D package made into an instanced assembly spec (issue 35, item 4;
// `ramus author`): its connected pieces, the shapes they repeat, which hangs from which, and a
// spec that places each distinct shape as a part once meshed and reduced (docs/SPEC.md,
// "Assemblies").
#pragma once

#include <string>
#include <vector>

#include "ramus/precompute/authoring/repeated_pieces.h"
#include "ramus/precompute/fem/material.h"
#include "ramus/precompute/mesh/surface_mesh.h"

namespace ramus {

struct AuthoringOptions {
  double weld_distance = 0;  ///< m: vertices this close are one (0: 1e-9 of the soup's size)
  double gap = 0;            ///< m: how far a piece may float from its parent (0: 1e-3 of size)
  double similarity = 1e-6;  ///< a repeat's vertices within this of its shape's (of its size)
  Material material{5e6, 0.4, 800};  ///< every part's (wood-like; the spec can be edited)
};

/// What author_tree found and the spec it makes.
struct AuthoredTree {
  std::string spec_json;  ///< the assembly spec (JSON, indented by 2); its parts' meshes are
                          ///< "<parts_folder>/<name>.obj"
  int num_instances = 0;
  std::vector<std::pair<std::string, SurfaceMesh>> part_surfaces;  ///< name, surface (part axes)
  int num_pieces = 0;
  std::vector<std::string> notes;  ///< e.g. shapes that are not closed (TetGen will refuse them)
};

/// The assembly of `soup` (read from `source`, named in errors): the largest piece the root,
/// anchored at its lowest vertices; each distinct shape a part in the axes of its first piece;
/// each piece an instance (rotation, translation, scale) of its shape, hanging from the piece
/// it touches, its part's base the vertices there; a shape placed 10 times or more (leaves)
/// reduced to r = 8 from 4 linear modes, the others to the spec's defaults. Throws InputError for
/// an empty soup or a piece nothing reaches.
AuthoredTree author_tree(const SurfaceMesh& soup, const std::string& source,
                         const std::string& parts_folder, const AuthoringOptions& options = {});

}  // namespace ramus
