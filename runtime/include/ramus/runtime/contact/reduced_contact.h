// Contact of a simulated object with its kinematic colliders (docs/CONTACT.md "Reduced
// contact"): adding a collider with a check against the object, and what the contact is at the
// object's current configuration. The step's own use of the colliders is in dynamics/step.h.
#pragma once

#include <Eigen/Core>
#include <limits>

#include "ramus/runtime/contact/collider_set.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// The outcome of add_collider: its status, the new id, and on failure what is wrong.
struct ColliderResult {
  ColliderStatus status = ColliderStatus::kOk;
  int id = -1;
  char message[256] = "";
};

/// Adds `collider` to state.colliders. Refused, the state untouched, when collider_problem names
/// a fault, the set is full, or some contact sample of the object lies inside it deeper than
/// state.settings.contact_distance (the message names the domain, the sample's vertex and its
/// depth). Allocates nothing.
ColliderResult add_collider(const Model& model, State& state, const Collider& collider) noexcept;

/// The contact at the object's current configuration (every sample against every collider).
struct ContactReport {
  int active = 0;  ///< samples within the contact distance of some collider
  /// Their barrier force on the object (N); for a free object (its root a rigid body), the one
  /// its last step applied (State::root_contact_force: the samples' forces at the step's end
  /// miss what its deformation's solve pushed them away by).
  Eigen::Vector3d force = Eigen::Vector3d::Zero();
  double energy = 0;  ///< the barrier potential Σ kappa a b (J)
  /// The rate at which the colliders do work on the object through it: Σ f_k · v_c(x_k) (W).
  double power = 0;
  /// The rate at which their friction does (W): Σ f_T · v_c(x_k), f_T the smoothed Coulomb force
  /// mu |f_k| s(|v_T|) v_T / |v_T| against each active sample's slip v_T (its velocity less the
  /// collider's, less its normal part); the rest of the friction's power, f_T · v_T <= 0, is lost.
  double friction_power = 0;
  /// The smallest signed distance of a sample to a collider (m) and where: domain and vertex.
  double smallest_distance = std::numeric_limits<double>::infinity();
  int domain = -1, vertex = -1;
};
ContactReport measure_contact(const Model& model, const State& state) noexcept;

/// World velocity of sample k of domain i at the State's configuration (m/s): its frame's
/// motion and its deformation's.
Eigen::Vector3d sample_world_velocity(const Model& model, const State& state, int i,
                                      int k) noexcept;

/// World position of sample k of domain i at the State's configuration (m).
Eigen::Vector3d sample_world_position(const Model& model, const State& state, int i,
                                      int k) noexcept;

}  // namespace ramus
