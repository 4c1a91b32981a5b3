// The finite-difference methods of stiff-and-soft-integrators-survey.txt §3.1 as sequences of
// implicit stages (integrators/implicit_stage.cpp), each fully implicit or semi-implicit (one
// linearized solve per stage, the survey's S-variants). u = (q, v); F the force of the frozen
// domain equation; q̈ at t + h is the last stage's F / M', i.e. (v - v̂) / (c h).
#include <cmath>

#include "domain_equation.h"
#include "semi_implicit_stage.h"

namespace ramus {

namespace {

// q̈ = (v - v̂) / (c h) of the last stage (v̂ in scratch.v_stage).
void last_stage_acceleration(double ch, DomainVectors vectors, const IntegratorScratch& scratch) {
  for (Eigen::Index i = 0; i < vectors.q.size(); ++i)
    vectors.qddot(i) = semi_implicit::acceleration(ch, scratch.v_stage(i), vectors.qdot(i));
}

// The last stage (q̂, v̂ in scratch, p̂ = M' v̂) from the guess in vectors.q, then q̈.
void final_stage(const DomainEquation& e, const RuntimeSettings& settings, bool implicit, double c,
                 bool evaluated, DomainVectors vectors, IntegratorScratch& scratch) {
  const double ch = c * settings.time_step;
  multiply_mass(e, scratch.v_stage, scratch.p_hat);
  solve_stage(e, ch, !implicit, settings.implicit_iterations, settings.implicit_tolerance,
              evaluated, scratch, vectors.q, vectors.qdot);
  last_stage_acceleration(ch, vectors, scratch);
}

// q̂ and v̂ of BE / SI (q̂ = q) or of the BDF2 family with a previous step (semi_implicit_stage.h)
// into scratch.q_hat and scratch.v_stage.
void stage_start(const semi_implicit::Method& method, DomainVectors vectors,
                 const DomainMemory& memory, IntegratorScratch& scratch) {
  const Eigen::Index r = vectors.q.size();
  if (!method.bdf2) {
    scratch.q_hat = vectors.q;
    scratch.v_stage = vectors.qdot;
    return;
  }
  for (Eigen::Index i = 0; i < r; ++i) {
    scratch.q_hat(i) = semi_implicit::start(method, vectors.q(i), memory.q_previous[i]);
    scratch.v_stage(i) = semi_implicit::start(method, vectors.qdot(i), memory.qdot_previous[i]);
  }
}

}  // namespace

// Eq. 5 / 6: q_1 = q_0 + h v_1, M' v_1 = M' v_0 + h F(u_1).
StepStatus backward_euler_step(const DomainEquation& e, const RuntimeSettings& settings,
                               bool implicit, DomainVectors vectors,
                               IntegratorScratch& scratch) noexcept {
  stage_start({false, settings.time_step}, vectors, {}, scratch);
  final_stage(e, settings, implicit, 1.0, false, vectors, scratch);
  return StepStatus::kOk;
}

// Eq. 7: u_1 = (4 u_0 - u_-1) / 3 + (2 h / 3) F(u_1).
StepStatus bdf2_step(const DomainEquation& e, const RuntimeSettings& settings, bool implicit,
                     DomainVectors vectors, const DomainMemory& memory,
                     IntegratorScratch& scratch) noexcept {
  // Without history (the first step, or after initialize()): a TR-BDF2 step, second order as
  // BDF2 (a BE start would cost BDF2 its order on stiff modes); in contact a BE step, as
  // integrate_domain gives TR-BDF2 there (its trapezoidal stage takes the start's barrier force
  // explicitly: a sample teleported 2 cm into a collider threw the beam at 286 m/s).
  if (!memory.q_previous)
    return e.contact || e.subtree_contact
               ? backward_euler_step(e, settings, implicit, vectors, scratch)
               : tr_bdf2_step(e, settings, implicit, vectors, scratch);
  stage_start({true, 2.0 / 3.0 * settings.time_step}, vectors, memory, scratch);
  final_stage(e, settings, implicit, 2.0 / 3.0, false, vectors, scratch);
  return StepStatus::kOk;
}

StepStatus prefactored_semi_implicit_step(const DomainEquation& e, const RuntimeSettings& settings,
                                          DomainVectors vectors, const DomainMemory& memory,
                                          const double* stage,
                                          IntegratorScratch& scratch) noexcept {
  // q̂, v̂ and c as backward_euler_step (c = 1) or bdf2_step (c = 2/3) set them.
  const semi_implicit::Method method =
      semi_implicit::method_of(e.domain.integrator, settings.time_step);
  if (method.bdf2 && !memory.q_previous)
    return bdf2_step(e, settings, false, vectors, memory, scratch);
  const Eigen::Index r = vectors.q.size();
  stage_start(method, vectors, memory, scratch);
  const double ch = method.ch;
  // solve_stage's semi-implicit branch with g, K (q̂ - q) and the factor given.
  const double* gradient = stage;
  const double* stiffness_offset = stage + r;
  const Eigen::VectorXd& f = *e.load;
  multiply_mass(e, scratch.v_stage, scratch.p_hat);
  scratch.q_blend = scratch.q_hat - vectors.q;
  const bool offset = !scratch.q_blend.isZero(0);
  for (Eigen::Index i = 0; i < r; ++i)
    vectors.qdot(i) = offset
                          ? semi_implicit::right_hand_side(ch, scratch.p_hat(i), f(i), gradient[i],
                                                           stiffness_offset[i])
                          : semi_implicit::right_hand_side(ch, scratch.p_hat(i), f(i), gradient[i]);
  inverse_diagonal_cholesky_solve(stage + 2 * r, vectors.qdot);
  for (Eigen::Index i = 0; i < r; ++i)
    vectors.q(i) = semi_implicit::position(ch, scratch.q_hat(i), vectors.qdot(i));
  last_stage_acceleration(ch, vectors, scratch);
  return StepStatus::kOk;
}

// Eq. 8: the trapezoidal rule to t + h/2, u_½ = u_0 + (h/4) (F(u_0) + F(u_½)), then BDF2,
// u_1 = (4 u_½ - u_0) / 3 + (h/3) F(u_1). The semi-implicit form linearizes each stage at its
// start (Eq. 26a-b without the split).
StepStatus tr_bdf2_step(const DomainEquation& e, const RuntimeSettings& settings, bool implicit,
                        DomainVectors vectors, IntegratorScratch& scratch) noexcept {
  const double h = settings.time_step;
  scratch.q_start = vectors.q;
  scratch.v_start = vectors.qdot;
  // Stage 1: q̂ = q_0 + (h/4) v_0, p̂ = M' v_0 + (h/4) F(u_0), from u_0.
  evaluate_internal_forces(e, vectors.q, scratch);
  force_from_scratch(e, vectors.qdot, scratch, scratch.force);
  scratch.q_hat = vectors.q + (0.25 * h) * vectors.qdot;
  multiply_mass(e, vectors.qdot, scratch.p_hat);
  scratch.p_hat += (0.25 * h) * scratch.force;
  solve_stage(e, 0.25 * h, !implicit, settings.implicit_iterations, settings.implicit_tolerance,
              true, scratch, vectors.q, vectors.qdot);
  // Stage 2 from u_½ (now in vectors): q̂ = (4 q_½ - q_0) / 3, v̂ = (4 v_½ - v_0) / 3.
  scratch.q_hat = (4.0 * vectors.q - scratch.q_start) / 3.0;
  scratch.v_stage = (4.0 * vectors.qdot - scratch.v_start) / 3.0;
  final_stage(e, settings, implicit, 1.0 / 3.0, false, vectors, scratch);
  return StepStatus::kOk;
}

// Eq. 9, γ = 2 - √2, β = √2 / 4: the trapezoidal rule to t + γh, then
// u_1 = u_0 + (2β/γ) (u_γ - u_0) + (γh/2) F(u_1). Both stages fully implicit.
StepStatus sdirk_step(const DomainEquation& e, const RuntimeSettings& settings,
                      DomainVectors vectors, IntegratorScratch& scratch) noexcept {
  const double h = settings.time_step, gamma = 2.0 - std::sqrt(2.0), beta = std::sqrt(2.0) / 4.0;
  const double ch = 0.5 * gamma * h, w = 2.0 * beta / gamma;
  scratch.q_start = vectors.q;
  scratch.v_start = vectors.qdot;
  // Stage 1: q̂ = q_0 + (γh/2) v_0, p̂ = M' v_0 + (γh/2) F(u_0).
  evaluate_internal_forces(e, vectors.q, scratch);
  force_from_scratch(e, vectors.qdot, scratch, scratch.force);
  scratch.q_hat = vectors.q + ch * vectors.qdot;
  multiply_mass(e, vectors.qdot, scratch.p_hat);
  scratch.p_hat += ch * scratch.force;
  solve_stage(e, ch, false, settings.implicit_iterations, settings.implicit_tolerance, true,
              scratch, vectors.q, vectors.qdot);
  // Stage 2 from u_γ: q̂ = q_0 + w (q_γ - q_0), v̂ = v_0 + w (v_γ - v_0).
  scratch.q_hat = scratch.q_start + w * (vectors.q - scratch.q_start);
  scratch.v_stage = scratch.v_start + w * (vectors.qdot - scratch.v_start);
  final_stage(e, settings, true, 0.5 * gamma, false, vectors, scratch);
  return StepStatus::kOk;
}

}  // namespace ramus
