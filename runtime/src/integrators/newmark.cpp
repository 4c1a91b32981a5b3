// Implicit Newmark on one domain's frozen equation of motion (integrators/domain_equation.h).
#include "domain_equation.h"

namespace ramus {

// Unknown q_{n+1}; with the predictors q̃ = q_n + h q̇_n + h² (1/2 - β) q̈_n and
// ṽ = q̇_n + h (1 - γ) q̈_n: q̈_{n+1} = (q_{n+1} - q̃) / (h² β), q̇_{n+1} = ṽ + h γ q̈_{n+1}.
// Newton on the residual M'(q̈ + α q̇) + β s K q̇ + s g(q) - f from q_{n+1} = q_n; its Jacobian
// (1 + β γ / (h β_N)) s K + (1 / (h² β_N) + α γ / (h β_N)) M' lags the damping's own dependence
// on q.
StepStatus newmark_step(const DomainEquation& equation, const RuntimeSettings& settings,
                        DomainVectors vectors, IntegratorScratch& scratch) noexcept {
  const double h = settings.time_step, beta = settings.newmark_beta, gamma = settings.newmark_gamma;
  const double alpha_m = equation.domain.rayleigh_mass, beta_k = equation.domain.rayleigh_stiffness;
  const double a_scale = 1.0 / (h * h * beta), v_scale = gamma / (h * beta);
  const double k_scale = 1.0 + beta_k * v_scale, m_scale = a_scale + alpha_m * v_scale;
  const Eigen::MatrixXd* mass = equation.mass;
  const Eigen::VectorXd& load = *equation.load;
  // Predictors from the state at t.
  scratch.q_predicted = vectors.q + h * vectors.qdot + (h * h * (0.5 - beta)) * vectors.qddot;
  scratch.qdot_predicted = vectors.qdot + (h * (1.0 - gamma)) * vectors.qddot;
  scratch.q_trial = vectors.q;
  for (int iteration = 0; iteration < settings.newton_iterations; ++iteration) {
    // Trial acceleration and velocity, then the residual at the trial q.
    vectors.qddot = a_scale * (scratch.q_trial - scratch.q_predicted);
    vectors.qdot = scratch.qdot_predicted + (h * gamma) * vectors.qddot;
    evaluate_internal_forces(equation, scratch.q_trial, scratch);
    if (mass) {
      scratch.residual = scratch.gradient - load;
      scratch.scratch = vectors.qddot + alpha_m * vectors.qdot;
      scratch.residual.noalias() += *mass * scratch.scratch;
    } else {
      scratch.residual = vectors.qddot + alpha_m * vectors.qdot + scratch.gradient - load;
    }
    if (beta_k != 0) scratch.residual.noalias() += beta_k * (scratch.stiffness * vectors.qdot);
    if (settings.newton_tolerance > 0 && iteration > 0 &&
        scratch.residual.lpNorm<Eigen::Infinity>() <= settings.newton_tolerance)
      break;
    // Newton matrix, factored in place (Cholesky; pivoted LDLT when it is indefinite), update.
    scratch.factor = k_scale * scratch.stiffness;
    if (mass)
      scratch.factor.noalias() += m_scale * *mass;
    else
      scratch.factor.diagonal().array() += m_scale;
    if (!cholesky_solve_in_place(scratch.factor, scratch.residual, scratch.delta)) {
      scratch.jacobian = k_scale * scratch.stiffness;
      if (mass)
        scratch.jacobian.noalias() += m_scale * *mass;
      else
        scratch.jacobian.diagonal().array() += m_scale;
      scratch.ldlt.compute(scratch.jacobian);
      scratch.delta = scratch.ldlt.solve(scratch.residual);
    }
    scratch.q_trial -= scratch.delta;
  }
  // The state at t + h.
  vectors.qddot = a_scale * (scratch.q_trial - scratch.q_predicted);
  vectors.qdot = scratch.qdot_predicted + (h * gamma) * vectors.qddot;
  vectors.q = scratch.q_trial;
  if (!vectors.q.allFinite() || !vectors.qdot.allFinite() || !vectors.qddot.allFinite())
    return StepStatus::kNonFinite;
  return StepStatus::kOk;
}

}  // namespace ramus
