#include "ramus/precompute/fem/full_space_simulator.h"

#include <Eigen/CholmodSupport>
#include <array>
#include <cmath>
#include <limits>

#include "constrained_objective.h"
#include "ramus/error.h"
#include "ramus/precompute/contact/step_contact.h"

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

  // Contact with the colliders (nullptr or empty: none), in the energy from now on.
  void set_contact(const StepContact* contact) {
    contact_ = contact != nullptr && !contact->empty() ? contact : nullptr;
  }

  double value(const Eigen::VectorXd& y) override {
    dofs_.scatter_free(y, x_);
    double energy = model_.elastic_energy(x_) - forces_free_.dot(y - rest_free_);
    if (contact_ != nullptr) energy += contact_->value(x_);
    return energy;
  }
  double value_and_gradient(const Eigen::VectorXd& y, Eigen::VectorXd& gradient) override {
    dofs_.scatter_free(y, x_);
    double energy = model_.elastic_energy(x_) - forces_free_.dot(y - rest_free_);
    full_gradient_.setZero(x_.size());
    model_.add_elastic_energy_gradient(x_, full_gradient_);
    if (contact_ != nullptr) energy += contact_->add_gradient(x_, full_gradient_);
    gradient = dofs_.restrict_to_free(full_gradient_) - forces_free_;
    return energy;
  }
  const Eigen::SparseMatrix<double>& hessian(const Eigen::VectorXd& y, bool project) override {
    return with_pair_blocks(tet_pattern_hessian(y, project), project);
  }
  double largest_feasible_step(const Eigen::VectorXd& y, const Eigen::VectorXd& direction,
                               double alpha_max) override {
    if (contact_ == nullptr) return alpha_max;
    dofs_.scatter_free(y, x_);
    full_direction_.setZero(x_.size());
    dofs_.scatter_free(direction, full_direction_);
    return contact_->largest_feasible_step(x_, full_direction_, alpha_max);
  }

 protected:
  // The elastic and per-vertex contact Hessian at y, on the tets' sparsity pattern.
  const Eigen::SparseMatrix<double>& tet_pattern_hessian(const Eigen::VectorXd& y, bool project) {
    dofs_.scatter_free(y, x_);
    stiffness_.set_zero();
    model_.add_stiffness(x_, 1.0, project, stiffness_);
    if (contact_ != nullptr)
      contact_->add_hessian_blocks(x_, project, [&](int v, const Eigen::Matrix3d& block) {
        stiffness_.add_vertex_block(v, block);
      });
    return stiffness_.matrix();
  }
  // `tet_matrix` plus the self-contacts' 12 by 12 blocks at x_ over the free DOFs (they couple
  // vertices no tet couples, so the pattern changes with the contacts); `tet_matrix` without any.
  const Eigen::SparseMatrix<double>& with_pair_blocks(const Eigen::SparseMatrix<double>& tet_matrix,
                                                      bool project) {
    if (contact_ == nullptr || !contact_->self_collision().enabled()) return tet_matrix;
    pair_entries_.clear();
    contact_->add_pair_blocks(
        x_, project,
        [&](const std::array<int, 4>& nodes, const Eigen::Matrix<double, 12, 12>& block) {
          for (int a = 0; a < 12; ++a)
            for (int b = 0; b < 12; ++b) {
              const int row = dofs_.free_index(3 * nodes[static_cast<std::size_t>(a / 3)] + a % 3);
              const int col = dofs_.free_index(3 * nodes[static_cast<std::size_t>(b / 3)] + b % 3);
              if (row >= 0 && col >= 0) pair_entries_.emplace_back(row, col, block(a, b));
            }
        });
    if (pair_entries_.empty()) return tet_matrix;
    pairs_.resize(tet_matrix.rows(), tet_matrix.cols());
    pairs_.setFromTriplets(pair_entries_.begin(), pair_entries_.end());
    combined_ = tet_matrix + pairs_;
    return combined_;
  }

  const StvkFemModel& model_;
  const DofMap& dofs_;
  TetMatrixAssembler stiffness_;
  std::vector<Eigen::Triplet<double>> pair_entries_;
  Eigen::SparseMatrix<double> pairs_, combined_;
  Eigen::VectorXd x_, forces_free_, rest_free_, full_gradient_, full_direction_;
  const StepContact* contact_ = nullptr;
};

// One implicit step (backward Euler or Newmark) as a minimization over the new positions y:
//   E(y) = c_m |y - y_hat|^2_M / 2 + Phi(x) - f.y + c_d (y - y_hat)ᵀ C (y - y_hat) / 2
//          + v_tildeᵀ C (y - y_hat),
// whose gradient is M a + C v + f_el - f with a = c_m (y - y_hat), v = v_tilde + (c_d / c_m) a.
// Backward Euler: y_hat = y_n + h v_n, v_tilde = v_n, c_m = 1/h^2, c_d = 1/h.
// Newmark: y_hat = y_n + h v_n + h^2 (1/2 - beta) a_n, v_tilde = v_n + h (1 - gamma) a_n,
// c_m = 1/(h^2 beta), c_d = gamma/(h beta). C = alpha M + beta_K D, D = PSD stiffness at x_n.
class ImplicitStepObjective : public StaticObjective {
 public:
  ImplicitStepObjective(const StvkFemModel& model, const DofMap& dofs)
      : StaticObjective(model, dofs),
        mass_(model.mesh().tets, dofs),
        damping_(model.mesh().tets, dofs),
        hessian_(model.mesh().tets, dofs) {
    model.add_consistent_mass(1.0, mass_);
  }

  void prepare_step(const FullSpaceState& state, const Eigen::VectorXd& forces,
                    const FullSpaceOptions& options, const Eigen::VectorXd& y_hat,
                    const Eigen::VectorXd& v_tilde, double mass_coefficient,
                    double damping_coefficient) {
    prepare(state.positions, forces);
    alpha_ = options.rayleigh_mass;
    beta_ = options.rayleigh_stiffness;
    c_m_ = mass_coefficient;
    c_d_ = damping_coefficient;
    y_hat_ = y_hat;
    v_tilde_ = v_tilde;
    damping_.set_zero();
    if (beta_ != 0) model_.add_stiffness(state.positions, 1.0, true, damping_);
    has_damping_ = alpha_ != 0 || beta_ != 0;
  }
  const Eigen::SparseMatrix<double>& mass() const { return mass_.matrix(); }
  Eigen::VectorXd damping_times(const Eigen::VectorXd& v) const {
    Eigen::VectorXd result = alpha_ * (mass_.matrix() * v);
    if (beta_ != 0) result += beta_ * (damping_.matrix() * v);
    return result;
  }

  double value(const Eigen::VectorXd& y) override {
    const Eigen::VectorXd dy = y - y_hat_;
    double energy = StaticObjective::value(y) + 0.5 * c_m_ * dy.dot(mass_.matrix() * dy);
    if (has_damping_) energy += dy.dot(damping_times(0.5 * c_d_ * dy + v_tilde_));
    return energy;
  }
  double value_and_gradient(const Eigen::VectorXd& y, Eigen::VectorXd& gradient) override {
    double energy = StaticObjective::value_and_gradient(y, gradient);
    const Eigen::VectorXd dy = y - y_hat_;
    const Eigen::VectorXd m_dy = mass_.matrix() * dy;
    gradient += c_m_ * m_dy;
    energy += 0.5 * c_m_ * dy.dot(m_dy);
    if (has_damping_) {
      const Eigen::VectorXd c_dy = damping_times(dy);
      const Eigen::VectorXd c_v = damping_times(v_tilde_);
      gradient += c_d_ * c_dy + c_v;
      energy += 0.5 * c_d_ * dy.dot(c_dy) + dy.dot(c_v);
    }
    return energy;
  }
  const Eigen::SparseMatrix<double>& hessian(const Eigen::VectorXd& y, bool project) override {
    const Eigen::SparseMatrix<double>& K = tet_pattern_hessian(y, project);
    hessian_.set_zero();
    Eigen::SparseMatrix<double>& H = const_cast<Eigen::SparseMatrix<double>&>(hessian_.matrix());
    const double mass_scale = c_m_ + c_d_ * alpha_, damping_scale = c_d_ * beta_;
    const auto n = static_cast<size_t>(H.nonZeros());
    for (size_t k = 0; k < n; ++k)
      H.valuePtr()[k] = K.valuePtr()[k] + mass_scale * mass_.matrix().valuePtr()[k] +
                        damping_scale * damping_.matrix().valuePtr()[k];
    return with_pair_blocks(H, project);
  }

 private:
  TetMatrixAssembler mass_, damping_, hessian_;
  double alpha_ = 0, beta_ = 0, c_m_ = 0, c_d_ = 0;
  bool has_damping_ = false;
  Eigen::VectorXd y_hat_, v_tilde_;
};

}  // namespace

struct FullSpaceSimulator::Objectives {
  Objectives(const StvkFemModel& model, const DofMap& dofs)
      : static_objective(model, dofs), implicit_step(model, dofs) {}
  StaticObjective static_objective;
  ImplicitStepObjective implicit_step;
  // The free DOFs' consistent mass, factored on first use.
  std::unique_ptr<Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>, Eigen::Lower>> mass;
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
  contact_ = StepContact(options_.contact, model.lumped_vertex_masses(), model.mesh().tets);
  objectives_->implicit_step.set_contact(&contact_);
  objectives_->static_objective.set_contact(&contact_);
}

void FullSpaceSimulator::require_smoothed_friction(const char* method) const {
  // Friction after the solve changes v_{n+1} alone; BDF2 and Newmark carry v (and a) into the
  // next step's inertia, which then brakes several times over (measured: a block sliding at
  // 0.36 m/s² instead of 2.30 under BDF2). It is the optimization paper's, for backward Euler.
  if (options_.contact.self_collision.enabled && options_.contact.self_collision.friction > 0)
    throw OptionError(std::string(method) +
                      ": self-collision friction acts after the solve, which works with "
                      "backward Euler only");
  if (options_.contact.friction_model != FrictionModel::kAfterSolve) return;
  for (const ColliderContact& c : options_.contact.colliders)
    if (c.friction > 0)
      throw OptionError(std::string(method) +
                        ": friction after the solve works with backward Euler only; use the "
                        "smoothed friction (contact.friction_model \"smoothed\")");
}

Eigen::VectorXd FullSpaceSimulator::best_start(MinimizationObjective& objective,
                                               const Eigen::VectorXd& first,
                                               const Eigen::VectorXd& second,
                                               const FullSpaceState& state) const {
  // A guess counts when the straight path from x_n to it crosses no barrier (a guess beyond a
  // thin collider would have tunnelled through it), takes no vertex deeper than delta into a
  // constraint collider (projected, a deep layer would be flattened onto its surface) and its
  // energy is finite.
  const Eigen::VectorXd start =
      contact_.empty() ? state.positions : contact_.feasible_start(state.positions);
  const auto value_if_reachable = [&](const Eigen::VectorXd& guess) {
    if (!contact_.empty()) {
      Eigen::VectorXd end = start;
      dofs_.scatter_free(guess, end);
      if (contact_.largest_feasible_step(start, end - start, 1.0) < 1.0 ||
          contact_.largest_shallow_step(start, end - start, 1.0) < 1.0)
        return std::numeric_limits<double>::infinity();
    }
    return objective.value(guess);
  };
  const double first_value = value_if_reachable(first), second_value = value_if_reachable(second);
  if (std::isfinite(second_value) && !(first_value <= second_value)) return second;
  if (std::isfinite(first_value)) return first;
  // Neither (a fast approach, or a collider moved into the object): x_n, made feasible.
  return dofs_.restrict_to_free(start);
}

FullSpaceSimulator::~FullSpaceSimulator() = default;

FullSpaceState FullSpaceSimulator::rest_state() const {
  const auto n = model_.rest_positions().size();
  return {model_.rest_positions(), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n), 0.0, {}, {}};
}

Eigen::VectorXd FullSpaceSimulator::step_forces(const Eigen::VectorXd& external) const {
  Eigen::VectorXd forces = model_.gravity_forces(options_.gravity);
  if (external.size() == forces.size())
    forces += external;
  else if (external.size() != 0)
    throw OptionError("external forces have " + std::to_string(external.size()) +
                      " entries, expected 3 x #vertices = " + std::to_string(forces.size()));
  return forces;
}

NewtonReport FullSpaceSimulator::solve_stage(
    const FullSpaceState& state, const Eigen::VectorXd& forces, const ImplicitStage& stage,
    const Eigen::VectorXd& first_guess, const Eigen::VectorXd& second_guess, Eigen::VectorXd& y) {
  ImplicitStepObjective& objective = objectives_->implicit_step;
  if (!contact_.empty()) contact_.begin_step(state.positions, stage.time_next, stage.step);
  objective.prepare_step(state, forces, options_, stage.y_hat, stage.v_tilde,
                         stage.mass_coefficient, stage.damping_coefficient);
  if (!contact_.has_constraints()) {
    y = best_start(objective, first_guess, second_guess, state);
    return minimizer_.minimize(objective, y, newton_);
  }
  // Constraint colliders: E'(P(y)), and their forces recorded for friction.
  ConstrainedObjective constrained(objective, dofs_, contact_, state.positions);
  y = best_start(constrained, first_guess, second_guess, state);
  const NewtonReport report = minimizer_.minimize(constrained, y, newton_);
  constrained.finish(y);
  return report;
}

Eigen::VectorXd FullSpaceSimulator::damping_force(const Eigen::VectorXd& v) const {
  return objectives_->implicit_step.damping_times(v);
}

Eigen::VectorXd FullSpaceSimulator::solve_mass(const Eigen::VectorXd& rhs) const {
  auto& mass = objectives_->mass;
  if (!mass) {
    mass = std::make_unique<Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>, Eigen::Lower>>(
        objectives_->implicit_step.mass());
    if (mass->info() != Eigen::Success) {
      mass.reset();
      throw NumericalError("full-space simulation: the mass matrix is not positive definite");
    }
  }
  return mass->solve(rhs);
}

FullSpaceSimulator::EnergyTerms FullSpaceSimulator::energy_terms(
    const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& forces) const {
  const Eigen::VectorXd w = dofs_.restrict_to_free(v);
  EnergyTerms terms;
  terms.kinetic = 0.5 * w.dot(objectives_->implicit_step.mass() * w);
  terms.elastic = model_.elastic_energy(x);
  terms.work = forces.dot(x - model_.rest_positions());
  if (!contact_.empty()) terms.contact = contact_.potential_energy(x);
  return terms;
}

double FullSpaceSimulator::total_energy(const FullSpaceState& state,
                                        const Eigen::VectorXd& external_forces) const {
  return energy_terms(state.positions, state.velocities, step_forces(external_forces)).total();
}

NewtonReport FullSpaceSimulator::step_backward_euler(FullSpaceState& state,
                                                     const Eigen::VectorXd& external_forces) {
  const double h = options_.time_step;
  const Eigen::VectorXd forces = step_forces(external_forces);
  const Eigen::VectorXd y_n = dofs_.restrict_to_free(state.positions);
  const Eigen::VectorXd v_n = dofs_.restrict_to_free(state.velocities);
  // Initial guesses: x^n + h v^n and the explicit predictor
  // x^n + h v^n + h^2 M_lumped^-1 f(x^n) (optimization-integrator paper, §3.1).
  const Eigen::VectorXd inertial = y_n + h * v_n;
  Eigen::VectorXd elastic_gradient = Eigen::VectorXd::Zero(forces.size());
  model_.add_elastic_energy_gradient(state.positions, elastic_gradient);
  const Eigen::VectorXd net = dofs_.restrict_to_free(forces - elastic_gradient);
  const Eigen::VectorXd masses = model_.lumped_vertex_masses();
  Eigen::VectorXd predictor = inertial;
  for (int k = 0; k < dofs_.num_free_dofs(); ++k)
    predictor(k) += h * h * net(k) / masses(dofs_.free_dofs()[static_cast<size_t>(k)] / 3);
  Eigen::VectorXd y;
  const NewtonReport report =
      solve_stage(state, forces, {inertial, v_n, 1.0 / (h * h), 1.0 / h, state.time + h, h},
                  inertial, predictor, y);
  Eigen::VectorXd next = state.positions;
  dofs_.scatter_free(y, next);
  if (!contact_.empty()) contact_.end_step(next);
  Eigen::VectorXd velocities = (next - state.positions) / h;
  if (!contact_.empty()) contact_.apply_friction_after_solve(next, velocities);
  state.accelerations = (velocities - state.velocities) / h;
  state.velocities = velocities;
  for (int v : dofs_.fixed_vertices()) {
    state.velocities.segment<3>(3 * v).setZero();
    state.accelerations.segment<3>(3 * v).setZero();
  }
  state.positions = std::move(next);
  state.time += h;
  return report;
}

NewtonReport FullSpaceSimulator::step_bdf2(FullSpaceState& state,
                                           const Eigen::VectorXd& external_forces) {
  require_smoothed_friction("BDF2");
  const Eigen::Index n = state.positions.size();
  if (state.previous_positions.size() != n || state.previous_velocities.size() != n) {
    // The first step: backward Euler, which leaves x_{n-1} and v_{n-1} for the next.
    const Eigen::VectorXd x_n = state.positions, v_n = state.velocities;
    const NewtonReport report = step_backward_euler(state, external_forces);
    state.previous_positions = x_n;
    state.previous_velocities = v_n;
    return report;
  }
  const double h = options_.time_step;
  const Eigen::VectorXd forces = step_forces(external_forces);
  const Eigen::VectorXd y_n = dofs_.restrict_to_free(state.positions);
  const Eigen::VectorXd v_n = dofs_.restrict_to_free(state.velocities);
  const Eigen::VectorXd y_old = dofs_.restrict_to_free(state.previous_positions);
  const Eigen::VectorXd v_old = dofs_.restrict_to_free(state.previous_velocities);
  // M a_{n+1} = (9/4h²) M (y - y_hat); v_{n+1} = v_tilde + (3/2h)(y - y_hat).
  const Eigen::VectorXd y_hat = (4 * y_n - y_old) / 3 + (2 * h / 9) * (4 * v_n - v_old);
  const Eigen::VectorXd v_tilde = (3 * y_hat - 4 * y_n + y_old) / (2 * h);
  Eigen::VectorXd y;
  const NewtonReport report =
      solve_stage(state, forces, {y_hat, v_tilde, 9 / (4 * h * h), 3 / (2 * h), state.time + h, h},
                  y_hat, y_n + h * v_n, y);
  Eigen::VectorXd next = state.positions;
  dofs_.scatter_free(y, next);
  if (!contact_.empty()) contact_.end_step(next);
  Eigen::VectorXd velocities = next;
  velocities.setZero();
  dofs_.scatter_free(v_tilde + 3 / (2 * h) * (y - y_hat), velocities);
  if (!contact_.empty()) contact_.apply_friction_after_solve(next, velocities);
  state.accelerations = (velocities - state.velocities) / h;
  state.previous_positions = std::move(state.positions);
  state.previous_velocities = std::move(state.velocities);
  state.positions = std::move(next);
  state.velocities = std::move(velocities);
  state.time += h;
  return report;
}

NewtonReport FullSpaceSimulator::step_newmark(FullSpaceState& state,
                                              const Eigen::VectorXd& external_forces, double beta,
                                              double gamma) {
  if (!(beta > 0) || !(gamma > 0)) throw OptionError("Newmark beta and gamma must be positive");
  require_smoothed_friction("Newmark");
  const double h = options_.time_step;
  const Eigen::VectorXd forces = step_forces(external_forces);
  const Eigen::VectorXd y_n = dofs_.restrict_to_free(state.positions);
  const Eigen::VectorXd v_n = dofs_.restrict_to_free(state.velocities);
  const Eigen::VectorXd a_n = dofs_.restrict_to_free(state.accelerations);
  const Eigen::VectorXd y_hat = y_n + h * v_n + h * h * (0.5 - beta) * a_n;
  const Eigen::VectorXd v_tilde = v_n + h * (1.0 - gamma) * a_n;
  const double c_m = 1.0 / (h * h * beta);
  // The explicit prediction, or x_n.
  Eigen::VectorXd y;
  const NewtonReport report =
      solve_stage(state, forces, {y_hat, v_tilde, c_m, gamma / (h * beta), state.time + h, h},
                  y_n + h * v_n + 0.5 * h * h * a_n, y_n, y);
  const Eigen::VectorXd a = c_m * (y - y_hat);
  dofs_.scatter_free(y, state.positions);
  dofs_.scatter_free(a, state.accelerations);
  dofs_.scatter_free(v_tilde + h * gamma * a, state.velocities);
  if (!contact_.empty()) {
    contact_.end_step(state.positions);
    contact_.apply_friction_after_solve(state.positions, state.velocities);
  }
  state.time += h;
  return report;
}

void FullSpaceSimulator::initialize_acceleration(FullSpaceState& state,
                                                 const Eigen::VectorXd& external_forces) {
  const Eigen::VectorXd forces = step_forces(external_forces);
  ImplicitStepObjective& objective = objectives_->implicit_step;
  const Eigen::VectorXd v = dofs_.restrict_to_free(state.velocities);
  objective.prepare_step(state, forces, options_, v, v, 1.0, 1.0);
  Eigen::VectorXd elastic_gradient = Eigen::VectorXd::Zero(forces.size());
  model_.add_elastic_energy_gradient(state.positions, elastic_gradient);
  const Eigen::VectorXd rhs =
      dofs_.restrict_to_free(forces - elastic_gradient) - objective.damping_times(v);
  const Eigen::VectorXd a = solve_mass(rhs);
  state.accelerations.setZero(state.positions.size());
  dofs_.scatter_free(a, state.accelerations);
}

NewtonReport FullSpaceSimulator::solve_static(Eigen::VectorXd& positions,
                                              const Eigen::VectorXd& external_forces) {
  StaticObjective& objective = objectives_->static_objective;
  objective.prepare(positions, step_forces(external_forces));
  Eigen::VectorXd y = dofs_.restrict_to_free(positions);
  if (contact_.has_constraints()) {
    ConstrainedObjective constrained(objective, dofs_, contact_, positions);
    const NewtonReport report = minimizer_.minimize(constrained, y, newton_);
    constrained.finish(y);
    dofs_.scatter_free(y, positions);
    return report;
  }
  const NewtonReport report = minimizer_.minimize(objective, y, newton_);
  dofs_.scatter_free(y, positions);
  return report;
}

}  // namespace ramus
