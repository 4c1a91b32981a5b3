#include "ramus/precompute/reduction/lumping_experiment.h"

#include <Eigen/Geometry>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace ramus {

namespace {

// A figure, or null where it is not a number.
nlohmann::json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace

std::string summary_json(const LumpingExperimentSummary& summary) {
  nlohmann::json json;
  json["spec"] = summary.spec;
  json["model"] = summary.model;
  json["time_step"] = summary.time_step;
  json["steps"] = summary.steps;
  json["first_eigenmode_hz"] = summary.first_eigenmode_hz;
  json["domains"] = summary.domains;
  json["methods"] = nlohmann::json::array();
  for (const LumpingMethodSummary& m : summary.methods)
    json["methods"].push_back({{"name", m.name},
                               {"frequency_hz", number_or_null(m.frequency_hz)},
                               {"frequency_ratio", number_or_null(m.frequency_ratio)},
                               {"max_bend_degrees", m.max_bend_degrees},
                               {"max_deviation_a_m", m.max_deviation_a_m},
                               {"ms_per_step", m.ms_per_step}});
  return json.dump(2);
}

double zero_crossing_frequency(const std::vector<double>& s, double h) {
  if (s.size() < 3) return std::numeric_limits<double>::quiet_NaN();
  double mean = 0;
  for (double v : s) mean += v / static_cast<double>(s.size());
  std::vector<double> crossings;
  for (std::size_t k = 1; k < s.size(); ++k) {
    const double p = s[k - 1] - mean, c = s[k] - mean;
    if ((p > 0) != (c > 0)) crossings.push_back(h * (static_cast<double>(k) - 1 + p / (p - c)));
  }
  // A whole period needs three crossings; fewer: not measurable.
  if (crossings.size() < 3) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(crossings.size() - 1) / (2.0 * (crossings.back() - crossings.front()));
}

double bend_angle_degrees(const Eigen::Vector3d& base, const Eigen::Vector3d& rest_top,
                          const Eigen::Vector3d& top) {
  const Eigen::Vector3d a = rest_top - base, b = top - base;
  return std::atan2(a.cross(b).norm(), a.dot(b)) * 180.0 / M_PI;
}

}  // namespace ramus
