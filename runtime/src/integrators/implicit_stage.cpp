// One implicit stage  q = q̂ + c h v,  M' v = p̂ + c h F(q, v)  (integrators/domain_equation.h):
// linearized (the semi-implicit methods) or solved as the minimization of its incremental
// potential (optimization-integrator-large-steps.md §2-3: Newton, downhill check, length clamp,
// backtracking line search). With Δ = q - q̂ and D = α M' + β K(q_lin), scaled by (c h)²:
//   Φ(q) = ½ Δᵀ M' Δ - c h Δᵀ p̂ + (c h / 2) Δᵀ D Δ + (c h)² (E(q) - fᵀ q)
//   ∇Φ   = (M' + c h D) Δ - c h p̂ + (c h)² (g(q) - f)
//   ∇²Φ  = M' + c h D + (c h)² K(q)
// Its stationary point is the stage's solution; the first full Newton step from q_lin is the
// semi-implicit stage.
#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>

#include "domain_equation.h"
#include "semi_implicit_stage.h"

namespace ramus {

namespace {

// ∇²Φ into scratch.factor (or scratch.jacobian for the LDLT fallback): the stage matrix H of
// semi_implicit_stage.h, entry by entry.
void stage_hessian(const DomainEquation& e, double ch, const IntegratorScratch& scratch,
                   Eigen::MatrixXd& out) {
  const double weight = 1.0 + ch * e.domain.rayleigh_mass;
  const bool damped = e.domain.rayleigh_stiffness != 0;
  const Eigen::Index r = scratch.stiffness.rows();
  // Column by column, branch-free inside (so the compiler vectorizes it): M' given or the
  // identity (its diagonal added after), the damping given or none.
  for (Eigen::Index j = 0; j < r; ++j) {
    const double* K = scratch.stiffness.col(j).data();
    const double* D = scratch.damping.col(j).data();
    const double* M = e.mass ? e.mass->col(j).data() : nullptr;
    double* H = out.col(j).data();
    if (M && damped)
      for (Eigen::Index i = 0; i < r; ++i)
        H[i] = semi_implicit::matrix_entry(ch, K[i], D[i], weight * M[i]);
    else if (M)
      for (Eigen::Index i = 0; i < r; ++i)
        H[i] = semi_implicit::matrix_entry(ch, K[i], 0.0, weight * M[i]);
    else if (damped)
      for (Eigen::Index i = 0; i < r; ++i) H[i] = semi_implicit::matrix_entry(ch, K[i], D[i], 0.0);
    else
      for (Eigen::Index i = 0; i < r; ++i) H[i] = semi_implicit::matrix_entry(ch, K[i], 0.0, 0.0);
    if (!M) H[j] += weight;
  }
}

// solution = ∇²Φ⁻¹ rhs: Cholesky of ∇²Φ in scratch.factor, pivoted LDLT when it is indefinite.
void solve_stage_matrix(const DomainEquation& e, double ch, IntegratorScratch& scratch,
                        const Eigen::VectorXd& rhs, Eigen::Ref<Eigen::VectorXd> solution) {
  stage_hessian(e, ch, scratch, scratch.factor);
  if (!cholesky_solve_in_place(scratch.factor, rhs, solution)) {
    stage_hessian(e, ch, scratch, scratch.jacobian);
    scratch.ldlt.compute(scratch.jacobian);
    solution = scratch.ldlt.solve(rhs);
  }
}

// Φ at q = q̂ + Δ (Δ in scratch.q_blend) with E(q) = `energy`; scratch.v_blend is scratch.
double stage_objective(const DomainEquation& e, double ch, double energy,
                       const Eigen::Ref<const Eigen::VectorXd>& q, IntegratorScratch& scratch) {
  const Eigen::VectorXd& delta = scratch.q_blend;
  multiply_mass(e, delta, scratch.v_blend);
  double value = (0.5 + 0.5 * ch * e.domain.rayleigh_mass) * delta.dot(scratch.v_blend) -
                 ch * delta.dot(scratch.p_hat) + ch * ch * (energy - e.load->dot(q));
  if (e.domain.rayleigh_stiffness != 0) {
    scratch.v_blend.noalias() = scratch.damping * delta;
    value += 0.5 * ch * delta.dot(scratch.v_blend);
  }
  return value;
}

// ∇Φ at q (g in scratch.gradient, Δ in scratch.q_blend) into scratch.residual.
void stage_gradient(const DomainEquation& e, double ch, IntegratorScratch& scratch) {
  const Eigen::VectorXd& delta = scratch.q_blend;
  multiply_mass(e, delta, scratch.residual);
  scratch.residual *= 1.0 + ch * e.domain.rayleigh_mass;
  if (e.domain.rayleigh_stiffness != 0)
    scratch.residual.noalias() += ch * (scratch.damping * delta);
  scratch.residual += (ch * ch) * (scratch.gradient - *e.load) - ch * scratch.p_hat;
}

}  // namespace

void solve_stage(const DomainEquation& e, double ch, int iterations, double tolerance,
                 bool evaluated, IntegratorScratch& scratch, Eigen::Ref<Eigen::VectorXd> q,
                 Eigen::Ref<Eigen::VectorXd> v) noexcept {
  // g, K at the linearization point; the damping matrix lagged there, of the elasticity alone:
  // the contacts' stiffness in β K would brake a domain that moves with a collider as if it
  // moved through it (the plant's stem, pushed by a sphere, met 2 kN where the FEM needs 5 N).
  const bool in_contact = e.contact || e.subtree_contact;
  double energy = 0;
  if (iterations > 0)
    energy = evaluate_internal_energy(e, q, scratch, false);
  else if (!evaluated || in_contact)
    evaluate_internal_forces(e, q, scratch, false);
  if (e.domain.rayleigh_stiffness != 0)
    scratch.damping = e.domain.rayleigh_stiffness * scratch.stiffness;
  if (in_contact) energy += add_contact_terms(e, q, scratch);

  // Semi-implicit: ∇²Φ(q_lin) v = p̂ + c h (f - g - K (q̂ - q_lin)), q = q̂ + c h v.
  if (iterations == 0) {
    // (K (q̂ - q_lin) only where q̂ differs: BE and SI linearize at q̂ itself.)
    const Eigen::Index r = q.size();
    const Eigen::VectorXd& f = *e.load;
    scratch.q_blend = scratch.q_hat - q;
    if (scratch.q_blend.isZero(0)) {
      for (Eigen::Index i = 0; i < r; ++i)
        scratch.delta(i) =
            semi_implicit::right_hand_side(ch, scratch.p_hat(i), f(i), scratch.gradient(i));
    } else {
      scratch.scratch.noalias() = scratch.stiffness * scratch.q_blend;
      for (Eigen::Index i = 0; i < r; ++i)
        scratch.delta(i) = semi_implicit::right_hand_side(ch, scratch.p_hat(i), f(i),
                                                          scratch.gradient(i), scratch.scratch(i));
    }
    solve_stage_matrix(e, ch, scratch, scratch.delta, v);
    for (Eigen::Index i = 0; i < r; ++i) q(i) = semi_implicit::position(ch, scratch.q_hat(i), v(i));
    return;
  }

  // Newton on Φ with a downhill check, a length clamp and an Armijo backtracking line search.
  constexpr double kArmijo = 1e-4, kDownhill = 1e-6, kRoundOff = 1e-13;
  // An ancestor held by its descendants' contacts alone solves to 1e-5 at least: those contacts
  // ride rigidly on its children's interface centroids, an approximation far coarser than 1e-10
  // (the oak's sweep 2.70x to 2.55x the free oak; the small tree's deepest sample unchanged).
  if (!e.contact && e.subtree_contact) tolerance = std::max(tolerance, 1e-5);
  scratch.q_blend = q - scratch.q_hat;
  double value = stage_objective(e, ch, energy, q, scratch);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    stage_gradient(e, ch, scratch);
    const double gradient_norm = scratch.residual.norm();
    if (gradient_norm == 0 || !std::isfinite(gradient_norm)) break;
    // Newton direction; if it does not point downhill, its opposite or the steepest descent.
    solve_stage_matrix(e, ch, scratch, scratch.residual, scratch.delta);
    scratch.delta = -scratch.delta;
    double slope = scratch.delta.dot(scratch.residual);
    const double direction_norm = scratch.delta.norm();
    if (!(slope < -kDownhill * direction_norm * gradient_norm)) {
      if (-slope < -kDownhill * direction_norm * gradient_norm) {
        scratch.delta = -scratch.delta;
        slope = -slope;
      } else {
        scratch.delta = -scratch.residual;
        slope = -gradient_norm * gradient_norm;
      }
    }
    // Length clamp: no trial beyond 10³ times the current size of q (and at least 1).
    const double limit = 1e3 * std::max(1.0, q.lpNorm<Eigen::Infinity>());
    const double length = scratch.delta.lpNorm<Eigen::Infinity>();
    if (length > limit) {
      scratch.delta *= limit / length;
      slope *= limit / length;
    }
    // Converged: a full step below the tolerance is taken without evaluating there (g and K
    // stay those of the last iterate, a tolerance away).
    if (length <= tolerance * std::max(q.lpNorm<Eigen::Infinity>(), 1e-300)) {
      q += scratch.delta;
      scratch.q_blend = q - scratch.q_hat;
      break;
    }
    // Backtracking: the first step length with enough decrease.
    scratch.q_trial = q;  // the iterate, kept while trials overwrite q
    double step = 1, trial_value = value;
    bool accepted = false;
    for (int halving = 0; halving < 40; ++halving, step *= 0.5) {
      q = scratch.q_trial + step * scratch.delta;
      scratch.q_blend = q - scratch.q_hat;
      const double trial_energy = evaluate_internal_energy(e, q, scratch);
      trial_value = stage_objective(e, ch, trial_energy, q, scratch);
      if (trial_value <= value + kArmijo * step * slope) {
        accepted = true;
        break;
      }
      // (In contact, where the decrease the direction promises is round-off in Φ, no more
      // halving: each would cost an evaluation of the polynomial, and the barrier's domains are
      // the step's costliest. Without contact the halvings are kept: they still settle im-blend.)
      if (in_contact && -slope <= kRoundOff * std::abs(value)) break;
    }
    if (!accepted) {
      // No decrease to be had along this direction: the iterate is as good as round-off allows.
      q = scratch.q_trial;
      scratch.q_blend = q - scratch.q_hat;
      break;
    }
    value = trial_value;
    if (step * length <= tolerance * std::max(q.lpNorm<Eigen::Infinity>(), 1e-300)) break;
  }
  v = scratch.q_blend / ch;
}

}  // namespace ramus
