#include "ramus/runtime/dynamics/render_vertices.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "workspace_data.h"

namespace ramus {

namespace {

// Domain i's world frame with the placement folded in (float): R' = R_p R_i, o' = R_p o_i + t_p.
struct DomainFrame {
  Eigen::Matrix3f rotation;
  Eigen::Vector3f origin;
};

DomainFrame domain_frame(const State& state, int i, const RenderPlacement& placement) {
  return {(placement.rotation * state.frame_rotation.middleCols<3>(3 * i)).cast<float>(),
          (placement.rotation * state.frame_origin.col(i) + placement.translation).cast<float>()};
}

// x86-64 with GCC: an AVX2 copy of the vertex loops beside the portable one, chosen at load by
// the CPU (the library itself stays portable: -march=native only with RAMUS_NATIVE).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__ELF__)
#define RAMUS_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RAMUS_VECTOR_CLONES
#endif

#if defined(__GNUC__)
// Eight floats as one value (GCC and Clang vector extensions: a 256-bit register in the AVX2
// copy, two 128-bit ones in the portable one).
typedef float Float8 __attribute__((vector_size(32)));
#endif

// out = a base + Σ_l q_l column_l over n floats (the columns n apart), eight floats at a time
// in registers (a pass per column through memory would store and reload every float r times).
inline void combine(const float* base, float a, const float* columns, int n, int r, const float* q,
                    float* out) {
  int k0 = 0;
#if defined(__GNUC__)
  for (; k0 + 8 <= n; k0 += 8) {
    Float8 sum, column;
    std::memcpy(&sum, base + k0, sizeof sum);  // (unaligned loads and stores)
    sum *= a;
    for (int l = 0; l < r; ++l) {
      std::memcpy(&column, columns + static_cast<std::ptrdiff_t>(l) * n + k0, sizeof column);
      sum += q[l] * column;
    }
    std::memcpy(out + k0, &sum, sizeof sum);
  }
#endif
  for (int k = k0; k < n; ++k) {
    float sum = a * base[k];
    for (int l = 0; l < r; ++l) sum += q[l] * columns[static_cast<std::ptrdiff_t>(l) * n + k];
    out[k] = sum;
  }
}

// One domain's S vertices by coordinate (3S floats, row c S + v): s X + Σ_l q_l P_l (q scaled
// by s_b), then o + R (that); every loop runs over contiguous floats.
RAMUS_VECTOR_CLONES void domain_positions(const float* rest, const float* basis, int S, int r,
                                          const float* q, float s, const float* R, const float* o,
                                          float* out) {
  combine(rest, s, basis, 3 * S, r, q, out);
  float* x = out;
  float* y = out + S;
  float* z = out + 2 * S;
  for (int v = 0; v < S; ++v) {
    const float a = x[v], b = y[v], c = z[v];
    x[v] = o[0] + R[0] * a + R[3] * b + R[6] * c;
    y[v] = o[1] + R[1] * a + R[4] * b + R[7] * c;
    z[v] = o[2] + R[2] * a + R[5] * b + R[8] * c;
  }
}

// Its unit normals the same way: R normalize(n_0 + Σ_l q_l N_l) (q scaled by s_b / s).
RAMUS_VECTOR_CLONES void domain_normals(const float* rest_normals, const float* basis, int S, int r,
                                        const float* q, const float* R, float* out) {
  combine(rest_normals, 1.0f, basis, 3 * S, r, q, out);
  float* x = out;
  float* y = out + S;
  float* z = out + 2 * S;
  for (int v = 0; v < S; ++v) {
    const float inverse = 1.0f / std::sqrt(x[v] * x[v] + y[v] * y[v] + z[v] * z[v]);
    const float a = inverse * x[v], b = inverse * y[v], c = inverse * z[v];
    x[v] = R[0] * a + R[3] * b + R[6] * c;
    y[v] = R[1] * a + R[4] * b + R[7] * c;
    z[v] = R[2] * a + R[5] * b + R[8] * c;
  }
}

// By-coordinate values (row c S + v) interleaved into a vertex buffer: at offset `first` of
// each vertex's `stride` values.
template <typename Scalar>
void interleave(const float* values, int S, int stride, int first, Scalar* target) {
  for (int v = 0; v < S; ++v)
    for (int c = 0; c < 3; ++c)
      target[stride * v + first + c] = static_cast<Scalar>(values[c * S + v]);
}

template <typename Scalar>
void write_vertices(const Model& model, const State& state, WorkspaceData& w, Scalar* out,
                    bool normals, const RenderPlacement& placement) {
  const int stride = render_vertex_stride(normals);
  float* q = w.render_coordinates.data();
  float* local = w.render_displacements.data();
  float* turned = w.render_normal_changes.data();
  for (const RenderPiece& piece : model.render.pieces) {
    const int S = piece.size();
    const int r = model.parts[static_cast<std::size_t>(piece.part)].r;
    for (std::size_t j = 0; j < piece.domains.size(); ++j) {
      const int i = piece.domains[j];
      const Domain& domain = model.domains[static_cast<std::size_t>(i)];
      const DomainFrame frame = domain_frame(state, i, placement);
      const auto coordinates = state.q.segment(domain.dof_offset, domain.r);
      Scalar* target = out + stride * (piece.first_vertex + static_cast<std::ptrdiff_t>(j) * S);
      // Positions: s X + s_b P q through the frame.
      for (int l = 0; l < r; ++l) q[l] = static_cast<float>(domain.scale.basis * coordinates(l));
      domain_positions(piece.rest.data(), piece.position_basis.data(), S, r, q,
                       static_cast<float>(domain.scale.length), frame.rotation.data(),
                       frame.origin.data(), local);
      interleave(local, S, stride, 0, target);
      if (!normals) continue;
      // Normals: n_0 + (s_b / s) N q, normalized, turned.
      const double ratio = domain.scale.basis / domain.scale.length;
      for (int l = 0; l < r; ++l) q[l] = static_cast<float>(ratio * coordinates(l));
      domain_normals(piece.rest_normals.data(), piece.normal_basis.data(), S, r, q,
                     frame.rotation.data(), turned);
      interleave(turned, S, stride, 3, target);
    }
  }
}

}  // namespace

StepStatus render_vertices(const Model& model, const State& state, Workspace& workspace, float* out,
                           bool normals, const RenderPlacement& placement) noexcept {
  if (!state_fits(model, state) || !workspace.made_for(model)) return StepStatus::kWrongModel;
  write_vertices(model, state, workspace.data(), out, normals, placement);
  return StepStatus::kOk;
}

StepStatus render_vertices(const Model& model, const State& state, Workspace& workspace,
                           double* out, const RenderPlacement& placement) noexcept {
  if (!state_fits(model, state) || !workspace.made_for(model)) return StepStatus::kWrongModel;
  write_vertices(model, state, workspace.data(), out, false, placement);
  return StepStatus::kOk;
}

void render_rest_vertices(const Model& model, double* out) noexcept {
  for (const RenderPiece& piece : model.render.pieces)
    for (std::size_t j = 0; j < piece.domains.size(); ++j) {
      const Domain& domain = model.domains[static_cast<std::size_t>(piece.domains[j])];
      double* target = out + 3 * (piece.first_vertex + static_cast<Eigen::Index>(j) * piece.size());
      for (int v = 0; v < piece.size(); ++v) {
        const Eigen::Vector3d x =
            domain.rest_rotation *
                (domain.scale.length * piece.rest.row(v).transpose().cast<double>()) +
            domain.rest_origin;
        for (int c = 0; c < 3; ++c) target[3 * v + c] = x(c);
      }
    }
}

void render_triangles(const Model& model, int* out) noexcept {
  for (const RenderPiece& piece : model.render.pieces) {
    const Eigen::Index F = piece.triangles.rows();
    for (std::size_t j = 0; j < piece.domains.size(); ++j) {
      const int offset = piece.first_vertex + static_cast<int>(j) * piece.size();
      int* target = out + 3 * (piece.first_triangle + static_cast<Eigen::Index>(j) * F);
      for (Eigen::Index f = 0; f < F; ++f)
        for (int c = 0; c < 3; ++c) target[3 * f + c] = piece.triangles(f, c) + offset;
    }
  }
  const Eigen::MatrixX3i& seams = model.render.seam_triangles;
  int* target = out + 3 * (model.render.num_triangles - seams.rows());
  for (Eigen::Index f = 0; f < seams.rows(); ++f)
    for (int c = 0; c < 3; ++c) target[3 * f + c] = seams(f, c);
}

StepStatus render_transforms(const Model& model, const State& state, float* out,
                             const RenderPlacement& placement) noexcept {
  if (!state_fits(model, state)) return StepStatus::kWrongModel;
  for (int i = 0; i < model.num_domains(); ++i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    const DomainFrame frame = domain_frame(state, i, placement);
    float* target = out + kRenderTransformFloats * i;
    Eigen::Map<Eigen::Matrix3f> rotation(target);
    Eigen::Map<Eigen::Vector3f> origin(target + 9);
    rotation = frame.rotation;
    origin = frame.origin;
    target[12] = static_cast<float>(domain.scale.length);
    target[13] = static_cast<float>(domain.scale.basis);
    target[14] = static_cast<float>(domain.scale.basis / domain.scale.length);
    target[15] = 0;
  }
  return StepStatus::kOk;
}

}  // namespace ramus
