// What the viewer draws of a model: its surface (the embedded one and the mesh's boundary where
// none covers a domain) as an interleaved vertex buffer, with where a pull at each vertex acts.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"

namespace ramus::viewer {

// What is drawn: the embedded surface (when the model has one) and the tet mesh's boundary
// where no embedded surface covers its domain (the oak: leaf blades, and the wood's tets).
struct Surface {
  int embedded = 0;  // the first `embedded` vertices are the embedded surface's
  Eigen::MatrixX3i triangles;
  // Per drawn vertex: the domain, and the domain vertices (with weights) a pull there acts on: an
  // embedded vertex's tet corners with its barycentric weights, a mesh vertex itself.
  std::vector<int> domain;
  std::vector<Eigen::Vector4i> corners;
  std::vector<Eigen::Vector4d> weights;
  Eigen::MatrixX3d positions;         // current, world
  Eigen::MatrixX3d embedded_scratch;  // the embedded surface's positions
  Eigen::MatrixX3d global_scratch;    // the global vertices' positions
  Eigen::MatrixX3f normals;           // per vertex, area-weighted
  std::vector<float> buffer;          // per vertex: position, normal, colour (9 floats)
};

/// The surface of `model` at rest (its buffers sized: a frame allocates nothing).
Surface make_surface(const Model& model);

/// Positions now, vertex normals from the triangles, colours (per domain, or one for the object).
void update_surface(const Simulator& simulator, Surface& s, bool color_domains);

}  // namespace ramus::viewer
