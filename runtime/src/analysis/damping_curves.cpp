#include "ramus/runtime/analysis/damping_curves.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "ramus/error.h"
#include "ramus/runtime/dynamics/step.h"

namespace ramus {

std::shared_ptr<const Model> test_equation_model() {
  // One regular-ish tet of volume 1/6 m³ and density 6 kg/m³ (mass 1 kg), anchored at three
  // corners; the basis moves the fourth along z, mass-normalized.
  ReducedPart d;
  d.name = "test_equation";
  d.rest_positions.resize(4, 3);
  d.rest_positions << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  d.tets.resize(1, 4);
  d.tets << 0, 1, 2, 3;
  d.surface_triangles.resize(4, 3);
  d.surface_triangles << 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3;
  d.youngs_modulus = Eigen::VectorXd::Constant(1, 1e3);
  d.poisson_ratio = Eigen::VectorXd::Constant(1, 0.3);
  d.density = Eigen::VectorXd::Constant(1, 6.0);
  d.fixed_vertices.resize(3);
  d.fixed_vertices << 0, 1, 2;
  d.mass = 1;
  // Lumped share of the free vertex: a quarter of the mass; U_z = 2 makes Uᵀ M U = 1.
  d.basis = Eigen::MatrixXd::Zero(12, 1);
  d.basis(11, 0) = 2;
  d.basis_eigenvalues = Eigen::VectorXd::Ones(1);
  d.linear_mode_eigenvalues = Eigen::VectorXd::Ones(1);
  d.gravity_basis = Eigen::MatrixXd::Zero(1, 3);
  d.polynomial.r = 1;
  d.polynomial.quadratic = Eigen::VectorXd::Ones(1);  // ω² = 1
  d.polynomial.cubic = Eigen::MatrixXd::Zero(1, 1);
  d.polynomial.quartic = Eigen::MatrixXd::Zero(1, 1);
  const ReducedModel data = single_domain_model(d);
  // A linear oscillator, not an object: growth (SBDF2ERE's) is what is measured, not divergence.
  auto model = std::make_shared<Model>(*compile_model(data));
  model->parts.front().divergence_norm = std::numeric_limits<double>::infinity();
  return model;
}

bool is_two_step(Integrator integrator) {
  return integrator == Integrator::kBdf2 || integrator == Integrator::kSemiImplicitBdf2 ||
         integrator == Integrator::kSbdf2Ere;
}

namespace {

// A state of the test-equation model stepped by `integrator` at h = ω h (ω = 1).
struct TestEquation {
  TestEquation(Integrator integrator, double omega_h)
      : model(test_equation_model()), state(make_state(*model)), workspace(*model) {
    if (!(omega_h > 0) || !std::isfinite(omega_h))
      throw OptionError("damping curves: omega h = " + std::to_string(omega_h) +
                        " must be positive");
    // ω h from h at ω = 1 up to the time step's bound of 1 s, beyond it from ω = sqrt(scale) at
    // h = 1 s, velocities scaled by ω in and out (the curves depend on the product only).
    state.settings.time_step = std::min(omega_h, 1.0);
    omega = std::max(omega_h, 1.0);
    state.settings.domains[0].stiffness_scale = omega * omega;
    state.settings.gravity.setZero();
    state.settings.implicit_tolerance = 1e-15;
    state.settings.implicit_iterations = 100;
    state.settings.max_coordinate = 1e300;  // amplifying methods grow: let them
    state.settings.domains[0].integrator = integrator;
    state.settings.domains[0].split_modes = 1;
    prepare_integrator_memory(*model, state);
  }
  // Sets (q, q̇) and, for two-step methods, the step before; then one step.
  Eigen::Vector4d step_from(const Eigen::Vector4d& u, bool two_step) {
    state.q(0) = u(0);
    state.qdot(0) = omega * u(1);
    state.qddot(0) = -omega * omega * u(0);
    if (initialize(*model, state, workspace, true) != StepStatus::kOk)
      throw OptionError("damping curves: the test equation did not initialize");
    if (two_step) {
      state.q_history(0, 0) = u(2);
      state.qdot_history(0, 0) = omega * u(3);
      state.history_size = 1;
    }
    const StepStatus status = ramus::step(*model, state, workspace);
    if (status != StepStatus::kOk)
      throw OptionError(std::string("damping curves: ") +
                        to_string(state.settings.domains[0].integrator) +
                        " failed on the test equation: " + to_string(status));
    return {state.q(0), state.qdot(0) / omega, u(0), u(1)};
  }
  double omega = 1;  ///< rad/s: the test equation's frequency
  std::shared_ptr<const Model> model;
  State state;
  Workspace workspace;
};

}  // namespace

Eigen::MatrixXd amplification_matrix(Integrator integrator, double omega_h) {
  TestEquation equation(integrator, omega_h);
  const bool two_step = is_two_step(integrator);
  const int n = two_step ? 4 : 2;
  Eigen::MatrixXd t(n, n);
  for (int j = 0; j < n; ++j)
    t.col(j) = equation.step_from(Eigen::Vector4d::Unit(j), two_step).head(n);
  return t;
}

double numerical_damping(Integrator integrator, double omega_h) {
  const Eigen::MatrixXd t = amplification_matrix(integrator, omega_h);
  const double radius = t.eigenvalues().cwiseAbs().maxCoeff();
  return -2.0 * std::log(radius) / omega_h;
}

double simulated_damping(Integrator integrator, double omega_h, int steps) {
  // The runtime stepping on its own (its history, its first step, its caches), from q = 1.
  TestEquation equation(integrator, omega_h);
  equation.state.q(0) = 1;
  equation.state.qdot(0) = 0;
  if (initialize(*equation.model, equation.state, equation.workspace, true) != StepStatus::kOk)
    throw OptionError("damping curves: the test equation did not initialize");
  // Least-squares slope (through the first point) of log A over the last half of the steps.
  double start = 0, moment = 0, weight = 0;
  for (int k = 1; k <= steps; ++k) {
    const StepStatus status = ramus::step(*equation.model, equation.state, equation.workspace);
    if (status != StepStatus::kOk)
      throw OptionError(std::string("damping curves: ") + to_string(integrator) +
                        " failed on the test equation: " + to_string(status));
    const double log_amplitude =
        std::log(std::hypot(equation.state.q(0), equation.state.qdot(0) / equation.omega));
    if (k == steps / 2) start = log_amplitude;
    if (k > steps / 2) {
      const double i = k - steps / 2;
      moment += i * (log_amplitude - start);
      weight += i * i;
    }
  }
  return -2.0 * (moment / weight) / omega_h;
}

}  // namespace ramus
