// The render mesh's world vertices for a renderer (model/render_mesh.h): positions and optional
// normals, float, interleaved; and, for games that rebuild them in a vertex shader, each domain's
// transform. Domain by domain, loops over the piece's tables by coordinate (contiguous floats,
// vectorized; an AVX2 copy chosen at run time on x86-64): allocation-free and noexcept.
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/dynamics/step.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// A rigid transform applied after the model's own world (a game object's placement).
struct RenderPlacement {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
};

/// Floats per render vertex: x y z, then nx ny nz when normals are asked for.
constexpr int render_vertex_stride(bool normals) {
  return normals ? 6 : 3;
}

/// The render vertices in the world (model.render.num_vertices by stride floats, m): vertex v of
/// a piece drawn by domain i at x = o_i + R_i (s X_v + s_b P_v q_i) and, with `normals`, its unit
/// normal R_i normalize(n_v + (s_b / s) N_v q_i) (first order in q: the modal normals); then
/// `placement`. kWrongModel (nothing written) for a State or Workspace of another model.
StepStatus render_vertices(const Model& model, const State& state, Workspace& workspace, float* out,
                           bool normals, const RenderPlacement& placement = {}) noexcept;
/// The same positions (stride 3) in double, for analysis and file output.
StepStatus render_vertices(const Model& model, const State& state, Workspace& workspace,
                           double* out, const RenderPlacement& placement = {}) noexcept;

/// The render vertices at rest, positions only (model.render.num_vertices by 3 doubles, m).
void render_rest_vertices(const Model& model, double* out) noexcept;

/// The render triangles (model.render.num_triangles by 3 ints) in render vertex numbering.
void render_triangles(const Model& model, int* out) noexcept;

/// Floats of one domain's render transform (render_transforms).
constexpr int kRenderTransformFloats = 16;
/// What a vertex shader needs per domain beside its piece's tables and q (num_domains by 16
/// floats): R_i column-major (9), o_i (3, m), s, s_b, s_b / s, 0, with `placement` folded in;
/// x = o + R (s X + s_b P q), n = R normalize(n_0 + (s_b / s) N q).
StepStatus render_transforms(const Model& model, const State& state, float* out,
                             const RenderPlacement& placement = {}) noexcept;

}  // namespace ramus
