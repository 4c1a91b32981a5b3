// The integrator family on a linear reduced system with known solution: a one-domain model whose
// polynomial is K2 = diag(ω²) (no cubic or quartic terms), Rayleigh damping, constant gravity
// load. Each coordinate is then q̈ + (α + β ω²) q̇ + ω² q = f, solved in closed form here.
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"
#include "support/random_models.h"

using namespace ramus;

namespace {

// One domain with r = omega.size() coordinates (test::make_single_domain_model's r = 4).
std::shared_ptr<const Model> linear_model(const Eigen::Vector4d& omega) {
  ReducedModel data = test::make_single_domain_model(5);
  ReducedStvkPolynomial& p = data.parts[0].polynomial;
  const int r = p.r;
  REQUIRE(r == 4);
  p.quadratic.setZero(num_pairs(r));
  for (int i = 0; i < r; ++i) p.quadratic(pair_index(i, i, r)) = omega(i) * omega(i);
  p.cubic.setZero(num_pairs(r), r);
  p.quartic.setZero(num_pairs(r), num_pairs(r));
  return compile_model(data);
}

// Closed-form q(t), q̇(t) of q̈ + d q̇ + ω² q = f (underdamped: d < 2ω).
std::pair<double, double> damped_oscillator(double omega, double d, double f, double q0, double v0,
                                            double t) {
  const double rest = f / (omega * omega), zeta = d / 2;
  const double wd = std::sqrt(omega * omega - zeta * zeta);
  const double a = q0 - rest, b = (v0 + zeta * a) / wd;
  const double decay = std::exp(-zeta * t), c = std::cos(wd * t), s = std::sin(wd * t);
  const double q = rest + decay * (a * c + b * s);
  const double v = decay * (-zeta * (a * c + b * s) + (-a * wd * s + b * wd * c));
  return {q, v};
}

struct Run {
  Eigen::VectorXd q, qdot, exact_q, exact_qdot;
  double error() const {
    return std::max((q - exact_q).lpNorm<Eigen::Infinity>(),
                    (qdot - exact_qdot).lpNorm<Eigen::Infinity>());
  }
};

constexpr double kAlpha = 0.1, kBeta = 1e-3;
const Eigen::Vector3d kGravity(0, 0, -9.81);

// Runs `domain` from q0, v0 for `steps` steps of h on the linear model; the exact end state too.
Run run_linear(const std::shared_ptr<const Model>& model, const Eigen::Vector4d& omega,
               const DomainSettings& domain, double h, int steps) {
  RuntimeSettings settings;
  settings.time_step = h;
  settings.gravity = kGravity;
  settings.implicit_iterations = 50;
  settings.implicit_tolerance = 1e-14;
  settings.domains = {domain};
  Simulator sim(model, settings);
  const Eigen::Vector4d q0(0.03, -0.02, 0.01, 0.004), v0(-0.1, 0.2, 0.05, -0.03);
  sim.set_domain_state(0, {q0, v0, Eigen::VectorXd::Zero(4)});
  REQUIRE(sim.initialize() == StepStatus::kOk);
  for (int k = 0; k < steps; ++k) REQUIRE(sim.step() == StepStatus::kOk);
  Run run;
  run.q = sim.domain_state(0).q;
  run.qdot = sim.domain_state(0).qdot;
  run.exact_q.resize(4);
  run.exact_qdot.resize(4);
  const Eigen::VectorXd f = model->parts[0].gravity_basis * kGravity;
  for (int i = 0; i < 4; ++i) {
    const auto [q, v] = damped_oscillator(
        omega(i), domain.rayleigh_mass + domain.rayleigh_stiffness * omega(i) * omega(i), f(i),
        q0(i), v0(i), h * steps);
    run.exact_q(i) = q;
    run.exact_qdot(i) = v;
  }
  return run;
}

DomainSettings domain_with(Integrator integrator, int split_modes = 2) {
  DomainSettings domain;
  domain.integrator = integrator;
  domain.rayleigh_mass = kAlpha;
  domain.rayleigh_stiffness = kBeta;
  domain.split_modes = split_modes;
  return domain;
}

}  // namespace

TEST_CASE("ERE is exact on a linear damped reduced system, SIERE on its s lowest modes",
          "[runtime][integrators]") {
  // ω h from 0.04 to 2: the stiffest mode is far outside any explicit method's reach.
  const Eigen::Vector4d omega(2, 5, 20, 100);
  const auto model = linear_model(omega);
  const double h = 0.02;
  const int steps = 150;
  const Run ere =
      run_linear(model, omega, domain_with(Integrator::kExponentialRosenbrockEuler), h, steps);
  const double scale = ere.exact_q.cwiseAbs().maxCoeff() + ere.exact_qdot.cwiseAbs().maxCoeff();
  CHECK(ere.error() < 1e-11 * scale);

  for (int s : {1, 2, 3}) {
    const Run siere = run_linear(model, omega, domain_with(Integrator::kSiere, s), h, steps);
    // The s lowest coordinates (the lowest modes of diag(ω²)) exactly, the rest by SI.
    for (int i = 0; i < 4; ++i) {
      const double error = std::max(std::abs(siere.q(i) - siere.exact_q(i)),
                                    std::abs(siere.qdot(i) - siere.exact_qdot(i)));
      INFO("s = " << s << ", coordinate " << i << ": error " << error);
      if (i < s)
        CHECK(error < 1e-11 * scale);
      else if (i < 3)  // (mode 3 has decayed to its rest value under both)
        CHECK(error > 1e-6 * scale);
    }
  }
}

TEST_CASE("Order of accuracy of every integrator on the linear oscillator, by step halving",
          "[runtime][integrators]") {
  const Eigen::Vector4d omega(2, 4, 7, 11);
  const auto model = linear_model(omega);
  struct Expected {
    Integrator integrator;
    double order;
  };
  // SBDF2ERE and STR-SBDF2ERE combine the BDF2 history with an exponential increment taken
  // from the start of the step (survey Eq. 22, 26): first order in the split modes.
  const std::vector<Expected> expected = {
      {Integrator::kNewmark, 2},
      {Integrator::kBackwardEuler, 1},
      {Integrator::kSemiImplicitEuler, 1},
      {Integrator::kBdf2, 2},
      {Integrator::kSemiImplicitBdf2, 2},
      {Integrator::kTrBdf2, 2},
      {Integrator::kSemiImplicitTrBdf2, 2},
      {Integrator::kSdirk, 2},
      {Integrator::kSiere, 1},
      {Integrator::kSbdf2Ere, 1},
      {Integrator::kStrSbdf2Ere, 1},
      {Integrator::kImplicitMidpointBlend, 2},
  };
  for (const Expected& e : expected) {
    double errors[3];
    for (int level = 0; level < 3; ++level) {
      // First-order methods reach their asymptotic regime at smaller steps (BE's damping of the
      // ω = 11 mode is e^(-ω²hT/2)).
      const int steps = (e.order == 1 ? 640 : 40) << level;
      errors[level] =
          run_linear(model, omega, domain_with(e.integrator), 1.0 / steps, steps).error();
    }
    const double order_1 = std::log2(errors[0] / errors[1]);
    const double order_2 = std::log2(errors[1] / errors[2]);
    INFO(to_string(e.integrator) << ": errors " << errors[0] << ", " << errors[1] << ", "
                                 << errors[2] << "; orders " << order_1 << ", " << order_2);
    CHECK(order_2 == Approx(e.order).margin(0.2));
    CHECK(order_1 == Approx(e.order).margin(0.35));
  }
}

TEST_CASE("SIERE with s = 0 is SI and with s = r is ERE", "[runtime][integrators]") {
  const Eigen::Vector4d omega(2, 5, 20, 100);
  const auto model = linear_model(omega);
  const Run si = run_linear(model, omega, domain_with(Integrator::kSemiImplicitEuler), 0.02, 60);
  const Run s0 = run_linear(model, omega, domain_with(Integrator::kSiere, 0), 0.02, 60);
  const Run ere =
      run_linear(model, omega, domain_with(Integrator::kExponentialRosenbrockEuler), 0.02, 60);
  const Run s4 = run_linear(model, omega, domain_with(Integrator::kSiere, 4), 0.02, 60);
  CHECK((s0.q - si.q).norm() <= 1e-13 * si.q.norm());
  CHECK((s0.qdot - si.qdot).norm() <= 1e-13 * si.qdot.norm());
  CHECK((s4.q - ere.q).norm() <= 1e-13 * ere.q.norm());
  CHECK((s4.qdot - ere.qdot).norm() <= 1e-13 * ere.qdot.norm());
}

TEST_CASE(
    "SBDF2ERE (survey Eq. 22) amplifies an undamped split mode as its characteristic roots say",
    "[runtime][integrators]") {
  // The split modes follow u_1 = (4 u_0 - u_-1) / 3 + (2/3) h φ1(hJ) F(u_0); on an undamped mode
  // with θ = ω h its roots solve z² - (2/3) (1 + e^(iθ)) z + 1/3 = 0, one of modulus > 1 for every
  // 0 < θ < ~2.7: the exponential increment is taken from the step's start, as an explicit
  // method's, while the BDF2 history expects one from its end.
  const Eigen::Vector4d omega(2, 5, 20, 100);
  const auto model = linear_model(omega);
  const double h = 0.05, theta = omega(0) * h;
  const std::complex<double> e = std::polar(1.0, theta), a = -(2.0 / 3.0) * (1.0 + e);
  const std::complex<double> root = (-a + std::sqrt(a * a - 4.0 / 3.0)) / 2.0;
  DomainSettings domain;
  domain.integrator = Integrator::kSbdf2Ere;
  domain.split_modes = 1;
  RuntimeSettings settings;
  settings.time_step = h;
  settings.gravity.setZero();  // (free vibration)
  settings.domains = {domain};
  Simulator sim(model, settings);
  sim.set_domain_state(
      0, {Eigen::Vector4d(0.01, 0, 0, 0), Eigen::VectorXd::Zero(4), Eigen::VectorXd::Zero(4)});
  REQUIRE(sim.initialize() == StepStatus::kOk);
  const auto amplitude = [&] {
    const DomainState s = sim.domain_state(0);
    return std::hypot(s.q(0), s.qdot(0) / omega(0));
  };
  for (int k = 0; k < 100; ++k) REQUIRE(sim.step() == StepStatus::kOk);  // the small root dies
  const double start = amplitude();
  const int steps = 1000;
  for (int k = 0; k < steps; ++k) REQUIRE(sim.step() == StepStatus::kOk);
  const double growth = std::log(amplitude() / start) / steps;
  INFO("|z| = " << std::abs(root) << ", measured per-step growth e^" << growth);
  CHECK(std::abs(root) > 1.004);
  CHECK(growth == Approx(std::log(std::abs(root))).epsilon(0.02));
}
