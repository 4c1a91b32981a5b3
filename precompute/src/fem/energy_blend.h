// The blend of two ends of a step by their energy error (stabilizing-integrators paper §4.1,
// Eq. 21-24), shared by the full-space energy-tracking midpoint (Newton) and the local/global
// solver: (1 - α) a + α b, α by bisection on the continuous (in practice monotonic) e(α).
#pragma once

#include <Eigen/Core>
#include <cmath>

namespace ramus {

// Positions and velocities at the step's end, and the positions whose forces moved them there
// (x_½ for the midpoint, the end for backward Euler, the start for forward Euler; empty where
// unused), 3#V each.
struct Motion {
  Eigen::VectorXd x, v, forces_at;
};

inline Motion mix(const Motion& a, const Motion& b, double alpha) {
  return {(1 - alpha) * a.x + alpha * b.x, (1 - alpha) * a.v + alpha * b.v,
          (1 - alpha) * a.forces_at + alpha * b.forces_at};
}

// The blend of a (α = 0, energy error above the tolerance) and b (α = 1, at or below the target)
// whose energy error is within the tolerance, by bisection; the side at or below the target
// when it does not get there. An infinite energy (past a barrier) counts as too much. `alpha`
// receives the α taken.
template <typename EnergyError>
Motion bisect_blend(const Motion& a, const Motion& b, double tolerance, EnergyError&& error,
                    double* alpha_taken = nullptr) {
  double low = 0, high = 1;
  for (int iteration = 0; iteration < 50; ++iteration) {
    const double alpha = 0.5 * (low + high);
    Motion blended = mix(a, b, alpha);
    const double e = error(blended);
    if (std::abs(e) <= tolerance) {
      if (alpha_taken) *alpha_taken = alpha;
      return blended;
    }
    if (e > 0)
      low = alpha;
    else
      high = alpha;
  }
  if (alpha_taken) *alpha_taken = high;
  return mix(a, b, high);
}

}  // namespace ramus
