// Dispatch of the per-domain integrators and what they share.
#include <Eigen/Cholesky>

#include <algorithm>
#include <cstddef>

#include "domain_equation.h"
#include "semi_implicit_stage.h"

namespace ramus {

namespace {

// The part's coordinates of the domain's shape, q̃ = s^-5/2 q (the domain's own q at unit
// scale: no copy).
Eigen::Ref<const Eigen::VectorXd> part_coordinates(const DomainEquation& equation,
                                                   const Eigen::Ref<const Eigen::VectorXd>& q,
                                                   IntegratorScratch& scratch) noexcept {
  if (!equation.scale || equation.scale->identity()) return q;
  scratch.scaled_q = equation.scale->coordinate * q;
  return scratch.scaled_q;
}

// g and K of the part at q̃ into the domain's: s^½ g, s^-2 K, times the stiffness scale.
double domain_factors(const DomainEquation& equation, double& stiffness_factor) noexcept {
  double gradient = equation.domain.stiffness_scale;
  stiffness_factor = gradient;
  if (equation.scale && !equation.scale->identity()) {
    gradient *= equation.scale->gradient;
    stiffness_factor *= equation.scale->stiffness;
  }
  return gradient;
}

}  // namespace

// The contacts' gradient and Gauss-Newton Hessian into scratch.gradient and scratch.stiffness:
// the domain's own (its samples) and its descendants' riding on its children; returns their
// potential (J). (With the collider's curvature b' ∇²phi, a leaf's Newton took 5.7 iterations
// instead of 6.6, but it found the far side of a sphere: the plant's stem went through one.)
double add_contact_terms(const DomainEquation& equation, const Eigen::Ref<const Eigen::VectorXd>& q,
                         IntegratorScratch& scratch) noexcept {
  double energy = 0;
  if (equation.contact)
    energy += equation.contact->add_derivatives(q, scratch.gradient, scratch.stiffness, true);
  if (equation.subtree_contact)
    energy += equation.subtree_contact->add_derivatives(q, scratch.gradient, scratch.stiffness);
  return energy;
}

void evaluate_internal_forces(const DomainEquation& equation,
                              const Eigen::Ref<const Eigen::VectorXd>& q,
                              IntegratorScratch& scratch, bool with_contact) noexcept {
  equation.forces->evaluate(part_coordinates(equation, q, scratch), scratch.polynomial,
                            scratch.gradient, scratch.stiffness);
  double stiffness = 1;
  const double gradient = domain_factors(equation, stiffness);
  if (gradient != 1.0) scratch.gradient *= gradient;
  if (stiffness != 1.0) scratch.stiffness *= stiffness;
  if (with_contact) add_contact_terms(equation, q, scratch);
}

double evaluate_internal_energy(const DomainEquation& equation,
                                const Eigen::Ref<const Eigen::VectorXd>& q,
                                IntegratorScratch& scratch, bool with_contact) noexcept {
  double energy =
      equation.forces->evaluate_energy(part_coordinates(equation, q, scratch), scratch.polynomial,
                                       scratch.gradient, scratch.stiffness);
  double stiffness = 1;
  const double gradient = domain_factors(equation, stiffness);
  if (gradient != 1.0) scratch.gradient *= gradient;
  if (stiffness != 1.0) scratch.stiffness *= stiffness;
  // E' = s³ E(q̃), times the stiffness scale.
  energy *= equation.domain.stiffness_scale;
  if (equation.scale && !equation.scale->identity()) energy *= equation.scale->energy;
  return with_contact ? energy + add_contact_terms(equation, q, scratch) : energy;
}

void multiply_mass(const DomainEquation& equation, const Eigen::Ref<const Eigen::VectorXd>& x,
                   Eigen::Ref<Eigen::VectorXd> out) noexcept {
  if (equation.mass)
    out.noalias() = *equation.mass * x;
  else
    out = x;
}

void force_from_scratch(const DomainEquation& equation, const Eigen::Ref<const Eigen::VectorXd>& v,
                        IntegratorScratch& scratch, Eigen::Ref<Eigen::VectorXd> force) noexcept {
  const DomainSettings& o = equation.domain;
  force = *equation.load - scratch.gradient;
  if (o.rayleigh_mass != 0) {
    if (equation.mass)
      force.noalias() -= o.rayleigh_mass * (*equation.mass * v);
    else
      force -= o.rayleigh_mass * v;
  }
  if (o.rayleigh_stiffness != 0) force.noalias() -= o.rayleigh_stiffness * (scratch.stiffness * v);
}

void solve_mass_in_place(const DomainEquation& equation, IntegratorScratch& scratch,
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
  semi_implicit::triangular_solves(matrix.data(), static_cast<int>(matrix.rows()), solution.data(),
                                   [](double diagonal) { return 1.0 / diagonal; });
  return true;
}

void inverse_diagonal_cholesky_solve(const double* factor, Eigen::Ref<Eigen::VectorXd> x) noexcept {
  semi_implicit::solve_inverse_diagonal(factor, static_cast<int>(x.size()), x.data());
}

void solve_symmetric(const Eigen::MatrixXd& matrix, const Eigen::VectorXd& rhs,
                     IntegratorScratch& scratch, Eigen::Ref<Eigen::VectorXd> solution) noexcept {
  scratch.factor = matrix;
  if (!cholesky_solve_in_place(scratch.factor, rhs, solution)) {
    scratch.ldlt.compute(matrix);
    solution = scratch.ldlt.solve(rhs);
  }
}

// M' q̈ = f - (α M' + β s K) q̇ - s g(q).
StepStatus solve_domain_acceleration(const DomainEquation& equation, DomainVectors vectors,
                                     IntegratorScratch& scratch) noexcept {
  evaluate_internal_forces(equation, vectors.q, scratch);
  force_from_scratch(equation, vectors.qdot, scratch, scratch.residual);
  if (equation.mass)
    solve_symmetric(*equation.mass, scratch.residual, scratch, vectors.qddot);
  else
    vectors.qddot = scratch.residual;
  return vectors.qddot.allFinite() ? StepStatus::kOk : StepStatus::kNonFinite;
}

}  // namespace ramus
