// The accuracy experiment's measures (frequency from zero crossings, bend angle) and its summary.
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/precompute/reduction/lumping_experiment.h"

using namespace ramus;
using Catch::Matchers::Contains;

TEST_CASE("The zero-crossing frequency of a sampled sine is its frequency",
          "[precompute][reduction]") {
  const double h = 1e-3, f = 4;  // (8 whole periods: the mean is the offset)
  std::vector<double> s;
  for (int k = 0; k < 2000; ++k) s.push_back(0.2 + std::sin(2 * M_PI * f * h * k + 0.3));
  CHECK(zero_crossing_frequency(s, h) == Approx(f).epsilon(1e-3));
  // Less than a whole period: not measurable.
  s.resize(150);
  CHECK(std::isnan(zero_crossing_frequency(s, h)));
}

TEST_CASE("The bend angle is the angle the stem turned about its base", "[precompute][reduction]") {
  const Eigen::Vector3d base(1, 1, 0), rest_top(1, 1, 2);
  CHECK(bend_angle_degrees(base, rest_top, rest_top) == Approx(0).margin(1e-12));
  CHECK(bend_angle_degrees(base, rest_top, Eigen::Vector3d(2, 1, 1)) == Approx(45));
  CHECK(bend_angle_degrees(base, rest_top, Eigen::Vector3d(1, 3, 0)) == Approx(90));
}

TEST_CASE("The summary is JSON with null for a frequency not measured", "[precompute][reduction]") {
  LumpingExperimentSummary summary{"s.json", "m.h5", 0.01, 300, 1.5, 2, {}};
  summary.methods.push_back({"full FEM", 1.5, 1.0, 30, 0, 2.5});
  summary.methods.push_back({"L1 (interface)", std::nan(""), std::nan(""), 29, 0.01, 0.1});
  const std::string json = summary_json(summary);
  CHECK_THAT(json, Contains("\"frequency_hz\": null"));
  CHECK_THAT(json, Contains("\"frequency_hz\": 1.5"));
  CHECK_THAT(json, Contains("\"steps\": 300"));
  CHECK_THAT(json, Contains("\"name\": \"L1 (interface)\""));
}
