// The substructuring paper's accuracy experiment (Fig. 7), its measures and its summary: the
// full FEM against L1, L2 and L3 lumping from a velocity along the first eigenmode
// (`ramus validate` runs it).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace ramus {

/// One method's figures; a NaN frequency is not measurable (fewer than three zero crossings).
struct LumpingMethodSummary {
  std::string name;              ///< "full FEM", "L1 (interface)", ...
  double frequency_hz = 0;       ///< lowest natural frequency seen, Hz
  double frequency_ratio = 0;    ///< over the full FEM's
  double max_bend_degrees = 0;   ///< the stem's largest bend, degrees
  double max_deviation_a_m = 0;  ///< largest distance of vertex A from the full FEM's, m
  double ms_per_step = 0;        ///< cost of a step, ms
};

/// The experiment's numbers as `ramus validate --summary` writes them.
struct LumpingExperimentSummary {
  std::string spec, model;  ///< the files it ran
  double time_step = 0;     ///< s
  int steps = 0;
  double first_eigenmode_hz = 0;
  int domains = 0;
  std::vector<LumpingMethodSummary> methods;
};

/// The summary as JSON, indented by 2 (a NaN figure is null).
std::string summary_json(const LumpingExperimentSummary& summary);

/// Lowest frequency (Hz) of the samples s (spaced h seconds) from the zero crossings of
/// s(t) - mean(s) over whole half-periods; NaN with fewer than three crossings.
double zero_crossing_frequency(const std::vector<double>& s, double h);

/// The angle (degrees) between rest_top - base and top - base.
double bend_angle_degrees(const Eigen::Vector3d& base, const Eigen::Vector3d& rest_top,
                          const Eigen::Vector3d& top);

}  // namespace ramus
