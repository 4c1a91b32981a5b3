#include "ramus/runtime/contact/reduced_contact.h"

#include <Eigen/Geometry>
#include <cstdio>

#include "domain_contact.h"
#include "ramus/runtime/contact/contact_response.h"

namespace ramus {

Eigen::Vector3d sample_world_position(const Model& model, const State& state, int i,
                                      int k) noexcept {
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  return state.frame_origin.col(i) +
         state.frame_rotation.middleCols<3>(3 * i) *
             sample_local_position(model.part_of(i).contact, domain.scale, k,
                                   state.q.segment(domain.dof_offset, domain.r));
}

Eigen::Vector3d sample_world_velocity(const Model& model, const State& state, int i,
                                      int k) noexcept {
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  const PartContact& samples = model.part_of(i).contact;
  const Eigen::Vector3d local =
      sample_local_position(samples, domain.scale, k, state.q.segment(domain.dof_offset, domain.r));
  Eigen::Vector3d velocity =
      state.frame_velocity.col(i) + state.frame_angular_velocity.col(i).cross(local);
  if (domain.r > 0)
    velocity.noalias() += domain.scale.basis * (samples.basis.middleRows<3>(3 * k) *
                                                state.qdot.segment(domain.dof_offset, domain.r));
  return state.frame_rotation.middleCols<3>(3 * i) * velocity;
}

namespace {

// Every sample of the object against `collider` in `pose`: f(domain, sample, level set).
template <class Visit>
void for_each_sample(const Model& model, const State& state, const Collider& collider,
                     const Visit& visit) {
  for (int i = 0; i < model.num_domains(); ++i)
    for (int k = 0; k < model.part_of(i).contact.size(); ++k) {
      const Eigen::Vector3d x = sample_world_position(model, state, i, k);
      visit(i, k, collider_level_set(collider, collider.pose, x), x);
    }
}

}  // namespace

ColliderResult add_collider(const Model& model, State& state, const Collider& collider) noexcept {
  ColliderResult result;
  if (!state_fits(model, state)) {
    result.status = ColliderStatus::kWrongModel;
    std::snprintf(result.message, sizeof result.message, "the state was made for another model");
    return result;
  }
  if (const char* problem = collider_problem(collider)) {
    result.status = ColliderStatus::kInvalid;
    std::snprintf(result.message, sizeof result.message, "%s", problem);
    return result;
  }
  // The deepest sample inside it.
  double deepest = 0;
  int domain = -1, vertex = -1;
  for_each_sample(model, state, collider,
                  [&](int i, int k, const LevelSetSample& phi, const Eigen::Vector3d&) {
                    if (phi.value < deepest) {
                      deepest = phi.value;
                      domain = i;
                      vertex = model.part_of(i).contact.vertices(k);
                    }
                  });
  if (-deepest > state.settings.contact_distance) {
    result.status = ColliderStatus::kStartsInside;
    std::snprintf(result.message, sizeof result.message,
                  "domain %d ('%.60s'): the sample at vertex %d lies %.3g m inside the collider "
                  "(more than the contact distance %.3g m): place it outside the object",
                  domain, model.domains[static_cast<std::size_t>(domain)].name.c_str(), vertex,
                  -deepest, state.settings.contact_distance);
    return result;
  }
  result.status = state.colliders.insert(collider, result.id);
  if (result.status == ColliderStatus::kFull)
    std::snprintf(result.message, sizeof result.message, "the state holds %d colliders already",
                  state.colliders.capacity());
  return result;
}

ContactReport measure_contact(const Model& model, const State& state) noexcept {
  ContactReport report;
  if (!state_fits(model, state)) return report;
  const RuntimeSettings& settings = state.settings;
  for (int id = 0; id < state.colliders.capacity(); ++id) {
    if (!state.colliders.contains(id)) continue;
    for_each_sample(
        model, state, state.colliders[id],
        [&](int i, int k, const LevelSetSample& phi, const Eigen::Vector3d& x) {
          if (phi.value < report.smallest_distance) {
            report.smallest_distance = phi.value;
            report.domain = i;
            report.vertex = model.part_of(i).contact.vertices(k);
          }
          if (!(phi.value < settings.contact_distance)) return;
          const double s = model.domains[static_cast<std::size_t>(i)].scale.length;
          const double weight =
              settings.contact_stiffness * s * s * model.part_of(i).contact.weights(k);
          const ScalarDerivatives b = continued_log_barrier(phi.value, settings.contact_distance);
          ++report.active;
          report.energy += weight * b.value;
          const Eigen::Vector3d force = -weight * b.first * phi.gradient;
          report.force += force;
          const Collider& c = state.colliders[id];
          const Eigen::Vector3d v_c = c.velocity + c.angular_velocity.cross(x - c.pose.translation);
          report.power += force.dot(v_c);
          // Friction against the sample's slip.
          if (c.friction <= 0) return;
          const Eigen::Vector3d relative = sample_world_velocity(model, state, i, k) - v_c;
          const Eigen::Vector3d slip = relative - phi.gradient * phi.gradient.dot(relative);
          const Eigen::Vector3d friction =
              -c.friction * force.norm() *
              friction_smoothing(slip.norm(), settings.contact_friction_speed).value_over_y * slip;
          report.friction_power += friction.dot(v_c);
        });
  }
  // A free object: the force that changed its momentum.
  if (model.free_root) report.force = state.root_contact_force;
  return report;
}

}  // namespace ramus
