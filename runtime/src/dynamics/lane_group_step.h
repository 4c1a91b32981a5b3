// Lines 5-11 of Algorithm 1 for up to eight childless domains of one part at once, one domain per
// SIMD lane (runtime internals): their relative kinematics (Eq. 1-9, the polar decomposition by
// Higham's iteration in lanes), frames (Eq. 10-12), loads with the system force (Eq. 14, B z with
// the part's B shared by the lanes), reduced StVK forces (the part's coefficients times
// eight monomial vectors) and the semi-implicit stage with its r by r Cholesky solve, all in
// lanes. Per domain the same arithmetic as the domain-by-domain step up to rounding.
#pragma once

#include "lane_math.h"
#include "ramus/runtime/dynamics/step.h"
#include "ramus/runtime/kernels/wind_field.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

struct PartScratch;
struct WorkspaceData;

/// Lane buffers for a part with r coordinates (p = r (r + 1) / 2 pairs).
struct LaneScratch {
  LaneScratch() = default;
  explicit LaneScratch(int r);
  lanes::LaneBuffer q, qdot, q_hat, v_hat, q_tilde, gradient, load, rhs;  ///< r each
  lanes::LaneBuffer monomials, k3, k4, stiffness;                         ///< p each (pair order)
  lanes::LaneBuffer z;       ///< 13 + 10 r: the system force's monomials (SystemForceMatrix)
  lanes::LaneBuffer factor;  ///< r by r, column-major: the stage matrix, then its Cholesky factor
  lanes::LaneBuffer system;  ///< r: f_sys
};

/// The polar decomposition A = R S of each lane's 3 by 3 A (polar_decomposition per lane, to
/// rounding): Higham's iteration in lanes, the scalar decomposition (its SVD) for a lane the
/// iteration does not settle. Returns how many lanes went to the scalar decomposition.
int polar_decomposition_lanes(const lanes::Mat3& A, lanes::Mat3& R, lanes::Mat3& S) noexcept;

/// Whether domains[0, count), a group of Model::childless_groups (childless, not the root, one
/// part), can have their kinematics in lanes: at least two, of a part with lane data
/// (Part::batched).
bool lane_kinematics_fit(const Model& model, const int* domains, int count) noexcept;

/// Whether such domains can also step in lanes: one integrator for all, SI, or SBDF2 with a
/// previous step.
bool lane_integrators_fit(const State& state, const int* domains, int count) noexcept;

/// Lines 10-11 of each domain's parent for it, then line 5: the relative kinematics and frames of
/// domains[0, count) (lane_kinematics_fit) into `state`, as compute_relative_kinematics then
/// update_child_frame per domain.
void lane_group_kinematics(const Model& model, State& state, const int* domains, int count,
                           bool need_partial_alpha) noexcept;

/// Line 3's per-domain half for domains[0, count) (lane_kinematics_fit), as
/// accumulate_subtree_forces computes it per domain: each domain's wind drag at its frame's origin
/// (force, torque, reduced force), its own external force in world axes and its subtree force (and
/// L3 torque) before its children's, in lanes; frames of the step's start.
void lane_group_own_loads(const Model& model, const State& state, WorkspaceData& workspace,
                          const int* domains, int count, const WindField& field,
                          const WindField::Instant& now) noexcept;

/// Lines 6-9 for domains[0, count) (lane_kinematics_fit and lane_integrators_fit; frames from
/// lane_group_kinematics) into `state`; status[k] as the domain-by-domain step's checks give it
/// (finite, within the divergence bounds).
void advance_lane_group(const Model& model, State& state, const WorkspaceData& workspace,
                        const int* domains, int count, PartScratch& scratch,
                        StepStatus* status) noexcept;

/// Before the pass, for domains[0, count) (a group of Model::parent_lane_groups that
/// lane_integrators_fit): s g(q), s K (q̂ - q) and the Cholesky factor of the semi-implicit stage
/// matrix (c h)² s K + c h β s K + (1 + c h α) M' of each domain at the step's start, as its
/// integrator computes them up to rounding (the quartic product domain by domain, the rest in
/// lanes), into the workspace's stage slots; stage_ready[i]: domain i's matrix is positive
/// definite.
void lane_group_stage_factors(const Model& model, const State& state, WorkspaceData& workspace,
                              const int* domains, int count, PartScratch& scratch) noexcept;

}  // namespace ramus
