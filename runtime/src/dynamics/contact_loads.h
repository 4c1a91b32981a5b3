// The colliders' part of Algorithm 1, line 3 (runtime internals; docs/CONTACT.md "Reduced
// contact"): each domain's contact candidates at the step's start, and their forces as external
// forces of the domain for its parent's lumping and a free root.
#pragma once

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"
#include "workspace_data.h"

namespace ramus {

/// The step's colliders from the State's set: each as at the start, with its pose carried one
/// time step along its velocities (WorkspaceData::step_colliders).
void prepare_step_colliders(const State& state, WorkspaceData& workspace) noexcept;

/// Every domain's candidates (gather_domain_contacts, on `threads` threads: each domain's on
/// one), then, in domain order, their friction added to the domains' subtree force (F_i axes,
/// when `subtrees`) and L3 torque about the subtree's rest centre of mass (when `l3`), and both
/// barrier and friction to a free root's force and torque about `center` (world); then each
/// domain's links to its ancestors (SubtreeContact), which carry the barrier to them.
void gather_contact_loads(const Model& model, const State& state, WorkspaceData& workspace,
                          int threads, bool subtrees, bool l3,
                          const Eigen::Vector3d& center) noexcept;

/// Points domain i's equation at its descendants' contacts (SubtreeContact in `contact`) when
/// some descendant has candidates this step.
const SubtreeContact* subtree_contact(const Model& model, const State& state,
                                      const WorkspaceData& workspace, int i,
                                      SubtreeContact& contact) noexcept;

/// Points domain i's equation at its contacts (scratch.contact) when it has any this step, with
/// what its solve forgives each (barrier_allowance with its frame at t + h and q at t) written to
/// `allowance` (room for the part's samples).
const DomainContact* domain_contact(const Model& model, const State& state,
                                    const WorkspaceData& workspace, int i, DomainContact& contact,
                                    double* allowance) noexcept;

}  // namespace ramus
