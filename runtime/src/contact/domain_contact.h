// Contact of one domain's samples with the State's colliders over one step (runtime internals;
// docs/CONTACT.md "Reduced contact"). At the step's start (Algorithm 1, line 3) each domain picks
// its candidates: samples within the barrier's reach of a collider by the end of the step, with
// the normal force, normal and collider velocity there frozen for the lagged friction. In the
// domain's solve (line 9) the candidates' barrier and friction potentials are functions of q in
// the domain's frame at t + h: their gradient and Hessian join s g(q) and s K(q), so every
// integrator treats contact implicitly. Their forces at the start reach the parent through the
// subtree sums like any external force.
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/contact/collider_set.h"
#include "ramus/runtime/data/runtime_settings.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// One sample near one collider for a step.
struct ContactCandidate {
  int sample = 0;           ///< index into the part's samples
  int collider = 0;         ///< its id in the State's ColliderSet
  double normal_force = 0;  ///< lambda at the step's start (N): the lagged friction's
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< the collider's normal there (world)
  Eigen::Vector3d start = Eigen::Vector3d::Zero();    ///< the sample at the start (world, m)
  Eigen::Vector3d collider_velocity = Eigen::Vector3d::Zero();  ///< at the sample (m/s)
  /// The collider's level set at `start` in its pose at the step's end (m): a sample that moves
  /// by s stays beyond end_distance - 2 |s| (a distance is 1-Lipschitz; a grid's interpolant
  /// at most √3).
  double end_distance = 0;
  /// barrier_allowance at the start (m): what the ancestors' and a free root's solves forgive.
  double allowance = 0;
};

/// A collider over one step: as at the start, and its pose at the end.
struct StepCollider {
  Collider collider;
  RigidPose end;
  bool used = false;
};

/// The level set of a collider in `pose` at world point x, derivatives in world axes (the
/// Hessian only `with_hessian`).
LevelSetSample collider_level_set(const Collider& collider, const RigidPose& pose,
                                  const Eigen::Vector3d& x, bool with_hessian = false) noexcept;

/// The fraction t in (0, 1] of a move from x0 by dx that keeps a candidate's level set (in the
/// collider's end pose) plus `allowance` above -delta, for a candidate outside at x0; 1 for
/// others. `lower_bound` is a bound from below on the level set at x0 (skipped when even it
/// cannot reach). Sphere tracing: a distance is 1-Lipschitz, a grid's interpolant √3. The line
/// searches start there, so a Newton step cannot carry a sample through a collider (a thin one, or
/// a branch past a capsule: the step's barrier is continued, finite, inside).
double feasible_fraction(const StepCollider& collider, const Eigen::Vector3d& x0,
                         const Eigen::Vector3d& dx, double allowance, double delta,
                         double lower_bound) noexcept;

/// What a domain's solve needs of its contacts: its candidates, the colliders' end poses, its
/// frame at t + h and the contact settings.
struct DomainContact {
  const PartContact* samples = nullptr;
  const UniformScale* scale = nullptr;
  const ContactCandidate* candidates = nullptr;
  int count = 0;
  const StepCollider* colliders = nullptr;
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();  ///< F_i at t + h
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  double stiffness = 0, distance = 0, friction_speed = 0, time_step = 0;
  /// Per candidate, what the domain's own solve forgives (barrier_allowance where its frame at
  /// t + h puts the sample with q at t: the depth its ancestors' motion left it in); null: none.
  const double* allowance = nullptr;

  /// Σ kappa a_k b(phi(x_k(q))) + the lagged friction potentials (J).
  double energy(const Eigen::Ref<const Eigen::VectorXd>& q) const noexcept;
  /// Adds the gradient of energy() to `gradient` (r) and its Hessian to `stiffness` (r by r),
  /// and returns energy(); with `gauss_newton`, without the collider's curvature term
  /// (b' ∇²phi), which makes it PSD.
  double add_derivatives(const Eigen::Ref<const Eigen::VectorXd>& q,
                         Eigen::Ref<Eigen::VectorXd> gradient,
                         Eigen::Ref<Eigen::MatrixXd> stiffness, bool gauss_newton) const noexcept;
  /// The fraction of the move from q by dq no candidate crosses into its collider over
  /// (feasible_fraction; 1 when none would).
  double feasible_step(const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Ref<const Eigen::VectorXd>& dq) const noexcept;
  /// Fills `room` (count entries) with what the solve forgives each candidate, its start's
  /// allowance or barrier_allowance (beyond 3 delta) where the frame at t + h puts it with q at
  /// t, and points `allowance` there.
  void forgive_frame_depth(const Eigen::Ref<const Eigen::VectorXd>& q, double* room) noexcept;
};

/// Sample k of a part in its domain's axes: s X_k + s^-3/2 U_k q (m).
Eigen::Vector3d sample_local_position(const PartContact& samples, const UniformScale& scale, int k,
                                      const Eigen::Ref<const Eigen::VectorXd>& q) noexcept;

/// What a domain's candidates exert at the step's start (world axes, N and N m about the
/// frame's origin): their barrier's force and moment, and their friction's.
struct ContactLoad {
  Eigen::Vector3d barrier_force = Eigen::Vector3d::Zero();
  Eigen::Vector3d barrier_moment = Eigen::Vector3d::Zero();
  Eigen::Vector3d friction_force = Eigen::Vector3d::Zero();
  Eigen::Vector3d friction_moment = Eigen::Vector3d::Zero();
};

/// Domain i's candidates at the step's start from the State's frames, q and q̇ (at most one per
/// sample), written to `room` (up to `room_size`) with their load into `load`; their number is
/// returned. With `room` null they are only counted (`load` may then be null too).
/// `colliders` are the step's (prepare_step_colliders).
int gather_domain_contacts(const Model& model, const State& state, int i,
                           const StepCollider* colliders, int num_colliders, ContactCandidate* room,
                           int room_size, ContactLoad* load) noexcept;

}  // namespace ramus
