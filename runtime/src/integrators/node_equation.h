// The integrator seam (Algorithm 1, line 9; runtime internals): the equation of motion of one
// node, frozen for one step, and the integrators that advance it. Every integrator is a
// function of the closed Integrator enum (model/runtime_settings.h), dispatched by a switch.
#pragma once

#include <Eigen/Core>

#include "../dynamics/workspace_data.h"
#include "ramus/runtime/dynamics/reduced_stvk_polynomial.h"
#include "ramus/runtime/dynamics/state.h"
#include "ramus/runtime/model/runtime_settings.h"

namespace ramus {

/// Eq. 17 of one node in its frame at t + h, with Rayleigh damping of the effective mass:
///   M' q̈ + (α M' + β s K(q)) q̇ + s g(q) = f
/// M' = I + Σ_j M_ij (lumped children), f = Uᵀ f_vertices + G R_iᵀ g + f_sys + Σ_j f0_ij, g and
/// K the reduced StVK gradient and stiffness, s the stiffness scale.
struct NodeEquation {
  const ReducedStvkForces* forces = nullptr;  ///< g and K of the node's prototype
  const Eigen::MatrixXd* mass = nullptr;      ///< M' (r by r); nullptr: the identity
  const Eigen::VectorXd* load = nullptr;      ///< f (r)
  NodeSettings node;                          ///< α, β, s and the integrator
};

/// A node's q, q̇, q̈ (r each): at t on entry, at t + h on a successful return.
struct NodeVectors {
  Eigen::Ref<Eigen::VectorXd> q, qdot, qddot;
};

/// s g(q) into scratch.gradient and s K(q) into scratch.stiffness.
void evaluate_internal_forces(const NodeEquation& equation,
                              const Eigen::Ref<const Eigen::VectorXd>& q,
                              PrototypeScratch& scratch) noexcept;

/// solution = matrix⁻¹ rhs by Cholesky, factoring `matrix` in place (its lower triangle becomes
/// L); false, with `solution` untouched, when it is not positive definite.
bool cholesky_solve_in_place(Eigen::MatrixXd& matrix, const Eigen::VectorXd& rhs,
                             Eigen::Ref<Eigen::VectorXd> solution) noexcept;

/// solution = matrix⁻¹ rhs for a symmetric matrix: Cholesky in place in `scratch.factor`, else
/// pivoted LDLT (scratch.ldlt). `matrix` may be scratch.jacobian or scratch.mass.
void solve_symmetric(const Eigen::MatrixXd& matrix, const Eigen::VectorXd& rhs,
                     PrototypeScratch& scratch, Eigen::Ref<Eigen::VectorXd> solution) noexcept;

/// q̈ from the equation at the current q, q̇ (for a consistent start).
StepStatus solve_node_acceleration(const NodeEquation& equation, NodeVectors vectors,
                                   PrototypeScratch& scratch) noexcept;

/// Implicit Newmark (beta, gamma of `settings`), Newton from q_n; one iteration is the
/// substructuring paper's semi-implicit Newmark.
StepStatus newmark_step(const NodeEquation& equation, const RuntimeSettings& settings,
                        NodeVectors vectors, PrototypeScratch& scratch) noexcept;

/// Advances one node by h with its integrator. Allocates nothing, never throws; kNonFinite when
/// the result is not finite (the caller restores the state).
inline StepStatus integrate_node(const NodeEquation& equation, const RuntimeSettings& settings,
                                 NodeVectors vectors, PrototypeScratch& scratch) noexcept {
  switch (equation.node.integrator) {
    case Integrator::kNewmark:
      return newmark_step(equation, settings, vectors, scratch);
  }
  return StepStatus::kInvalidSettings;
}

}  // namespace ramus
