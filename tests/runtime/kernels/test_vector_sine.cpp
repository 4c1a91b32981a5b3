// The wind's vector sine (src/kernels/vector_sine.h) against std::sin: within 4 ulp of |sin x| + a
// rounding of 1 over arguments from 1e-8 to 1e4 rad, signs and lane order kept.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "kernels/vector_sine.h"

using namespace ramus;

TEST_CASE("sine4 equals std::sin to a few ulp in every lane", "[runtime][kernels]") {
  constexpr double kUlp = std::numeric_limits<double>::epsilon();
  double worst = 0;
  for (int k = 0; k < 4000; ++k) {
    // Log-spaced magnitudes, both signs, four different arguments per call.
    const double base = 1e-8 * std::pow(1e12, k / 3999.0);
    const Eigen::Array4d x(base, -1.37 * base, 0.5 * base + 3.0, -(base + 1e3));
    const Eigen::Array4d s = sine4(x);
    for (int lane = 0; lane < 4; ++lane) {
      const double expected = std::sin(x(lane));
      const double error = std::abs(s(lane) - expected) / (std::abs(expected) + 1e-300);
      REQUIRE(std::abs(s(lane) - expected) <= 4 * kUlp * std::abs(expected) + 1e-300);
      worst = std::max(worst, error);
    }
  }
  CHECK(worst <= 4 * kUlp);
}
