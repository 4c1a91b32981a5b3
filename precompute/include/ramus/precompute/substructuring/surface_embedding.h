// The rendering surface of a model (substructuring paper, §5 "Rendering"): a triangle mesh
// embedded in the tets, each vertex moved by the barycentric combination of one tet's
// (C0-averaged) vertices (SubstructuredSimulator::embedded_surface_positions).
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Tolerances of embed_surface, relative to the diagonal of the tets' world bounding box.
struct SurfaceEmbeddingOptions {
  /// A vertex at most this far outside its tet keeps its exact (slightly negative) barycentric
  /// weights, so that it is reproduced exactly at rest; farther out, it is clamped onto the tet
  /// (the weights of the tet's closest point: all >= 0).
  double clamp_tolerance = 1e-6;
  /// A vertex farther than this from every tet is an error (the surface does not fit the volume).
  double max_distance = 0.1;
};

/// What embed_surface found.
struct SurfaceEmbeddingStats {
  int outside = 0;                   ///< vertices outside every tet (distance > 0)
  int clamped = 0;                   ///< of those, vertices clamped onto their tet
  double max_distance = 0;           ///< largest distance of a vertex from its tet (m)
  int max_distance_vertex = -1;      ///< the vertex at that distance (-1: all inside)
  double bounding_box_diagonal = 0;  ///< of the tets in world coordinates (m)
};

/// Embeds a triangle mesh (world rest positions #S by 3, triangles #F by 3) in the tets of every
/// domain of `model` (each domain's rest positions mapped to the world by frame_rotation X +
/// frame_origin): each vertex gets the tet that contains it, or when none does, the closest tet
/// (smallest Euclidean distance; ties: the largest minimum barycentric coordinate), with its
/// domain, its index within that domain and barycentric weights summing to 1 (clamped as
/// SurfaceEmbeddingOptions says). rest_positions are the given vertices. A uniform grid over the
/// tets' bounding boxes keeps the cost near O(S + T). Throws MeshError naming the vertex for a
/// non-finite vertex or one farther than options.max_distance from every tet, naming the
/// triangle for an index out of range, and for a model without tets.
EmbeddedSurface embed_surface(const ReducedModel& model, const Eigen::MatrixX3d& surface_vertices,
                              const Eigen::MatrixX3i& triangles,
                              const SurfaceEmbeddingOptions& options = {},
                              SurfaceEmbeddingStats* stats = nullptr);

}  // namespace ramus
