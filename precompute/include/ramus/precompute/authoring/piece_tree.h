// Which piece of a tree mesh hangs from which (issue 35, item 4: the second stage of
// `ramus author`): from the largest piece (the trunk) outwards, each piece attached to the first
// attached piece it touches or nearly touches, at the vertices that touch it.
#pragma once

#include <string>
#include <vector>

#include "ramus/precompute/mesh/surface_mesh.h"

namespace ramus {

/// The pieces as a tree.
struct PieceTree {
  int root = 0;                        ///< the piece with the largest bounding box
  std::vector<int> parent;             ///< per piece: the piece it hangs from (-1: the root)
  std::vector<std::vector<int>> base;  ///< per piece: its vertices at its parent (the root's:
                                       ///< its lowest, the anchors), ascending
  std::vector<double> gap;  ///< per piece: its nearest vertex's distance to its parent (m)
};

/// Attaches `pieces` breadth first from the root: a piece hangs from the first attached piece
/// that one of its vertices is inside of (a stem set into a branch) or within `gap` (m) of; its
/// base is its vertices within its nearest one's distance plus `band` (m) of that piece. The root's
/// base is its vertices within `band` of its lowest z. Throws InputError (file `source`) naming the
/// pieces nothing reaches and how far the nearest attached piece is.
PieceTree attach_pieces(const std::vector<SurfaceMesh>& pieces, double gap, double band,
                        const std::string& source);

}  // namespace ramus
