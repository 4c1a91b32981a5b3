#include "ramus/precompute/fem/newton_minimizer.h"

#include <Eigen/CholmodSupport>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ramus {

namespace {

// phi(alpha) = E(y + alpha d) and its derivative, with the gradient kept for the caller.
struct LinePoint {
  double alpha = 0, value = 0, slope = 0;
};

class LineFunction {
 public:
  LineFunction(MinimizationObjective& objective, const Eigen::VectorXd& y,
               const Eigen::VectorXd& direction, Eigen::VectorXd& trial, Eigen::VectorXd& gradient)
      : objective_(objective), y_(y), d_(direction), trial_(trial), gradient_(gradient) {}
  LinePoint operator()(double alpha) {
    trial_ = y_ + alpha * d_;
    ++evaluations;
    const double value = objective_.value_and_gradient(trial_, gradient_);
    return {alpha, value, gradient_.dot(d_)};
  }
  int evaluations = 0;

 private:
  MinimizationObjective& objective_;
  const Eigen::VectorXd& y_;
  const Eigen::VectorXd& d_;
  Eigen::VectorXd& trial_;
  Eigen::VectorXd& gradient_;
};

// Minimizer of the cubic interpolating (a, fa, ga), (b, fb, gb), safeguarded into [lo, hi].
double cubic_step(const LinePoint& a, const LinePoint& b) {
  const double lo = std::min(a.alpha, b.alpha), hi = std::max(a.alpha, b.alpha);
  const double d1 = a.slope + b.slope - 3.0 * (a.value - b.value) / (a.alpha - b.alpha);
  const double disc = d1 * d1 - a.slope * b.slope;
  double alpha = 0.5 * (lo + hi);
  if (disc >= 0) {
    const double d2 = std::copysign(std::sqrt(disc), b.alpha - a.alpha);
    const double denom = b.slope - a.slope + 2.0 * d2;
    if (denom != 0) alpha = b.alpha - (b.alpha - a.alpha) * (b.slope + d2 - d1) / denom;
  }
  const double margin = 0.1 * (hi - lo);
  if (!std::isfinite(alpha) || alpha < lo + margin || alpha > hi - margin) alpha = 0.5 * (lo + hi);
  return alpha;
}

// Strong-Wolfe line search (Nocedal & Wright, Algorithms 3.5 and 3.6). Returns the accepted point;
// alpha = 0 when no decrease could be found. The objective's gradient at the accepted point is
// left in `gradient` by re-evaluating when needed.
LinePoint strong_wolfe_search(LineFunction& phi, const LinePoint& start, double alpha_max,
                              const NewtonOptions& o) {
  const double noise = 16 * std::numeric_limits<double>::epsilon() * std::abs(start.value);
  auto sufficient = [&](const LinePoint& p) {
    return p.value <= start.value + o.wolfe_c1 * p.alpha * start.slope + noise;
  };
  auto curvature = [&](const LinePoint& p) {
    return std::abs(p.slope) <= -o.wolfe_c2 * start.slope;
  };
  LinePoint best = start;
  auto remember = [&](const LinePoint& p) {
    if (p.value < best.value) best = p;
  };
  auto zoom = [&](LinePoint lo, LinePoint hi) -> LinePoint {
    while (phi.evaluations < o.max_line_search_evaluations) {
      const LinePoint p = phi(cubic_step(lo, hi));
      remember(p);
      if (!sufficient(p) || p.value >= lo.value) {
        hi = p;
      } else {
        if (curvature(p)) return p;
        if (p.slope * (hi.alpha - lo.alpha) >= 0) hi = lo;
        lo = p;
      }
      if (std::abs(hi.alpha - lo.alpha) < 1e-14 * std::max(1.0, lo.alpha)) break;
    }
    return best;
  };
  LinePoint previous = start;
  double alpha = std::min(1.0, alpha_max);
  for (int i = 0; phi.evaluations < o.max_line_search_evaluations; ++i) {
    const LinePoint p = phi(alpha);
    remember(p);
    if (!std::isfinite(p.value) || !sufficient(p) || (i > 0 && p.value >= previous.value))
      return zoom(previous, p);
    if (curvature(p)) return p;
    if (p.slope >= 0) return zoom(p, previous);
    previous = p;
    if (alpha >= alpha_max) return p;
    alpha = std::min(2.0 * alpha, alpha_max);
  }
  return best;
}

}  // namespace

struct NewtonMinimizer::Impl {
  Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>, Eigen::Lower> solver;
  // An indefinite Hessian is expected and handled; keep CHOLMOD from printing about it.
  Impl() { solver.cholmod().print = 0; }
  bool analyzed = false;
  // The analyzed pattern (column starts and row indices): a Hessian whose pattern changes
  // (self-contacts coming and going) is analyzed afresh.
  std::vector<int> analyzed_outer, analyzed_inner;

  bool same_pattern(const Eigen::SparseMatrix<double>& H) const {
    return analyzed && H.isCompressed() &&
           std::equal(H.outerIndexPtr(), H.outerIndexPtr() + H.cols() + 1, analyzed_outer.begin(),
                      analyzed_outer.end()) &&
           std::equal(H.innerIndexPtr(), H.innerIndexPtr() + H.nonZeros(), analyzed_inner.begin(),
                      analyzed_inner.end());
  }
  bool factorize(const Eigen::SparseMatrix<double>& H) {
    if (!same_pattern(H)) {
      solver.analyzePattern(H);
      analyzed = true;
      analyzed_outer.assign(H.outerIndexPtr(), H.outerIndexPtr() + H.cols() + 1);
      analyzed_inner.assign(H.innerIndexPtr(), H.innerIndexPtr() + H.nonZeros());
    }
    solver.factorize(H);
    if (solver.info() == Eigen::Success) return true;
    // A failed supernodal factorization leaves CHOLMOD's factor in a state whose later solves are
    // wrong even after a successful refactorization: analyze afresh next time.
    analyzed = false;
    return false;
  }
};

NewtonMinimizer::NewtonMinimizer() : impl_(std::make_unique<Impl>()) {}
NewtonMinimizer::~NewtonMinimizer() = default;
NewtonMinimizer::NewtonMinimizer(NewtonMinimizer&&) noexcept = default;
NewtonMinimizer& NewtonMinimizer::operator=(NewtonMinimizer&&) noexcept = default;

NewtonReport NewtonMinimizer::minimize(MinimizationObjective& objective, Eigen::VectorXd& y,
                                       const NewtonOptions& options) {
  NewtonReport report;
  Eigen::VectorXd gradient(y.size()), trial(y.size()), trial_gradient(y.size()), direction;
  objective.begin_iteration(y);
  double value = objective.value_and_gradient(y, gradient);
  report.objective_evaluations = 1;
  bool use_projection = false;
  for (report.iterations = 0; report.iterations < options.max_iterations; ++report.iterations) {
    if (report.iterations > 0 && objective.begin_iteration(y)) {
      value = objective.value_and_gradient(y, gradient);
      ++report.objective_evaluations;
    }
    report.gradient_norm = gradient.size() ? gradient.lpNorm<Eigen::Infinity>() : 0.0;
    if (report.gradient_norm <= options.gradient_tolerance) {
      report.converged = true;
      break;
    }
    // Newton direction. An indefinite Hessian (failed Cholesky) is replaced by its element-wise
    // PSD projection, a singular projection by a slightly shifted one. The projection is also used
    // after a step the quadratic model predicted badly (alpha far from 1): a nearly singular but
    // still positive definite Hessian (compressed thin parts) yields huge, useless Newton steps.
    bool ok = !use_projection && impl_->factorize(objective.hessian(y, false));
    if (!ok) {
      ++report.projected_hessians;
      Eigen::SparseMatrix<double> H = objective.hessian(y, true);
      ok = impl_->factorize(H);
      double shift = 1e-8 * std::max(1e-300, H.diagonal().cwiseAbs().maxCoeff());
      for (int attempt = 0; !ok && attempt < 12; ++attempt, shift *= 10) {
        Eigen::SparseMatrix<double> shifted = H;
        for (Eigen::Index k = 0; k < shifted.rows(); ++k) shifted.coeffRef(k, k) += shift;
        ok = impl_->factorize(shifted);
      }
    }
    // Downhill check. A direction solved exactly from a positive definite matrix always points
    // downhill, even at a wide angle to -g (ill-conditioned Hessians of thin or tiny elements),
    // so the angle test (kappa) only judges directions that did not come from such a solve.
    direction = ok ? Eigen::VectorXd(impl_->solver.solve(-gradient)) : Eigen::VectorXd(-gradient);
    const double slope = direction.dot(gradient);
    const bool exact_descent = ok && direction.allFinite() && slope < 0;
    if (!exact_descent && !(slope < -options.descent_kappa * direction.norm() * gradient.norm()))
      direction = -gradient;
    if (direction.norm() > options.max_step_norm)
      direction *= options.max_step_norm / direction.norm();

    LineFunction phi(objective, y, direction, trial, trial_gradient);
    const LinePoint start{0.0, value, gradient.dot(direction)};
    const double alpha_max = objective.largest_feasible_step(
        y, direction, std::max(1.0, options.max_step_norm / direction.norm()));
    const LinePoint accepted = strong_wolfe_search(phi, start, alpha_max, options);
    report.objective_evaluations += phi.evaluations;
    const double alpha = accepted.alpha;
    use_projection = alpha < 0.1;
    if (alpha <= 0) {
      // No measurable decrease of E: near the minimum, E's changes drown in round-off while the
      // gradient is still accurate. Take the full Newton step (as far as feasible) if it reduces
      // the gradient.
      trial = y + std::min(1.0, alpha_max) * direction;
      const double trial_value = objective.value_and_gradient(trial, trial_gradient);
      ++report.objective_evaluations;
      if (!(trial_gradient.lpNorm<Eigen::Infinity>() < report.gradient_norm)) break;
      y = trial;
      gradient = trial_gradient;
      value = trial_value;
      continue;
    }
    y += alpha * direction;
    if (trial == y) {
      gradient = trial_gradient;
      value = accepted.value;
    } else {
      value = objective.value_and_gradient(y, gradient);
      ++report.objective_evaluations;
    }
  }
  report.gradient_norm = gradient.size() ? gradient.lpNorm<Eigen::Infinity>() : 0.0;
  report.converged = report.gradient_norm <= options.gradient_tolerance;
  report.value = value;
  return report;
}

}  // namespace ramus
