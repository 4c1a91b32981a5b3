// The pieces of a tree mesh from a 3D package and the shapes they repeat (issue 35, item 4: the
// first stage of `ramus author`): a polygon soup split into connected pieces, and pieces that are
// one shape up to rotation, translation and uniform scale grouped, each with its placement, so
// that each distinct shape is meshed and reduced once and placed many times.
#pragma once

#include <Eigen/Core>

#include <optional>
#include <vector>

#include "ramus/precompute/mesh/surface_mesh.h"

namespace ramus {

/// The connected pieces of `soup`: vertices within `weld_distance` (m) of each other merged first
/// (an exported soup often repeats a vertex per triangle), then triangles that share a vertex
/// grouped. Each piece keeps its own vertices (#V_k by 3, unused ones dropped) and triangles, in
/// the soup's order; pieces come in the order of their first triangle.
std::vector<SurfaceMesh> connected_pieces(const SurfaceMesh& soup, double weld_distance);

/// A proper similarity x' = scale rotation x + translation (det rotation = +1, scale > 0).
struct Similarity {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  double scale = 1;
  Eigen::Vector3d apply(const Eigen::Vector3d& x) const {
    return scale * rotation * x + translation;
  }
};

/// The similarity that maps piece `a` onto piece `b`, when every vertex of a lands within
/// `tolerance` times b's bounding-box diagonal of a vertex of b (and both have as many vertices
/// and triangles): found with the vertices in the same order (Umeyama's least squares), else
/// from both pieces' principal axes. A mirror image is no match (a left leaf is another part).
std::optional<Similarity> match_similar(const SurfaceMesh& a, const SurfaceMesh& b,
                                        double tolerance);

/// Pieces grouped by shape.
struct RepeatedShapes {
  std::vector<int> representatives;   ///< per shape: the first piece that has it
  std::vector<int> shape_of;          ///< per piece: its shape
  std::vector<Similarity> placement;  ///< per piece: its shape's representative mapped onto it
};

/// Groups `pieces` by match_similar against each shape's representative (first come, first
/// served).
RepeatedShapes find_repeated_shapes(const std::vector<SurfaceMesh>& pieces, double tolerance);

}  // namespace ramus
