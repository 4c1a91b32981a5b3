#include "ramus/runtime/reduced_simulator.h"

#include <cmath>
#include <string>

#include "ramus/error.h"

namespace ramus {

namespace {
using RowMajorX3d = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>;
}  // namespace

const char* to_string(StepStatus status) {
  switch (status) {
    case StepStatus::kOk:
      return "ok";
    case StepStatus::kNonFinite:
      return "non-finite state";
    case StepStatus::kDiverged:
      return "diverged";
  }
  return "unknown";
}

ReducedSimulator::ReducedSimulator(std::shared_ptr<const ReducedModel> model, int domain_index,
                                   NewmarkOptions options)
    : model_(std::move(model)), options_(options) {
  if (!model_) throw OptionError("ReducedSimulator: no model");
  if (domain_index < 0 || domain_index >= static_cast<int>(model_->domains.size()))
    throw OptionError("ReducedSimulator: domain " + std::to_string(domain_index) +
                      " does not exist (the model has " + std::to_string(model_->domains.size()) +
                      ")");
  const NewmarkOptions& o = options_;
  if (!(o.time_step > 0) || !std::isfinite(o.time_step))
    throw OptionError("time step must be positive, got " + std::to_string(o.time_step));
  if (!(o.beta > 0) || !(o.gamma > 0)) throw OptionError("Newmark beta and gamma must be positive");
  if (o.newton_iterations < 1) throw OptionError("at least one Newton iteration is needed");
  if (o.rayleigh_mass < 0 || o.rayleigh_stiffness < 0)
    throw OptionError("Rayleigh damping coefficients must not be negative");
  domain_ = &model_->domains[static_cast<size_t>(domain_index)];
  r_ = domain_->polynomial.r;
  if (domain_->basis.cols() != r_)
    throw OptionError("ReducedSimulator: basis has " + std::to_string(domain_->basis.cols()) +
                      " columns but the polynomial has r = " + std::to_string(r_));
  forces_ = ReducedStvkForces(domain_->polynomial);
  for (ReducedState* s : {&state_, &trial_}) {
    s->q.setZero(r_);
    s->qdot.setZero(r_);
    s->qddot.setZero(r_);
  }
  external_.setZero(r_);
  gravity_force_ = domain_->gravity_basis * options_.gravity;  // constant: G g
  gradient_.setZero(r_);
  residual_.setZero(r_);
  delta_.setZero(r_);
  velocity_.setZero(r_);
  stiffness_.setZero(r_, r_);
  energy_gradient_.setZero(r_);
  energy_hessian_.setZero(r_, r_);
  jacobian_.setZero(r_, r_);
  // Sizes every internal buffer. (No LDLT(r) + assignment: that copies its uninitialized info.)
  solver_.compute(Eigen::MatrixXd::Identity(r_, r_));
  factor_.setZero(r_, r_);
  flat_displacements_.setZero(domain_->basis.rows());
}

void ReducedSimulator::set_state(const ReducedState& state) {
  if (state.q.size() != r_ || state.qdot.size() != r_ || state.qddot.size() != r_)
    throw OptionError("ReducedSimulator::set_state: vectors must have r = " + std::to_string(r_) +
                      " entries");
  state_ = state;
}

void ReducedSimulator::add_vertex_force(int vertex, const Eigen::Vector3d& force) {
  if (vertex < 0 || 3 * static_cast<Eigen::Index>(vertex) >= domain_->basis.rows())
    throw OptionError("vertex " + std::to_string(vertex) + " does not exist (the domain has " +
                      std::to_string(domain_->basis.rows() / 3) + " vertices)");
  vertex_forces_.emplace_back(vertex, force);
}

void ReducedSimulator::clear_vertex_forces() {
  vertex_forces_.clear();
}

void ReducedSimulator::reserve_vertex_forces(int count) {
  vertex_forces_.reserve(static_cast<size_t>(std::max(0, count)));
}

void ReducedSimulator::assemble_external_force() noexcept {
  external_ = gravity_force_;
  for (const auto& [vertex, force] : vertex_forces_)
    external_.noalias() += domain_->basis.middleRows<3>(3 * vertex).transpose() * force;
}

void ReducedSimulator::evaluate_forces(const Eigen::VectorXd& q) noexcept {
  forces_.evaluate(q, gradient_, stiffness_);
  if (stiffness_scale_ != 1.0) {
    gradient_ *= stiffness_scale_;
    stiffness_ *= stiffness_scale_;
  }
}

double ReducedSimulator::elastic_energy() const noexcept {
  return stiffness_scale_ * forces_.evaluate_energy(state_.q, energy_gradient_, energy_hessian_);
}

StepStatus ReducedSimulator::initialize_acceleration() {
  assemble_external_force();
  evaluate_forces(state_.q);
  velocity_.noalias() = stiffness_ * state_.qdot;
  state_.qddot = external_ - gradient_ - options_.rayleigh_mass * state_.qdot -
                 options_.rayleigh_stiffness * velocity_;
  return state_.qddot.allFinite() ? StepStatus::kOk : StepStatus::kNonFinite;
}

StepStatus ReducedSimulator::step() noexcept {
  const double h = options_.time_step, beta = options_.beta, gamma = options_.gamma;
  const double alpha_m = options_.rayleigh_mass, beta_k = options_.rayleigh_stiffness;
  const ReducedState& n = state_;
  assemble_external_force();
  // Unknown: q_{n+1}; a_{n+1} = (q_{n+1} - q_n - h v_n - h^2 (1/2 - beta) a_n) / (h^2 beta),
  // v_{n+1} = v_n + h (1 - gamma) a_n + h gamma a_{n+1}. Newton starts from q_{n+1} = q_n.
  trial_.q = n.q;
  const double a_scale = 1.0 / (h * h * beta), v_scale = gamma / (h * beta);
  for (int iteration = 0; iteration < options_.newton_iterations; ++iteration) {
    trial_.qddot = a_scale * (trial_.q - n.q - h * n.qdot - h * h * (0.5 - beta) * n.qddot);
    trial_.qdot = n.qdot + h * (1.0 - gamma) * n.qddot + h * gamma * trial_.qddot;
    evaluate_forces(trial_.q);
    residual_ = trial_.qddot + alpha_m * trial_.qdot + gradient_ - external_;
    if (beta_k != 0) residual_.noalias() += beta_k * (stiffness_ * trial_.qdot);
    if (options_.newton_tolerance > 0 && iteration > 0 &&
        residual_.lpNorm<Eigen::Infinity>() <= options_.newton_tolerance)
      break;
    // d residual / d q_{n+1} (the damping matrix's own dependence on q is lagged), factored in
    // place without LLT::compute's copy and l1-norm pass (a tenth of the step at r = 10);
    // Cholesky when positive definite (the usual case), else pivoted LDLT.
    const double k_scale = 1.0 + beta_k * v_scale, diagonal = a_scale + alpha_m * v_scale;
    factor_ = k_scale * stiffness_;
    factor_.diagonal().array() += diagonal;
    if (Eigen::internal::llt_inplace<double, Eigen::Lower>::unblocked(factor_) < 0) {
      delta_ = residual_;
      factor_.triangularView<Eigen::Lower>().solveInPlace(delta_);
      factor_.triangularView<Eigen::Lower>().adjoint().solveInPlace(delta_);
    } else {
      jacobian_ = k_scale * stiffness_;
      jacobian_.diagonal().array() += diagonal;
      solver_.compute(jacobian_);
      delta_ = solver_.solve(residual_);
    }
    trial_.q -= delta_;
  }
  trial_.qddot = a_scale * (trial_.q - n.q - h * n.qdot - h * h * (0.5 - beta) * n.qddot);
  trial_.qdot = n.qdot + h * (1.0 - gamma) * n.qddot + h * gamma * trial_.qddot;
  if (!trial_.q.allFinite() || !trial_.qdot.allFinite() || !trial_.qddot.allFinite())
    return StepStatus::kNonFinite;
  if (trial_.q.lpNorm<Eigen::Infinity>() > options_.max_coordinate) return StepStatus::kDiverged;
  trial_.time = n.time + h;
  std::swap(state_, trial_);
  return StepStatus::kOk;
}

void ReducedSimulator::displacements(Eigen::MatrixX3d& displacements) const {
  flat_displacements_.noalias() = domain_->basis * state_.q;
  displacements =
      Eigen::Map<const RowMajorX3d>(flat_displacements_.data(), flat_displacements_.size() / 3, 3);
}

void ReducedSimulator::positions(Eigen::MatrixX3d& positions) const {
  displacements(positions);
  positions += domain_->rest_positions;
}

void ReducedSimulator::positions(const Eigen::VectorXi& vertices,
                                 Eigen::MatrixX3d& positions) const {
  positions.resize(vertices.size(), 3);
  for (Eigen::Index k = 0; k < vertices.size(); ++k) {
    const int v = vertices(k);
    positions.row(k) = domain_->rest_positions.row(v) +
                       (domain_->basis.middleRows<3>(3 * v) * state_.q).transpose();
  }
}

}  // namespace ramus
