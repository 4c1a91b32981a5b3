// The scratch of a step (runtime internals): one set of buffers per part, reused by each of
// its domains in turn, and the per-domain sums of line 3 of Algorithm 1.
#pragma once

#include <Eigen/Core>
#include <Eigen/Dense>
#include <algorithm>
#include <vector>

#include "../contact/domain_contact.h"
#include "../contact/subtree_contact.h"
#include "../integrators/integrator_scratch.h"
#include "lane_group_step.h"
#include "ramus/runtime/kernels/system_force.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// Buffers of one part with r coordinates; its domains use them one after another: the
/// integrators' own (integrator_scratch.h) and the step's around them.
struct PartScratch : IntegratorScratch {
  /// `lane_buffers`: also the lanes' buffers (a part whose childless domains step in lanes);
  /// `samples`: the part's contact samples.
  PartScratch(int r, bool lane_buffers, int samples);
  SystemForceScratch system;
  Eigen::VectorXd load;                   ///< r: right-hand side of Eq. 17
  Eigen::VectorXd system_force;           ///< r: f_sys (Eq. 14)
  LaneScratch lanes;                      ///< a lane group's buffers (lane_group_step.h)
  DomainContact contact;                  ///< the contacts of the domain at hand (its equation's)
  std::vector<double> contact_allowance;  ///< one per sample: DomainContact::allowance's room
  SubtreeContact subtree_contact;         ///< and its descendants'
};

/// The lumped inertia of a domain's children for L2 / L3 (interface_lumping.h), kept per domain
/// with children so that domains fill theirs on any thread (L1's is constant:
/// Domain::interface_lumped_mass).
struct ChildLumping {
  ChildLumping() = default;
  ChildLumping(int r, int children);
  Eigen::MatrixXd mass;  ///< r by r: M' = I + Σ_j M_ij
  /// Per child, 3 by r: d(lumping point)/dq_i and (L2, L3) dω_ij/dq̇_i.
  std::vector<Eigen::MatrixXd> jacobians, rotation_jacobians;
  Eigen::MatrixXd inertia_jacobian;  ///< 3 by r: I_w dω_ij/dq̇_i of the child at hand (L3)
  Eigen::MatrixX3d transposed;       ///< r by 3: a Jacobian transposed (the rank-3 updates)
};

/// The first domain of a thread's range that failed in a step (its index in
/// Model::childless_domains) and why.
struct StepFailure {
  int domain = 0;
  StepStatus status = StepStatus::kOk;
};

struct WorkspaceData {
  explicit WorkspaceData(const Model& model);
  std::uint64_t model_identity = 0;  ///< Model::identity of the model it was made for
  std::vector<PartScratch> parts;
  std::vector<ChildLumping> lumping;  ///< per domain with children (Model::parent_domains order)
  /// The semi-implicit stages a step factors before its pass (Model::parent_lane_groups): domain i
  /// with a slot (stage_offset[i] >= 0) keeps at that offset of stage_data s g(q) (r),
  /// s K (q̂ - q) (r) and the stage matrix's Cholesky factor (r by r, column-major, lower, 1 / L_kk
  /// on its diagonal); stage_ready[i]: factored this step (else its integrator runs in full).
  Eigen::VectorXd stage_data;
  std::vector<int> stage_offset;
  std::vector<char> stage_ready;
  Eigen::VectorXd reduced_vertex_force;  ///< num_dofs: Uᵀ R_iᵀ f of the vertex forces
  Eigen::Matrix3Xd own_force_world;      ///< 3 by N: Σ vertex forces on each domain (world)
  Eigen::Matrix3Xd subtree_force;        ///< 3 by N: external force of each subtree, F_i axes
  Eigen::Matrix3Xd subtree_torque;       ///< 3 by N: its torque about the subtree's rest centre of
                                         ///< mass, F_i axes (L3)
  Eigen::Vector3d root_torque = Eigen::Vector3d::Zero();  ///< free root, world, about the COM
  /// 3 by N: the wind's force on each domain and its torque about the part origin (domain axes).
  Eigen::Matrix3Xd wind_force, wind_torque;
  /// The step's colliders (ids as in the State's set) and each domain's contact candidates at
  /// contact_start in the pool, contact_count of them; 3 by N: their barrier's and friction's force
  /// at the step's start and its moment about the domain's origin (world).
  std::vector<StepCollider> step_colliders;
  std::vector<ContactCandidate> contact_candidates;  ///< the pool (Workspace::contact_capacity)
  std::vector<int> contact_count, contact_start;     ///< per domain: how many, where in the pool
  int contact_dropped = 0;                           ///< the last step's candidates without room
  Eigen::Matrix3Xd barrier_force, barrier_moment, friction_force, friction_moment;
  /// The links of the domains with candidates to their ancestors (SubtreeContact), grouped by
  /// ancestor: ancestor a's at [subtree_link_offset[a], subtree_link_offset[a + 1]); room for
  /// every domain's depth. The frames' origins at the step's start.
  std::vector<SubtreeContactLink> subtree_links;
  std::vector<int> subtree_link_offset;
  Eigen::Matrix3Xd start_origins;
  /// A free root: the barrier's force on the whole tree (world), for its rigid body.
  Eigen::Vector3d root_barrier_force = Eigen::Vector3d::Zero();
  /// Its torque about the free root's centre of mass at the step's start (world, N m).
  Eigen::Vector3d root_barrier_torque = Eigen::Vector3d::Zero();
  bool contacts_found = false;  ///< some domain has candidates this step
  // The state at the start of the step, restored on failure. saved_q and saved_qdot have the
  // shape of State::q_history (num_dofs by kHistoryCapacity = 1): after a successful step they
  // are swapped with it, so the history costs no copy.
  Eigen::MatrixXd saved_q, saved_qdot;
  Eigen::VectorXd saved_qddot;
  bool vertex_forces_applied = true;  ///< reduced_vertex_force may hold non-zeros
  Eigen::Matrix3d saved_root_rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d saved_root_origin, saved_root_momentum, saved_root_angular_momentum,
      saved_root_contact_force;
  Eigen::VectorXd saved_energy_target, saved_energy_at_end;  ///< num_domains (im-blend)
  /// Per part, 3#V by min(n, kRenderBlock): U [q_j ...] of up to kRenderBlock of its n
  /// domains (render_positions).
  std::vector<Eigen::MatrixXd> render_blocks;
  /// render_vertices' scratch for one domain, in float: its coordinates scaled for positions
  /// and for normals (max r each) and its positions then normals by coordinate (the largest
  /// piece's 6S).
  Eigen::VectorXf render_coordinates, render_normal_coordinates, render_local_vertices;
  /// Threads 1, 2, ... of the childless domains' pass (Workspace::set_threads): a scratch set each
  /// (thread 0 uses `parts`), their failures and their core / domain seconds (2 by threads).
  std::vector<std::vector<PartScratch>> thread_parts;
  std::vector<StepFailure> thread_failures;
  Eigen::MatrixXd thread_seconds;
};

/// Domain i's place in WorkspaceData::lumping: its place in Model::parent_domains (i has children).
inline std::size_t lumping_slot(const Model& model, int i) {
  const auto it = std::lower_bound(model.parent_domains.begin(), model.parent_domains.end(), i);
  return static_cast<std::size_t>(it - model.parent_domains.begin());
}
inline ChildLumping& lumping_of(WorkspaceData& w, const Model& model, int i) {
  return w.lumping[lumping_slot(model, i)];
}
inline const ChildLumping& lumping_of(const WorkspaceData& w, const Model& model, int i) {
  return w.lumping[lumping_slot(model, i)];
}

/// Domains whose displacements render_positions computes in one matrix product.
constexpr int kRenderBlock = 64;

}  // namespace ramus
