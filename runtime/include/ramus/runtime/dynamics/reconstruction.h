// What a renderer or an analysis reads off a State (substructuring paper §4, "rendering"): world
// positions of each domain's vertices, of the undivided mesh with interface copies averaged (C0)
// (the render mesh: render_vertices.h); and the object's energies and momentum. Allocation-free
// when the outputs already have their size.
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/dynamics/step.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// World positions of domain i's vertices (#V_i by 3, m; resized if needed).
void domain_world_positions(const Model& model, const State& state, int domain,
                            Eigen::MatrixX3d& positions);
/// World velocities (m/s) of domain `domain`'s own vertex copies (#V_i by 3): R_i (v_i + ω_i × x +
/// s_b U q̇), no averaging over copies (the energy audit measures each domain on its own).
void domain_world_velocities(const Model& model, const State& state, int domain,
                             Eigen::MatrixX3d& velocities);
/// World positions of the undivided mesh (num_global_vertices by 3): the copies of each
/// interface vertex averaged (C0).
void global_positions(const Model& model, const State& state, Eigen::MatrixX3d& positions);
/// World velocities of the undivided mesh (num_global_vertices by 3, m/s): per domain
/// R_i (v_i + ω_i × x + s_b U q̇) with x = s X + s_b U q its vertex in F_i (Eq. 11's velocity of
/// a point), interface copies averaged as global_positions does.
void global_velocities(const Model& model, const State& state, Eigen::MatrixX3d& velocities);
/// World positions of the undivided mesh for a renderer: 3 num_global_vertices values (x, y, z
/// of global vertex 0, then 1, ...; m) into the caller's buffer, in double or float. Per
/// part one product U [q_1 ... q_n] (kRenderBlock = 64 of its domains at a time), then each
/// domain's scale and frame; copies of interface vertices averaged (C0). Allocation-free (the
/// Workspace holds the products), noexcept.
/// kWrongModel (nothing written) for a State or Workspace of another model.
StepStatus render_positions(const Model& model, const State& state, Workspace& workspace,
                            double* out) noexcept;
StepStatus render_positions(const Model& model, const State& state, Workspace& workspace,
                            float* out) noexcept;
/// Elastic energy of all domains, stiffness scales included (J), evaluated in `workspace`'s
/// scratch (allocation-free); NaN for a State or Workspace of another model.
double elastic_energy(const Model& model, const State& state, Workspace& workspace) noexcept;
/// Σ q̇ᵀ q̇ / 2 over the domains: the kinetic energy of the deformation in the domain frames (J).
double deformation_kinetic_energy(const State& state);
/// Total linear momentum Σ_i ∫ρ v dV with the world velocity of Eq. 11 (world axes, kg m/s).
Eigen::Vector3d linear_momentum(const Model& model, const State& state);

}  // namespace ramus
