// The integrator seam (Algorithm 1, line 9; runtime internals): the equation of motion of one
// domain, frozen for one step, and the integrators that advance it. Every integrator is a
// function of the closed Integrator enum (data/runtime_settings.h), dispatched by a switch.
// docs/INTEGRATORS.md derives each method in this notation.
#pragma once

#include <Eigen/Core>

#include "../contact/domain_contact.h"
#include "../contact/subtree_contact.h"
#include "integrator_scratch.h"
#include "ramus/runtime/data/runtime_settings.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// Eq. 17 of one domain in its frame at t + h, with Rayleigh damping of the effective mass:
///   M' q̈ + (α M' + β s K(q)) q̇ + s g(q) = f
/// M' = I + Σ_j M_ij (lumped children), f = Uᵀ f_vertices + G R_iᵀ g + f_sys + Σ_j f0_ij, g and
/// K the reduced StVK gradient and stiffness, s the stiffness scale. As a first-order system
/// u = (q, v): q̇ = v, M' v̇ = F(q, v) = f - D v - s g(q), D = α M' + β s K (lagged over a stage).
struct DomainEquation {
  const Part* part = nullptr;                 ///< mass integrals (momentum-preserving damping)
  const ReducedStvkForces* forces = nullptr;  ///< g and K of the domain's part
  const UniformScale* scale = nullptr;        ///< the domain's scale of it; nullptr: unit scale
  const Eigen::MatrixXd* mass = nullptr;      ///< M' (r by r); nullptr: the identity
  const Eigen::VectorXd* load = nullptr;      ///< f (r)
  DomainSettings domain;                      ///< α, β, s and the integrator
  /// The domain's contacts this step (nullptr: none): their potential joins s E(q), its
  /// gradient s g(q) and its (Gauss-Newton) Hessian s K(q) (β K damps the elasticity alone).
  const DomainContact* contact = nullptr;
  /// Its descendants' contacts riding on its children's interfaces (nullptr: none): their
  /// barrier joins E, g and K likewise.
  const SubtreeContact* subtree_contact = nullptr;
};

/// A domain's q, q̇, q̈ (r each): at t on entry, at t + h on a successful return.
struct DomainVectors {
  Eigen::Ref<Eigen::VectorXd> q, qdot, qddot;
};

/// What the integrators keep of one domain between steps (views into the State).
struct DomainMemory {
  const double* q_previous = nullptr;     ///< r: q at t - h (BDF2 family); nullptr: none yet
  const double* qdot_previous = nullptr;  ///< r: q̇ at t - h
  SplitModes* split_modes = nullptr;      ///< the split integrators' modes
  double* energy_target = nullptr;        ///< im-blend: H_total (J)
  double* energy_at_end = nullptr;        ///< im-blend: H at the end of the last step (J)
  bool energy_valid = false;              ///< the two above hold a previous step's values
};

/// s g(q) into scratch.gradient and s K(q) into scratch.stiffness (with the contacts' unless
/// `with_contact` is false).
void evaluate_internal_forces(const DomainEquation& equation,
                              const Eigen::Ref<const Eigen::VectorXd>& q,
                              IntegratorScratch& scratch, bool with_contact = true) noexcept;
/// As evaluate_internal_forces, and returns s E(q) (J; with the contact potential).
double evaluate_internal_energy(const DomainEquation& equation,
                                const Eigen::Ref<const Eigen::VectorXd>& q,
                                IntegratorScratch& scratch, bool with_contact = true) noexcept;
/// Adds the contacts' gradient and Gauss-Newton stiffness at q to scratch (the domain's own
/// samples and its descendants' riding on its children); returns their potential (J).
double add_contact_terms(const DomainEquation& equation, const Eigen::Ref<const Eigen::VectorXd>& q,
                         IntegratorScratch& scratch) noexcept;

/// out = M' x (out must not alias x).
void multiply_mass(const DomainEquation& equation, const Eigen::Ref<const Eigen::VectorXd>& x,
                   Eigen::Ref<Eigen::VectorXd> out) noexcept;

/// F(q, v) = f - (α M' + β K) v - g into `force`, with g and K already in scratch (at q).
void force_from_scratch(const DomainEquation& equation, const Eigen::Ref<const Eigen::VectorXd>& v,
                        IntegratorScratch& scratch, Eigen::Ref<Eigen::VectorXd> force) noexcept;

/// solution = matrix⁻¹ rhs by Cholesky, factoring `matrix` in place (its lower triangle becomes
/// L); false, with `solution` untouched, when it is not positive definite.
bool cholesky_solve_in_place(Eigen::MatrixXd& matrix, const Eigen::VectorXd& rhs,
                             Eigen::Ref<Eigen::VectorXd> solution) noexcept;

/// x = (L Lᵀ)⁻¹ x in place, L the lower triangle of `factor` (x.size() squared, column-major)
/// with 1 / L_jj on its diagonal (the lanes' factors, lane_group_stage_factors).
void inverse_diagonal_cholesky_solve(const double* factor, Eigen::Ref<Eigen::VectorXd> x) noexcept;

/// solution = matrix⁻¹ rhs for a symmetric matrix: Cholesky in place in `scratch.factor`, else
/// pivoted LDLT (scratch.ldlt). `matrix` may be scratch.jacobian or scratch.mass.
void solve_symmetric(const Eigen::MatrixXd& matrix, const Eigen::VectorXd& rhs,
                     IntegratorScratch& scratch, Eigen::Ref<Eigen::VectorXd> solution) noexcept;

/// x = M'⁻¹ x in place (nothing for the identity); uses scratch.residual and scratch.factor.
void solve_mass_in_place(const DomainEquation& equation, IntegratorScratch& scratch,
                         Eigen::Ref<Eigen::VectorXd> x) noexcept;

/// q̈ from the equation at the current q, q̇ (for a consistent start).
StepStatus solve_domain_acceleration(const DomainEquation& equation, DomainVectors vectors,
                                     IntegratorScratch& scratch) noexcept;

/// One implicit stage of the form  q = q̂ + c h v,  M' v = p̂ + c h F(q, v)  (BE: c = 1, q̂ = q_n,
/// p̂ = M' v_n; the other methods' stages in docs/INTEGRATORS.md), q̂ and p̂ in scratch.q_hat and
/// scratch.p_hat. On entry `q` is the initial guess and linearization point; `evaluated` says
/// scratch.gradient / stiffness already hold g, K there. At most `iterations` Newton iterations
/// on the stage's incremental potential with a backtracking line search (stage's relative step
/// below `tolerance`: done); `linearized` (semi-implicit): the elasticity's quadratic model at the
/// linearization point, one solve without contacts or with `iterations` = 0 (contacts linearized
/// too), else Newton on the contacts alone. On return q, v are the stage's values. The damping
/// matrix is lagged at the linearization point.
void solve_stage(const DomainEquation& equation, double ch, bool linearized, int iterations,
                 double tolerance, bool evaluated, IntegratorScratch& scratch,
                 Eigen::Ref<Eigen::VectorXd> q, Eigen::Ref<Eigen::VectorXd> v) noexcept;

/// Implicit Newmark (beta, gamma of `settings`), Newton from q_n; one iteration is the
/// substructuring paper's semi-implicit Newmark.
StepStatus newmark_step(const DomainEquation& equation, const RuntimeSettings& settings,
                        DomainVectors vectors, IntegratorScratch& scratch) noexcept;

/// BE (fully implicit) or SI (semi-implicit): one stage, c = 1.
StepStatus backward_euler_step(const DomainEquation& equation, const RuntimeSettings& settings,
                               bool implicit, DomainVectors vectors,
                               IntegratorScratch& scratch) noexcept;
/// BDF2 or SBDF2 (TR-BDF2 / STR-BDF2 on the first step, without history).
StepStatus bdf2_step(const DomainEquation& equation, const RuntimeSettings& settings, bool implicit,
                     DomainVectors vectors, const DomainMemory& memory,
                     IntegratorScratch& scratch) noexcept;
/// SI, or SBDF2 with a previous step (memory.q_previous), from the stage factored before the pass
/// (lane_group_stage_factors): `stage` holds s g(q) (r), s K (q̂ - q) (r) and the stage matrix's
/// Cholesky factor (r by r, 1 / L_jj on its diagonal). backward_euler_step / bdf2_step's
/// semi-implicit stage with those, up to the factor's rounding.
StepStatus prefactored_semi_implicit_step(const DomainEquation& equation,
                                          const RuntimeSettings& settings, DomainVectors vectors,
                                          const DomainMemory& memory, const double* stage,
                                          IntegratorScratch& scratch) noexcept;
/// TR-BDF2 or STR-BDF2: a trapezoidal stage to t + h/2, then BDF2.
StepStatus tr_bdf2_step(const DomainEquation& equation, const RuntimeSettings& settings,
                        bool implicit, DomainVectors vectors, IntegratorScratch& scratch) noexcept;
/// The 2-stage L-stable SDIRK of order 2 (Eq. 9), fully implicit.
StepStatus sdirk_step(const DomainEquation& equation, const RuntimeSettings& settings,
                      DomainVectors vectors, IntegratorScratch& scratch) noexcept;
/// ERE, SIERE, SBDF2ERE or STR-SBDF2ERE (integrators/exponential_split.cpp).
StepStatus exponential_step(const DomainEquation& equation, const RuntimeSettings& settings,
                            DomainVectors vectors, const DomainMemory& memory,
                            IntegratorScratch& scratch) noexcept;
/// H = ½ vᵀ M' v + s E(q) - f·q, the domain's energy as im-blend tracks it (J).
double domain_energy(const DomainEquation& equation, const Eigen::Ref<const Eigen::VectorXd>& q,
                     const Eigen::Ref<const Eigen::VectorXd>& v, IntegratorScratch& scratch);

/// Implicit midpoint blended with BE / forward Euler to track the total energy, then the
/// momentum-preserving damping (stabilizing-integrators §4).
StepStatus energy_tracking_midpoint_step(const DomainEquation& equation,
                                         const RuntimeSettings& settings, DomainVectors vectors,
                                         const DomainMemory& memory,
                                         IntegratorScratch& scratch) noexcept;

/// Advances one domain by h with its integrator. Allocates nothing, never throws; kNonFinite when
/// the result is not finite (the caller restores the state).
inline StepStatus integrate_domain(const DomainEquation& equation, const RuntimeSettings& settings,
                                   DomainVectors vectors, const DomainMemory& memory,
                                   IntegratorScratch& scratch) noexcept {
  StepStatus status = StepStatus::kInvalidSettings;
  // In contact, Newmark (Newton without a line search), the exponential integrators (one
  // linearization, where a sample may still be outside the barrier's reach), im-blend (whose
  // midpoint extrapolates past the barrier), the TR-BDF2 pair and SDIRK (whose trapezoidal first
  // stage takes half of the start's barrier force explicitly: a stiff spring) would step
  // through it or ring: they take a backward-Euler step while it lasts (docs/CONTACT.md); im-blend
  // then tracks the energy from where it ends.
  Integrator integrator = equation.domain.integrator;
  const bool in_contact = equation.contact || equation.subtree_contact;
  if (in_contact &&
      (integrator == Integrator::kNewmark ||
       integrator == Integrator::kExponentialRosenbrockEuler || integrator == Integrator::kSiere ||
       integrator == Integrator::kSbdf2Ere || integrator == Integrator::kStrSbdf2Ere ||
       integrator == Integrator::kTrBdf2 || integrator == Integrator::kSemiImplicitTrBdf2 ||
       integrator == Integrator::kSdirk || integrator == Integrator::kImplicitMidpointBlend))
    integrator = Integrator::kBackwardEuler;
  switch (integrator) {
    case Integrator::kNewmark:
      return newmark_step(equation, settings, vectors, scratch);
    case Integrator::kBackwardEuler:
    case Integrator::kSemiImplicitEuler:
      status = backward_euler_step(equation, settings, integrator == Integrator::kBackwardEuler,
                                   vectors, scratch);
      break;
    case Integrator::kBdf2:
    case Integrator::kSemiImplicitBdf2:
      status =
          bdf2_step(equation, settings, integrator == Integrator::kBdf2, vectors, memory, scratch);
      break;
    case Integrator::kTrBdf2:
    case Integrator::kSemiImplicitTrBdf2:
      status =
          tr_bdf2_step(equation, settings, integrator == Integrator::kTrBdf2, vectors, scratch);
      break;
    case Integrator::kSdirk:
      status = sdirk_step(equation, settings, vectors, scratch);
      break;
    case Integrator::kExponentialRosenbrockEuler:
    case Integrator::kSiere:
    case Integrator::kSbdf2Ere:
    case Integrator::kStrSbdf2Ere:
      status = exponential_step(equation, settings, vectors, memory, scratch);
      break;
    case Integrator::kImplicitMidpointBlend:
      status = energy_tracking_midpoint_step(equation, settings, vectors, memory, scratch);
      break;
  }
  if (status == StepStatus::kOk &&
      (!vectors.q.allFinite() || !vectors.qdot.allFinite() || !vectors.qddot.allFinite()))
    return StepStatus::kNonFinite;
  if (status == StepStatus::kOk && in_contact &&
      equation.domain.integrator == Integrator::kImplicitMidpointBlend && memory.energy_target)
    *memory.energy_target = *memory.energy_at_end =
        domain_energy(equation, vectors.q, vectors.qdot, scratch);
  return status;
}

}  // namespace ramus
