// Newton's method for minimizing a smooth objective with a sparse Hessian, made robust as in
// optimization-integrator-large-steps.md §3.1: indefinite Hessians are replaced by their
// element-wise PSD projection, the direction is checked to be downhill (kappa), its length is
// clamped (ell), and a strong-Wolfe line search (which may take alpha > 1) picks the step.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>

namespace ramus {

/// An objective E(y) over n unknowns, with gradient (n) and sparse Hessian (n by n).
class MinimizationObjective {
 public:
  virtual ~MinimizationObjective() = default;
  /// E(y).
  virtual double value(const Eigen::VectorXd& y) = 0;
  /// E(y); writes dE/dy into gradient (n).
  virtual double value_and_gradient(const Eigen::VectorXd& y, Eigen::VectorXd& gradient) = 0;
  /// d^2E/dy^2 (n by n), or a positive semidefinite modification of it when project_psd is set.
  /// The sparsity pattern must be the same on every call.
  virtual const Eigen::SparseMatrix<double>& hessian(const Eigen::VectorXd& y,
                                                     bool project_psd) = 0;
  /// The largest alpha <= alpha_max for which y + alpha direction stays where E is finite (a
  /// barrier's constraint); the line search never tries beyond it.
  virtual double largest_feasible_step(const Eigen::VectorXd& /*y*/,
                                       const Eigen::VectorXd& /*direction*/, double alpha_max) {
    return alpha_max;
  }
  /// Called before the first evaluation and at the start of every Newton iteration: may move y
  /// to an equivalent point (a projection onto constraints, E unchanged) and change the
  /// objective's form for the iteration (its active set); true when it did either, and the
  /// minimizer evaluates E and its gradient afresh.
  virtual bool begin_iteration(Eigen::VectorXd& /*y*/) { return false; }
};

struct NewtonOptions {
  int max_iterations = 100;
  double gradient_tolerance = 1e-8;  ///< stop when max_i |dE/dy_i| <= this (units of E / y)
  double descent_kappa = 1e-2;       ///< a direction not from a PD solve needs d.g < -kappa |d| |g|
  double max_step_norm = 1e3;        ///< length clamp ell on the Newton direction
  double wolfe_c1 = 1e-4;            ///< sufficient decrease
  double wolfe_c2 = 0.9;             ///< curvature condition
  int max_line_search_evaluations = 40;
};

struct NewtonReport {
  bool converged = false;
  int iterations = 0;
  int objective_evaluations = 0;
  int projected_hessians = 0;  ///< iterations whose Hessian was indefinite
  double gradient_norm = 0;    ///< max-norm of the final gradient
  double value = 0;            ///< final E
};

/// Keeps the sparse Cholesky (CHOLMOD) symbolic analysis between solves with the same pattern.
class NewtonMinimizer {
 public:
  NewtonMinimizer();
  ~NewtonMinimizer();
  NewtonMinimizer(NewtonMinimizer&&) noexcept;
  NewtonMinimizer& operator=(NewtonMinimizer&&) noexcept;

  /// Minimizes E starting from y (updated in place). Never throws on non-convergence: see report.
  NewtonReport minimize(MinimizationObjective& objective, Eigen::VectorXd& y,
                        const NewtonOptions& options);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ramus
