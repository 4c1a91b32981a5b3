#include "ramus/precompute/full_space_simulator.h"

#include <cmath>

#include "ramus/error.h"

namespace ramus {

namespace {

// Static potential Phi(x) - f^T (x - X) over the free positions y.
class StaticObjective : public MinimizationObjective {
 public:
  StaticObjective(const StvkFemModel& model, const DofMap& dofs)
      : model_(model), dofs_(dofs), stiffness_(model.mesh().tets, dofs) {}

  void prepare(const Eigen::VectorXd& positions, const Eigen::VectorXd& forces) {
    x_ = positions;
    forces_free_ = dofs_.restrict_to_free(forces);
    rest_free_ = dofs_.restrict_to_free(model_.rest_positions());
  }
  const Eigen::VectorXd& positions() const { return x_; }

  double value(const Eigen::VectorXd& y) override {
    dofs_.scatter_free(y, x_);
    return model_.elastic_energy(x_) - forces_free_.dot(y - rest_free_);
  }
  double value_and_gradient(const Eigen::VectorXd& y, Eigen::VectorXd& gradient) override {
    const double energy = StaticObjective::value(y);
    full_gradient_.setZero(x_.size());
    model_.add_elastic_energy_gradient(x_, full_gradient_);
    gradient = dofs_.restrict_to_free(full_gradient_) - forces_free_;
    return energy;
  }
  const Eigen::SparseMatrix<double>& hessian(const Eigen::VectorXd& y, bool project) override {
    dofs_.scatter_free(y, x_);
    stiffness_.set_zero();
    model_.add_stiffness(x_, 1.0, project, stiffness_);
    return stiffness_.matrix();
  }

 protected:
  const StvkFemModel& model_;
  const DofMap& dofs_;
  TetMatrixAssembler stiffness_;
  Eigen::VectorXd x_, forces_free_, rest_free_, full_gradient_;
};

// Backward Euler: |y - y_hat|^2_M / (2h^2) + |y - y_n|^2_C / (2h) + Phi(x) - f^T y,
// with C = alpha M + beta D, D = PSD-projected stiffness at x^n (lagged damping).
class BackwardEulerObjective : public StaticObjective {
 public:
  BackwardEulerObjective(const StvkFemModel& model, const DofMap& dofs)
      : StaticObjective(model, dofs),
        mass_(model.mesh().tets, dofs),
        damping_(model.mesh().tets, dofs),
        hessian_(model.mesh().tets, dofs) {
    model.add_consistent_mass(1.0, mass_);
  }

  void prepare_step(const FullSpaceState& state, const Eigen::VectorXd& forces,
                    const FullSpaceOptions& options) {
    prepare(state.positions, forces);
    h_ = options.time_step;
    alpha_ = options.rayleigh_mass;
    beta_ = options.rayleigh_stiffness;
    y_n_ = dofs_.restrict_to_free(state.positions);
    y_hat_ = y_n_ + h_ * dofs_.restrict_to_free(state.velocities);
    damping_.set_zero();
    if (beta_ != 0) model_.add_stiffness(state.positions, 1.0, true, damping_);
    has_damping_ = alpha_ != 0 || beta_ != 0;
  }
  // Explicit predictor x^n + h v^n + h^2 M^-1 f(x^n) with the lumped mass (paper §3.1).
  Eigen::VectorXd explicit_guess(const FullSpaceState& state, const Eigen::VectorXd& forces) {
    Eigen::VectorXd elastic_gradient = Eigen::VectorXd::Zero(forces.size());
    model_.add_elastic_energy_gradient(state.positions, elastic_gradient);
    const Eigen::VectorXd total = forces - elastic_gradient;
    const Eigen::VectorXd masses = model_.lumped_vertex_masses();
    Eigen::VectorXd guess = y_hat_;
    for (int k = 0; k < dofs_.num_free_dofs(); ++k) {
      const int dof = dofs_.free_dofs()[static_cast<size_t>(k)];
      guess(k) += h_ * h_ * total(dof) / masses(dof / 3);
    }
    return guess;
  }

  double value(const Eigen::VectorXd& y) override {
    const Eigen::VectorXd dy = y - y_hat_;
    double energy = StaticObjective::value(y) + 0.5 / (h_ * h_) * dy.dot(mass_.matrix() * dy);
    if (has_damping_) {
      const Eigen::VectorXd dn = y - y_n_;
      energy += 0.5 / h_ * dn.dot(damping_times(dn));
    }
    return energy;
  }
  double value_and_gradient(const Eigen::VectorXd& y, Eigen::VectorXd& gradient) override {
    double energy = StaticObjective::value_and_gradient(y, gradient);
    const Eigen::VectorXd dy = y - y_hat_;
    const Eigen::VectorXd m_dy = mass_.matrix() * dy;
    gradient += m_dy / (h_ * h_);
    energy += 0.5 / (h_ * h_) * dy.dot(m_dy);
    if (has_damping_) {
      const Eigen::VectorXd c_dn = damping_times(y - y_n_);
      gradient += c_dn / h_;
      energy += 0.5 / h_ * (y - y_n_).dot(c_dn);
    }
    return energy;
  }
  const Eigen::SparseMatrix<double>& hessian(const Eigen::VectorXd& y, bool project) override {
    const Eigen::SparseMatrix<double>& K = StaticObjective::hessian(y, project);
    hessian_.set_zero();
    Eigen::SparseMatrix<double>& H = const_cast<Eigen::SparseMatrix<double>&>(hessian_.matrix());
    const double mass_scale = 1.0 / (h_ * h_) + alpha_ / h_, damping_scale = beta_ / h_;
    const auto n = static_cast<size_t>(H.nonZeros());
    for (size_t k = 0; k < n; ++k)
      H.valuePtr()[k] = K.valuePtr()[k] + mass_scale * mass_.matrix().valuePtr()[k] +
                        damping_scale * damping_.matrix().valuePtr()[k];
    return H;
  }

 private:
  Eigen::VectorXd damping_times(const Eigen::VectorXd& v) const {
    Eigen::VectorXd result = alpha_ * (mass_.matrix() * v);
    if (beta_ != 0) result += beta_ * (damping_.matrix() * v);
    return result;
  }
  TetMatrixAssembler mass_, damping_, hessian_;
  double h_ = 0, alpha_ = 0, beta_ = 0;
  bool has_damping_ = false;
  Eigen::VectorXd y_n_, y_hat_;
};

}  // namespace

struct FullSpaceSimulator::Objectives {
  Objectives(const StvkFemModel& model, const DofMap& dofs)
      : static_objective(model, dofs), backward_euler(model, dofs) {}
  StaticObjective static_objective;
  BackwardEulerObjective backward_euler;
};

FullSpaceSimulator::FullSpaceSimulator(const StvkFemModel& model, DofMap dofs,
                                       FullSpaceOptions options)
    : model_(model), dofs_(std::move(dofs)), options_(options), newton_(options.newton) {
  if (dofs_.num_vertices() != model.num_vertices())
    throw OptionError("FullSpaceSimulator: DOF map has " + std::to_string(dofs_.num_vertices()) +
                      " vertices, the model " + std::to_string(model.num_vertices()));
  if (!(options_.time_step > 0) || !std::isfinite(options_.time_step))
    throw OptionError("time step must be positive, got " + std::to_string(options_.time_step));
  newton_.gradient_tolerance = options_.force_tolerance;
  if (newton_.gradient_tolerance <= 0) {
    double stiffest = 0, volume = 0;
    for (const Material& m : model.materials()) stiffest = std::max(stiffest, m.youngs_modulus);
    for (const LinearTetRest& r : model.rest_data()) volume += r.volume;
    const double element_size = std::cbrt(volume / model.num_tets());
    newton_.gradient_tolerance = 1e-10 * stiffest * element_size * element_size;
  }
  objectives_ = std::make_unique<Objectives>(model_, dofs_);
}

FullSpaceSimulator::~FullSpaceSimulator() = default;

FullSpaceState FullSpaceSimulator::rest_state() const {
  return {model_.rest_positions(), Eigen::VectorXd::Zero(model_.rest_positions().size()), 0.0};
}

namespace {
Eigen::VectorXd total_forces(const StvkFemModel& model, const Eigen::Vector3d& gravity,
                             const Eigen::VectorXd& external) {
  Eigen::VectorXd forces = model.gravity_forces(gravity);
  if (external.size() == forces.size())
    forces += external;
  else if (external.size() != 0)
    throw OptionError("external forces have " + std::to_string(external.size()) +
                      " entries, expected 3 x #vertices = " + std::to_string(forces.size()));
  return forces;
}
}  // namespace

NewtonReport FullSpaceSimulator::step_backward_euler(FullSpaceState& state,
                                                     const Eigen::VectorXd& external_forces) {
  const Eigen::VectorXd forces = total_forces(model_, options_.gravity, external_forces);
  BackwardEulerObjective& objective = objectives_->backward_euler;
  objective.prepare_step(state, forces, options_);
  // Initial guess: the better of x^n + h v^n and the explicit predictor (paper §3.1).
  Eigen::VectorXd y = dofs_.restrict_to_free(state.positions) +
                      options_.time_step * dofs_.restrict_to_free(state.velocities);
  const Eigen::VectorXd predictor = objective.explicit_guess(state, forces);
  if (objective.value(predictor) < objective.value(y)) y = predictor;
  const NewtonReport report = minimizer_.minimize(objective, y, newton_);
  Eigen::VectorXd next = state.positions;
  dofs_.scatter_free(y, next);
  state.velocities = (next - state.positions) / options_.time_step;
  for (int v : dofs_.fixed_vertices()) state.velocities.segment<3>(3 * v).setZero();
  state.positions = std::move(next);
  state.time += options_.time_step;
  return report;
}

NewtonReport FullSpaceSimulator::solve_static(Eigen::VectorXd& positions,
                                              const Eigen::VectorXd& external_forces) {
  StaticObjective& objective = objectives_->static_objective;
  objective.prepare(positions, total_forces(model_, options_.gravity, external_forces));
  Eigen::VectorXd y = dofs_.restrict_to_free(positions);
  const NewtonReport report = minimizer_.minimize(objective, y, newton_);
  dofs_.scatter_free(y, positions);
  return report;
}

}  // namespace ramus
