#include "ramus/runtime/dynamics/render_vertices.h"

#include <algorithm>

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

// The scaled coordinates of `count` domains of `piece` from `first`: s_b q into columns of
// `positions`, s_b / s q into `normals` (when asked).
void gather_coordinates(const Model& model, const State& state, const RenderPiece& piece,
                        Eigen::Index first, Eigen::Index count, WorkspaceData& w, bool normals) {
  for (Eigen::Index j = 0; j < count; ++j) {
    const Domain& domain = model.domains[static_cast<std::size_t>(piece.domains[first + j])];
    const auto q = state.q.segment(domain.dof_offset, domain.r);
    w.render_coordinates.col(j).head(domain.r) = (domain.scale.basis * q).cast<float>();
    if (normals)
      w.render_normal_coordinates.col(j).head(domain.r) =
          (domain.scale.basis / domain.scale.length * q).cast<float>();
  }
}

template <typename Scalar>
void write_vertices(const Model& model, const State& state, WorkspaceData& w, Scalar* out,
                    bool normals, const RenderPlacement& placement) {
  const int stride = render_vertex_stride(normals);
  for (const RenderPiece& piece : model.render.pieces) {
    const Eigen::Index S = piece.size();
    const Eigen::Index r = model.parts[static_cast<std::size_t>(piece.part)].r;
    const auto n = static_cast<Eigen::Index>(piece.domains.size());
    for (Eigen::Index first = 0; first < n; first += kRenderBlock) {
      const Eigen::Index count = std::min<Eigen::Index>(kRenderBlock, n - first);
      // Displacements (and normal changes) of `count` domains in one product each.
      auto displacements = w.render_displacements.topLeftCorner(3 * S, count);
      auto changes = w.render_normal_changes.topLeftCorner(3 * S, count);
      if (r > 0) {
        gather_coordinates(model, state, piece, first, count, w, normals);
        displacements.noalias() =
            piece.position_basis * w.render_coordinates.topLeftCorner(r, count);
        if (normals)
          changes.noalias() =
              piece.normal_basis * w.render_normal_coordinates.topLeftCorner(r, count);
      } else {
        displacements.setZero();
        changes.setZero();
      }
      // Each domain's vertices through its frame (fixed-size arithmetic: no temporaries).
      for (Eigen::Index j = 0; j < count; ++j) {
        const int i = piece.domains[static_cast<std::size_t>(first + j)];
        const DomainFrame frame = domain_frame(state, i, placement);
        const auto s = static_cast<float>(model.domains[static_cast<std::size_t>(i)].scale.length);
        const float* u = displacements.col(j).data();
        const float* dn = changes.col(j).data();
        Scalar* target = out + stride * (piece.first_vertex + (first + j) * S);
        for (Eigen::Index v = 0; v < S; ++v, target += stride) {
          const Eigen::Vector3f local =
              s * piece.rest.col(v) + Eigen::Map<const Eigen::Vector3f>(u + 3 * v);
          const Eigen::Vector3f x = frame.rotation * local + frame.origin;
          for (int c = 0; c < 3; ++c) target[c] = static_cast<Scalar>(x(c));
          if (!normals) continue;
          const Eigen::Vector3f normal =
              frame.rotation *
              (piece.rest_normals.col(v) + Eigen::Map<const Eigen::Vector3f>(dn + 3 * v))
                  .normalized();
          for (int c = 0; c < 3; ++c) target[3 + c] = static_cast<Scalar>(normal(c));
        }
      }
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
      Eigen::Map<Eigen::Matrix3Xd> target(
          out + 3 * (piece.first_vertex + static_cast<Eigen::Index>(j) * piece.size()), 3,
          piece.size());
      target =
          (domain.rest_rotation * (domain.scale.length * piece.rest.cast<double>())).colwise() +
          domain.rest_origin;
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
