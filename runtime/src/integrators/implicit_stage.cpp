// One implicit stage  q = q̂ + c h v,  M' v = p̂ + c h F(q, v)  (integrators/domain_equation.h):
// linearized (the semi-implicit methods) or solved as the minimization of its incremental
// potential (optimization-integrator-large-steps.md §2-3: Newton, downhill check, length clamp,
// backtracking line search). With Δ = q - q̂ and D = α M' + β K(q_lin), scaled by (c h)²:
//   Φ(q) = ½ Δᵀ M' Δ - c h Δᵀ p̂ + (c h / 2) Δᵀ D Δ + (c h)² (E(q) + B(q) - fᵀ q)
//   ∇Φ   = (M' + c h D) Δ - c h p̂ + (c h)² (g(q) + ∇B(q) - f)
//   ∇²Φ  = M' + c h D + (c h)² (K(q) + ∇²B(q))
// B the contacts' barrier. Its stationary point is the fully implicit stage's solution; the first
// full Newton step from q_lin is the semi-implicit stage. A semi-implicit stage in contact keeps
// its elasticity linearized, E(q) ≈ E(q_lin) + gᵀ d + ½ dᵀ K d with d = q - q_lin, and Newton
// solves the barrier in full on that model: one evaluation of the polynomial, as without contact.
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

// E + B at q with their gradient and Hessian into scratch.gradient and scratch.stiffness: the
// polynomial's, or with `linearized` its quadratic model about the linearization point
// (scratch.q_linearization, g and K there in scratch.gradient_linearization and
// stiffness_linearization; E(q_lin) taken as 0); scratch.scratch holds d = q - q_lin.
double stage_energy(const DomainEquation& e, bool linearized,
                    const Eigen::Ref<const Eigen::VectorXd>& q, IntegratorScratch& scratch) {
  if (!linearized) return evaluate_internal_energy(e, q, scratch);
  scratch.scratch = q - scratch.q_linearization;
  scratch.gradient = scratch.gradient_linearization;
  scratch.gradient.noalias() += scratch.stiffness_linearization * scratch.scratch;
  scratch.stiffness = scratch.stiffness_linearization;
  // ½ dᵀ (g + (g + K d)) = gᵀ d + ½ dᵀ K d.
  const double energy =
      0.5 * scratch.scratch.dot(scratch.gradient_linearization + scratch.gradient);
  return energy + add_contact_terms(e, q, scratch);
}

}  // namespace

void solve_stage(const DomainEquation& e, double ch, bool linearized, int iterations,
                 double tolerance, bool evaluated, IntegratorScratch& scratch,
                 Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> v) noexcept {
  // g, K at the linearization point; the damping matrix lagged there, of the elasticity alone:
  // the contacts' stiffness in β K would brake a domain that moves with a collider as if it
  // moved through it (the plant's stem, pushed by a sphere, met 2 kN where the FEM needs 5 N).
  const bool in_contact = e.contact || e.subtree_contact;
  const bool contact_iterations = linearized && in_contact && iterations > 0;
  const bool one_solve = linearized && !contact_iterations;
  double energy = 0;
  if (!linearized)
    energy = evaluate_internal_energy(e, q, scratch, false);
  else if (!evaluated || in_contact)
    evaluate_internal_forces(e, q, scratch, false);
  if (e.domain.rayleigh_stiffness != 0)
    scratch.damping = e.domain.rayleigh_stiffness * scratch.stiffness;
  // A semi-implicit stage in contact solves the barrier in full on the elasticity's quadratic
  // model about q_lin, where that is convex: with K indefinite enough that M' + c h D + (c h)² K
  // is not (StVK compressed or bent far), the model has no minimum and only the polynomial holds
  // the barrier's push (a leaf of the oak went to |q| = 3785 in one stage); the stage is then
  // solved on the polynomial. (Linearizing the descendants' contacts with the elasticity lets a
  // branch run into a collider past its leaves: the oak's sweep touched twice the leaves.)
  if (contact_iterations) {
    stage_hessian(e, ch, scratch, scratch.factor);
    if (Eigen::internal::llt_inplace<double, Eigen::Lower>::unblocked(scratch.factor) >= 0) {
      linearized = false;
      energy = evaluate_internal_energy(e, q, scratch, false);
    } else {
      scratch.q_linearization = q;
      scratch.gradient_linearization = scratch.gradient;
      scratch.stiffness_linearization = scratch.stiffness;
    }
  }
  if (in_contact) energy += add_contact_terms(e, q, scratch);

  // Semi-implicit: ∇²Φ(q_lin) v = p̂ + c h (f - g - K (q̂ - q_lin)), q = q̂ + c h v.
  if (one_solve) {
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
    // Backtracking: the first step length with enough decrease, from the longest that carries
    // no sample through a collider.
    scratch.q_trial = q;  // the iterate, kept while trials overwrite q
    double step = 1, trial_value = value;
    if (e.contact) step = std::min(step, e.contact->feasible_step(q, scratch.delta));
    if (e.subtree_contact)
      step = std::min(step, e.subtree_contact->feasible_step(q, scratch.delta));
    bool accepted = false;
    for (int halving = 0; halving < 40; ++halving, step *= 0.5) {
      q = scratch.q_trial + step * scratch.delta;
      scratch.q_blend = q - scratch.q_hat;
      const double trial_energy = stage_energy(e, linearized, q, scratch);
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
