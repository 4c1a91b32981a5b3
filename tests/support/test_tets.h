// A reference tet, its random / near-rest / inverted deformations, and a relative error: shared
// by the finite-difference tests of the element kernels (relative_error: finite_differences.h).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <random>
#include <string>

#include "ramus/precompute/fem/stvk_energy.h"
#include "support/finite_differences.h"

namespace ramus::test {

/// A well-shaped tet of ~0.1 m edges (3 by 4, columns = corners).
inline Matrix34d reference_tet() {
  Matrix34d X;
  X << 0, 0.1, 0.02, 0.01,  //
      0, 0.01, 0.09, 0.02,  //
      0, 0.0, 0.01, 0.11;
  return X;
}

/// Deformed corners: "random" (large), "near-rest" (1e-3 strain) or "inverted" (a corner flipped).
inline Matrix34d deformed_tet(const std::string& kind, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Matrix34d x = reference_tet();
  const double amplitude = kind == "near-rest" ? 1e-4 : 0.03;
  for (int i = 0; i < 12; ++i) x.data()[i] += amplitude * u(rng);
  if (kind == "inverted") x.col(3) = x.col(0) - 0.5 * (x.col(3) - x.col(0));
  return x;
}

}  // namespace ramus::test
