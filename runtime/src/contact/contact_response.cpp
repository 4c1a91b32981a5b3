#include "ramus/runtime/contact/contact_response.h"

#include <cmath>
#include <limits>

namespace ramus {

ScalarDerivatives log_barrier(double distance, double delta) {
  ScalarDerivatives b;
  if (distance >= delta) return b;
  if (!(distance > 0)) {
    b.value = std::numeric_limits<double>::infinity();
    b.first = -std::numeric_limits<double>::infinity();
    b.second = std::numeric_limits<double>::infinity();
    return b;
  }
  // b = -(d - δ)² ln(d/δ); b' = -2 (d - δ) ln(d/δ) - (d - δ)²/d;
  // b'' = -2 ln(d/δ) - 4 (d - δ)/d + (d - δ)²/d².
  const double gap = distance - delta, log_ratio = std::log(distance / delta);
  b.value = -gap * gap * log_ratio;
  b.first = -2 * gap * log_ratio - gap * gap / distance;
  b.second = -2 * log_ratio - 4 * gap / distance + gap * gap / (distance * distance);
  return b;
}

ScalarDerivatives continued_log_barrier(double distance, double delta) {
  const double floor = kBarrierFloor * delta;
  if (distance >= floor) return log_barrier(distance, delta);
  const ScalarDerivatives at = log_barrier(floor, delta);
  const double d = distance - floor;
  return {at.value + at.first * d + 0.5 * at.second * d * d, at.first + at.second * d, at.second};
}

double barrier_allowance(double distance, double delta, double limit) {
  return distance < -limit ? kBarrierFloor * delta - distance : 0.0;
}

ScalarDerivatives cubic_penalty(double phi, double stiffness) {
  ScalarDerivatives p;
  if (phi >= 0) return p;
  p.value = -stiffness * phi * phi * phi;
  p.first = -3 * stiffness * phi * phi;
  p.second = -6 * stiffness * phi;
  return p;
}

FrictionSmoothing friction_smoothing(double speed, double epsilon) {
  FrictionSmoothing s;
  if (speed >= epsilon) {
    s.integral = speed - epsilon / 3;
    s.value = 1;
    s.slope = 0;
    s.value_over_y = 1 / speed;
    return s;
  }
  const double y = speed, e = epsilon;
  s.integral = y * y / e - y * y * y / (3 * e * e);
  s.value = 2 * y / e - y * y / (e * e);
  s.slope = 2 / e - 2 * y / (e * e);
  s.value_over_y = 2 / e - y / (e * e);
  return s;
}

}  // namespace ramus
