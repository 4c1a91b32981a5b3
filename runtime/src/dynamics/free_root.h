// A free-flying root (runtime internals): the whole tree's rest inertia carried by the root
// frame as one rigid body, driven by the total external force and torque (substructuring paper,
// §4, "free-flying objects").
#pragma once

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"
#include "workspace_data.h"

namespace ramus {

/// Momentum and angular momentum (world) advanced by h under the force and torque of
/// accumulate_subtree_forces (symplectic Euler), the rotation by the exponential map, then the
/// root frame's velocities and accelerations (in its own axes) from them.
void integrate_free_root(const Model& model, State& state, const WorkspaceData& workspace,
                         double h) noexcept;

/// The root frame's velocities and accelerations from the current momenta and forces, with no
/// advance in time.
void free_root_kinematics(const Model& model, State& state,
                          const WorkspaceData& workspace) noexcept;

}  // namespace ramus
