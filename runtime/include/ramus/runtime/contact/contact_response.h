// The scalar responses of contact, shared by the runtime's contact and the full-space
// reference: the survey's compactly supported log barrier (Eq. 28), the optimization paper's cubic
// penalty (§5.2) and the smoothing of the survey's Coulomb friction (Eq. 32c).
#pragma once

namespace ramus {

/// A scalar function's value and first two derivatives at one argument.
struct ScalarDerivatives {
  double value = 0, first = 0, second = 0;
};

/// b(d) = -(d - delta)² ln(d / delta) for 0 < d < delta, 0 for d >= delta (survey Eq. 28; C²
/// at delta); +inf for d <= 0. delta in metres, b in m².
ScalarDerivatives log_barrier(double distance, double delta);

/// Where continued_log_barrier leaves the barrier for its quadratic continuation (of delta).
constexpr double kBarrierFloor = 0.1;

/// The log barrier above kBarrierFloor delta and its second-order Taylor expansion about that
/// point below it: C² and convex, finite at and inside the surface (the runtime's contact: a
/// semi-implicit step takes one linear solve and cannot back off from a pole).
ScalarDerivatives continued_log_barrier(double distance, double delta);

/// The depth (m) the continued barrier forgives a sample that starts a step at `distance`, deeper
/// than `limit` (m) inside the surface: all of it down to the barrier's floor (kBarrierFloor
/// delta); 0 above -limit. The barrier is evaluated at distance + allowance, so a sample the model
/// could not keep out (a part that cannot yield to a kinematic collider) is pushed out by the
/// barrier's force at its floor, not by the energy its depth stored, and never deeper.
double barrier_allowance(double distance, double delta, double limit);

/// k |phi|³ for phi < 0, 0 otherwise (optimization paper §5.2, which writes k phi³ and means
/// the positive energy); k in J/m³.
ScalarDerivatives cubic_penalty(double phi, double stiffness);

/// s(y; eps) = 2y/eps - y²/eps² below eps, 1 above (Eq. 32c, C¹), and its integral F (F(0) = 0),
/// with s' and s/y (finite at 0): the pieces of the friction potential and its Hessian.
struct FrictionSmoothing {
  double integral = 0;      ///< F(y), m/s
  double value = 0;         ///< s(y)
  double slope = 0;         ///< s'(y), s/m
  double value_over_y = 0;  ///< s(y)/y, s/m (2/eps at y = 0)
};
FrictionSmoothing friction_smoothing(double speed, double epsilon);

}  // namespace ramus
