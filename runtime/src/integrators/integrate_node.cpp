// Dispatch of the per-node integrators and what they share.
#include <Eigen/Cholesky>

#include "node_equation.h"

namespace ramus {

void evaluate_internal_forces(const NodeEquation& equation,
                              const Eigen::Ref<const Eigen::VectorXd>& q,
                              PrototypeScratch& scratch) noexcept {
  equation.forces->evaluate(q, scratch.polynomial, scratch.gradient, scratch.stiffness);
  const double s = equation.node.stiffness_scale;
  if (s != 1.0) {
    scratch.gradient *= s;
    scratch.stiffness *= s;
  }
}

double evaluate_internal_energy(const NodeEquation& equation,
                                const Eigen::Ref<const Eigen::VectorXd>& q,
                                PrototypeScratch& scratch) noexcept {
  double energy =
      equation.forces->evaluate_energy(q, scratch.polynomial, scratch.gradient, scratch.stiffness);
  const double s = equation.node.stiffness_scale;
  if (s != 1.0) {
    scratch.gradient *= s;
    scratch.stiffness *= s;
    energy *= s;
  }
  return energy;
}

void multiply_mass(const NodeEquation& equation, const Eigen::Ref<const Eigen::VectorXd>& x,
                   Eigen::Ref<Eigen::VectorXd> out) noexcept {
  if (equation.mass)
    out.noalias() = *equation.mass * x;
  else
    out = x;
}

void force_from_scratch(const NodeEquation& equation, const Eigen::Ref<const Eigen::VectorXd>& v,
                        PrototypeScratch& scratch, Eigen::Ref<Eigen::VectorXd> force) noexcept {
  const NodeSettings& o = equation.node;
  force = *equation.load - scratch.gradient;
  if (o.rayleigh_mass != 0) {
    if (equation.mass)
      force.noalias() -= o.rayleigh_mass * (*equation.mass * v);
    else
      force -= o.rayleigh_mass * v;
  }
  if (o.rayleigh_stiffness != 0) force.noalias() -= o.rayleigh_stiffness * (scratch.stiffness * v);
}

void solve_mass_in_place(const NodeEquation& equation, PrototypeScratch& scratch,
                         Eigen::Ref<Eigen::VectorXd> x) noexcept {
  if (!equation.mass) return;
  scratch.residual = x;
  solve_symmetric(*equation.mass, scratch.residual, scratch, x);
}

bool cholesky_solve_in_place(Eigen::MatrixXd& matrix, const Eigen::VectorXd& rhs,
                             Eigen::Ref<Eigen::VectorXd> solution) noexcept {
  // Eigen's unblocked kernel: no copy and no l1-norm pass, as LLT::compute would make (a tenth
  // of the step at r = 10).
  if (Eigen::internal::llt_inplace<double, Eigen::Lower>::unblocked(matrix) >= 0) return false;
  solution = rhs;
  matrix.triangularView<Eigen::Lower>().solveInPlace(solution);
  matrix.triangularView<Eigen::Lower>().adjoint().solveInPlace(solution);
  return true;
}

void solve_symmetric(const Eigen::MatrixXd& matrix, const Eigen::VectorXd& rhs,
                     PrototypeScratch& scratch, Eigen::Ref<Eigen::VectorXd> solution) noexcept {
  scratch.factor = matrix;
  if (!cholesky_solve_in_place(scratch.factor, rhs, solution)) {
    scratch.ldlt.compute(matrix);
    solution = scratch.ldlt.solve(rhs);
  }
}

// M' q̈ = f - (α M' + β s K) q̇ - s g(q).
StepStatus solve_node_acceleration(const NodeEquation& equation, NodeVectors vectors,
                                   PrototypeScratch& scratch) noexcept {
  evaluate_internal_forces(equation, vectors.q, scratch);
  force_from_scratch(equation, vectors.qdot, scratch, scratch.residual);
  if (equation.mass)
    solve_symmetric(*equation.mass, scratch.residual, scratch, vectors.qddot);
  else
    vectors.qddot = scratch.residual;
  return vectors.qddot.allFinite() ? StepStatus::kOk : StepStatus::kNonFinite;
}

}  // namespace ramus
