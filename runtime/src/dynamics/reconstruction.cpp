#include "ramus/runtime/dynamics/reconstruction.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <limits>
#include <string>

#include "ramus/error.h"
#include "workspace_data.h"

namespace ramus {

namespace {

// OptionError unless `state` is `model`'s (the functions that allocate may throw).
void require_state_of(const Model& model, const State& state) {
  if (!state_fits(model, state))
    throw OptionError(
        "the State was made for another model (or resized): make it with "
        "make_state of this model");
}

// Vertex k of domain i in its frame F_i: s X_k + s_b U_k q_i.
Eigen::Vector3d vertex_in_frame(const Domain& domain, const Part& proto, const State& state,
                                Eigen::Index k) {
  Eigen::Vector3d x = domain.scale.length * proto.rest_positions.row(k).transpose();
  if (domain.r > 0)
    x.noalias() += domain.scale.basis * (proto.basis.middleRows<3>(3 * k) *
                                         state.q.segment(domain.dof_offset, domain.r));
  return x;
}

// The world velocity of that vertex (x: vertex_in_frame): R_i (v_i + ω_i × x + s_b U_k q̇_i),
// v_i and ω_i in F_i's axes.
Eigen::Vector3d vertex_world_velocity(const Domain& domain, const Part& proto, const State& state,
                                      int i, Eigen::Index k, const Eigen::Vector3d& x) {
  Eigen::Vector3d u_dot = Eigen::Vector3d::Zero();
  if (domain.r > 0)
    u_dot.noalias() = domain.scale.basis * (proto.basis.middleRows<3>(3 * k) *
                                            state.qdot.segment(domain.dof_offset, domain.r));
  return state.frame_rotation.middleCols<3>(3 * i) *
         (state.frame_velocity.col(i) + state.frame_angular_velocity.col(i).cross(x) + u_dot);
}

// Σ over the domains of world_value(domain i, its part, vertex k, x) at each copy's global
// vertex, averaged over the copies (C0), with x = vertex_in_frame.
template <typename WorldValue>
void average_over_copies(const Model& model, const State& state, Eigen::MatrixX3d& out,
                         WorldValue world_value) {
  out.resize(model.num_global_vertices, 3);
  out.setZero();
  for (int i = 0; i < model.num_domains(); ++i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    const Part& proto = model.parts[static_cast<std::size_t>(domain.part)];
    for (Eigen::Index k = 0; k < domain.global_vertices.size(); ++k)
      out.row(domain.global_vertices(k)) +=
          world_value(i, domain, proto, k, vertex_in_frame(domain, proto, state, k)).transpose();
  }
  for (Eigen::Index v = 0; v < out.rows(); ++v)
    if (model.global_copy_count(v) > 1) out.row(v) /= model.global_copy_count(v);
}

}  // namespace

void domain_world_positions(const Model& model, const State& state, int i,
                            Eigen::MatrixX3d& positions) {
  require_state_of(model, state);
  if (i < 0 || i >= model.num_domains())
    throw OptionError("domain " + std::to_string(i) + " is out of range [0, " +
                      std::to_string(model.num_domains()) + ")");
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  const Part& proto = model.parts[static_cast<std::size_t>(domain.part)];
  positions.resize(proto.rest_positions.rows(), 3);
  const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * i);
  // (A scaled domain: s X + s^-3/2 U q.)
  for (Eigen::Index v = 0; v < positions.rows(); ++v)
    positions.row(v) =
        (R * vertex_in_frame(domain, proto, state, v) + state.frame_origin.col(i)).transpose();
}

void domain_world_velocities(const Model& model, const State& state, int i,
                             Eigen::MatrixX3d& velocities) {
  require_state_of(model, state);
  if (i < 0 || i >= model.num_domains())
    throw OptionError("domain " + std::to_string(i) + " is out of range [0, " +
                      std::to_string(model.num_domains()) + ")");
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  const Part& proto = model.parts[static_cast<std::size_t>(domain.part)];
  velocities.resize(proto.rest_positions.rows(), 3);
  for (Eigen::Index v = 0; v < velocities.rows(); ++v)
    velocities.row(v) =
        vertex_world_velocity(domain, proto, state, i, v, vertex_in_frame(domain, proto, state, v))
            .transpose();
}

void global_positions(const Model& model, const State& state, Eigen::MatrixX3d& positions) {
  require_state_of(model, state);
  average_over_copies(model, state, positions,
                      [&](int i, const Domain&, const Part&, Eigen::Index,
                          const Eigen::Vector3d& x) -> Eigen::Vector3d {
                        return state.frame_rotation.middleCols<3>(3 * i) * x +
                               state.frame_origin.col(i);
                      });
}

void global_velocities(const Model& model, const State& state, Eigen::MatrixX3d& velocities) {
  require_state_of(model, state);
  average_over_copies(model, state, velocities,
                      [&](int i, const Domain& domain, const Part& proto, Eigen::Index k,
                          const Eigen::Vector3d& x) {
                        return vertex_world_velocity(domain, proto, state, i, k, x);
                      });
}

namespace {

template <typename Scalar>
void render_positions_as(const Model& model, const State& state, WorkspaceData& w,
                         Scalar* out) noexcept {
  // Vertices shared by several domains (conforming interfaces) are averaged: accumulate.
  const bool shared = (model.global_copy_count.array() > 1).any();
  if (shared)
    std::fill(out, out + 3 * static_cast<std::ptrdiff_t>(model.num_global_vertices), Scalar(0));
  for (std::size_t p = 0; p < model.parts.size(); ++p) {
    const Part& proto = model.parts[p];
    const Eigen::MatrixX3d& X = proto.rest_positions;
    const auto n = static_cast<Eigen::Index>(proto.domains.size());
    Eigen::MatrixXd& block = w.render_blocks[p];
    for (Eigen::Index first = 0; first < n; first += kRenderBlock) {
      const Eigen::Index count = std::min<Eigen::Index>(kRenderBlock, n - first);
      // The displacements U q of `count` domains at once (their q are adjacent in the State).
      if (proto.r > 0) {
        const Eigen::Map<const Eigen::MatrixXd> q(
            state.q.data() + proto.dof_offset + first * proto.r, proto.r, count);
        block.leftCols(count).noalias() = proto.basis * q;
      }
      for (Eigen::Index j = 0; j < count; ++j) {
        const int i = proto.domains[static_cast<std::size_t>(first + j)];
        const Domain& domain = model.domains[static_cast<std::size_t>(i)];
        const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * i);
        const Eigen::Vector3d o = state.frame_origin.col(i);
        for (Eigen::Index v = 0; v < X.rows(); ++v) {
          Eigen::Vector3d x = domain.scale.length * X.row(v).transpose();
          if (proto.r > 0) x += domain.scale.basis * block.col(j).segment<3>(3 * v);
          const Eigen::Vector3d world = R * x + o;
          Scalar* target = out + 3 * static_cast<std::ptrdiff_t>(domain.global_vertices(v));
          if (shared) {
            const double weight = 1.0 / model.global_copy_count(domain.global_vertices(v));
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

StepStatus render_positions(const Model& model, const State& state, Workspace& workspace,
                            double* out) noexcept {
  if (!state_fits(model, state) || !workspace.made_for(model)) return StepStatus::kWrongModel;
  render_positions_as(model, state, workspace.data(), out);
  return StepStatus::kOk;
}

StepStatus render_positions(const Model& model, const State& state, Workspace& workspace,
                            float* out) noexcept {
  if (!state_fits(model, state) || !workspace.made_for(model)) return StepStatus::kWrongModel;
  render_positions_as(model, state, workspace.data(), out);
  return StepStatus::kOk;
}

double elastic_energy(const Model& model, const State& state, Workspace& workspace) noexcept {
  if (!state_fits(model, state) || !workspace.made_for(model))
    return std::numeric_limits<double>::quiet_NaN();
  double energy = 0;
  for (int i = 0; i < model.num_domains(); ++i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    if (domain.r == 0) continue;
    PartScratch& scratch = workspace.data().parts[static_cast<std::size_t>(domain.part)];
    // E' = s³ E(s^-5/2 q) for a scaled domain.
    scratch.scaled_q = domain.scale.coordinate * state.q.segment(domain.dof_offset, domain.r);
    energy += state.settings.domains[static_cast<std::size_t>(i)].stiffness_scale *
              domain.scale.energy *
              model.parts[static_cast<std::size_t>(domain.part)].forces.evaluate_energy(
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
  for (int i = 0; i < model.num_domains(); ++i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    const Part& proto = model.parts[static_cast<std::size_t>(domain.part)];
    // (A scaled domain: ∫ρX by s⁴, W1 by s^3/2, mass by s³.)
    Eigen::Vector3d moment = domain.scale.first_moment * proto.first_moment,
                    velocity = Eigen::Vector3d::Zero();
    const Eigen::MatrixXd& w1 = proto.system_force.w1;
    if (domain.r > 0 && w1.cols() == domain.r) {
      moment.noalias() -= domain.scale.load * (w1 * state.q.segment(domain.dof_offset, domain.r));
      velocity.noalias() -=
          domain.scale.load * (w1 * state.qdot.segment(domain.dof_offset, domain.r));
    }
    total += state.frame_rotation.middleCols<3>(3 * i) *
             (domain.scale.mass * proto.mass * state.frame_velocity.col(i) +
              Eigen::Vector3d(state.frame_angular_velocity.col(i)).cross(moment) + velocity);
  }
  return total;
}

}  // namespace ramus
