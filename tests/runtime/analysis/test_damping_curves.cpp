// Damping curves (survey §3.2): each integrator's amplification matrix on q̈ + ω² q = 0 through
// the runtime's own step, against closed forms and against simulated decays.
#include <Eigen/Eigenvalues>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>

#include "ramus/error.h"
#include "ramus/runtime/analysis/damping_curves.h"

using namespace ramus;

TEST_CASE("Backward Euler's damping curve is ln(1 + x²) / x", "[runtime][analysis]") {
  // T = (I - h A)⁻¹ with A = [0 1; -ω² 0]: eigenvalues 1 / (1 ∓ i ω h), modulus (1 + x²)^(-1/2).
  for (double x : {0.01, 0.1, 0.5, 1.0, 3.0, 10.0, 100.0}) {
    const double expected = std::log1p(x * x) / x;
    CHECK(numerical_damping(Integrator::kBackwardEuler, x) == Approx(expected).epsilon(1e-10));
    // SI is BE on a linear system.
    CHECK(numerical_damping(Integrator::kSemiImplicitEuler, x) == Approx(expected).epsilon(1e-10));
  }
  // The matrix itself: (I - h A)⁻¹ = [1 h; -h 1] / (1 + h²).
  const Eigen::MatrixXd t = amplification_matrix(Integrator::kBackwardEuler, 0.5);
  Eigen::Matrix2d expected;
  expected << 1, 0.5, -0.5, 1;
  CHECK((t - expected / 1.25).norm() < 1e-12);
}

TEST_CASE("Conservative methods have a zero damping curve", "[runtime][analysis]") {
  // The trapezoidal rule (Newmark 1/4, 1/2), implicit midpoint (im-blend never blends on a linear
  // system), and the exact exponential of ERE / SIERE with every mode split.
  for (Integrator m : {Integrator::kNewmark, Integrator::kImplicitMidpointBlend,
                       Integrator::kExponentialRosenbrockEuler, Integrator::kSiere})
    for (double x : {0.01, 0.3, 1.0, 5.0, 50.0}) {
      INFO(to_string(m) << " at omega h " << x);
      CHECK(std::abs(numerical_damping(m, x)) < 1e-9);
    }
}

TEST_CASE("DIRK and BDF2 curves match their simulated decay and Fig. 3's shape",
          "[runtime][analysis]") {
  for (Integrator m :
       {Integrator::kBdf2, Integrator::kSemiImplicitBdf2, Integrator::kTrBdf2,
        Integrator::kSemiImplicitTrBdf2, Integrator::kSdirk, Integrator::kBackwardEuler})
    for (double x : {0.05, 0.3, 1.0, 3.0}) {
      const double d = numerical_damping(m, x);
      const int steps = static_cast<int>(std::min(400.0, 200.0 / (d * x / 2)));
      INFO(to_string(m) << " at omega h " << x << ": T gives " << d);
      CHECK(simulated_damping(m, x, steps) == Approx(d).epsilon(1e-4));
    }
  // Fig. 3: the two DIRK methods close to each other, TR-BDF2 slightly less damped, BDF2 damping
  // much more around ω h = 1; all vanish as ω h → 0 (second order: d/ω = O((ω h)³)).
  const double tr = numerical_damping(Integrator::kTrBdf2, 1.0);
  const double sdirk = numerical_damping(Integrator::kSdirk, 1.0);
  const double bdf2 = numerical_damping(Integrator::kBdf2, 1.0);
  CHECK(tr < sdirk);
  CHECK(sdirk < 1.2 * tr);
  CHECK(bdf2 > 10 * sdirk);
  CHECK(numerical_damping(Integrator::kTrBdf2, 0.01) < 1e-8);
  CHECK(numerical_damping(Integrator::kBackwardEuler, 0.01) == Approx(0.01).epsilon(1e-3));
}

TEST_CASE("SBDF2ERE's damping curve is negative where its characteristic root exceeds 1",
          "[runtime][analysis]") {
  for (double x : {0.1, 0.5, 1.0}) {
    const std::complex<double> a = -(2.0 / 3.0) * (1.0 + std::polar(1.0, x));
    const std::complex<double> root = (-a + std::sqrt(a * a - 4.0 / 3.0)) / 2.0;
    CHECK(numerical_damping(Integrator::kSbdf2Ere, x) ==
          Approx(-2 * std::log(std::abs(root)) / x).epsilon(1e-9));
  }
  CHECK(amplification_matrix(Integrator::kSbdf2Ere, 0.5).rows() == 4);
  CHECK_THROWS_AS(amplification_matrix(Integrator::kBdf2, 0.0), OptionError);
}
