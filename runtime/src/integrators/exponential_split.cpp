// Exponential Rosenbrock Euler and its splittings with the semi-implicit methods
// (stiff-and-soft-integrators-survey.txt §3.5, Eq. 17-26), in a domain's reduced space.
//
// The s lowest modes of the pencil (K(q_lin), M') at the linearization point, K X = M' X Λ with
// Xᵀ M' X = I, diagonalize the Jacobian J = [0 I; -M'⁻¹K -M'⁻¹D] of Rayleigh damping D = α M' + β K
// into 2 by 2 blocks J_i = [0 1; -λ_i -(α + β λ_i)]. On the split G(u) = P̃ F(u) with
// P̃ = diag(X Xᵀ M', X Xᵀ M') (the survey's Eq. 23, the modal damping kept in J_G, where it is
// exact), (I - c h J_H)⁻¹ leaves the low modes alone and acts on the rest as the full
// semi-implicit matrix, so each method is its semi-implicit parent with the low-mode part of its
// increment replaced:
//   u_1 = u_S + X̃ [ a Xᵀ M' (u_b - u_p) + w τ φ1(τ J_G) G(u_b) - Xᵀ M' (u_S - u_b) ]
// u_b the base state, u_S the parent's result from it, X̃ = diag(X, X):
//   SIERE        (Eq. 20, 24a)  parent SI,               a = 0,   w = 1,   τ = h
//   SBDF2ERE     (Eq. 22)       parent SBDF2, u_p = u_-1, a = 1/3, w = 2/3, τ = h
//   STR-SBDF2ERE (Eq. 26)       stage 1 STR (unsplit) to u_½ = u_b; parent its BDF2 stage,
//                               u_p = u_0, a = 1/3, w = 2/3, τ = h/2
//   ERE          (Eq. 17)       all r modes: u_1 = u_0 + h φ1(h J) F(u_0), no parent.
// τ φ1(τ J_i) b in closed form, or from the exponential of τ [J_i b; 0 0] where that would lose
// digits (modal_phi1).
#include <Eigen/Cholesky>
#include <unsupported/Eigen/MatrixFunctions>

#include <algorithm>
#include <cmath>

#include "../kernels/symmetric_eigen.h"
#include "domain_equation.h"

namespace ramus {

namespace {

// All r modes of (K, M') (K in scratch.stiffness): X into scratch.exponential.eigen_matrix, Λ into
// scratch.exponential.eigenvalues. False when M' is not positive definite or the QR iteration
// failed.
bool decompose_all_modes(const DomainEquation& e, IntegratorScratch& scratch) {
  scratch.exponential.eigen_matrix = scratch.stiffness;
  if (e.mass) {
    // L⁻¹ K L⁻ᵀ with M' = L Lᵀ.
    scratch.exponential.mass_factor = *e.mass;
    if (Eigen::internal::llt_inplace<double, Eigen::Lower>::unblocked(
            scratch.exponential.mass_factor) >= 0)
      return false;
    const auto lower = scratch.exponential.mass_factor.triangularView<Eigen::Lower>();
    lower.solveInPlace(scratch.exponential.eigen_matrix);
    scratch.exponential.eigen_matrix.transposeInPlace();
    lower.solveInPlace(scratch.exponential.eigen_matrix);
  }
  if (!scratch.exponential.eigen.compute(scratch.exponential.eigen_matrix,
                                         scratch.exponential.eigenvalues))
    return false;
  if (e.mass)
    scratch.exponential.mass_factor.triangularView<Eigen::Lower>().adjoint().solveInPlace(
        scratch.exponential.eigen_matrix);
  return true;
}

// One step of subspace iteration from the cached modes at the current (K, M') (K in
// scratch.stiffness): Z = K⁻¹ M' X Λ, which is X again while X, Λ are exact, then Rayleigh-Ritz
// in span Z (K Z = M' X Λ is known, so the s by s pencil costs no product with K). Returns the
// drift max_j |z_j - x_j|_M' (about the angle mode j turned plus the relative change of λ_j; a
// stiff mode leaking into x_j counts at its share of x_j, not weighed by its stiffness), or -1
// when K or the Ritz pencil is not positive definite. Per call r³/3 + 5 r² s + O(r s²) flops.
double track_split_modes(const DomainEquation& e, SplitModes& modes, bool mass_product_ready,
                         IntegratorScratch& scratch) {
  const Eigen::Index s = modes.basis.cols();
  if (modes.eigenvalues.minCoeff() <= 0) return -1;
  auto kz = scratch.exponential.split_mass.leftCols(
      s);  // M' X Λ = K Z (M' X left there by rayleigh_drift)
  auto z = scratch.exponential.split_basis.leftCols(s);
  auto mz = scratch.exponential.split_stiffness.leftCols(s);
  if (!e.mass)
    kz = modes.basis;
  else if (!mass_product_ready)
    kz.noalias() = *e.mass * modes.basis;
  kz *= modes.eigenvalues.asDiagonal();
  // Z = K⁻¹ M' X Λ by Cholesky of K.
  scratch.exponential.mass_factor = scratch.stiffness;
  if (Eigen::internal::llt_inplace<double, Eigen::Lower>::unblocked(
          scratch.exponential.mass_factor) >= 0)
    return -1;
  z = kz;
  scratch.exponential.mass_factor.triangularView<Eigen::Lower>().solveInPlace(z);
  scratch.exponential.mass_factor.triangularView<Eigen::Lower>().adjoint().solveInPlace(z);
  if (e.mass)
    mz.noalias() = *e.mass * z;
  else
    mz = z;
  // |z - x|²_M' = zᵀM'z - 2 zᵀM'x + xᵀM'x, with M' x = (K z) / λ.
  double drift = 0;
  for (Eigen::Index j = 0; j < s; ++j) {
    const double zz = z.col(j).dot(mz.col(j));
    const double zx = z.col(j).dot(kz.col(j)) / modes.eigenvalues(j);
    const double xx = modes.basis.col(j).dot(kz.col(j)) / modes.eigenvalues(j);
    drift = std::max(drift, zz - 2 * zx + xx);
  }
  // The s by s pencil (Zᵀ K Z, Zᵀ M' Z) by Cholesky of Zᵀ M' Z; L⁻¹ Zᵀ K Z L⁻ᵀ is nearly
  // diagonal (Z nearly M'-orthogonal modes), which suits Jacobi rotations.
  scratch.exponential.ritz_stiffness.noalias() = z.transpose().lazyProduct(kz);
  scratch.exponential.ritz_mass.noalias() = z.transpose().lazyProduct(mz);
  if (Eigen::internal::llt_inplace<double, Eigen::Lower>::unblocked(
          scratch.exponential.ritz_mass) >= 0)
    return -1;
  const auto lower = scratch.exponential.ritz_mass.triangularView<Eigen::Lower>();
  lower.solveInPlace(scratch.exponential.ritz_stiffness);
  scratch.exponential.ritz_stiffness.transposeInPlace();
  lower.solveInPlace(scratch.exponential.ritz_stiffness);
  // (Z carries K's rounding, cond(K) ε: keep the symmetric part.)
  scratch.exponential.ritz_vectors = scratch.exponential.ritz_stiffness.transpose();
  scratch.exponential.ritz_stiffness =
      0.5 * (scratch.exponential.ritz_stiffness + scratch.exponential.ritz_vectors);
  scratch.exponential.ritz_values.resize(s);
  scratch.exponential.ritz_vectors.resize(s, s);
  if (!jacobi_eigen(scratch.exponential.ritz_stiffness, scratch.exponential.ritz_vectors,
                    scratch.exponential.ritz_values))
    return -1;
  lower.adjoint().solveInPlace(scratch.exponential.ritz_vectors);  // Y: X̃ = Z Y
  modes.basis.noalias() = z.lazyProduct(scratch.exponential.ritz_vectors);
  modes.eigenvalues = scratch.exponential.ritz_values;
  return std::sqrt(std::max(drift, 0.0));
}

// The largest relative change of the cached modes' Rayleigh quotients at the current (K, M'),
// max_j |x_jᵀ K x_j / x_jᵀ M' x_j - λ_j| / λ_j: r² s flops, the cheap test of whether they moved.
// Leaves M' X in scratch.exponential.split_mass for track_split_modes.
double rayleigh_drift(const DomainEquation& e, const SplitModes& modes,
                      IntegratorScratch& scratch) {
  const Eigen::Index s = modes.basis.cols();
  auto kx = scratch.exponential.split_stiffness.leftCols(s);
  auto mx = scratch.exponential.split_mass.leftCols(s);
  kx.noalias() = scratch.stiffness * modes.basis;
  if (e.mass) mx.noalias() = *e.mass * modes.basis;
  double drift = 0;
  for (Eigen::Index j = 0; j < s; ++j) {
    const double mass = e.mass ? modes.basis.col(j).dot(mx.col(j)) : 1.0;
    const double quotient = modes.basis.col(j).dot(kx.col(j)) / mass;
    drift = std::max(drift, std::abs(quotient - modes.eigenvalues(j)) /
                                std::max(std::abs(modes.eigenvalues(j)), 1e-300));
  }
  return drift;
}

// The domain's s lowest modes at the linearization point (K in scratch.stiffness): a full
// decomposition every split_refresh_steps steps; in between the cached modes are kept while
// their Rayleigh quotients move by at most a tenth of the drift tolerance, else tracked, and
// recomputed when tracking moves them by more than the tolerance.
bool update_split_modes(const DomainEquation& e, SplitModes& modes, IntegratorScratch& scratch) {
  const DomainSettings& o = e.domain;
  const Eigen::Index s = modes.basis.cols();
  if (s == 0) return true;
  if (modes.age >= 0 && modes.age < o.split_refresh_steps) {
    const double tolerance = o.split_drift_tolerance;
    if (tolerance > 0 && rayleigh_drift(e, modes, scratch) <= 0.1 * tolerance) {
      ++modes.age;
      return true;
    }
    const double drift = track_split_modes(e, modes, tolerance > 0, scratch);
    if (drift >= 0 && (tolerance <= 0 || drift <= tolerance)) {
      ++modes.age;
      return true;
    }
  }
  if (!decompose_all_modes(e, scratch)) return false;
  modes.basis = scratch.exponential.eigen_matrix.leftCols(s);
  modes.eigenvalues = scratch.exponential.eigenvalues.head(s);
  modes.age = 1;
  ++modes.decompositions;
  return true;
}

// τ φ1(τ J) b for one mode, J = [0 1; -λ -d]: the integral of e^(sJ) b over [0, τ]. Closed form
// J⁻¹ (e^(τJ) - I) b with e^(τJ) = e^(-dτ/2) (C I + S (J + d/2 I)), C = cos ωτ, S = sin(ωτ)/ω,
// ω² = λ - d²/4 (cosh, sinh for ω² < 0) where that is well conditioned (|λ| τ² >= 1e-2, d² <=
// 100 |λ|: at most a digit lost to the cancellation in e^(τJ) - I); else the last column of the
// exponential of the 3 by 3 matrix τ [J b; 0 0] (Eigen's Padé with scaling and squaring).
void modal_phi1(double lambda, double d, double tau, double b0, double b1, double& out0,
                double& out1) {
  if (std::abs(lambda) * tau * tau >= 1e-2 && d * d <= 100 * std::abs(lambda)) {
    const double omega2 = lambda - 0.25 * d * d, decay = std::exp(-0.5 * d * tau);
    double c = 1, sine = tau;  // C and S
    if (omega2 * tau * tau > 1e-12) {
      const double omega = std::sqrt(omega2);
      c = std::cos(omega * tau);
      sine = std::sin(omega * tau) / omega;
    } else if (omega2 * tau * tau < -1e-12) {
      const double kappa = std::sqrt(-omega2);
      c = std::cosh(kappa * tau);
      sine = std::sinh(kappa * tau) / kappa;
    }
    // (e^(τJ) - I) b, then J⁻¹ = [-d -1; λ 0] / λ.
    const double e0 = decay * ((c + 0.5 * d * sine) * b0 + sine * b1) - b0;
    const double e1 = decay * (-lambda * sine * b0 + (c - 0.5 * d * sine) * b1) - b1;
    out0 = (-d * e0 - e1) / lambda;
    out1 = e0;
    return;
  }
  Eigen::Matrix3d a = Eigen::Matrix3d::Zero();
  a(0, 1) = tau;
  a(1, 0) = -tau * lambda;
  a(1, 1) = -tau * d;
  a(0, 2) = tau * b0;
  a(1, 2) = tau * b1;
  const Eigen::Matrix3d exponential = a.exp();
  out0 = exponential(0, 2);
  out1 = exponential(1, 2);
}

// τ φ1(τ J_i) (Xᵀ M' v, Xᵀ F) for every mode of X, Λ into scratch.exponential.modal_q / modal_v,
// with M' v in scratch.p_hat and F in scratch.force.
void modal_exponential(const DomainEquation& e, const Eigen::Ref<const Eigen::MatrixXd>& x,
                       const Eigen::Ref<const Eigen::VectorXd>& lambda, double tau,
                       IntegratorScratch& scratch) {
  const double alpha = e.domain.rayleigh_mass, beta = e.domain.rayleigh_stiffness;
  // A mode of negative stiffness (a buckled StVK state, as a leaf pressed by a collider leaves
  // behind) is propagated as a free one: the linearization's exact exponential grows as
  // exp(√|λ| τ) (a leaf went from |q| 0.004 to 1.2 in one step); with λ clamped the step stays a
  // consistent W-method there.
  for (Eigen::Index i = 0; i < x.cols(); ++i) {
    const double stiffness = std::max(lambda(i), 0.0);
    modal_phi1(stiffness, alpha + beta * stiffness, tau, x.col(i).dot(scratch.p_hat),
               x.col(i).dot(scratch.force), scratch.exponential.modal_q(i),
               scratch.exponential.modal_v(i));
  }
}

// The low-mode replacement of the file comment: q, v hold u_S on entry, u_1 on return; u_b in
// scratch.q_start / v_start; a Xᵀ M' (u_b - u_p) already added to modal_q / modal_v.
void replace_low_modes(const DomainEquation& e, const Eigen::Ref<const Eigen::MatrixXd>& x,
                       DomainVectors vectors, IntegratorScratch& scratch) {
  const Eigen::Index s = x.cols();
  scratch.q_blend = vectors.q - scratch.q_start;
  multiply_mass(e, scratch.q_blend, scratch.v_blend);
  scratch.exponential.modal_q.head(s).noalias() -= x.transpose() * scratch.v_blend;
  scratch.q_blend = vectors.qdot - scratch.v_start;
  multiply_mass(e, scratch.q_blend, scratch.v_blend);
  scratch.exponential.modal_v.head(s).noalias() -= x.transpose() * scratch.v_blend;
  vectors.q.noalias() += x * scratch.exponential.modal_q.head(s);
  vectors.qdot.noalias() += x * scratch.exponential.modal_v.head(s);
}

// q̈_1 = M'⁻¹ (F_b - K_b (q_1 - q_b) - D_b (v_1 - v_b)): the force of the linearized system at
// the end of the step (K_b in scratch.stiffness, F_b in scratch.force).
void linearized_acceleration(const DomainEquation& e, DomainVectors vectors,
                             IntegratorScratch& scratch) {
  scratch.q_blend = vectors.q - scratch.q_start;
  scratch.v_blend = vectors.qdot - scratch.v_start;
  vectors.qddot = scratch.force;
  vectors.qddot.noalias() -= scratch.stiffness * scratch.q_blend;
  if (e.domain.rayleigh_stiffness != 0)
    vectors.qddot.noalias() -= e.domain.rayleigh_stiffness * (scratch.stiffness * scratch.v_blend);
  if (e.domain.rayleigh_mass != 0) {
    multiply_mass(e, scratch.v_blend, scratch.delta);
    vectors.qddot -= e.domain.rayleigh_mass * scratch.delta;
  }
  solve_mass_in_place(e, scratch, vectors.qddot);
}

}  // namespace

StepStatus exponential_step(const DomainEquation& e, const RuntimeSettings& settings,
                            DomainVectors vectors, const DomainMemory& memory,
                            IntegratorScratch& scratch) noexcept {
  const double h = settings.time_step;
  const Integrator method = e.domain.integrator;
  const Eigen::Index r = vectors.q.size();
  // BDF2's history; without it SBDF2ERE starts as SIERE.
  const bool multistep = method == Integrator::kSbdf2Ere && memory.q_previous != nullptr;
  scratch.q_start = vectors.q;
  scratch.v_start = vectors.qdot;
  evaluate_internal_forces(e, vectors.q, scratch);
  force_from_scratch(e, vectors.qdot, scratch, scratch.force);

  // STR-SBDF2ERE: the unsplit semi-implicit trapezoidal stage to u_½, which becomes the base.
  if (method == Integrator::kStrSbdf2Ere) {
    scratch.q_hat = vectors.q + (0.25 * h) * vectors.qdot;
    multiply_mass(e, vectors.qdot, scratch.p_hat);
    scratch.p_hat += (0.25 * h) * scratch.force;
    solve_stage(e, 0.25 * h, true, 0, 0, true, scratch, vectors.q, vectors.qdot);
    scratch.q_trial = scratch.q_start;  // u_0, the "previous" state of the BDF2 stage
    scratch.qdot_predicted = scratch.v_start;
    scratch.q_start = vectors.q;
    scratch.v_start = vectors.qdot;
    evaluate_internal_forces(e, vectors.q, scratch);
    force_from_scratch(e, vectors.qdot, scratch, scratch.force);
  }

  // The modes at the base: all of them for ERE, else the domain's cached s.
  const bool all_modes = method == Integrator::kExponentialRosenbrockEuler ||
                         (memory.split_modes && memory.split_modes->basis.cols() == r);
  if (all_modes) {
    if (!decompose_all_modes(e, scratch)) return StepStatus::kSolverFailed;
  } else if (!memory.split_modes || !update_split_modes(e, *memory.split_modes, scratch)) {
    return memory.split_modes ? StepStatus::kSolverFailed : StepStatus::kInvalidSettings;
  }
  const Eigen::Ref<const Eigen::MatrixXd> x =
      all_modes ? Eigen::Ref<const Eigen::MatrixXd>(scratch.exponential.eigen_matrix)
                : Eigen::Ref<const Eigen::MatrixXd>(memory.split_modes->basis);
  const Eigen::Ref<const Eigen::VectorXd> lambda =
      all_modes ? Eigen::Ref<const Eigen::VectorXd>(scratch.exponential.eigenvalues)
                : Eigen::Ref<const Eigen::VectorXd>(memory.split_modes->eigenvalues);
  const Eigen::Index s = x.cols();

  // The exponential part τ φ1(τ J_G) G(u_b), weighted.
  const double tau = method == Integrator::kStrSbdf2Ere ? 0.5 * h : h;
  const double weight = (multistep || method == Integrator::kStrSbdf2Ere) ? 2.0 / 3.0 : 1.0;
  multiply_mass(e, vectors.qdot, scratch.p_hat);
  modal_exponential(e, x, lambda, tau, scratch);
  scratch.exponential.modal_q.head(s) *= weight;
  scratch.exponential.modal_v.head(s) *= weight;
  // The two-step methods' part a Xᵀ M' (u_b - u_p), a = 1/3.
  const bool two_step = method == Integrator::kStrSbdf2Ere || multistep;
  const Eigen::Map<const Eigen::VectorXd> q_previous(
      multistep ? memory.q_previous : scratch.q_trial.data(), r);
  const Eigen::Map<const Eigen::VectorXd> v_previous(
      multistep ? memory.qdot_previous : scratch.qdot_predicted.data(), r);
  if (two_step) {
    scratch.q_blend = scratch.q_start - q_previous;
    multiply_mass(e, scratch.q_blend, scratch.v_blend);
    scratch.exponential.modal_q.head(s).noalias() +=
        (1.0 / 3.0) * (x.transpose() * scratch.v_blend);
    scratch.q_blend = scratch.v_start - v_previous;
    multiply_mass(e, scratch.q_blend, scratch.v_blend);
    scratch.exponential.modal_v.head(s).noalias() +=
        (1.0 / 3.0) * (x.transpose() * scratch.v_blend);
  }
  if (s == r) {
    // No semi-implicit remainder (ERE, or every mode split): u_1 = u_b + X Δ.
    vectors.q.noalias() += x * scratch.exponential.modal_q.head(s);
    vectors.qdot.noalias() += x * scratch.exponential.modal_v.head(s);
    linearized_acceleration(e, vectors, scratch);
    return StepStatus::kOk;
  }

  // The semi-implicit parent from u_b: SI (c = 1), or the BDF2 stage q̂ = u_b + (u_b - u_p) / 3
  // with c = 2/3 (SBDF2ERE) or 1/3 (STR-SBDF2ERE).
  double c = 1;
  scratch.q_hat = scratch.q_start;  // SI: p̂ = M' v_b is in scratch.p_hat already
  if (two_step) {
    c = method == Integrator::kStrSbdf2Ere ? 1.0 / 3.0 : 2.0 / 3.0;
    scratch.q_hat += (scratch.q_start - q_previous) / 3.0;
    scratch.v_blend = scratch.v_start + (scratch.v_start - v_previous) / 3.0;
    multiply_mass(e, scratch.v_blend, scratch.p_hat);
  }
  solve_stage(e, c * h, true, 0, 0, true, scratch, vectors.q, vectors.qdot);
  replace_low_modes(e, x, vectors, scratch);
  linearized_acceleration(e, vectors, scratch);
  return StepStatus::kOk;
}

}  // namespace ramus
