#include "ramus/runtime/substructured_simulator.h"

#include <chrono>
#include <cmath>
#include <string>

#include "ramus/error.h"
#include "ramus/runtime/model_geometry.h"

namespace ramus {

namespace {

using Clock = std::chrono::steady_clock;

std::string domain_label(const ReducedModel& model, int d) {
  return "domain " + std::to_string(d) + " ('" + model.domains[static_cast<size_t>(d)].name + "')";
}

// Rotation exp(w~) by Rodrigues' formula.
Eigen::Matrix3d rotation_exponential(const Eigen::Vector3d& w) noexcept {
  const double angle = w.norm();
  if (angle < 1e-300) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, w / angle).toRotationMatrix();
}

bool has_shape(const Eigen::MatrixXd& m, Eigen::Index rows, Eigen::Index cols) {
  return m.rows() == rows && m.cols() == cols;
}

// Cholesky of `factor` in place and solve, else pivoted LDLT of `matrix` (kept intact).
void solve_symmetric(Eigen::MatrixXd& factor, const Eigen::MatrixXd& matrix,
                     Eigen::LDLT<Eigen::MatrixXd>& ldlt, const Eigen::VectorXd& rhs,
                     Eigen::VectorXd& solution) noexcept {
  factor = matrix;
  if (Eigen::internal::llt_inplace<double, Eigen::Lower>::unblocked(factor) < 0) {
    solution = rhs;
    factor.triangularView<Eigen::Lower>().solveInPlace(solution);
    factor.triangularView<Eigen::Lower>().adjoint().solveInPlace(solution);
  } else {
    ldlt.compute(matrix);
    solution = ldlt.solve(rhs);
  }
}

}  // namespace

SubstructuredSimulator::SubstructuredSimulator(std::shared_ptr<const ReducedModel> model,
                                               SubstructuredOptions options)
    : model_(std::move(model)), options_(std::move(options)) {
  if (!model_) throw OptionError("SubstructuredSimulator: no model");
  const ReducedModel& m = *model_;
  const int num = static_cast<int>(m.domains.size());
  if (num == 0) throw OptionError("SubstructuredSimulator: the model has no domain");
  const SubstructuredOptions& o = options_;
  if (!(o.time_step > 0) || !std::isfinite(o.time_step))
    throw OptionError("time step must be positive, got " + std::to_string(o.time_step));
  if (!(o.beta > 0) || !(o.gamma > 0)) throw OptionError("Newmark beta and gamma must be positive");
  if (o.newton_iterations < 1) throw OptionError("at least one Newton iteration is needed");
  if (!o.domains.empty() && static_cast<int>(o.domains.size()) != num)
    throw OptionError("per-domain options: " + std::to_string(o.domains.size()) +
                      " given for a model of " + std::to_string(num) + " domains");
  const auto check_domain_options = [&](const DomainRuntimeOptions& d, const std::string& who) {
    if (d.rayleigh_mass < 0 || d.rayleigh_stiffness < 0)
      throw OptionError(who + ": Rayleigh damping coefficients must not be negative");
    if (!(d.stiffness_scale > 0) || !std::isfinite(d.stiffness_scale))
      throw OptionError(who + ": stiffness scale must be positive");
  };
  check_domain_options(o.all_domains, "options");

  free_root_ = m.domains[0].fixed_vertices.size() == 0;
  domains_.resize(static_cast<size_t>(num));
  int max_r = 0;
  for (int d = 0; d < num; ++d) {
    const ReducedDomain& data = m.domains[static_cast<size_t>(d)];
    Domain& dom = domains_[static_cast<size_t>(d)];
    const std::string who = domain_label(m, d);
    dom.data = &data;
    dom.r = data.polynomial.r;
    dom.parent = data.parent;
    if (d == 0 && data.parent != -1) throw OptionError(who + ": the root must have no parent");
    if (d > 0 && (data.parent < 0 || data.parent >= d))
      throw OptionError(who + ": parent " + std::to_string(data.parent) +
                        " is not an earlier domain");
    if (d > 0) domains_[static_cast<size_t>(data.parent)].children.push_back(d);
    dom.options = o.domains.empty() ? o.all_domains : o.domains[static_cast<size_t>(d)];
    check_domain_options(dom.options, who);
    const int r = dom.r;
    max_r = std::max(max_r, r);
    if (data.basis.cols() != r || data.gravity_basis.rows() != r)
      throw OptionError(who + ": basis or gravity basis does not have r = " + std::to_string(r) +
                        " columns");
    const SystemForceIntegrals& w = data.system_force;
    const bool anchored_root = d == 0 && !free_root_;
    const bool w_ok = has_shape(w.w1, 3, r) && has_shape(w.w2, 3, r) && w.w3.size() == r &&
                      has_shape(w.w4, r, r) && has_shape(w.w5, 3, 3 * r) &&
                      has_shape(w.w6, r, 3 * r) && has_shape(w.w7, 3 * r, 3 * r);
    if (!w_ok && !anchored_root)
      throw OptionError(who +
                        ": the model lacks the system-force integrals W1..W7 of this "
                        "domain (re-run `ramus precompute`)");
    if (d > 0) {
      const ParentInterface& itf = data.interface;
      const int rp = m.domains[static_cast<size_t>(data.parent)].polynomial.r;
      if (!has_shape(itf.centroid_basis, 3, rp) || !has_shape(itf.rotation_basis, 3, 3 * rp))
        throw OptionError(who +
                          ": interface data do not match the parent's r = " + std::to_string(rp));
      if (!(data.subtree_mass > 0)) throw OptionError(who + ": subtree mass must be positive");
    }
    if (r > 0) dom.forces = ReducedStvkForces(data.polynomial);
    for (ReducedState* s : {&dom.state, &dom.trial}) {
      s->q.setZero(r);
      s->qdot.setZero(r);
      s->qddot.setZero(r);
    }
    for (Eigen::VectorXd* v : {&dom.vertex_force_reduced, &dom.rhs, &dom.system, &dom.gradient,
                               &dom.residual, &dom.delta, &dom.scratch})
      v->setZero(r);
    for (Eigen::MatrixXd* a : {&dom.mass, &dom.stiffness, &dom.jacobian, &dom.factor})
      a->setZero(r, r);
    dom.solver.compute(Eigen::MatrixXd::Identity(r, r));
    dom.system_scratch = SystemForceScratch(r);
    dom.relative.jacobian.setZero(
        3, d > 0 ? m.domains[static_cast<size_t>(data.parent)].polynomial.r : 0);
    dom.relative.rotation_jacobian.setZero(3, dom.relative.jacobian.cols());
    dom.relative.inertia_jacobian.setZero(3, dom.relative.jacobian.cols());
    dom.relative.x = dom.relative.v = dom.relative.a = Eigen::Vector3d::Zero();
    dom.relative.omega = dom.relative.alpha = dom.relative.alpha_without_qddot =
        Eigen::Vector3d::Zero();
    dom.relative.point = dom.relative.point_velocity = dom.relative.point_acceleration_rest =
        Eigen::Vector3d::Zero();
    dom.relative.R.setIdentity();
    dom.subtree_force_local.setZero();
    dom.subtree_torque_local.setZero();
    dom.own_force_world.setZero();
    dom.frame.rotation = data.frame_rotation;
    dom.frame.origin = data.frame_origin;
  }

  // Rest first moment ∫ρ X of each domain alone: its subtree's minus its children's subtrees'
  // (a child's rest frame in its parent's: origin x̂_ij, axes R̂_ij).
  for (int d = 0; d < num; ++d) {
    Domain& dom = domains_[static_cast<size_t>(d)];
    dom.first_moment = dom.data->subtree_mass * dom.data->subtree_center_of_mass;
    for (int c : dom.children) {
      const ReducedDomain& child = *domains_[static_cast<size_t>(c)].data;
      dom.first_moment -=
          child.subtree_mass *
          (child.interface.centroid + child.interface.rest_rotation * child.subtree_center_of_mass);
    }
  }

  if (free_root_) {
    const ReducedDomain& root = m.domains[0];
    total_mass_ = root.subtree_mass;
    root_center_ = root.subtree_center_of_mass;
    root_inertia_ = root.subtree_inertia;
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(root_inertia_);
    if (!(total_mass_ > 0) || eig.info() != Eigen::Success || !(eig.eigenvalues()(0) > 0))
      throw OptionError("domain 0 ('" + root.name +
                        "') flies freely but the model has no positive mass and inertia tensor "
                        "for it (re-run `ramus precompute`)");
    root_inertia_inverse_ = root_inertia_.inverse();
  }

  // C0 averaging: how many domain copies each global vertex has.
  num_global_vertices_ = global_vertex_count(m);
  global_copy_count_.setZero(num_global_vertices_);
  for (Domain& dom : domains_) {
    const Eigen::Index n = dom.data->rest_positions.rows();
    dom.global_vertices = dom.data->global_vertices.size() == n
                              ? dom.data->global_vertices
                              : Eigen::VectorXi::LinSpaced(n, 0, static_cast<int>(n) - 1);
    for (Eigen::Index k = 0; k < n; ++k) {
      const int g = dom.global_vertices(k);
      if (g < 0 || g >= num_global_vertices_)
        throw OptionError(domain_label(m, static_cast<int>(&dom - domains_.data())) +
                          ": global vertex index " + std::to_string(g) + " out of range");
      ++global_copy_count_(g);
    }
  }

  saved_states_.resize(static_cast<size_t>(num));
  saved_frames_.resize(static_cast<size_t>(num));
  for (int d = 0; d < num; ++d)
    saved_states_[static_cast<size_t>(d)] = domains_[static_cast<size_t>(d)].state;
  energy_gradient_.setZero(max_r);
  energy_hessian_.setZero(max_r, max_r);
  initialize(false);
}

const ReducedState& SubstructuredSimulator::domain_state(int d) const {
  if (d < 0 || d >= num_domains())
    throw OptionError("domain " + std::to_string(d) + " does not exist");
  return domains_[static_cast<size_t>(d)].state;
}

void SubstructuredSimulator::set_domain_state(int d, const ReducedState& state) {
  if (d < 0 || d >= num_domains())
    throw OptionError("domain " + std::to_string(d) + " does not exist");
  Domain& dom = domains_[static_cast<size_t>(d)];
  if (state.q.size() != dom.r || state.qdot.size() != dom.r || state.qddot.size() != dom.r)
    throw OptionError(domain_label(*model_, d) +
                      ": state vectors must have r = " + std::to_string(dom.r) + " entries");
  dom.state.q = state.q;
  dom.state.qdot = state.qdot;
  dom.state.qddot = state.qddot;
  dom.state.time = time_;
}

void SubstructuredSimulator::set_root_motion(const Eigen::Vector3d& origin,
                                             const Eigen::Matrix3d& rotation,
                                             const Eigen::Vector3d& velocity,
                                             const Eigen::Vector3d& angular_velocity) {
  if (!free_root_) throw OptionError("set_root_motion: the root is anchored");
  if (!((rotation.transpose() * rotation - Eigen::Matrix3d::Identity()).norm() < 1e-9) ||
      !(rotation.determinant() > 0))
    throw OptionError("set_root_motion: not a rotation matrix");
  DomainFrame& f = domains_[0].frame;
  f.origin = origin;
  f.rotation = rotation;
  const Eigen::Vector3d center_offset = rotation * root_center_;
  root_momentum_ = total_mass_ * (velocity + angular_velocity.cross(center_offset));
  root_angular_momentum_ = rotation * root_inertia_ * rotation.transpose() * angular_velocity;
}

const DomainFrame& SubstructuredSimulator::frame(int d) const {
  if (d < 0 || d >= num_domains())
    throw OptionError("domain " + std::to_string(d) + " does not exist");
  return domains_[static_cast<size_t>(d)].frame;
}

void SubstructuredSimulator::add_vertex_force(int d, int vertex,
                                              const Eigen::Vector3d& world_force) {
  if (d < 0 || d >= num_domains())
    throw OptionError("domain " + std::to_string(d) + " does not exist");
  const int num_vertices =
      static_cast<int>(domains_[static_cast<size_t>(d)].data->rest_positions.rows());
  if (vertex < 0 || vertex >= num_vertices)
    throw OptionError(domain_label(*model_, d) + ": vertex " + std::to_string(vertex) +
                      " does not exist (the domain has " + std::to_string(num_vertices) +
                      " vertices)");
  if (!world_force.allFinite()) throw OptionError("vertex force must be finite");
  vertex_forces_.push_back({{d, vertex}, world_force});
}

void SubstructuredSimulator::clear_vertex_forces() {
  vertex_forces_.clear();
}

void SubstructuredSimulator::reserve_vertex_forces(int count) {
  vertex_forces_.reserve(static_cast<size_t>(std::max(0, count)));
}

void SubstructuredSimulator::set_stiffness_scale(int d, double scale) {
  if (d < 0 || d >= num_domains())
    throw OptionError("domain " + std::to_string(d) + " does not exist");
  if (!(scale > 0) || !std::isfinite(scale)) throw OptionError("stiffness scale must be positive");
  domains_[static_cast<size_t>(d)].options.stiffness_scale = scale;
}

// x_ij, R_ij and their time derivatives from the parent's q, q̇, q̈ (Eq. 1-2, 5-9), and the
// lumping point with its Jacobian (L1: the interface centroid, J = â_ij; L2: the subtree's
// centre of mass carried by the child frame).
void SubstructuredSimulator::compute_child_kinematics(int child) noexcept {
  Domain& c = domains_[static_cast<size_t>(child)];
  const Domain& p = domains_[static_cast<size_t>(c.parent)];
  const ParentInterface& itf = c.data->interface;
  const ReducedState& s = p.state;
  ChildKinematics& k = c.relative;
  k.x = itf.centroid;
  k.v.setZero();
  k.a.setZero();
  Eigen::Matrix3d A = itf.rest_rotation, A_dot = Eigen::Matrix3d::Zero(),
                  A_ddot = Eigen::Matrix3d::Zero();
  if (p.r > 0) {
    k.x.noalias() += itf.centroid_basis * s.q;
    k.v.noalias() = itf.centroid_basis * s.qdot;
    k.a.noalias() = itf.centroid_basis * s.qddot;
    for (int l = 0; l < p.r; ++l) {
      const auto block = itf.rotation_basis.block<3, 3>(0, 3 * l);
      A.noalias() += s.q(l) * block;
      A_dot.noalias() += s.qdot(l) * block;
      A_ddot.noalias() += s.qddot(l) * block;
    }
  }
  const PolarDecomposition RS = polar_decomposition(A);
  const PolarRotationDerivatives derivs = polar_rotation_derivatives(RS, A_dot, A_ddot);
  k.R = RS.R;
  k.omega = derivs.omega;
  k.alpha = derivs.omega_dot;
  if (options_.lumping == InterfaceLumping::kInterface || p.r == 0) {
    k.jacobian = itf.centroid_basis;
    k.point = k.x;
    k.point_velocity = k.v;
    k.point_acceleration_rest.setZero();
    k.alpha_without_qddot = k.alpha;
    if (options_.lumping == InterfaceLumping::kInterface) return;
  }
  // L2, L3: p = x_ij + R_ij c_j; ṗ = v_ij + ω_ij × R_ij c_j; p̈ = J q̈ + α0 × R c + ω × (ω × R c)
  // with J = â_ij - (R c)~ J_ω, J_ω = dω_ij/dq̇ (columns G⁻¹ 2 skew(Rᵀ A^l), Eq. 7) and α0 the
  // part of ω̇_ij (Eq. 9) without q̈.
  const Eigen::Vector3d Rc = k.R * c.data->subtree_center_of_mass;
  k.alpha_without_qddot = polar_rotation_derivatives(RS, A_dot, Eigen::Matrix3d::Zero()).omega_dot;
  const Eigen::Matrix3d Rt = RS.R.transpose();
  const Eigen::Matrix3d G = (RS.S.trace() * Eigen::Matrix3d::Identity() - RS.S) * Rt;
  const Eigen::PartialPivLU<Eigen::Matrix3d> lu(G);
  for (int l = 0; l < p.r; ++l) {
    const Eigen::Matrix3d Rt_Al = Rt * itf.rotation_basis.block<3, 3>(0, 3 * l);
    const Eigen::Vector3d omega_l = lu.solve(Eigen::Vector3d(2.0 * skew_vector(Rt_Al)));
    const Eigen::Vector3d centroid_l = itf.centroid_basis.block<3, 1>(0, l);
    k.jacobian.block<3, 1>(0, l) = centroid_l - Rc.cross(omega_l);
    k.rotation_jacobian.block<3, 1>(0, l) = omega_l;
  }
  k.point = k.x + Rc;
  k.point_velocity = k.v + k.omega.cross(Rc);
  k.point_acceleration_rest = k.alpha_without_qddot.cross(Rc) + k.omega.cross(k.omega.cross(Rc));
}

// Frame of child d in the world from its parent's frame and the relative kinematics.
void SubstructuredSimulator::update_frame(int d) noexcept {
  Domain& dom = domains_[static_cast<size_t>(d)];
  const DomainFrame& P = domains_[static_cast<size_t>(dom.parent)].frame;
  const ChildKinematics& k = dom.relative;
  const Eigen::Matrix3d Rt = k.R.transpose();
  DomainFrame& f = dom.frame;
  f.rotation = P.rotation * k.R;
  f.origin = P.origin + P.rotation * k.x;
  f.angular_velocity = Rt * (P.angular_velocity + k.omega);
  f.velocity = Rt * (P.velocity + P.angular_velocity.cross(k.x) + k.v);
  f.acceleration = Rt * (P.acceleration + P.angular_acceleration.cross(k.x) +
                         P.angular_velocity.cross(P.angular_velocity.cross(k.x)) +
                         2.0 * P.angular_velocity.cross(k.v) + k.a);
  f.angular_acceleration =
      Rt * (P.angular_acceleration + k.alpha + P.angular_velocity.cross(k.omega));
}

// Leaves to root (Algorithm 1, line 3): each domain's own external force (vertex forces and
// gravity) and its subtree's sum, in its own axes; the reduced vertex forces; for a free root,
// the torque about the centre of mass. Uses the frames of the current (old) step.
void SubstructuredSimulator::accumulate_subtree_forces() noexcept {
  for (Domain& dom : domains_) {
    dom.own_force_world.setZero();
    dom.vertex_force_reduced.setZero();
  }
  root_torque_.setZero();
  const DomainFrame& root = domains_[0].frame;
  const Eigen::Vector3d center = root.origin + root.rotation * root_center_;
  for (const auto& [where, force] : vertex_forces_) {
    Domain& dom = domains_[static_cast<size_t>(where.first)];
    const int v = where.second;
    dom.own_force_world += force;
    const Eigen::Vector3d local = dom.frame.rotation.transpose() * force;
    if (dom.r > 0) {
      const auto rows = dom.data->basis.middleRows<3>(3 * static_cast<Eigen::Index>(v));
      dom.vertex_force_reduced.noalias() += rows.transpose() * local;
      if (free_root_) {
        Eigen::Vector3d x = dom.data->rest_positions.row(v).transpose();
        x.noalias() += rows * dom.state.q;
        root_torque_ += (dom.frame.origin + dom.frame.rotation * x - center).cross(force);
      }
    } else if (free_root_) {
      const Eigen::Vector3d x = dom.data->rest_positions.row(v).transpose();
      root_torque_ += (dom.frame.origin + dom.frame.rotation * x - center).cross(force);
    }
  }
  for (Domain& dom : domains_)
    dom.subtree_force_local =
        dom.frame.rotation.transpose() * (dom.own_force_world + dom.data->mass * options_.gravity);
  if (options_.lumping == InterfaceLumping::kRigidSubtree) {
    // Torques about each subtree's rest centre of mass c_d: the domain's own vertex forces at
    // their deformed positions, its weight at its own centre of mass, then its children's
    // (moved to c_d).
    for (Domain& dom : domains_) {
      const Eigen::Vector3d& c = dom.data->subtree_center_of_mass;
      const Eigen::Vector3d weight = dom.frame.rotation.transpose() * options_.gravity;
      dom.subtree_torque_local =
          dom.data->mass > 0
              ? Eigen::Vector3d((dom.first_moment - dom.data->mass * c).cross(weight))
              : Eigen::Vector3d::Zero();
    }
    for (const auto& [where, force] : vertex_forces_) {
      Domain& dom = domains_[static_cast<size_t>(where.first)];
      Eigen::Vector3d x = dom.data->rest_positions.row(where.second).transpose();
      if (dom.r > 0)
        x.noalias() += dom.data->basis.middleRows<3>(3 * static_cast<Eigen::Index>(where.second)) *
                       dom.state.q;
      dom.subtree_torque_local +=
          (x - dom.data->subtree_center_of_mass).cross(dom.frame.rotation.transpose() * force);
    }
  }
  for (int d = num_domains() - 1; d > 0; --d) {
    Domain& dom = domains_[static_cast<size_t>(d)];
    Domain& parent = domains_[static_cast<size_t>(dom.parent)];
    const Eigen::Vector3d force = dom.relative.R * dom.subtree_force_local;
    parent.subtree_force_local += force;
    if (options_.lumping == InterfaceLumping::kRigidSubtree) {
      const Eigen::Vector3d child_center =
          dom.relative.x + dom.relative.R * dom.data->subtree_center_of_mass;
      parent.subtree_torque_local +=
          dom.relative.R * dom.subtree_torque_local +
          (child_center - parent.data->subtree_center_of_mass).cross(force);
    }
  }
}

// A free root frame as one rigid body carrying the whole tree's rest inertia: momentum and
// angular momentum (world) integrated symplectically under the total external force and the
// torque about the centre of mass; rotation by the exponential map.
void SubstructuredSimulator::integrate_root(double h) noexcept {
  DomainFrame& f = domains_[0].frame;
  const Eigen::Vector3d force = f.rotation * domains_[0].subtree_force_local;
  Eigen::Vector3d center = f.origin + f.rotation * root_center_;
  root_momentum_ += h * force;
  root_angular_momentum_ += h * root_torque_;
  const Eigen::Vector3d center_velocity = root_momentum_ / total_mass_;
  center += h * center_velocity;
  Eigen::Vector3d omega_world =
      f.rotation * (root_inertia_inverse_ * (f.rotation.transpose() * root_angular_momentum_));
  f.rotation = rotation_exponential(h * omega_world) * f.rotation;
  // Re-orthonormalize against round-off drift.
  const Eigen::HouseholderQR<Eigen::Matrix3d> qr(f.rotation);
  Eigen::Matrix3d Q = qr.householderQ();
  for (int c = 0; c < 3; ++c)
    if (Q.col(c).dot(f.rotation.col(c)) < 0) Q.col(c) *= -1;
  f.rotation = Q;
  const Eigen::Matrix3d Rt = f.rotation.transpose();
  omega_world = f.rotation * (root_inertia_inverse_ * (Rt * root_angular_momentum_));
  // Euler's equations in the world: I ω̇ = τ - ω × L.
  const Eigen::Vector3d alpha_world =
      f.rotation *
      (root_inertia_inverse_ * (Rt * (root_torque_ - omega_world.cross(root_angular_momentum_))));
  const Eigen::Vector3d offset = f.rotation * root_center_;
  f.origin = center - offset;
  f.angular_velocity = Rt * omega_world;
  f.angular_acceleration = Rt * alpha_world;
  f.velocity = Rt * (center_velocity - omega_world.cross(offset));
  f.acceleration = Rt * (force / total_mass_ - alpha_world.cross(offset) -
                         omega_world.cross(omega_world.cross(offset)));
}

// Right-hand side and mass matrix of Eq. 17 for domain d in its (new) frame:
// rhs = Uᵀ f_vertices + G R_iᵀ g + f_sys + Σ_j f0_ij, mass = I + Σ_j M_ij.
void SubstructuredSimulator::assemble_domain_system(int d) noexcept {
  Domain& dom = domains_[static_cast<size_t>(d)];
  if (dom.r == 0) return;
  const DomainFrame& f = dom.frame;
  dom.rhs = dom.vertex_force_reduced;
  dom.rhs.noalias() += dom.data->gravity_basis * (f.rotation.transpose() * options_.gravity);
  if (!(d == 0 && !free_root_)) {
    FrameKinematics kinematics;
    kinematics.linear_acceleration = f.acceleration;
    kinematics.angular_velocity = f.angular_velocity;
    kinematics.angular_acceleration = f.angular_acceleration;
    system_force(dom.data->system_force, dom.state.q, dom.state.qdot, kinematics,
                 dom.system_scratch, dom.system);
    dom.rhs += dom.system;
  }
  dom.mass.setIdentity();
  for (int c : dom.children) {
    const Domain& child = domains_[static_cast<size_t>(c)];
    const ChildKinematics& k = child.relative;
    const double m = child.data->subtree_mass;
    dom.mass.noalias() += m * (k.jacobian.transpose() * k.jacobian);
    const Eigen::Vector3d& p = k.point;
    const Eigen::Vector3d point_acceleration =
        f.acceleration + f.angular_acceleration.cross(p) +
        f.angular_velocity.cross(f.angular_velocity.cross(p)) +
        2.0 * f.angular_velocity.cross(k.point_velocity) + k.point_acceleration_rest;
    const Eigen::Vector3d load = k.R * child.subtree_force_local - m * point_acceleration;
    dom.rhs.noalias() += k.jacobian.transpose() * load;
    if (options_.lumping == InterfaceLumping::kRigidSubtree && dom.r > 0) {
      // The subtree's rotational inertia about its centre of mass (F_i axes) and its angular
      // velocity Ω = ω_i + ω_ij, Ω̇ = α_i + α_ij + ω_i × ω_ij with α_ij = J_ω q̈ + α0: torque
      // I_w Ω̇ + Ω × I_w Ω, by virtual work J_ωᵀ on q_i.
      const Eigen::Matrix3d inertia = k.R * child.data->subtree_inertia * k.R.transpose();
      ChildKinematics& kk = domains_[static_cast<size_t>(c)].relative;
      kk.inertia_jacobian.noalias() = inertia * k.rotation_jacobian;
      dom.mass.noalias() += k.rotation_jacobian.transpose() * kk.inertia_jacobian;
      const Eigen::Vector3d spin = f.angular_velocity + k.omega;
      const Eigen::Vector3d spin_rate =
          f.angular_acceleration + k.alpha_without_qddot + f.angular_velocity.cross(k.omega);
      const Eigen::Vector3d torque =
          k.R * child.subtree_torque_local - inertia * spin_rate - spin.cross(inertia * spin);
      dom.rhs.noalias() += k.rotation_jacobian.transpose() * torque;
    }
  }
}

void SubstructuredSimulator::evaluate_internal(Domain& dom, const Eigen::VectorXd& q) noexcept {
  dom.forces.evaluate(q, dom.gradient, dom.stiffness);
  const double s = dom.options.stiffness_scale;
  if (s != 1.0) {
    dom.gradient *= s;
    dom.stiffness *= s;
  }
}

// Implicit Newmark on Eq. 17 with Rayleigh damping of the effective mass M' = M + Σ M_ij:
// M' q̈ + (α M' + β K) q̇ + g(q) = rhs, Newton from q_n.
StepStatus SubstructuredSimulator::newmark_step(int d) noexcept {
  Domain& dom = domains_[static_cast<size_t>(d)];
  if (dom.r == 0) return StepStatus::kOk;
  const double h = options_.time_step, beta = options_.beta, gamma = options_.gamma;
  const double alpha_m = dom.options.rayleigh_mass, beta_k = dom.options.rayleigh_stiffness;
  const ReducedState& n = dom.state;
  ReducedState& t = dom.trial;
  const double a_scale = 1.0 / (h * h * beta), v_scale = gamma / (h * beta);
  t.q = n.q;
  for (int iteration = 0; iteration < options_.newton_iterations; ++iteration) {
    t.qddot = a_scale * (t.q - n.q - h * n.qdot - h * h * (0.5 - beta) * n.qddot);
    t.qdot = n.qdot + h * (1.0 - gamma) * n.qddot + h * gamma * t.qddot;
    evaluate_internal(dom, t.q);
    dom.residual = dom.gradient - dom.rhs;
    dom.scratch = t.qddot + alpha_m * t.qdot;
    dom.residual.noalias() += dom.mass * dom.scratch;
    if (beta_k != 0) dom.residual.noalias() += beta_k * (dom.stiffness * t.qdot);
    dom.jacobian =
        (1.0 + beta_k * v_scale) * dom.stiffness + (a_scale + alpha_m * v_scale) * dom.mass;
    solve_symmetric(dom.factor, dom.jacobian, dom.solver, dom.residual, dom.delta);
    t.q -= dom.delta;
  }
  t.qddot = a_scale * (t.q - n.q - h * n.qdot - h * h * (0.5 - beta) * n.qddot);
  t.qdot = n.qdot + h * (1.0 - gamma) * n.qddot + h * gamma * t.qddot;
  if (!t.q.allFinite() || !t.qdot.allFinite() || !t.qddot.allFinite())
    return StepStatus::kNonFinite;
  if (t.q.lpNorm<Eigen::Infinity>() > options_.max_coordinate) return StepStatus::kDiverged;
  t.time = n.time + h;
  std::swap(dom.state, dom.trial);
  return StepStatus::kOk;
}

// q̈ from Eq. 17 at the current q, q̇: M' q̈ = rhs - (α M' + β K) q̇ - g(q).
StepStatus SubstructuredSimulator::solve_acceleration(int d) noexcept {
  Domain& dom = domains_[static_cast<size_t>(d)];
  if (dom.r == 0) return StepStatus::kOk;
  evaluate_internal(dom, dom.state.q);
  dom.residual = dom.rhs - dom.gradient;
  dom.residual.noalias() -= dom.options.rayleigh_mass * (dom.mass * dom.state.qdot);
  if (dom.options.rayleigh_stiffness != 0)
    dom.residual.noalias() -= dom.options.rayleigh_stiffness * (dom.stiffness * dom.state.qdot);
  solve_symmetric(dom.factor, dom.mass, dom.solver, dom.residual, dom.state.qddot);
  return dom.state.qddot.allFinite() ? StepStatus::kOk : StepStatus::kNonFinite;
}

StepStatus SubstructuredSimulator::set_velocity_field(const Eigen::MatrixX3d& global_velocities) {
  if (global_velocities.rows() != num_global_vertices_)
    throw OptionError("set_velocity_field: expected " + std::to_string(num_global_vertices_) +
                      " velocities, got " + std::to_string(global_velocities.rows()));
  initialize(false);
  for (int d = 0; d < num_domains(); ++d) {
    Domain& dom = domains_[static_cast<size_t>(d)];
    if (d > 0) update_frame(d);
    if (dom.r > 0) {
      const Eigen::MatrixX3d& X = dom.data->rest_positions;
      const Eigen::Index n = X.rows();
      Eigen::VectorXd target(3 * n);
      const DomainFrame& f = dom.frame;
      for (Eigen::Index v = 0; v < n; ++v) {
        Eigen::Vector3d x = X.row(v).transpose();
        x.noalias() += dom.data->basis.middleRows<3>(3 * v) * dom.state.q;
        const Eigen::Vector3d world = global_velocities.row(dom.global_vertices(v)).transpose();
        target.segment<3>(3 * v) =
            f.rotation.transpose() * world - f.velocity - f.angular_velocity.cross(x);
      }
      const Eigen::MatrixXd& U = dom.data->basis;
      dom.state.qdot = (U.transpose() * U).ldlt().solve(U.transpose() * target);
    }
    for (int c : dom.children) compute_child_kinematics(c);
  }
  return initialize(true);
}

StepStatus SubstructuredSimulator::initialize(bool solve_accelerations) {
  if (free_root_) {
    // Frame kinematics of the root from its momenta (no step: zero time advance).
    DomainFrame& f = domains_[0].frame;
    const Eigen::Matrix3d Rt = f.rotation.transpose();
    const Eigen::Vector3d omega_world =
        f.rotation * (root_inertia_inverse_ * (Rt * root_angular_momentum_));
    const Eigen::Vector3d offset = f.rotation * root_center_;
    f.angular_velocity = Rt * omega_world;
    f.velocity = Rt * (root_momentum_ / total_mass_ - omega_world.cross(offset));
  }
  accumulate_subtree_forces();
  if (free_root_) {
    DomainFrame& f = domains_[0].frame;
    const Eigen::Matrix3d Rt = f.rotation.transpose();
    const Eigen::Vector3d omega_world = f.rotation * f.angular_velocity;
    const Eigen::Vector3d alpha_world =
        f.rotation *
        (root_inertia_inverse_ * (Rt * (root_torque_ - omega_world.cross(root_angular_momentum_))));
    const Eigen::Vector3d offset = f.rotation * root_center_;
    f.angular_acceleration = Rt * alpha_world;
    f.acceleration =
        Rt * (f.rotation * domains_[0].subtree_force_local / total_mass_ -
              alpha_world.cross(offset) - omega_world.cross(omega_world.cross(offset)));
  }
  StepStatus status = StepStatus::kOk;
  for (int d = 0; d < num_domains(); ++d) {
    Domain& dom = domains_[static_cast<size_t>(d)];
    if (d > 0) update_frame(d);
    if (solve_accelerations) {
      // Children's relative kinematics (with the old q̈) give M_ij and f0_ij; q̈ does not enter
      // them for L1, and only through the lagged Jacobian for L2.
      for (int c : dom.children) compute_child_kinematics(c);
      assemble_domain_system(d);
      const StepStatus s = solve_acceleration(d);
      if (s != StepStatus::kOk) status = s;
    }
    for (int c : dom.children) compute_child_kinematics(c);
  }
  // Subtree forces with the final frames.
  accumulate_subtree_forces();
  return status;
}

StepStatus SubstructuredSimulator::step() noexcept {
  const int num = num_domains();
  const bool timed = options_.profile;
  Clock::time_point mark = timed ? Clock::now() : Clock::time_point{};
  double core = 0, stepping = 0;
  const auto lap = [&](double& bucket) {
    if (!timed) return;
    const Clock::time_point now = Clock::now();
    bucket += std::chrono::duration<double>(now - mark).count();
    mark = now;
  };
  for (int d = 0; d < num; ++d) {
    const Domain& dom = domains_[static_cast<size_t>(d)];
    saved_states_[static_cast<size_t>(d)].q = dom.state.q;
    saved_states_[static_cast<size_t>(d)].qdot = dom.state.qdot;
    saved_states_[static_cast<size_t>(d)].qddot = dom.state.qddot;
    saved_states_[static_cast<size_t>(d)].time = dom.state.time;
    saved_frames_[static_cast<size_t>(d)] = dom.frame;
  }
  const Eigen::Vector3d saved_momentum = root_momentum_,
                        saved_angular_momentum = root_angular_momentum_;
  const double h = options_.time_step;
  accumulate_subtree_forces();
  if (free_root_) integrate_root(h);
  lap(core);
  StepStatus status = StepStatus::kOk;
  for (int d = 0; d < num && status == StepStatus::kOk; ++d) {
    Domain& dom = domains_[static_cast<size_t>(d)];
    if (d > 0) update_frame(d);
    assemble_domain_system(d);
    lap(core);
    status = newmark_step(d);
    lap(stepping);
    if (status != StepStatus::kOk) break;
    for (int c : dom.children) compute_child_kinematics(c);
    lap(core);
  }
  if (status != StepStatus::kOk) {
    for (int d = 0; d < num; ++d) {
      Domain& dom = domains_[static_cast<size_t>(d)];
      const ReducedState& s = saved_states_[static_cast<size_t>(d)];
      dom.state.q = s.q;
      dom.state.qdot = s.qdot;
      dom.state.qddot = s.qddot;
      dom.state.time = s.time;
      dom.frame = saved_frames_[static_cast<size_t>(d)];
    }
    root_momentum_ = saved_momentum;
    root_angular_momentum_ = saved_angular_momentum;
    for (int d = 1; d < num; ++d) compute_child_kinematics(d);
    return status;
  }
  time_ += h;
  if (timed) {
    profile_.core_seconds += core;
    profile_.domain_seconds += stepping;
    ++profile_.steps;
  }
  return StepStatus::kOk;
}

void SubstructuredSimulator::domain_world_positions(int d, Eigen::MatrixX3d& positions) const {
  const Domain& dom = domains_[static_cast<size_t>(d)];
  const Eigen::MatrixX3d& X = dom.data->rest_positions;
  positions.resize(X.rows(), 3);
  const Eigen::Matrix3d& R = dom.frame.rotation;
  const Eigen::RowVector3d o = dom.frame.origin.transpose();
  for (Eigen::Index v = 0; v < X.rows(); ++v) {
    Eigen::Vector3d x = X.row(v).transpose();
    if (dom.r > 0) x.noalias() += dom.data->basis.middleRows<3>(3 * v) * dom.state.q;
    positions.row(v) = (R * x).transpose() + o;
  }
}

void SubstructuredSimulator::global_positions(Eigen::MatrixX3d& positions) const {
  const int n = num_global_vertices_;
  positions.resize(n, 3);
  positions.setZero();
  for (const Domain& dom : domains_) {
    const Eigen::MatrixX3d& X = dom.data->rest_positions;
    const Eigen::VectorXi& g = dom.global_vertices;
    const Eigen::Matrix3d& R = dom.frame.rotation;
    for (Eigen::Index v = 0; v < g.size(); ++v) {
      Eigen::Vector3d x = X.row(v).transpose();
      if (dom.r > 0) x.noalias() += dom.data->basis.middleRows<3>(3 * v) * dom.state.q;
      positions.row(g(v)) += (R * x + dom.frame.origin).transpose();
    }
  }
  for (Eigen::Index v = 0; v < n; ++v)
    if (global_copy_count_(v) > 1) positions.row(v) /= global_copy_count_(v);
}

void SubstructuredSimulator::embedded_surface_positions(Eigen::MatrixX3d& positions) const {
  const EmbeddedSurface& s = model_->embedded_surface;
  positions.resize(s.rest_positions.rows(), 3);
  if (s.rest_positions.rows() == 0) return;
  Eigen::MatrixX3d global;
  global_positions(global);
  for (Eigen::Index k = 0; k < s.rest_positions.rows(); ++k) {
    const Domain& dom = domains_[static_cast<size_t>(s.domain(k))];
    Eigen::RowVector3d x = Eigen::RowVector3d::Zero();
    for (int c = 0; c < 4; ++c)
      x += s.barycentric(k, c) * global.row(dom.global_vertices(dom.data->tets(s.tet(k), c)));
    positions.row(k) = x;
  }
}

Eigen::Vector3d SubstructuredSimulator::linear_momentum() const {
  // ∫ρ v dV in F_i axes = m v_i + ω_i × (∫ρ X_rest + ∫ρ U q) + ∫ρ U q̇, with ∫ρ U = -W1.
  Eigen::Vector3d total = Eigen::Vector3d::Zero();
  for (const Domain& dom : domains_) {
    Eigen::Vector3d moment = dom.first_moment, velocity = Eigen::Vector3d::Zero();
    const Eigen::MatrixXd& w1 = dom.data->system_force.w1;
    if (dom.r > 0 && w1.cols() == dom.r) {
      moment.noalias() -= w1 * dom.state.q;
      velocity.noalias() -= w1 * dom.state.qdot;
    }
    const DomainFrame& f = dom.frame;
    total +=
        f.rotation * (dom.data->mass * f.velocity + f.angular_velocity.cross(moment) + velocity);
  }
  return total;
}

double SubstructuredSimulator::elastic_energy() const {
  double energy = 0;
  for (const Domain& dom : domains_) {
    if (dom.r == 0) continue;
    energy += dom.options.stiffness_scale *
              dom.forces.evaluate_energy(dom.state.q, energy_gradient_, energy_hessian_);
  }
  return energy;
}

}  // namespace ramus
