// The energy-tracking integrator of stabilizing-integrators-real-time.txt §4 on one domain:
// implicit midpoint (Eq. 14-19, as an implicit stage with c = 1/2), then a blend with backward
// Euler when it added energy or with forward Euler when it lost too much (Eq. 20-24), toward the
// tracked total energy H_total (Algorithm 1: plus H_added, minus H_diss), then the
// momentum-preserving damping (Eq. 32-33).
//
// The domain's energy under the step's frozen equation: H(q, v) = ½ vᵀ M' v + s E(q) - fᵀ q. Its
// change at the start of a step (new f, new M' from the frames and the children) is the step's
// H_added; Rayleigh damping removes h v_½ᵀ D v_½ over the step and the momentum-preserving damping
// what it takes from the kinetic energy: both count as H_diss.
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

#include "domain_equation.h"

namespace ramus {

namespace {

double kinetic_energy(const DomainEquation& e, const Eigen::Ref<const Eigen::VectorXd>& v,
                      IntegratorScratch& scratch) {
  multiply_mass(e, v, scratch.delta);
  return 0.5 * v.dot(scratch.delta);
}

}  // namespace

double domain_energy(const DomainEquation& e, const Eigen::Ref<const Eigen::VectorXd>& q,
                     const Eigen::Ref<const Eigen::VectorXd>& v, IntegratorScratch& scratch) {
  return kinetic_energy(e, v, scratch) + evaluate_internal_energy(e, q, scratch) - e.load->dot(q);
}

namespace {

// (q, v) = (1 - α) (q_a, v_a) + α (q_b, v_b); returns its energy minus the target.
double blend(const DomainEquation& e, double alpha, double target, const Eigen::VectorXd& q_a,
             const Eigen::VectorXd& v_a, const Eigen::Ref<const Eigen::VectorXd>& q_b,
             const Eigen::Ref<const Eigen::VectorXd>& v_b, DomainVectors out,
             IntegratorScratch& scratch) {
  out.q = (1 - alpha) * q_a + alpha * q_b;
  out.qdot = (1 - alpha) * v_a + alpha * v_b;
  return domain_energy(e, out.q, out.qdot, scratch) - target;
}

// Bisection for e(α) = 0 on [0, 1], e(0) > 0 >= e(1) (or the reverse), to |e| <= tolerance.
void bisect_blend(const DomainEquation& e, double target, double tolerance, bool positive_at_zero,
                  const Eigen::VectorXd& q_a, const Eigen::VectorXd& v_a,
                  const Eigen::Ref<const Eigen::VectorXd>& q_b,
                  const Eigen::Ref<const Eigen::VectorXd>& v_b, DomainVectors out,
                  IntegratorScratch& scratch) {
  double low = 0, high = 1, alpha = 1;
  for (int iteration = 0; iteration < 50; ++iteration) {
    alpha = 0.5 * (low + high);
    const double error = blend(e, alpha, target, q_a, v_a, q_b, v_b, out, scratch);
    if (std::abs(error) <= tolerance) return;
    if ((error > 0) == positive_at_zero)
      low = alpha;
    else
      high = alpha;
  }
  blend(e, high, target, q_a, v_a, q_b, v_b, out, scratch);  // the side nearer the target's
}

// Eq. 32-33 in reduced form on the domain's velocity field U q̇ (frame-relative: the frames carry
// the rigid motion, which this leaves alone either way): the rigid fit v_cm + ω × (x - x_cm) by
// the momentum and angular momentum of U q̇ about the deformed centre of mass, with
// x = X + U q; then q̇ ← q̇ - k (q̇ - Uᵀ M v_rigid). Uses W1, W2, W5, W7 (C_lp = ∫ρ U_l × U_p
// from W7) and ∫ρ X Xᵀ. A part without them (an anchored single domain) damps q̇ whole.
void momentum_preserving_damping(const DomainEquation& e,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 Eigen::Ref<Eigen::VectorXd> v, IntegratorScratch& scratch) {
  const double k = e.domain.momentum_damping;
  const Part& p = *e.part;
  const SystemForceIntegrals& w = p.system_force;
  const Eigen::Index r = q.size();
  if (w.empty() || !(p.mass > 0)) {
    v *= 1 - k;
    return;
  }
  // A scaled domain: W1 by s^3/2, W2 and W5 by s^5/2, mass s³, moments s⁴ and s⁵ (W7 unchanged).
  const UniformScale unit;
  const UniformScale& s = e.scale ? *e.scale : unit;
  const double mass = s.mass * p.mass;
  // B_j = W2_j - Σ_i q_i C_ji: ∫ρ x × U q̇ = B q̇, and (Uᵀ M (ω × x))_j = ωᵀ B_j.
  Eigen::Matrix3Xd& b = scratch.midpoint.rigid_basis;
  b = s.moment * w.w2;
  Eigen::Matrix3d second = s.second_moment * p.second_moment;  // ∫ρ x xᵀ
  for (Eigen::Index j = 0; j < r; ++j) {
    second +=
        (s.moment * q(j)) * (w.w5.middleCols<3>(3 * j) + w.w5.middleCols<3>(3 * j).transpose());
    for (Eigen::Index i = 0; i < r; ++i) {
      const Eigen::Matrix3d w7 = w.w7.block<3, 3>(3 * j, 3 * i);  // ∫ρ U_j U_iᵀ
      const Eigen::Vector3d c_ji(w7(1, 2) - w7(2, 1), w7(2, 0) - w7(0, 2), w7(0, 1) - w7(1, 0));
      b.col(j) -= q(i) * c_ji;
      second += (q(j) * q(i)) * w7;
    }
  }
  // Centre of mass, momentum, angular momentum about it, inertia, ω (fixed-size products: no
  // temporaries).
  Eigen::Vector3d center = s.first_moment * p.first_moment, momentum, angular_momentum;
  center.noalias() -= (s.load * w.w1) * q;
  center /= mass;
  momentum.noalias() = -(s.load * w.w1) * v;
  const Eigen::Vector3d velocity = momentum / mass;
  angular_momentum.noalias() = b * v;
  angular_momentum -= center.cross(momentum);
  const Eigen::Matrix3d spread = second - mass * center * center.transpose();
  const Eigen::Matrix3d inertia = spread.trace() * Eigen::Matrix3d::Identity() - spread;
  const Eigen::Vector3d omega = inertia.ldlt().solve(angular_momentum);
  // Uᵀ M v_rigid = -W1ᵀ (v_cm - ω × x_cm) + Bᵀ ω.
  const Eigen::Vector3d translation = s.load * (velocity - omega.cross(center));
  scratch.delta.noalias() = -w.w1.transpose() * translation;
  scratch.delta.noalias() += b.transpose() * omega;
  v -= k * (v - scratch.delta);
}

}  // namespace

StepStatus energy_tracking_midpoint_step(const DomainEquation& e, const RuntimeSettings& settings,
                                         DomainVectors vectors, const DomainMemory& memory,
                                         IntegratorScratch& scratch) noexcept {
  const double h = settings.time_step;
  scratch.q_start = vectors.q;
  scratch.v_start = vectors.qdot;
  // H at the step's start, F(u_0) for forward Euler, H_total (+ H_added).
  const double kinetic = kinetic_energy(e, vectors.qdot, scratch);
  const double elastic = evaluate_internal_energy(e, vectors.q, scratch);
  const double load_work = e.load->dot(vectors.q);
  force_from_scratch(e, vectors.qdot, scratch, scratch.force);
  const double start_energy = kinetic + elastic - load_work;
  double target = start_energy;
  if (memory.energy_valid) target = *memory.energy_target + (start_energy - *memory.energy_at_end);
  double energy_scale = kinetic + std::abs(elastic) + std::abs(load_work);

  // Implicit midpoint: q_½ = q_0 + (h/2) v_½, M' v_½ = M' v_0 + (h/2) F(u_½); u_1 = 2 u_½ - u_0.
  scratch.q_hat = vectors.q;
  multiply_mass(e, vectors.qdot, scratch.p_hat);
  solve_stage(e, 0.5 * h, false, settings.implicit_iterations, settings.implicit_tolerance, true,
              scratch, vectors.q, vectors.qdot);
  // Rayleigh damping's share of H_diss, h v_½ᵀ D v_½ (D lagged at u_0 by the stage).
  multiply_mass(e, vectors.qdot, scratch.delta);
  double dissipated = h * e.domain.rayleigh_mass * vectors.qdot.dot(scratch.delta);
  if (e.domain.rayleigh_stiffness != 0) {
    scratch.delta.noalias() = scratch.damping * vectors.qdot;
    dissipated += h * vectors.qdot.dot(scratch.delta);
  }
  target -= dissipated;
  scratch.q_stage = 2.0 * vectors.q - scratch.q_start;  // u_IM
  scratch.v_stage = 2.0 * vectors.qdot - scratch.v_start;
  vectors.q = scratch.q_stage;
  vectors.qdot = scratch.v_stage;
  const double midpoint_kinetic = kinetic_energy(e, vectors.qdot, scratch);
  const double midpoint_elastic = evaluate_internal_energy(e, vectors.q, scratch);
  const double midpoint_load = e.load->dot(vectors.q);
  const double midpoint_error = midpoint_kinetic + midpoint_elastic - midpoint_load - target;
  // ε times the larger energy scale of the step's two ends (from rest, the start's is 0).
  energy_scale = std::max(energy_scale,
                          midpoint_kinetic + std::abs(midpoint_elastic) + std::abs(midpoint_load));
  const double tolerance = settings.energy_tolerance * energy_scale;

  if (midpoint_error > tolerance) {
    // Too much energy: backward Euler from u_0 (guess u_IM), blend IM (α = 0) to BE (α = 1).
    scratch.q_hat = scratch.q_start;
    multiply_mass(e, scratch.v_start, scratch.p_hat);
    solve_stage(e, h, false, settings.implicit_iterations, settings.implicit_tolerance, false,
                scratch, vectors.q, vectors.qdot);
    scratch.q_blend = vectors.q;
    scratch.v_blend = vectors.qdot;
    const double euler_error = blend(e, 1, target, scratch.q_stage, scratch.v_stage,
                                     scratch.q_blend, scratch.v_blend, vectors, scratch);
    if (euler_error < 0)
      bisect_blend(e, target, tolerance, true, scratch.q_stage, scratch.v_stage, scratch.q_blend,
                   scratch.v_blend, vectors, scratch);
  } else if (midpoint_error < -tolerance) {
    // Too little: forward Euler, blend FE (α = 0) to IM (α = 1).
    scratch.q_blend = scratch.q_start + h * scratch.v_start;
    scratch.v_blend = scratch.force;
    solve_mass_in_place(e, scratch, scratch.v_blend);
    scratch.v_blend = scratch.v_start + h * scratch.v_blend;
    scratch.q_trial = scratch.q_blend;  // FE, kept: blend() writes vectors
    scratch.qdot_predicted = scratch.v_blend;
    const double euler_error = blend(e, 0, target, scratch.q_trial, scratch.qdot_predicted,
                                     scratch.q_stage, scratch.v_stage, vectors, scratch);
    if (euler_error > 0)
      bisect_blend(e, target, tolerance, true, scratch.q_trial, scratch.qdot_predicted,
                   scratch.q_stage, scratch.v_stage, vectors, scratch);
  }

  // Momentum-preserving damping; what it removes is dissipated on purpose.
  if (e.domain.momentum_damping > 0) {
    const double before = kinetic_energy(e, vectors.qdot, scratch);
    momentum_preserving_damping(e, vectors.q, vectors.qdot, scratch);
    target -= before - kinetic_energy(e, vectors.qdot, scratch);
  }
  *memory.energy_target = target;
  *memory.energy_at_end = domain_energy(e, vectors.q, vectors.qdot, scratch);
  vectors.qddot = (vectors.qdot - scratch.v_start) / h;
  return StepStatus::kOk;
}

}  // namespace ramus
