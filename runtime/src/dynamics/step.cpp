// Algorithm 1 of the substructuring paper, one line of it per labelled block.
#include "ramus/runtime/dynamics/step.h"

#include "ramus/runtime/data/settings_table.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <chrono>
#include <cmath>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../data/heap_bytes.h"
#include "../integrators/domain_equation.h"
#include "contact_loads.h"
#include "frame_kinematics.h"
#include "free_root.h"
#include "interface_lumping.h"
#include "lane_group_step.h"
#include "parallel_for.h"
#include "ramus/runtime/dynamics/anchor_motion.h"
#include "workspace_data.h"

namespace ramus {

namespace {

using Clock = std::chrono::steady_clock;

// The step's split into core and domain time (Workspace::Profile), one per thread.
struct StepTimer {
  explicit StepTimer(bool timed) : on(timed), mark(timed ? Clock::now() : Clock::time_point{}) {}
  void lap(double& bucket) noexcept {
    if (!on) return;
    const Clock::time_point now = Clock::now();
    bucket += std::chrono::duration<double>(now - mark).count();
    mark = now;
  }
  bool on;
  Clock::time_point mark;
  double core = 0, stepping = 0;
};

bool lumping_needs_partial_alpha(const RuntimeSettings& settings) {
  return settings.lumping != InterfaceLumping::kInterface;
}

// Lines 6-8 for domain i (its frame already at t + h): f = Uᵀ R_iᵀ f_vertices + G R_iᵀ g + f_sys
// (Eq. 14; none for an anchored root) + Σ_j f0_ij, M' = I + Σ_j M_ij (Eq. 16).
DomainEquation assemble_domain_equation(const Model& model, const State& state,
                                        const WorkspaceData& workspace, int i,
                                        PartScratch& scratch) noexcept {
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  const Part& proto = model.parts[static_cast<std::size_t>(domain.part)];
  const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * i);
  // G R_iᵀ g column by column: a fused pass (an r by 3 GEMV costs more at small r); G of a
  // scaled part is s^3/2 G.
  const Eigen::Vector3d g = domain.scale.load * (R.transpose() * state.settings.gravity);
  scratch.load = workspace.reduced_vertex_force.segment(domain.dof_offset, domain.r) +
                 g(0) * proto.gravity_basis.col(0) + g(1) * proto.gravity_basis.col(1) +
                 g(2) * proto.gravity_basis.col(2);
  // A moving anchor without W1..W7 (an anchored single domain): its translation alone, -G a.
  const bool frame_moves = i > 0 || model.free_root || anchor_moves(model, state);
  if (frame_moves && proto.system_force.empty()) {
    const Eigen::Vector3d a = domain.scale.load * state.frame_acceleration.col(i);
    scratch.load -= a(0) * proto.gravity_basis.col(0) + a(1) * proto.gravity_basis.col(1) +
                    a(2) * proto.gravity_basis.col(2);
  } else if (frame_moves) {
    FrameKinematics frame;
    frame.linear_acceleration = state.frame_acceleration.col(i);
    frame.angular_velocity = state.frame_angular_velocity.col(i);
    frame.angular_acceleration = state.frame_angular_acceleration.col(i);
    proto.system_force_matrix.evaluate(state.q.segment(domain.dof_offset, domain.r),
                                       state.qdot.segment(domain.dof_offset, domain.r), frame,
                                       scratch.system, scratch.system_force, domain.scale);
    scratch.load += scratch.system_force;
  }
  DomainEquation equation;
  equation.part = &proto;
  equation.forces = &proto.forces;
  equation.scale = &domain.scale;
  equation.load = &scratch.load;
  equation.domain = state.settings.domains[static_cast<std::size_t>(i)];
  equation.contact =
      domain_contact(model, state, workspace, i, scratch.contact, scratch.contact_allowance.data());
  if (domain.num_children > 0) {
    const ChildLumping& lumping = lumping_of(workspace, model, i);
    add_lumped_children_load(model, state, workspace, i, lumping, scratch.load);
    equation.mass = state.settings.lumping == InterfaceLumping::kInterface
                        ? &domain.interface_lumped_mass
                        : &lumping.mass;
    equation.subtree_contact = subtree_contact(model, state, workspace, i, scratch.subtree_contact);
  }
  return equation;
}

DomainVectors domain_vectors(const Domain& domain, State& state) {
  return {state.q.segment(domain.dof_offset, domain.r),
          state.qdot.segment(domain.dof_offset, domain.r),
          state.qddot.segment(domain.dof_offset, domain.r)};
}

// Domain i's integrator memory in the state: history at t - h (when there is one), split modes,
// tracked energies.
DomainMemory domain_memory(const Domain& domain, State& state, int i) {
  DomainMemory memory;
  if (state.history_size > 0) {
    memory.q_previous = state.q_history.col(0).data() + domain.dof_offset;
    memory.qdot_previous = state.qdot_history.col(0).data() + domain.dof_offset;
  }
  memory.split_modes = &state.split_modes[static_cast<std::size_t>(i)];
  memory.energy_target = &state.energy_target(i);
  memory.energy_at_end = &state.energy_at_end(i);
  memory.energy_valid = state.history_size > 0;
  return memory;
}

// Frames and children's relative kinematics root to leaves from the current q, q̇, q̈ (lines 5
// and 10-11 without a step); with `lanes`, the childless domains' by lane group as the step
// computes them (their bits then equal the step's).
void refresh_kinematics(const Model& model, State& state, bool lanes) noexcept {
  const bool partial = lumping_needs_partial_alpha(state.settings);
  for (int i = 0; i < model.num_domains(); ++i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    if (i > 0) update_child_frame(model, state, i);
    for (int k = 0; k < domain.num_children; ++k)
      compute_relative_kinematics(
          model, state, model.children[static_cast<std::size_t>(domain.first_child + k)], partial);
  }
  if (!lanes) return;
  for (std::size_t g = 0; g + 1 < model.childless_groups.size(); ++g) {
    const int* group = model.childless_domains.data() + model.childless_groups[g];
    const int count = model.childless_groups[g + 1] - model.childless_groups[g];
    if (lane_kinematics_fit(model, group, count))
      lane_group_kinematics(model, state, group, count, partial);
  }
}

void save_state(const State& state, WorkspaceData& w) noexcept {
  w.saved_q.col(0) = state.q;
  w.saved_qdot.col(0) = state.qdot;
  w.saved_qddot = state.qddot;
  w.saved_root_rotation = state.frame_rotation.leftCols<3>();
  w.saved_root_origin = state.frame_origin.col(0);
  w.saved_root_momentum = state.root_momentum;
  w.saved_root_angular_momentum = state.root_angular_momentum;
  w.saved_root_contact_force = state.root_contact_force;
  w.saved_energy_target = state.energy_target;
  w.saved_energy_at_end = state.energy_at_end;
}

// Domain's q, q̇, q̈ of the step's start (save_state), put back.
void restart_domain(const Domain& domain, const WorkspaceData& w, State& state) noexcept {
  state.q.segment(domain.dof_offset, domain.r) =
      w.saved_q.col(0).segment(domain.dof_offset, domain.r);
  state.qdot.segment(domain.dof_offset, domain.r) =
      w.saved_qdot.col(0).segment(domain.dof_offset, domain.r);
  state.qddot.segment(domain.dof_offset, domain.r) =
      w.saved_qddot.segment(domain.dof_offset, domain.r);
}

// Puts back the root's placement and momenta and every q, q̇, q̈ of the step's start (the
// caller restores the root's motion and refreshes the kinematics that follow).
void restore_state(const WorkspaceData& w, State& state) noexcept {
  state.q = w.saved_q.col(0);
  state.qdot = w.saved_qdot.col(0);
  state.qddot = w.saved_qddot;
  state.frame_rotation.leftCols<3>() = w.saved_root_rotation;
  state.frame_origin.col(0) = w.saved_root_origin;
  state.root_momentum = w.saved_root_momentum;
  state.root_angular_momentum = w.saved_root_angular_momentum;
  state.root_contact_force = w.saved_root_contact_force;
  state.energy_target = w.saved_energy_target;
  state.energy_at_end = w.saved_energy_at_end;
}

// Lines 5-9 for domain i: its frame at k + 1 from its parent's (Eq. 10-12), f_sys (Eq. 14) and
// its children's M_ij, f0_ij (Eq. 16), then its integrator on Eq. 17 (with `prefactored`, from
// the stage factored before the pass where there is one); kDiverged past the bounds.
StepStatus advance_domain(const Model& model, State& state, const WorkspaceData& w, int i,
                          std::vector<PartScratch>& scratches, bool frame_done, bool prefactored,
                          StepTimer& timer) noexcept {
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  if (i > 0 && !frame_done) update_child_frame(model, state, i);
  if (domain.r == 0) return StepStatus::kOk;
  const Part& proto = model.parts[static_cast<std::size_t>(domain.part)];
  PartScratch& scratch = scratches[static_cast<std::size_t>(domain.part)];
  DomainEquation equation = assemble_domain_equation(model, state, w, i, scratch);
  timer.lap(timer.core);
  StepStatus status = StepStatus::kOk;
  // (A stage factored before the pass knows nothing of contacts.)
  if (prefactored && w.stage_ready[static_cast<std::size_t>(i)] && !equation.contact &&
      !equation.subtree_contact) {
    const DomainVectors vectors = domain_vectors(domain, state);
    status = prefactored_semi_implicit_step(
        equation, state.settings, vectors, domain_memory(domain, state, i),
        w.stage_data.data() + w.stage_offset[static_cast<std::size_t>(i)], scratch);
    if (status == StepStatus::kOk &&
        (!vectors.q.allFinite() || !vectors.qdot.allFinite() || !vectors.qddot.allFinite()))
      status = StepStatus::kNonFinite;
  } else {
    status = integrate_domain(equation, state.settings, domain_vectors(domain, state),
                              domain_memory(domain, state, i), scratch);
  }
  // Every integrator's result judged alike: a NaN fails every comparison, so the bounds are
  // asked the other way round (a NaN or inf is never "within").
  if (status == StepStatus::kOk) {
    const auto q = state.q.segment(domain.dof_offset, domain.r);
    const auto qdot = state.qdot.segment(domain.dof_offset, domain.r);
    if (!q.allFinite() || !qdot.allFinite())
      status = StepStatus::kNonFinite;
    else if (!(q.lpNorm<Eigen::Infinity>() <= state.settings.max_coordinate) ||
             !(q.norm() <= proto.divergence_norm * domain.scale.moment))
      status = StepStatus::kDiverged;
  }
  timer.lap(timer.stepping);
  return status;
}

// lump_children_inertia of every domain with children, on the workspace's threads (each domain's
// on one thread: the result is one thread's to the last bit).
void lump_all_children_inertia(const Model& model, const State& state,
                               Workspace& workspace) noexcept {
  if (state.settings.lumping == InterfaceLumping::kInterface) return;  // M' constant
  WorkspaceData& w = workspace.data();
  const int n = static_cast<int>(model.parent_domains.size());
  const int threads = std::max(1, std::min(workspace.threads(), n));
  const auto lump = [&](int k) {
    const int i = model.parent_domains[static_cast<std::size_t>(k)];
    if (model.domains[static_cast<std::size_t>(i)].r > 0)
      lump_children_inertia(model, state, i, lumping_of(w, model, i));
  };
  parallel_for(n, threads, lump);
}

// The semi-implicit stages of the domains with children in lane groups
// (Model::parent_lane_groups, lane_group_stage_factors), before the pass: on the workspace's
// threads, every group's arithmetic the same on any of them. A group whose integrators do not fit
// the lanes leaves its domains to their integrators.
void factor_parent_stages(const Model& model, const State& state, Workspace& workspace) noexcept {
  WorkspaceData& w = workspace.data();
  const int groups = static_cast<int>(model.parent_lane_groups.size()) - 1;
  const auto factor = [&](int g, std::vector<PartScratch>& scratches) {
    const int* group = model.parent_lane_domains.data() + model.parent_lane_groups[g];
    const int count = model.parent_lane_groups[g + 1] - model.parent_lane_groups[g];
    if (!lane_integrators_fit(state, group, count)) {
      for (int k = 0; k < count; ++k) w.stage_ready[static_cast<std::size_t>(group[k])] = 0;
      return;
    }
    const Domain& domain = model.domains[static_cast<std::size_t>(group[0])];
    lane_group_stage_factors(model, state, w, group, count,
                             scratches[static_cast<std::size_t>(domain.part)]);
  };
#if defined(_OPENMP)
  if (workspace.threads() > 1 && groups > 1) {
    // (All the workspace's threads, as the pass's lists: another team size would allocate one.)
#pragma omp parallel num_threads(workspace.threads())
    {
      const int t = omp_get_thread_num();
      std::vector<PartScratch>& scratches =
          t == 0 ? w.parts : w.thread_parts[static_cast<std::size_t>(t - 1)];
#pragma omp for schedule(dynamic, 1)
      for (int g = 0; g < groups; ++g) factor(g, scratches);
    }
    return;
  }
#endif
  for (int g = 0; g < groups; ++g) factor(g, w.parts);
}

// The units [begin, end) of `domains`: unit u is domains[k] for k in [groups[u], groups[u + 1])
// (one domain per unit without `groups`). A lane group that fits is advanced in lanes
// (lane_group_step.h); otherwise, domain by domain: a childless domain's own relative kinematics
// (lines 10-11 of its parent, deferred to here), its lines 5-9, then lines 10-11 for its children
// that have children (a childless child does its own). Records the first failure as (k, status).
void advance_range(const Model& model, State& state, WorkspaceData& w,
                   const std::vector<int>& domains, const std::vector<int>* groups, int begin,
                   int end, std::vector<PartScratch>& scratches, bool batched, bool partial,
                   StepTimer& timer, StepFailure& failure) noexcept {
  for (int u = begin; u < end; ++u) {
    const int first = groups ? (*groups)[static_cast<std::size_t>(u)] : u;
    const int last = groups ? (*groups)[static_cast<std::size_t>(u) + 1] : u + 1;
    const int* group = domains.data() + first;
    const bool lane_kinematics = batched && lane_kinematics_fit(model, group, last - first);
    if (lane_kinematics) {
      lane_group_kinematics(model, state, group, last - first, partial);
      timer.lap(timer.core);
      if (lane_integrators_fit(state, group, last - first)) {
        StepStatus status[kLaneGroupSize];
        const Domain& domain = model.domains[static_cast<std::size_t>(group[0])];
        advance_lane_group(model, state, w, group, last - first,
                           scratches[static_cast<std::size_t>(domain.part)], status);
        timer.lap(timer.stepping);
        // The domains in contact again from the step's start, one by one (the lanes know nothing
        // of contacts); the others as the lanes left them.
        for (int k = first; k < last; ++k) {
          const int i = domains[static_cast<std::size_t>(k)];
          StepStatus domain_status = status[k - first];
          if (w.contacts_found && w.contact_count[static_cast<std::size_t>(i)] > 0) {
            restart_domain(model.domains[static_cast<std::size_t>(i)], w, state);
            domain_status = advance_domain(model, state, w, i, scratches, true, batched, timer);
          }
          if (domain_status != StepStatus::kOk) {
            failure = {k, domain_status};
            return;
          }
        }
        continue;
      }
    }
    for (int k = first; k < last; ++k) {
      const int i = domains[static_cast<std::size_t>(k)];
      const Domain& domain = model.domains[static_cast<std::size_t>(i)];
      if (i > 0 && domain.num_children == 0 && !lane_kinematics)
        compute_relative_kinematics(model, state, i, partial);
      const StepStatus status =
          advance_domain(model, state, w, i, scratches, lane_kinematics, batched, timer);
      if (status != StepStatus::kOk) {
        failure = {k, status};
        return;
      }
      for (int c = 0; c < domain.num_children; ++c) {
        const int child = model.children[static_cast<std::size_t>(domain.first_child + c)];
        if (model.domains[static_cast<std::size_t>(child)].num_children > 0)
          compute_relative_kinematics(model, state, child, partial);
      }
      timer.lap(timer.core);
    }
  }
}

// Domains that do not depend on each other (one level of Model::step_levels, or the childless
// domains in their lane groups), in runs of consecutive units handed to the workspace's threads
// as they come free, ever shorter towards the end (their costs differ: a main branch carries
// more children than a twig). Every domain's arithmetic is the same on any thread, so the result is
// one thread's to the last bit; the first failing domain in `domains` order gives the status (every
// unit runs; one thread alone stops at the first failure).
StepStatus advance_domains(const Model& model, State& state, Workspace& workspace,
                           const std::vector<int>& domains, const std::vector<int>* groups,
                           bool batched, bool partial, StepTimer& timer) noexcept {
  WorkspaceData& w = workspace.data();
  const int n = static_cast<int>(domains.size());
  const int units = groups ? static_cast<int>(groups->size()) - 1 : n;
  const int threads = std::max(1, std::min(workspace.threads(), units));
  for (int t = 0; t < threads; ++t)
    w.thread_failures[static_cast<std::size_t>(t)] = {n, StepStatus::kOk};
  if (threads == 1) {
    advance_range(model, state, w, domains, groups, 0, units, w.parts, batched, partial, timer,
                  w.thread_failures[0]);
  } else {
#if defined(_OPENMP)
    // Guided: large runs of consecutive units first (each thread's domains and their parts'
    // data together), ever smaller ones at the end, so that the threads finish together.
#pragma omp parallel num_threads(threads)
    {
      const int t = omp_get_thread_num();
      StepTimer local(timer.on);
      StepFailure& first = w.thread_failures[static_cast<std::size_t>(t)];
      std::vector<PartScratch>& scratches =
          t == 0 ? w.parts : w.thread_parts[static_cast<std::size_t>(t - 1)];
#pragma omp for schedule(guided) nowait
      for (int u = 0; u < units; ++u) {
        StepFailure failure{n, StepStatus::kOk};
        advance_range(model, state, w, domains, groups, u, u + 1, scratches, batched, partial,
                      local, failure);
        if (failure.domain < first.domain) first = failure;
      }
      w.thread_seconds(0, t) = local.core;
      w.thread_seconds(1, t) = local.stepping;
    }
    // Thread-seconds: core and domain time summed over the threads.
    if (timer.on) {
      timer.core += w.thread_seconds.row(0).head(threads).sum();
      timer.stepping += w.thread_seconds.row(1).head(threads).sum();
      timer.mark = Clock::now();
    }
#endif
  }
  StepFailure first{n, StepStatus::kOk};
  for (int t = 0; t < threads; ++t)
    if (w.thread_failures[static_cast<std::size_t>(t)].domain < first.domain)
      first = w.thread_failures[static_cast<std::size_t>(t)];
  return first.status;
}

}  // namespace

StepStatus step(const Model& model, State& state, Workspace& workspace) noexcept {
  if (!state_fits(model, state) || !workspace.made_for(model)) return StepStatus::kWrongModel;
  WorkspaceData& w = workspace.data();
  const RuntimeSettings& settings = state.settings;
  const int num_domains = model.num_domains();
  if (!settings_within_bounds(settings, num_domains) || !integrator_memory_fits(model, state))
    return StepStatus::kInvalidSettings;
  StepTimer timer(workspace.profiling);
  const Eigen::Vector3d root_velocity = state.frame_velocity.col(0),
                        root_acceleration = state.frame_acceleration.col(0),
                        root_angular_velocity = state.frame_angular_velocity.col(0),
                        root_angular_acceleration = state.frame_angular_acceleration.col(0);
  save_state(state, w);
  const double h = settings.time_step;
  const bool partial = lumping_needs_partial_alpha(settings);

  // Line 3, leaves to root: f_ext and m of every subtree (frames of step k).
  const bool batched = workspace.batched_evaluation;
  accumulate_subtree_forces(model, state, w, workspace.threads(), batched);
  // Lines 7-8, the half without frames at k + 1: M' of every domain with children (threads).
  lump_all_children_inertia(model, state, workspace);
  // Line 9's stage matrices of the domains with children, factored in lanes (they need only the
  // step's start and M').
  if (batched) {
    timer.lap(timer.core);
    factor_parent_stages(model, state, workspace);
    timer.lap(timer.stepping);
  }
  // A free root: the whole tree as one rigid body, its frame to step k + 1; a moving anchor:
  // carried there.
  if (model.free_root) integrate_free_root(model, state, w, h);
  if (anchor_moves(model, state)) advance_anchor(model, state, h);
  timer.lap(timer.core);

  // Line 4: root to leaves, level by level (the root, then the domains with children at each
  // depth: independent within a level), then the childless domains (nothing else in the step
  // reads them); each list on the workspace's threads.
  StepStatus status = StepStatus::kOk;
  for (const std::vector<int>& level : model.step_levels) {
    status = advance_domains(model, state, workspace, level, nullptr, batched, partial, timer);
    if (status != StepStatus::kOk) break;
  }
  if (status == StepStatus::kOk)
    status = advance_domains(model, state, workspace, model.childless_domains,
                             &model.childless_groups, batched, partial, timer);

  // The free root's frame and momenta (no domain checks them: an all-rigid tree has no q).
  if (status == StepStatus::kOk && model.free_root &&
      !(state.frame_origin.col(0).allFinite() && state.frame_rotation.leftCols<3>().allFinite() &&
        state.root_momentum.allFinite() && state.root_angular_momentum.allFinite()))
    status = StepStatus::kNonFinite;
  // Failure: the state of step k, as it was.
  if (status != StepStatus::kOk) {
    restore_state(w, state);
    state.frame_velocity.col(0) = root_velocity;
    state.frame_acceleration.col(0) = root_acceleration;
    state.frame_angular_velocity.col(0) = root_angular_velocity;
    state.frame_angular_acceleration.col(0) = root_angular_acceleration;
    refresh_kinematics(model, state, batched);
    return status;
  }
  // Integrator history: step k becomes the most recent earlier step (a swap, no copy; the
  // workspace gets the buffers of the history it replaces, same shape).
  static_assert(kHistoryCapacity == 1, "a deeper history shifts its columns here");
  if (state.q_history.rows() == w.saved_q.rows() && state.q_history.cols() == w.saved_q.cols()) {
    state.q_history.swap(w.saved_q);
    state.qdot_history.swap(w.saved_qdot);
  }
  state.history_size = 1;
  state.time += h;
  state.colliders.advance(h);
  if (timer.on) {
    workspace.profile.core_seconds += timer.core;
    workspace.profile.domain_seconds += timer.stepping;
    ++workspace.profile.steps;
  }
  return StepStatus::kOk;
}

StepStatus initialize(const Model& model, State& state, Workspace& workspace,
                      bool solve_accelerations) noexcept {
  if (!state_fits(model, state) || !workspace.made_for(model)) return StepStatus::kWrongModel;
  WorkspaceData& w = workspace.data();
  if (!settings_within_bounds(state.settings, model.num_domains()))
    return StepStatus::kInvalidSettings;
  const bool partial = lumping_needs_partial_alpha(state.settings);
  // Placement first (frames and kinematics from q), then the forces on it, then the free root's
  // motion from its momenta and those forces.
  refresh_kinematics(model, state, false);
  accumulate_subtree_forces(model, state, w);
  if (model.free_root) free_root_kinematics(model, state, w);
  StepStatus status = StepStatus::kOk;
  for (int i = 0; i < model.num_domains(); ++i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    if (i > 0) update_child_frame(model, state, i);
    if (solve_accelerations && domain.r > 0) {
      // q̈_i from Eq. 17 at the current q, q̇ (children's kinematics with the old q̈_i: q̈
      // does not enter M_ij or f0_ij for L1, only through the lagged Jacobian for L2).
      PartScratch& scratch = w.parts[static_cast<std::size_t>(domain.part)];
      if (domain.num_children > 0) lump_children_inertia(model, state, i, lumping_of(w, model, i));
      const DomainEquation equation = assemble_domain_equation(model, state, w, i, scratch);
      const StepStatus s =
          solve_domain_acceleration(equation, domain_vectors(domain, state), scratch);
      if (s != StepStatus::kOk) status = s;
    }
    for (int k = 0; k < domain.num_children; ++k)
      compute_relative_kinematics(
          model, state, model.children[static_cast<std::size_t>(domain.first_child + k)], partial);
  }
  // Subtree forces with the final frames; the integrators' memory starts afresh.
  accumulate_subtree_forces(model, state, w);
  state.history_size = 0;
  for (SplitModes& modes : state.split_modes) {
    modes.age = -1;
    modes.decompositions = 0;
  }
  return status;
}

}  // namespace ramus
