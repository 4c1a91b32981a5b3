#include "ramus/runtime/kernels/wind_field.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "vector_sine.h"

namespace ramus {

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

}  // namespace ramus
