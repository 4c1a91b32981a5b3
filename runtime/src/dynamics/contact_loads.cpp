#include "contact_loads.h"

#include "parallel_for.h"

namespace ramus {

void prepare_step_colliders(const State& state, WorkspaceData& w) noexcept {
  const ColliderSet& set = state.colliders;
  for (int id = 0; id < kMaxColliders; ++id) {
    StepCollider& step = w.step_colliders[static_cast<std::size_t>(id)];
    step.used = set.contains(id);
    if (!step.used) continue;
    step.collider = set[id];
    step.end = advanced_pose(step.collider, state.settings.time_step);
  }
}

void link_subtree_contacts(const Model& model, const State& state, WorkspaceData& w) noexcept;

// Each domain's candidates at contact_start in the pool, in domain order; a domain whose
// candidates no longer fit gets none this step, counted in contact_dropped.
void place_contact_candidates(WorkspaceData& w) noexcept {
  const auto capacity = static_cast<int>(w.contact_candidates.size());
  int next = 0;
  w.contact_dropped = 0;
  for (std::size_t i = 0; i < w.contact_count.size(); ++i) {
    int& count = w.contact_count[i];
    w.contact_start[i] = next;
    if (count > capacity - next) {
      w.contact_dropped += count;
      count = 0;
    }
    next += count;
  }
}

void gather_contact_loads(const Model& model, const State& state, WorkspaceData& w, int threads,
                          bool subtrees, bool l3, const Eigen::Vector3d& center) noexcept {
  const int n = model.num_domains();
  const bool any_collider = !state.colliders.empty();
  // (No collider: the counts are cleared once.)
  if (!any_collider && !w.contacts_found) return;
  prepare_step_colliders(state, w);
  const int num_colliders = state.colliders.capacity();
  // The candidates: counted, given their place in the workspace's pool in domain order (the
  // same for any thread count), then gathered there with their loads.
  parallel_for(n, any_collider ? threads : 1, [&](int i) {
    w.contact_count[static_cast<std::size_t>(i)] =
        any_collider ? gather_domain_contacts(model, state, i, w.step_colliders.data(),
                                              num_colliders, nullptr, 0, nullptr)
                     : 0;
  });
  place_contact_candidates(w);
  parallel_for(n, any_collider ? threads : 1, [&](int i) {
    ContactLoad load;
    if (const int count = w.contact_count[static_cast<std::size_t>(i)]; count > 0)
      gather_domain_contacts(
          model, state, i, w.step_colliders.data(), num_colliders,
          w.contact_candidates.data() + w.contact_start[static_cast<std::size_t>(i)], count, &load);
    w.barrier_force.col(i) = load.barrier_force;
    w.barrier_moment.col(i) = load.barrier_moment;
    w.friction_force.col(i) = load.friction_force;
    w.friction_moment.col(i) = load.friction_moment;
  });
  w.contacts_found = false;
  w.root_barrier_force.setZero();
  w.root_barrier_torque.setZero();
  if (any_collider) {
    // The friction as the domains' external force for the subtree sums (the barrier reaches
    // the ancestors' solves through SubtreeContact instead), in domain order; a free root's
    // rigid body gets both.
    for (int i = 0; i < n; ++i) {
      if (w.contact_count[static_cast<std::size_t>(i)] == 0) continue;
      w.contacts_found = true;
      const Domain& domain = model.domains[static_cast<std::size_t>(i)];
      const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * i);
      const Eigen::Vector3d F = w.friction_force.col(i), M = w.friction_moment.col(i);
      w.own_force_world.col(i) += F + w.barrier_force.col(i);
      if (subtrees) w.subtree_force.col(i) += R.transpose() * F;
      if (l3)
        w.subtree_torque.col(i) +=
            R.transpose() * M - domain.subtree_center_of_mass.cross(R.transpose() * F);
      if (model.free_root) {
        const Eigen::Vector3d arm = state.frame_origin.col(i) - center;
        w.root_barrier_force += w.barrier_force.col(i);
        w.root_barrier_torque += arm.cross(w.barrier_force.col(i)) + w.barrier_moment.col(i);
        w.root_torque += arm.cross(F + w.barrier_force.col(i)) + M + w.barrier_moment.col(i);
      }
    }
  }
  link_subtree_contacts(model, state, w);
}

// The links of every domain with candidates to its ancestors, grouped by ancestor (a counting
// sort into the workspace's room), and the frames' origins at the start.
void link_subtree_contacts(const Model& model, const State& state, WorkspaceData& w) noexcept {
  const int n = model.num_domains();
  std::vector<int>& offset = w.subtree_link_offset;
  std::fill(offset.begin(), offset.end(), 0);
  if (!w.contacts_found) return;
  w.start_origins = state.frame_origin;
  const auto for_each_link = [&](const auto& visit) {
    for (int d = 0; d < n; ++d) {
      if (w.contact_count[static_cast<std::size_t>(d)] == 0) continue;
      int child = d;
      for (int a = model.domains[static_cast<std::size_t>(d)].parent; a >= 0;
           child = a, a = model.domains[static_cast<std::size_t>(a)].parent)
        visit(a, SubtreeContactLink{d, child});
    }
  };
  for_each_link(
      [&](int a, const SubtreeContactLink&) { ++offset[static_cast<std::size_t>(a) + 1]; });
  for (int a = 0; a < n; ++a)
    offset[static_cast<std::size_t>(a) + 1] += offset[static_cast<std::size_t>(a)];
  // Filled from each group's end backwards (offset[a + 1] then holds group a's start), then the
  // offsets moved down one place: group a is [offset[a], offset[a + 1]).
  const int total = offset[static_cast<std::size_t>(n)];
  for_each_link([&](int a, const SubtreeContactLink& link) {
    w.subtree_links[static_cast<std::size_t>(--offset[static_cast<std::size_t>(a) + 1])] = link;
  });
  for (int a = 0; a < n; ++a)
    offset[static_cast<std::size_t>(a)] = offset[static_cast<std::size_t>(a) + 1];
  offset[static_cast<std::size_t>(n)] = total;
}

const SubtreeContact* subtree_contact(const Model& model, const State& state,
                                      const WorkspaceData& w, int i,
                                      SubtreeContact& contact) noexcept {
  if (!w.contacts_found) return nullptr;
  const int first = w.subtree_link_offset[static_cast<std::size_t>(i)],
            last = w.subtree_link_offset[static_cast<std::size_t>(i) + 1];
  if (first == last) return nullptr;
  contact.model = &model;
  contact.links = w.subtree_links.data() + first;
  contact.count = last - first;
  contact.candidates = w.contact_candidates.data();
  contact.candidate_counts = w.contact_count.data();
  contact.candidate_starts = w.contact_start.data();
  contact.start_origins = &w.start_origins;
  contact.colliders = w.step_colliders.data();
  contact.rotation = state.frame_rotation.middleCols<3>(3 * i);
  contact.origin = state.frame_origin.col(i);
  contact.stiffness = state.settings.contact_stiffness;
  contact.distance = state.settings.contact_distance;
  return &contact;
}

const DomainContact* domain_contact(const Model& model, const State& state, const WorkspaceData& w,
                                    int i, DomainContact& contact, double* allowance) noexcept {
  const int count = w.contact_count[static_cast<std::size_t>(i)];
  if (count == 0) return nullptr;
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  const RuntimeSettings& settings = state.settings;
  contact.samples = &model.part_of(i).contact;
  contact.scale = &domain.scale;
  contact.candidates = w.contact_candidates.data() + w.contact_start[static_cast<std::size_t>(i)];
  contact.count = count;
  contact.colliders = w.step_colliders.data();
  contact.rotation = state.frame_rotation.middleCols<3>(3 * i);
  contact.origin = state.frame_origin.col(i);
  contact.stiffness = settings.contact_stiffness;
  contact.distance = settings.contact_distance;
  contact.friction_speed = settings.contact_friction_speed;
  contact.time_step = settings.time_step;
  contact.forgive_frame_depth(state.q.segment(domain.dof_offset, domain.r), allowance);
  return &contact;
}

}  // namespace ramus
