// External forces of subtrees and their lumping into the parent's equation (substructuring
// paper, Eq. 15-16, lumpings L1/L2/L3 of §5; runtime internals).
#pragma once

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"
#include "workspace_data.h"

namespace ramus {

/// Algorithm 1, line 3, leaves to root: each domain's own external force (vertex forces and
/// gravity) and its subtree's sum in its own axes (and, for L3, their torque about the subtree's
/// rest centre of mass); the reduced vertex forces Uᵀ R_iᵀ f; a free root's torque about the
/// centre of mass. Uses the frames of the step's start. The domains' wind drag on `threads`
/// threads (each domain's on one: the result does not depend on the count); with `lanes`, the
/// childless domains' by lane group (lane_group_own_loads), as the step's lanes.
void accumulate_subtree_forces(const Model& model, const State& state, WorkspaceData& workspace,
                               int threads = 1, bool lanes = false) noexcept;

/// Algorithm 1, lines 7-8, the part that does not need the domain's frame at t + h (the children's
/// relative kinematics of the step's start only): each child's lumping Jacobians into
/// `lumping` and M' = I + Σ_j M_ij into lumping.mass. Independent across domains (threads).
void lump_children_inertia(const Model& model, const State& state, int domain,
                           ChildLumping& lumping) noexcept;

/// The rest of lines 7-8 for `domain`, whose frame is at t + h: adds every child's lumped force
/// f0_ij to `load` (r), with the Jacobians lump_children_inertia stored.
void add_lumped_children_load(const Model& model, const State& state,
                              const WorkspaceData& workspace, int domain,
                              const ChildLumping& lumping, Eigen::VectorXd& load) noexcept;

}  // namespace ramus
