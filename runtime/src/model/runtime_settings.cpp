#include "ramus/runtime/model/runtime_settings.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>

#include "vector_sine.h"

namespace ramus {

namespace {

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", x);
  return text;
}

}  // namespace

const char* to_string(InterfaceLumping lumping) {
  switch (lumping) {
    case InterfaceLumping::kInterface:
      return "L1";
    case InterfaceLumping::kCenterOfMass:
      return "L2";
    case InterfaceLumping::kRigidSubtree:
      return "L3";
  }
  return "unknown";
}

namespace {

struct IntegratorName {
  Integrator integrator;
  const char* name;
};

constexpr IntegratorName kIntegratorNames[] = {
    {Integrator::kNewmark, "newmark"},
    {Integrator::kBackwardEuler, "be"},
    {Integrator::kSemiImplicitEuler, "si"},
    {Integrator::kBdf2, "bdf2"},
    {Integrator::kSemiImplicitBdf2, "sbdf2"},
    {Integrator::kTrBdf2, "tr-bdf2"},
    {Integrator::kSemiImplicitTrBdf2, "str-bdf2"},
    {Integrator::kSdirk, "sdirk"},
    {Integrator::kExponentialRosenbrockEuler, "ere"},
    {Integrator::kSiere, "siere"},
    {Integrator::kSbdf2Ere, "sbdf2ere"},
    {Integrator::kStrSbdf2Ere, "str-sbdf2ere"},
    {Integrator::kImplicitMidpointBlend, "im-blend"},
};
static_assert(std::size(kIntegratorNames) == kNumIntegrators);

}  // namespace

const char* to_string(Integrator integrator) {
  for (const IntegratorName& entry : kIntegratorNames)
    if (entry.integrator == integrator) return entry.name;
  return "unknown";
}

bool uses_split_modes(Integrator integrator) {
  return integrator == Integrator::kSiere || integrator == Integrator::kSbdf2Ere ||
         integrator == Integrator::kStrSbdf2Ere;
}

std::string integrator_names() {
  std::string names;
  for (const IntegratorName& entry : kIntegratorNames) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

std::optional<InterfaceLumping> lumping_from_string(const std::string& name) {
  if (name == "L1" || name == "interface") return InterfaceLumping::kInterface;
  if (name == "L2" || name == "center_of_mass") return InterfaceLumping::kCenterOfMass;
  if (name == "L3" || name == "rigid_subtree") return InterfaceLumping::kRigidSubtree;
  return std::nullopt;
}

std::optional<Integrator> integrator_from_string(const std::string& name) {
  for (const IntegratorName& entry : kIntegratorNames)
    if (name == entry.name) return entry.integrator;
  return std::nullopt;
}

namespace {

// SplitMix64: a well-mixed 64-bit value from a seed and a counter (wind eddies).
std::uint64_t mix(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [-1, 1) from eddy k's j-th draw.
double draw(int seed, int k, int j) noexcept {
  const std::uint64_t bits =
      mix((static_cast<std::uint64_t>(seed) << 16) ^ static_cast<std::uint64_t>(k * 16 + j));
  return static_cast<double>(bits >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace

WindField::WindField(const WindSettings& wind) noexcept : wind_(wind) {
  // Four eddies: random directions of their wave vectors (|κ| = 2π / length) and velocities,
  // random phases.
  const double wavenumber = 6.283185307179586 / wind.turbulence_length;
  for (int k = 0; k < 4; ++k) {
    Eigen::Vector3d kappa(draw(wind.seed, k, 0), draw(wind.seed, k, 1), draw(wind.seed, k, 2));
    Eigen::Vector3d e(draw(wind.seed, k, 3), draw(wind.seed, k, 4), draw(wind.seed, k, 5));
    wave_vectors_.col(k) = wavenumber * kappa / std::max(kappa.norm(), 1e-3);
    directions_.col(k) = e / std::max(e.norm(), 1e-3);
    phases_(k) = 3.141592653589793 * draw(wind.seed, k, 6);
  }
}

WindField::Instant WindField::at(double t) const noexcept {
  // Gusts: three incommensurate sines of the gust period.
  const double phase = 6.283185307179586 * t / wind_.gust_period;
  const double gust = wind_.gust * (0.6 * std::sin(phase) + 0.3 * std::sin(2.3 * phase + 1.3) +
                                    0.1 * std::sin(5.1 * phase + 0.4));
  return {(1 + gust) * wind_.mean_velocity, wind_.mean_velocity * t};
}

Eigen::Vector3d WindField::velocity(const Eigen::Vector3d& x,
                                    const Instant& instant) const noexcept {
  Eigen::Vector3d w = instant.mean;
  if (wind_.turbulence > 0) {
    // The eddies sin(κ·(x - mean t) + φ) e, frozen in the air (Taylor's hypothesis).
    // (The four sines in one vector call: vector_sine.h.)
    const Eigen::Vector3d carried = x - instant.drift;
    const Eigen::Array4d sines =
        sine4((wave_vectors_.transpose() * carried).array() + phases_.array());
    w += directions_ * ((0.5 * wind_.turbulence) * sines).matrix();
  }
  return w;
}

Eigen::Vector3d WindField::velocity(const Eigen::Vector3d& x, double t) const noexcept {
  return velocity(x, at(t));
}

Eigen::Vector3d wind_velocity(const WindSettings& wind, const Eigen::Vector3d& x,
                              double t) noexcept {
  return WindField(wind).velocity(x, t);
}

std::string find_settings_problem(const RuntimeSettings& s, int num_nodes) {
  if (!(s.time_step > 0) || !std::isfinite(s.time_step))
    return "time_step = " + number(s.time_step) + " must be positive and finite";
  if (!s.gravity.allFinite()) return "gravity must be finite";
  if (!lumping_from_string(to_string(s.lumping)))
    return "lumping = " + std::to_string(static_cast<int>(s.lumping)) + " is not L1, L2 or L3";
  if (!(s.newmark_beta > 0) || !(s.newmark_beta <= 1) || !(s.newmark_gamma > 0) ||
      !(s.newmark_gamma <= 1))
    return "Newmark beta = " + number(s.newmark_beta) + " and gamma = " + number(s.newmark_gamma) +
           " must lie in (0, 1]";
  if (s.newton_iterations < 1 || s.newton_iterations > 100)
    return "newton_iterations = " + std::to_string(s.newton_iterations) +
           " must be between 1 and 100";
  if (!(s.newton_tolerance >= 0) || !std::isfinite(s.newton_tolerance))
    return "newton_tolerance = " + number(s.newton_tolerance) + " must not be negative";
  if (!(s.max_coordinate > 0)) return "max_coordinate must be positive";
  if (s.implicit_iterations < 1 || s.implicit_iterations > 1000)
    return "implicit_iterations = " + std::to_string(s.implicit_iterations) +
           " must be between 1 and 1000";
  if (!(s.implicit_tolerance >= 0) || !std::isfinite(s.implicit_tolerance))
    return "implicit_tolerance = " + number(s.implicit_tolerance) + " must not be negative";
  if (!(s.energy_tolerance > 0) || !(s.energy_tolerance <= 1))
    return "energy_tolerance = " + number(s.energy_tolerance) + " must lie in (0, 1]";
  const WindSettings& w = s.wind;
  if (!w.mean_velocity.allFinite() || w.mean_velocity.norm() > 1e3)
    return "wind mean velocity must be finite and at most 1000 m/s";
  if (!(w.gust >= 0 && w.gust <= 10))
    return "wind gust = " + number(w.gust) + " must lie in [0, 10]";
  if (!(w.gust_period > 0) || !std::isfinite(w.gust_period))
    return "wind gust_period = " + number(w.gust_period) + " must be positive";
  if (!(w.turbulence >= 0 && w.turbulence <= 1e3))
    return "wind turbulence = " + number(w.turbulence) + " must lie in [0, 1000] m/s";
  if (!(w.turbulence_length > 0) || !std::isfinite(w.turbulence_length))
    return "wind turbulence_length = " + number(w.turbulence_length) + " must be positive";
  if (w.seed < 0) return "wind seed = " + std::to_string(w.seed) + " must not be negative";
  if (!(w.drag >= 0) || !std::isfinite(w.drag))
    return "wind drag = " + number(w.drag) + " must not be negative";
  if (static_cast<int>(s.nodes.size()) != num_nodes)
    return std::to_string(s.nodes.size()) + " node settings given for a model of " +
           std::to_string(num_nodes) + " nodes";
  for (std::size_t i = 0; i < s.nodes.size(); ++i) {
    const NodeSettings& n = s.nodes[i];
    const std::string who = "nodes[" + std::to_string(i) + "].";
    if (!integrator_from_string(to_string(n.integrator)))
      return who + "integrator = " + std::to_string(static_cast<int>(n.integrator)) +
             " is not a known integrator";
    if (!(n.rayleigh_mass >= 0) || !std::isfinite(n.rayleigh_mass))
      return who + "rayleigh_mass = " + number(n.rayleigh_mass) + " must not be negative";
    if (!(n.rayleigh_stiffness >= 0) || !std::isfinite(n.rayleigh_stiffness))
      return who + "rayleigh_stiffness = " + number(n.rayleigh_stiffness) + " must not be negative";
    if (!(n.stiffness_scale > 0) || !std::isfinite(n.stiffness_scale))
      return who + "stiffness_scale = " + number(n.stiffness_scale) + " must be positive";
    if (n.split_modes < 0 || n.split_modes > kMaxSplitModes)
      return who + "split_modes = " + std::to_string(n.split_modes) + " must be between 0 and " +
             std::to_string(kMaxSplitModes);
    if (n.split_refresh_steps < 1)
      return who + "split_refresh_steps = " + std::to_string(n.split_refresh_steps) +
             " must be at least 1";
    if (!(n.split_drift_tolerance >= 0) || !std::isfinite(n.split_drift_tolerance))
      return who + "split_drift_tolerance = " + number(n.split_drift_tolerance) +
             " must not be negative";
    if (!(n.momentum_damping >= 0) || !(n.momentum_damping <= 1))
      return who + "momentum_damping = " + number(n.momentum_damping) + " must lie in [0, 1]";
  }
  return "";
}

}  // namespace ramus
