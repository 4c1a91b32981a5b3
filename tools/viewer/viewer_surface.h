// What the viewer draws of a model: its render mesh as an interleaved vertex buffer, with where a
// pull at each vertex acts.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"

namespace ramus::viewer {

// What is drawn: the model's render mesh (model/render_mesh.h: the oak's leaf blades, once per
// part, and the wood's tet-mesh boundary), rebuilt each frame by render_vertices with normals.
struct Surface {
  Eigen::MatrixX3i triangles;
  // Per drawn vertex: the domain, and the domain vertices (with weights) a pull there acts on:
  // the part vertex weighing most in its embedding.
  std::vector<int> domain;
  std::vector<Eigen::Vector4i> corners;
  std::vector<Eigen::Vector4d> weights;
  Eigen::MatrixX3d positions;   // current, world
  std::vector<float> vertices;  // render_vertices' output: position and normal (6 floats)
  std::vector<float> buffer;    // per vertex: position, normal, colour (9 floats)
};

/// The surface of `model` at rest (its buffers sized: a frame allocates nothing).
Surface make_surface(const Model& model);

/// Positions and normals now (render_vertices), colours (per domain, or one for the object).
void update_surface(Simulator& simulator, Surface& s, bool color_domains);

}  // namespace ramus::viewer
