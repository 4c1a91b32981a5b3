// Contact with kinematic colliders, and of the mesh with itself, inside one implicit step of the
// full-space simulator: the colliders' barrier or penalty potential, the self-collision penalty
// and the lagged smoothed friction, added to the step's objective; a feasible start and a largest
// feasible line-search step (conservative advancement along each vertex's path, so no vertex
// crosses a barrier); the barrier stiffness kappa chosen and raised adaptively as in incremental
// potential contact; and per-step statistics.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/precompute/contact/constraint_projection.h"
#include "ramus/precompute/contact/contact_potentials.h"
#include "ramus/precompute/contact/self_collision_penalty.h"
#include "ramus/precompute/contact/smoothed_friction.h"

namespace ramus {

/// Where friction acts.
enum class FrictionModel {
  kSmoothedPotential,  ///< the survey's Eq. 32 inside the minimization, lagged normal force
  kAfterSolve,         ///< the optimization paper's: velocities only, after the Newton solve
};

/// The contact settings of a full-space run: its colliders and how friction acts.
struct ContactOptions {
  std::vector<ColliderContact> colliders;  ///< a barrier's stiffness 0: automatic (adaptive)
  double friction_speed = 1e-3;            ///< eps_v (m/s): slip below it is sticking
  FrictionModel friction_model = FrictionModel::kSmoothedPotential;
  SelfCollisionOptions self_collision;  ///< the mesh against itself (its friction after the solve)
};

/// What contact did in the last step.
struct ContactStatistics {
  int active_contacts = 0;  ///< vertex-collider pairs within delta (barrier) or inside (penalty)
  double smallest_distance =
      0;                    ///< min phi over vertices and colliders (m); +inf without colliders
  double normal_force = 0;  ///< sum of the contact forces' magnitudes (N)
  /// The colliders' barrier and penalty forces on the object, summed as vectors (N, world).
  Eigen::Vector3d collider_force = Eigen::Vector3d::Zero();
  double friction_force = 0;        ///< sum of the friction forces' magnitudes (N)
  double friction_work = 0;         ///< energy friction dissipated in the step (J)
  double contact_energy = 0;        ///< the barrier and penalty potential at the end (J)
  int self_contacts = 0;            ///< surface vertices inside another part of the mesh
  double deepest_self_contact = 0;  ///< the largest of their distances to the surface (m)
};

class StepContact {
 public:
  StepContact() = default;
  /// `vertex_masses` (#V, kg) and `size` (the object's bounding-box diagonal, m) set the
  /// automatic barrier stiffness: kappa_min makes a barrier at delta/2 hold ten average vertex
  /// weights (9.81 m/s²); it doubles, up to 100 kappa_min, while vertices keep closing in
  /// within delta/10.
  /// `tets` (#T by 4) are the mesh's, for self-collision.
  StepContact(ContactOptions options, const Eigen::VectorXd& vertex_masses,
              const Eigen::MatrixX4i& tets);

  bool empty() const { return potential_.empty() && !self_.enabled(); }
  const VertexColliderPotential& potential() const { return potential_; }
  const SelfCollisionPenalty& self_collision() const { return self_; }
  const LaggedFrictionPotential& friction() const { return friction_; }

  /// Freezes the friction of the step from x_n (3#V) at the colliders' poses of `time_next`.
  void begin_step(const Eigen::VectorXd& start_positions, double time_next, double time_step);
  /// x_n with every vertex inside a barrier's delta/2 moved out along the normal to delta/2 (a
  /// collider that moved into the object since the last step): a feasible start.
  Eigen::VectorXd feasible_start(const Eigen::VectorXd& start_positions) const;

  /// The colliders at `time` (s) with the step's friction kept (for evaluating energies at the
  /// start of a step).
  void set_time(double time);

  /// The step's contact and friction energy at x (J; +inf past a barrier).
  double value(const Eigen::VectorXd& x) const;
  /// The contact potential alone at x, the colliders' and the self-contacts' without friction's
  /// dissipation potential: the contact's share of the total energy (J; +inf past a barrier).
  double potential_energy(const Eigen::VectorXd& x) const;
  /// Adds the gradient (3#V) of potential_energy and returns it.
  double add_potential_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) const;
  /// Adds its gradient (3#V) and returns its value.
  double add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) const;
  /// Calls add(vertex, 3 by 3 block) for every vertex the contact or friction touches.
  template <typename AddBlock>
  void add_hessian_blocks(const Eigen::VectorXd& x, bool project_psd, AddBlock&& add) const {
    for (int v = 0; v < static_cast<int>(x.size() / 3); ++v)
      if (const Eigen::Matrix3d block = potential_.vertex_hessian(x, v, project_psd);
          !block.isZero(0))
        add(v, block);
    friction_.add_hessian_blocks(x, add);
  }
  /// Calls add(four vertices, 12 by 12 block) for every self-contact (vertex, triangle).
  template <typename AddBlock>
  void add_pair_blocks(const Eigen::VectorXd& x, bool project_psd, AddBlock&& add) const {
    self_.add_hessian_blocks(x, project_psd, add);
  }
  /// Largest alpha in [0, alpha_max] such that x + alpha' dx keeps every vertex at least a tenth
  /// of its current distance away from every barrier collider for all alpha' <= alpha.
  double largest_feasible_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx,
                               double alpha_max) const;

  /// Constraint colliders (ContactModel::kConstraint), through their ConstraintProjection at the
  /// step's time: whether there are any; projecting x (3#V); the active set at a projected x
  /// from grad E' (3#V); the gradient of E'(P(x)) from grad E' at P(x); the active vertices'
  /// Jacobian and curvature blocks; and, after a solve, recording their forces for friction and
  /// the statistics.
  bool has_constraints() const { return !constraints_.empty(); }
  void project_onto_constraints(Eigen::VectorXd& x) const {
    constraints_.project(potential_.colliders(), time_, x);
  }
  void update_active_constraints(const Eigen::VectorXd& x, const Eigen::VectorXd& gradient) {
    constraints_.update_active(potential_.colliders(), time_, x, gradient);
  }
  void pull_back_constraint_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) const {
    constraints_.pull_back_gradient(potential_.colliders(), time_, x, gradient);
  }
  template <typename Block>
  void for_each_active_constraint(const Eigen::VectorXd& x, const Eigen::VectorXd& gradient,
                                  Block&& block) const {
    constraints_.for_each_active(potential_.colliders(), time_, x, gradient, block);
  }
  double largest_shallow_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx,
                              double alpha_max) const {
    return constraints_.largest_shallow_step(potential_.colliders(), time_, x, dx, alpha_max);
  }
  void record_constraint_forces(const Eigen::VectorXd& x, const Eigen::VectorXd& gradient) {
    constraint_forces_ = constraints_.forces(potential_.colliders(), time_, x, gradient);
  }
  const std::vector<ConstraintForce>& constraint_forces() const { return constraint_forces_; }

  /// The optimization paper's friction after the solve (§5.1-5.3). With FrictionModel::
  /// kAfterSolve, each vertex a collider pushes loses the tangential part of its velocity
  /// relative to the collider up to mu |f| h / m (f the contact force at `positions`: where the
  /// step's forces acted, x_{n+1} for backward Euler, x_½ for the midpoint); always, each
  /// self-contact gets the impulse that minimizes its four vertices' kinetic energy, capped at
  /// mu |f| h. Positions are kept; kinetic energy only decreases. Updates the statistics'
  /// friction force and work.
  void apply_friction_after_solve(const Eigen::VectorXd& positions, Eigen::VectorXd& velocities);

  /// The energy the step's smoothed friction dissipates over `duration` (s) at the slip that
  /// positions x (3#V) give against its lagged start (J).
  double friction_work(const Eigen::VectorXd& x, double duration) const;

  /// After the solve: statistics at x_{n+1}, and the adaptive stiffness update.
  const ContactStatistics& end_step(const Eigen::VectorXd& positions);
  const ContactStatistics& statistics() const { return statistics_; }

 private:
  ContactOptions options_;
  VertexColliderPotential potential_;
  SelfCollisionPenalty self_;
  ConstraintProjection constraints_;
  std::vector<ConstraintForce> constraint_forces_;  // the last solve's
  LaggedFrictionPotential friction_;
  std::vector<double> minimum_stiffness_;  // per collider (automatic barriers), J/m²
  std::vector<bool> automatic_;
  Eigen::VectorXd vertex_masses_;  // kg, for the friction after the solve
  ContactStatistics statistics_;
  double previous_smallest_ = 0;
  double time_ = 0, time_step_ = 1;
};

}  // namespace ramus
