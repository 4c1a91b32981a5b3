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
  // (No placement, the common case: the frame alone, without a product a domain.)
  if (placement.rotation == Eigen::Matrix3d::Identity() && placement.translation.isZero(0))
    return {state.frame_rotation.middleCols<3>(3 * i).cast<float>(),
            state.frame_origin.col(i).cast<float>()};
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

// The vertex loops' helpers are inlined into each copy (compiled apart, they would be the
// portable code called from the AVX2 copy).
#if defined(__GNUC__)
#define RAMUS_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define RAMUS_ALWAYS_INLINE inline
#endif

#if defined(__GNUC__)
// Eight floats as one value (GCC and Clang vector extensions: a 256-bit register in the AVX2
// copy, two 128-bit ones in the portable one).
typedef float Float8 __attribute__((vector_size(32)));

// Eight floats from memory (unaligned) and back.
// (Through references: a 32-byte vector passed by value changes the ABI without AVX.)
RAMUS_ALWAYS_INLINE void load8(const float* p, Float8& value) {
  std::memcpy(&value, p, sizeof value);
}
RAMUS_ALWAYS_INLINE void store8(float* p, const Float8& value) {
  std::memcpy(p, &value, sizeof value);
}

// Floats k .. k + 32 of a base + Σ_l q_l column_l: four independent sums in registers, so that
// each column's broadcast q_l feeds four fused multiply-adds without waiting on the last (one
// sum waited four cycles a column on each FMA's latency).
RAMUS_ALWAYS_INLINE void combine_32(const float* base, float a, const float* columns, int n, int r,
                                    const float* q, int k, float* out) {
  Float8 s0, s1, s2, s3, c0, c1, c2, c3;
  load8(base + k, s0);
  load8(base + k + 8, s1);
  load8(base + k + 16, s2);
  load8(base + k + 24, s3);
  s0 *= a;
  s1 *= a;
  s2 *= a;
  s3 *= a;
  for (int l = 0; l < r; ++l) {
    const float* c = columns + static_cast<std::ptrdiff_t>(l) * n + k;
    const float ql = q[l];
    load8(c, c0);
    load8(c + 8, c1);
    load8(c + 16, c2);
    load8(c + 24, c3);
    s0 += ql * c0;
    s1 += ql * c1;
    s2 += ql * c2;
    s3 += ql * c3;
  }
  store8(out + k, s0);
  store8(out + k + 8, s1);
  store8(out + k + 16, s2);
  store8(out + k + 24, s3);
}
// Floats k .. k + 8 the same way.
RAMUS_ALWAYS_INLINE void combine_8(const float* base, float a, const float* columns, int n, int r,
                                   const float* q, int k, float* out) {
  Float8 sum, column;
  load8(base + k, sum);
  sum *= a;
  for (int l = 0; l < r; ++l) {
    load8(columns + static_cast<std::ptrdiff_t>(l) * n + k, column);
    sum += q[l] * column;
  }
  store8(out + k, sum);
}
#endif

// out = a base + Σ_l q_l column_l over n floats (the columns n apart), in registers (a pass per
// column through memory would store and reload every float r times): 32 floats at a time, then
// eight, then the last eight again (overlapping, the same sums) rather than one by one.
RAMUS_ALWAYS_INLINE void combine(const float* base, float a, const float* columns, int n, int r,
                                 const float* q, float* out) {
  int k0 = 0;
#if defined(__GNUC__)
  for (; k0 + 32 <= n; k0 += 32) combine_32(base, a, columns, n, r, q, k0, out);
  for (; k0 + 8 <= n; k0 += 8) combine_8(base, a, columns, n, r, q, k0, out);
  if (k0 < n && n >= 8) {
    combine_8(base, a, columns, n, r, q, n - 8, out);
    k0 = n;
  }
#endif
  for (int k = k0; k < n; ++k) {
    float sum = a * base[k];
    for (int l = 0; l < r; ++l) sum += q[l] * columns[static_cast<std::ptrdiff_t>(l) * n + k];
    out[k] = sum;
  }
}

// A domain's S positions by coordinate (3S floats, row c S + v) in its frame: s X + Σ_l q_l P_l
// (q scaled by s_b); with normals its S unit normals after them, normalize(n_0 + Σ_l q'_l N_l)
// (q' scaled by s_b / s): every loop over contiguous floats.
RAMUS_ALWAYS_INLINE void domain_local_vertices(const RenderPiece& piece, int r, const float* q,
                                               const float* q_normal, float s, bool normals,
                                               float* local) {
  const int S = piece.size();
  combine(piece.rest.data(), s, piece.position_basis.data(), 3 * S, r, q, local);
  if (!normals) return;
  float* x = local + 3 * S;
  float* y = x + S;
  float* z = y + S;
  combine(piece.rest_normals.data(), 1.0f, piece.normal_basis.data(), 3 * S, r, q_normal, x);
  for (int v = 0; v < S; ++v) {
    const float inverse = 1.0f / std::sqrt(x[v] * x[v] + y[v] * y[v] + z[v] * z[v]);
    x[v] *= inverse;
    y[v] *= inverse;
    z[v] *= inverse;
  }
}

// Vertex v of `local` (by coordinate, S a row) turned by R (and moved by o) into `target`.
template <typename Scalar>
RAMUS_ALWAYS_INLINE void turn_vertex(const float* local, int S, int v, const float* R,
                                     const float* o, Scalar* target) {
  const float a = local[v], b = local[S + v], c = local[2 * S + v];
  for (int k = 0; k < 3; ++k)
    target[k] = static_cast<Scalar>((o ? o[k] : 0.0f) + R[k] * a + R[3 + k] * b + R[6 + k] * c);
}

#if defined(__GNUC__)
typedef float Float4 __attribute__((vector_size(16)));
typedef float Float2 __attribute__((vector_size(8)));

// Four floats from memory (unaligned).
RAMUS_ALWAYS_INLINE void load4(const float* p, Float4& value) {
  std::memcpy(&value, p, sizeof value);
}

// Vertices v .. v + 4 of `local` (by coordinate) turned by R and moved by o (o null: turned
// alone), as three rows x, y, z.
RAMUS_ALWAYS_INLINE void turn4(const float* local, int S, int v, const float* R, const float* o,
                               Float4& x, Float4& y, Float4& z) {
  Float4 a, b, c;
  load4(local + v, a);
  load4(local + S + v, b);
  load4(local + 2 * S + v, c);
  x = R[0] * a + R[3] * b + R[6] * c;
  y = R[1] * a + R[4] * b + R[7] * c;
  z = R[2] * a + R[5] * b + R[8] * c;
  if (o) {
    x += o[0];
    y += o[1];
    z += o[2];
  }
}

// Rows (x, y, z, w) of four vertices transposed to one 16-byte row (x_k, y_k, z_k, w_k) each.
RAMUS_ALWAYS_INLINE void transpose4(const Float4& x, const Float4& y, const Float4& z,
                                    const Float4& w, Float4 rows[4]) {
  const Float4 xy_low = __builtin_shufflevector(x, y, 0, 4, 1, 5);
  const Float4 xy_high = __builtin_shufflevector(x, y, 2, 6, 3, 7);
  const Float4 zw_low = __builtin_shufflevector(z, w, 0, 4, 1, 5);
  const Float4 zw_high = __builtin_shufflevector(z, w, 2, 6, 3, 7);
  rows[0] = __builtin_shufflevector(xy_low, zw_low, 0, 1, 4, 5);
  rows[1] = __builtin_shufflevector(xy_low, zw_low, 2, 3, 6, 7);
  rows[2] = __builtin_shufflevector(xy_high, zw_high, 0, 1, 4, 5);
  rows[3] = __builtin_shufflevector(xy_high, zw_high, 2, 3, 6, 7);
}
#endif

// One domain's render vertices into the caller's floats (stride 3 or 6): its local vertices,
// then turned, moved and interleaved four at a time — with normals a 4 by 4 transpose of
// (x, y, z, nx) stored as 16-byte rows and (ny, nz) as 8-byte pairs; positions alone as
// (x, y, z, x') rows, each one's fourth float overwritten by the next (the piece's last vertex
// one by one: its fourth would fall past the piece).
RAMUS_VECTOR_CLONES void domain_vertices(const RenderPiece& piece, int r, const float* q,
                                         const float* q_normal, float s, const float* R,
                                         const float* o, bool normals, float* local,
                                         float* target) {
  const int S = piece.size();
  domain_local_vertices(piece, r, q, q_normal, s, normals, local);
  const int stride = render_vertex_stride(normals);
  int v = 0;
#if defined(__GNUC__)
  Float4 rows[4], x, y, z;
  if (normals) {
    Float4 nx, ny, nz;
    for (; v + 4 <= S; v += 4) {
      turn4(local, S, v, R, o, x, y, z);
      turn4(local + 3 * S, S, v, R, nullptr, nx, ny, nz);
      transpose4(x, y, z, nx, rows);
      const Float4 yz_low = __builtin_shufflevector(ny, nz, 0, 4, 1, 5);
      const Float4 yz_high = __builtin_shufflevector(ny, nz, 2, 6, 3, 7);
      const Float2 pairs[4] = {__builtin_shufflevector(yz_low, yz_low, 0, 1),
                               __builtin_shufflevector(yz_low, yz_low, 2, 3),
                               __builtin_shufflevector(yz_high, yz_high, 0, 1),
                               __builtin_shufflevector(yz_high, yz_high, 2, 3)};
      for (int k = 0; k < 4; ++k) {
        std::memcpy(target + 6 * (v + k), &rows[k], sizeof rows[k]);
        std::memcpy(target + 6 * (v + k) + 4, &pairs[k], sizeof pairs[k]);
      }
    }
  } else {
    for (; v + 5 <= S; v += 4) {
      turn4(local, S, v, R, o, x, y, z);
      transpose4(x, y, z, x, rows);
      for (int k = 0; k < 4; ++k) std::memcpy(target + 3 * (v + k), &rows[k], sizeof rows[k]);
    }
  }
#endif
  for (; v < S; ++v) {
    turn_vertex(local, S, v, R, o, target + stride * v);
    if (normals) turn_vertex(local + 3 * S, S, v, R, nullptr, target + stride * v + 3);
  }
}

// The same positions in double, one by one (for analysis and files).
void domain_vertices(const RenderPiece& piece, int r, const float* q, const float*, float s,
                     const float* R, const float* o, bool, float* local, double* target) {
  domain_local_vertices(piece, r, q, nullptr, s, false, local);
  for (int v = 0; v < piece.size(); ++v) turn_vertex(local, piece.size(), v, R, o, target + 3 * v);
}

template <typename Scalar>
void write_vertices(const Model& model, const State& state, WorkspaceData& w, Scalar* out,
                    bool normals, const RenderPlacement& placement) {
  const int stride = render_vertex_stride(normals);
  float* q = w.render_coordinates.data();
  float* q_normal = w.render_normal_coordinates.data();
  float* local = w.render_local_vertices.data();
  for (const RenderPiece& piece : model.render.pieces) {
    const int S = piece.size();
    const int r = model.parts[static_cast<std::size_t>(piece.part)].r;
    for (std::size_t j = 0; j < piece.domains.size(); ++j) {
      const int i = piece.domains[j];
      const Domain& domain = model.domains[static_cast<std::size_t>(i)];
      const DomainFrame frame = domain_frame(state, i, placement);
      const auto coordinates = state.q.segment(domain.dof_offset, domain.r);
      // q scaled by s_b for the positions, by s_b / s for the normals.
      const double ratio = domain.scale.basis / domain.scale.length;
      for (int l = 0; l < r; ++l) {
        q[l] = static_cast<float>(domain.scale.basis * coordinates(l));
        q_normal[l] = static_cast<float>(ratio * coordinates(l));
      }
      domain_vertices(piece, r, q, q_normal, static_cast<float>(domain.scale.length),
                      frame.rotation.data(), frame.origin.data(), normals, local,
                      out + stride * (piece.first_vertex + static_cast<std::ptrdiff_t>(j) * S));
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
