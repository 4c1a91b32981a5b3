#include "ramus/runtime/dynamics/reconstruction.h"

#include <Eigen/Geometry>
#include <algorithm>

#include "workspace_data.h"

namespace ramus {

namespace {

// Vertex k of node i in its frame F_i: s X_k + s_b U_k q_i.
Eigen::Vector3d vertex_in_frame(const Node& node, const Prototype& proto, const State& state,
                                Eigen::Index k) {
  Eigen::Vector3d x = node.scale.length * proto.rest_positions.row(k).transpose();
  if (node.r > 0)
    x.noalias() += node.scale.basis *
                   (proto.basis.middleRows<3>(3 * k) * state.q.segment(node.dof_offset, node.r));
  return x;
}

// The world velocity of that vertex (x: vertex_in_frame): R_i (v_i + ω_i × x + s_b U_k q̇_i),
// v_i and ω_i in F_i's axes.
Eigen::Vector3d vertex_world_velocity(const Node& node, const Prototype& proto, const State& state,
                                      int i, Eigen::Index k, const Eigen::Vector3d& x) {
  Eigen::Vector3d u_dot = Eigen::Vector3d::Zero();
  if (node.r > 0)
    u_dot.noalias() = node.scale.basis * (proto.basis.middleRows<3>(3 * k) *
                                          state.qdot.segment(node.dof_offset, node.r));
  return state.frame_rotation.middleCols<3>(3 * i) *
         (state.frame_velocity.col(i) + state.frame_angular_velocity.col(i).cross(x) + u_dot);
}

// Σ over the nodes of world_value(node i, its prototype, vertex k, x) at each copy's global
// vertex, averaged over the copies (C0), with x = vertex_in_frame.
template <typename WorldValue>
void average_over_copies(const Model& model, const State& state, Eigen::MatrixX3d& out,
                         WorldValue world_value) {
  out.resize(model.num_global_vertices, 3);
  out.setZero();
  for (int i = 0; i < model.num_nodes(); ++i) {
    const Node& node = model.nodes[static_cast<std::size_t>(i)];
    const Prototype& proto = model.prototypes[static_cast<std::size_t>(node.prototype)];
    for (Eigen::Index k = 0; k < node.global_vertices.size(); ++k)
      out.row(node.global_vertices(k)) +=
          world_value(i, node, proto, k, vertex_in_frame(node, proto, state, k)).transpose();
  }
  for (Eigen::Index v = 0; v < out.rows(); ++v)
    if (model.global_copy_count(v) > 1) out.row(v) /= model.global_copy_count(v);
}

}  // namespace

void node_world_positions(const Model& model, const State& state, int i,
                          Eigen::MatrixX3d& positions) {
  const Node& node = model.nodes[static_cast<std::size_t>(i)];
  const Prototype& proto = model.prototypes[static_cast<std::size_t>(node.prototype)];
  positions.resize(proto.rest_positions.rows(), 3);
  const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * i);
  // (A scaled node: s X + s^-3/2 U q.)
  for (Eigen::Index v = 0; v < positions.rows(); ++v)
    positions.row(v) =
        (R * vertex_in_frame(node, proto, state, v) + state.frame_origin.col(i)).transpose();
}

void node_world_velocities(const Model& model, const State& state, int i,
                           Eigen::MatrixX3d& velocities) {
  const Node& node = model.nodes[static_cast<std::size_t>(i)];
  const Prototype& proto = model.prototypes[static_cast<std::size_t>(node.prototype)];
  velocities.resize(proto.rest_positions.rows(), 3);
  for (Eigen::Index v = 0; v < velocities.rows(); ++v)
    velocities.row(v) =
        vertex_world_velocity(node, proto, state, i, v, vertex_in_frame(node, proto, state, v))
            .transpose();
}

void global_positions(const Model& model, const State& state, Eigen::MatrixX3d& positions) {
  average_over_copies(model, state, positions,
                      [&](int i, const Node&, const Prototype&, Eigen::Index,
                          const Eigen::Vector3d& x) -> Eigen::Vector3d {
                        return state.frame_rotation.middleCols<3>(3 * i) * x +
                               state.frame_origin.col(i);
                      });
}

void global_velocities(const Model& model, const State& state, Eigen::MatrixX3d& velocities) {
  average_over_copies(
      model, state, velocities,
      [&](int i, const Node& node, const Prototype& proto, Eigen::Index k,
          const Eigen::Vector3d& x) { return vertex_world_velocity(node, proto, state, i, k, x); });
}

namespace {

template <typename Scalar>
void render_positions_as(const Model& model, const State& state, WorkspaceData& w,
                         Scalar* out) noexcept {
  // Vertices shared by several nodes (conforming interfaces) are averaged: accumulate.
  const bool shared = (model.global_copy_count.array() > 1).any();
  if (shared)
    std::fill(out, out + 3 * static_cast<std::ptrdiff_t>(model.num_global_vertices), Scalar(0));
  for (std::size_t p = 0; p < model.prototypes.size(); ++p) {
    const Prototype& proto = model.prototypes[p];
    const Eigen::MatrixX3d& X = proto.rest_positions;
    const auto n = static_cast<Eigen::Index>(proto.nodes.size());
    Eigen::MatrixXd& block = w.render_blocks[p];
    for (Eigen::Index first = 0; first < n; first += kRenderBlock) {
      const Eigen::Index count = std::min<Eigen::Index>(kRenderBlock, n - first);
      // The displacements U q of `count` nodes at once (their q are adjacent in the State).
      if (proto.r > 0) {
        const Eigen::Map<const Eigen::MatrixXd> q(
            state.q.data() + proto.dof_offset + first * proto.r, proto.r, count);
        block.leftCols(count).noalias() = proto.basis * q;
      }
      for (Eigen::Index j = 0; j < count; ++j) {
        const int i = proto.nodes[static_cast<std::size_t>(first + j)];
        const Node& node = model.nodes[static_cast<std::size_t>(i)];
        const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * i);
        const Eigen::Vector3d o = state.frame_origin.col(i);
        for (Eigen::Index v = 0; v < X.rows(); ++v) {
          Eigen::Vector3d x = node.scale.length * X.row(v).transpose();
          if (proto.r > 0) x += node.scale.basis * block.col(j).segment<3>(3 * v);
          const Eigen::Vector3d world = R * x + o;
          Scalar* target = out + 3 * static_cast<std::ptrdiff_t>(node.global_vertices(v));
          if (shared) {
            const double weight = 1.0 / model.global_copy_count(node.global_vertices(v));
            for (int c = 0; c < 3; ++c) target[c] += static_cast<Scalar>(weight * world(c));
          } else {
            for (int c = 0; c < 3; ++c) target[c] = static_cast<Scalar>(world(c));
          }
        }
      }
    }
  }
}

}  // namespace

void render_positions(const Model& model, const State& state, Workspace& workspace,
                      double* out) noexcept {
  render_positions_as(model, state, workspace.data(), out);
}

void render_positions(const Model& model, const State& state, Workspace& workspace,
                      float* out) noexcept {
  render_positions_as(model, state, workspace.data(), out);
}

void embedded_surface_positions(const Model& model, const Eigen::MatrixX3d& global,
                                Eigen::MatrixX3d& positions) {
  const EmbeddedSurface& s = model.embedded_surface;
  positions.resize(s.rest_positions.rows(), 3);
  for (Eigen::Index k = 0; k < s.rest_positions.rows(); ++k) {
    const int i = s.domain(k);
    const Node& node = model.nodes[static_cast<std::size_t>(i)];
    const Prototype& proto = model.prototypes[static_cast<std::size_t>(node.prototype)];
    Eigen::RowVector3d x = Eigen::RowVector3d::Zero();
    for (int c = 0; c < 4; ++c)
      x += s.barycentric(k, c) * global.row(node.global_vertices(proto.tets(s.tet(k), c)));
    positions.row(k) = x;
  }
}

double elastic_energy(const Model& model, const State& state, Workspace& workspace) noexcept {
  double energy = 0;
  for (int i = 0; i < model.num_nodes(); ++i) {
    const Node& node = model.nodes[static_cast<std::size_t>(i)];
    if (node.r == 0) continue;
    PrototypeScratch& scratch =
        workspace.data().prototypes[static_cast<std::size_t>(node.prototype)];
    // E' = s³ E(s^-5/2 q) for a scaled node.
    scratch.scaled_q = node.scale.coordinate * state.q.segment(node.dof_offset, node.r);
    energy += state.settings.nodes[static_cast<std::size_t>(i)].stiffness_scale *
              node.scale.energy *
              model.prototypes[static_cast<std::size_t>(node.prototype)].forces.evaluate_energy(
                  scratch.scaled_q, scratch.polynomial, scratch.gradient, scratch.stiffness);
  }
  return energy;
}

double deformation_kinetic_energy(const State& state) {
  return 0.5 * state.qdot.squaredNorm();
}

Eigen::Vector3d linear_momentum(const Model& model, const State& state) {
  // ∫ρ v dV in F_i axes = m v_i + ω_i × (∫ρ X_rest + ∫ρ U q) + ∫ρ U q̇, with ∫ρ U = -W1.
  Eigen::Vector3d total = Eigen::Vector3d::Zero();
  for (int i = 0; i < model.num_nodes(); ++i) {
    const Node& node = model.nodes[static_cast<std::size_t>(i)];
    const Prototype& proto = model.prototypes[static_cast<std::size_t>(node.prototype)];
    // (A scaled node: ∫ρX by s⁴, W1 by s^3/2, mass by s³.)
    Eigen::Vector3d moment = node.scale.first_moment * proto.first_moment,
                    velocity = Eigen::Vector3d::Zero();
    const Eigen::MatrixXd& w1 = proto.system_force.w1;
    if (node.r > 0 && w1.cols() == node.r) {
      moment.noalias() -= node.scale.load * (w1 * state.q.segment(node.dof_offset, node.r));
      velocity.noalias() -= node.scale.load * (w1 * state.qdot.segment(node.dof_offset, node.r));
    }
    total += state.frame_rotation.middleCols<3>(3 * i) *
             (node.scale.mass * proto.mass * state.frame_velocity.col(i) +
              Eigen::Vector3d(state.frame_angular_velocity.col(i)).cross(moment) + velocity);
  }
  return total;
}

}  // namespace ramus
