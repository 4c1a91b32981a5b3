#include "ramus/precompute/cloth/implicit_euler_cloth.h"

#include <Eigen/IterativeLinearSolvers>
#include <algorithm>
#include <cmath>

#include "ramus/precompute/cloth/spring_forces.h"

// Eigen's conjugate gradients on the matrix-free system (Eigen's "matrix-free solvers" pattern):
// the operator as a sparse-shaped expression whose product calls multiply_add.
namespace ramus {
class ClothOperator;
}
namespace Eigen::internal {
template <>
struct traits<ramus::ClothOperator> : public traits<Eigen::SparseMatrix<double>> {};
}  // namespace Eigen::internal

namespace ramus {

class ClothOperator : public Eigen::EigenBase<ClothOperator> {
 public:
  using Scalar = double;
  using RealScalar = double;
  using StorageIndex = int;
  enum {
    ColsAtCompileTime = Eigen::Dynamic,
    MaxColsAtCompileTime = Eigen::Dynamic,
    IsRowMajor = false
  };

  explicit ClothOperator(const ClothSystemMatrix& system) : system_(&system) {}
  Eigen::Index rows() const { return system_->size(); }
  Eigen::Index cols() const { return system_->size(); }
  template <class Rhs>
  Eigen::Product<ClothOperator, Rhs, Eigen::AliasFreeProduct> operator*(
      const Eigen::MatrixBase<Rhs>& x) const {
    return Eigen::Product<ClothOperator, Rhs, Eigen::AliasFreeProduct>(*this, x.derived());
  }
  const ClothSystemMatrix& system() const { return *system_; }

 private:
  const ClothSystemMatrix* system_;
};

// Jacobi: diag(A)⁻¹ from the system's blocks (Eigen's diagonal preconditioner reads a sparse
// matrix's coefficients, which the operator has not).
class ClothJacobi : public Eigen::DiagonalPreconditioner<double> {
 public:
  ClothJacobi() = default;
  template <class M>
  ClothJacobi& analyzePattern(const M&) {
    return *this;
  }
  template <class M>
  ClothJacobi& factorize(const M& op) {
    m_invdiag = op.system().inverse_diagonal();
    m_isInitialized = true;
    return *this;
  }
  template <class M>
  ClothJacobi& compute(const M& op) {
    return factorize(op);
  }
};

}  // namespace ramus

namespace Eigen::internal {
template <class Rhs>
struct generic_product_impl<ramus::ClothOperator, Rhs, SparseShape, DenseShape, GemvProduct>
    : generic_product_impl_base<ramus::ClothOperator, Rhs,
                                generic_product_impl<ramus::ClothOperator, Rhs>> {
  template <class Dest>
  static void scaleAndAddTo(Dest& dst, const ramus::ClothOperator& lhs, const Rhs& rhs,
                            const double& alpha) {
    lhs.system().multiply_add(rhs, alpha, dst);
  }
};
}  // namespace Eigen::internal

namespace ramus {

ClothSystemMatrix::ClothSystemMatrix(const MassSpringCloth& cloth)
    : mass_(cloth.particle_mass),
      free_(static_cast<std::size_t>(cloth.num_particles()), 1.0),
      blocks_(cloth.springs.size()),
      inverse_diagonal_(Eigen::VectorXd::Ones(3 * cloth.num_particles())) {
  for (int v : cloth.pinned) free_[static_cast<std::size_t>(v)] = 0;
  for (std::size_t s = 0; s < blocks_.size(); ++s) {
    blocks_[s].i = cloth.springs[s].i;
    blocks_[s].j = cloth.springs[s].j;
    std::fill(std::begin(blocks_[s].c), std::end(blocks_[s].c), 0.0);
  }
}

void ClothSystemMatrix::multiply(const Eigen::VectorXd& p, Eigen::VectorXd& out) const {
  out.setZero(p.size());
  multiply_add(p, 1.0, out);
}

void ClothSystemMatrix::multiply_unfiltered(const Eigen::VectorXd& p, Eigen::VectorXd& out) const {
  out.setZero(p.size());
  add_pinned_product(p, 1.0, out);
}

ImplicitEulerCloth::ImplicitEulerCloth(const MassSpringCloth& cloth, const ClothSettings& settings,
                                       double frame_step, const Eigen::Vector3d& gravity)
    : cloth_(cloth),
      settings_(settings),
      frame_step_(frame_step),
      gravity_(gravity),
      system_(cloth),
      step_(frame_step) {}

void ImplicitEulerCloth::set_colliders(std::vector<ClothCollider> colliders) {
  contact_ = ClothContactConstraints(std::move(colliders), cloth_.num_particles());
  system_.held_ = contact_.empty() ? nullptr : &contact_;
}

ClothState ImplicitEulerCloth::rest_state() const {
  ClothState s;
  const Eigen::Matrix3Xd columns = cloth_.rest_positions.transpose();  // x, y, z per particle
  s.positions = Eigen::Map<const Eigen::VectorXd>(columns.data(), columns.size());
  s.velocities = Eigen::VectorXd::Zero(s.positions.size());
  return s;
}

namespace {

// The six numbers of a symmetric 3 by 3 matrix: xx, xy, xz, yy, yz, zz.
void store_symmetric(const Eigen::Matrix3d& m, double* c) {
  c[0] = m(0, 0), c[1] = m(0, 1), c[2] = m(0, 2), c[3] = m(1, 1), c[4] = m(1, 2), c[5] = m(2, 2);
}

// Gravity on every particle plus the game's forces (3#V, or empty for none), N.
Eigen::VectorXd applied_forces(const MassSpringCloth& cloth, const Eigen::Vector3d& gravity,
                               const Eigen::VectorXd& external) {
  Eigen::VectorXd f(3 * cloth.num_particles());
  for (int p = 0; p < cloth.num_particles(); ++p)
    f.segment<3>(3 * p) = cloth.particle_mass * gravity;
  if (external.size() == f.size()) f += external;
  return f;
}

// Spring s's force on its particle j, elastic and damping (N; particle i feels its negative).
Eigen::Vector3d spring_force_with_damping(const ClothSpring& s, const Eigen::Vector3d& d,
                                          const Eigen::Vector3d& dv) {
  return spring_force_on_j(d, s.rest_length, s.stiffness) + s.damping * dv;
}

}  // namespace

Eigen::VectorXd ImplicitEulerCloth::prepare(const ClothState& state,
                                            const Eigen::VectorXd& external, double h) {
  const int n = cloth_.num_particles();
  const auto& x = state.positions;
  const auto& v = state.velocities;
  // Gravity, the game's forces, then per spring: its force and damping, J_x (v_i - v_j) for the
  // right-hand side, and the block C = h kd I + h² J_x with its diagonal.
  Eigen::VectorXd f = applied_forces(cloth_, gravity_, external);
  Eigen::VectorXd jv = Eigen::VectorXd::Zero(3 * n);
  Eigen::VectorXd diagonal = Eigen::VectorXd::Constant(3 * n, cloth_.particle_mass);
  for (std::size_t k = 0; k < cloth_.springs.size(); ++k) {
    const ClothSpring& s = cloth_.springs[k];
    const Eigen::Vector3d d = x.segment<3>(3 * s.i) - x.segment<3>(3 * s.j);
    const Eigen::Vector3d dv = v.segment<3>(3 * s.i) - v.segment<3>(3 * s.j);
    const Eigen::Vector3d force = spring_force_with_damping(s, d, dv);
    f.segment<3>(3 * s.j) += force;
    f.segment<3>(3 * s.i) -= force;
    const Eigen::Matrix3d J = spring_jacobian(d, s.rest_length, s.stiffness, true);
    const Eigen::Vector3d Jdv = J * dv;
    jv.segment<3>(3 * s.i) -= Jdv;
    jv.segment<3>(3 * s.j) += Jdv;
    const Eigen::Matrix3d C = h * s.damping * Eigen::Matrix3d::Identity() + h * h * J;
    store_symmetric(C, system_.blocks_[k].c);
    diagonal.segment<3>(3 * s.i) += C.diagonal();
    diagonal.segment<3>(3 * s.j) += C.diagonal();
  }
  // b = h (f + h J_x v); pinned rows zero and unit diagonal.
  Eigen::VectorXd b = h * (f + h * jv);
  for (int p : cloth_.pinned) {
    b.segment<3>(3 * p).setZero();
    diagonal.segment<3>(3 * p).setOnes();
  }
  system_.inverse_diagonal_ = diagonal.cwiseInverse();
  return b;
}

int ImplicitEulerCloth::step(ClothState& state, const Eigen::VectorXd& external, double h,
                             bool& converged, ClothStepReport* report) {
  b_ = prepare(state, external, h);
  // The particles held on colliders for this step (none without colliders).
  if (!contact_.empty())
    contact_.detect(state.positions, state.time, system_.free_,
                    system_.inverse_diagonal_.cwiseInverse());
  const ClothOperator A(system_);
  Eigen::ConjugateGradient<ClothOperator, Eigen::Lower | Eigen::Upper, ClothJacobi> cg;
  cg.setTolerance(settings_.cg_tolerance);
  cg.setMaxIterations(settings_.cg_iterations);
  cg.compute(A);
  // From the previous step's Δv scaled to this step's size (its acceleration kept; the paper
  // starts from 0: 15 % more iterations on a falling 30 by 30 cloth), or from 0 at the first.
  const bool warm = dv_.size() == b_.size() && last_h_ > 0;
  if (warm) guess_ = (h / last_h_) * dv_;
  int iterations = 0, releases = 0;
  if (contact_.active().empty()) {
    // A Δv = b by Jacobi-preconditioned conjugate gradients.
    dv_ = warm ? Eigen::VectorXd(cg.solveWithGuess(b_, guess_)) : Eigen::VectorXd(cg.solve(b_));
    iterations = static_cast<int>(cg.iterations());
    converged = cg.info() == Eigen::Success;
  } else {
    // Held particles: Δv = z + P w with (P A P + I - P) w = P (b - A z); a hold whose impulse
    // (A Δv - b along its normal) pulls is let go and the step solved again, three times at most.
    if (!warm) guess_.setZero(b_.size());
    converged = true;
    for (int round = 0; round < 4; ++round) {
      contact_.prescribed_velocity_change(state.velocities, z_);
      system_.multiply_unfiltered(z_, rhs_);
      rhs_ = b_ - rhs_;
      contact_.filter(rhs_);
      guess_ -= z_;
      contact_.filter(guess_);
      dv_ = z_ + Eigen::VectorXd(cg.solveWithGuess(rhs_, guess_));
      iterations += static_cast<int>(cg.iterations());
      converged = converged && cg.info() == Eigen::Success;
      system_.multiply_unfiltered(dv_, residual_);
      residual_ -= b_;
      if (round == 3) break;
      // The free rows' residual (CG's inexactness) sets the noise a hold's impulse must pass.
      rhs_ = residual_;
      contact_.filter(rhs_);
      const double noise = 2 * rhs_.norm() / std::sqrt(static_cast<double>(rhs_.size()));
      const int released = contact_.release_pulling(residual_, noise);
      if (released == 0) break;
      releases += released;
      guess_ = dv_;
      if (contact_.active().empty()) {
        dv_ = cg.solveWithGuess(b_, guess_);
        iterations += static_cast<int>(cg.iterations());
        converged = converged && cg.info() == Eigen::Success;
        break;
      }
    }
  }
  last_h_ = h;
  // v₁ = v₀ + Δv, friction on the held particles' slip, x₁ = x₀ + h v₁ + y (pinned particles
  // keep their place, held ones are put back on their colliders' surfaces).
  state.velocities += dv_;
  for (int p : cloth_.pinned) state.velocities.segment<3>(3 * p).setZero();
  double friction_work = 0;
  if (!contact_.active().empty())
    friction_work = contact_.apply_friction(residual_, cloth_.particle_mass, state.velocities);
  // The cloth against itself (impulses from x₀): pinned and held particles not moved.
  ClothSelfRepulsionReport self;
  if (self_repulsion_) {
    contact_.movable_particles(system_.free_, movable_);
    self = apply_cloth_self_repulsion(cloth_.triangles, cloth_.particle_mass, state.positions, h,
                                      *self_repulsion_, movable_, state.velocities);
    friction_work += self.friction_work;
  }
  // Particles the step would carry into a collider, caught on its surface.
  if (!contact_.empty())
    friction_work += contact_
                         .catch_entering(state.positions, state.time, h, system_.free_,
                                         cloth_.particle_mass, state.velocities)
                         .friction_work;
  state.positions += h * state.velocities;
  contact_.correct_positions(state.positions);
  state.time += h;
  if (report != nullptr) {
    report->contacts = static_cast<int>(contact_.active().size());
    report->releases += releases;
    report->friction_work += friction_work;
    report->self_impulses += self.impulses;
    if (self.pairs > 0) report->closest_self_gap = std::min(report->closest_self_gap, self.closest);
  }
  return iterations;
}

ClothStepReport ImplicitEulerCloth::advance(ClothState& state, const Eigen::VectorXd& external) {
  ClothStepReport report;
  const double smallest = frame_step_ / static_cast<double>(1 << settings_.max_halvings);
  double remaining = frame_step_;
  while (remaining > 1e-12 * frame_step_) {
    const double h = std::min(step_, remaining);
    saved_.positions = state.positions;
    saved_.velocities = state.velocities;
    saved_.time = state.time;
    bool converged = true;
    report.cg_iterations += step(state, external, h, converged, &report);
    report.cg_converged = report.cg_converged && converged;
    // The strain rule: a stretch spring whose length changed by more than the limit (of its rest
    // length) in the step sends the step back at half the size, down to h / 2^max_halvings.
    const double change = largest_strain_change(saved_.positions, state.positions);
    const bool over = change > settings_.strain_limit;
    if (over && step_ > smallest * 1.5) {
      state.positions = saved_.positions;
      state.velocities = saved_.velocities;
      state.time = saved_.time;
      step_ *= 0.5;
      good_steps_ = 0;
      ++report.discarded;
      continue;
    }
    report.strain_kept_over = report.strain_kept_over || over;
    report.largest_step_strain = std::max(report.largest_step_strain, change);
    remaining -= h;
    ++report.steps;
    // Two good steps in a row double the step, up to the frame's.
    if (++good_steps_ == 2 && step_ < frame_step_) {
      step_ = std::min(frame_step_, 2 * step_);
      good_steps_ = 0;
    }
  }
  report.largest_strain = largest_strain(state.positions);
  report.smallest_distance = contact_.smallest_distance(state.positions, state.time);
  report.next_step = step_;
  return report;
}

Eigen::VectorXd ImplicitEulerCloth::forces(const ClothState& state,
                                           const Eigen::VectorXd& external) const {
  Eigen::VectorXd f = applied_forces(cloth_, gravity_, external);
  for (const ClothSpring& s : cloth_.springs) {
    const Eigen::Vector3d force = spring_force_with_damping(
        s, state.positions.segment<3>(3 * s.i) - state.positions.segment<3>(3 * s.j),
        state.velocities.segment<3>(3 * s.i) - state.velocities.segment<3>(3 * s.j));
    f.segment<3>(3 * s.j) += force;
    f.segment<3>(3 * s.i) -= force;
  }
  return f;
}

double ImplicitEulerCloth::energy(const ClothState& state) const {
  double e = 0.5 * cloth_.particle_mass * state.velocities.squaredNorm();
  for (const ClothSpring& s : cloth_.springs)
    e += spring_energy(state.positions.segment<3>(3 * s.i), state.positions.segment<3>(3 * s.j),
                       s.rest_length, s.stiffness);
  for (int p = 0; p < cloth_.num_particles(); ++p)
    e -= cloth_.particle_mass *
         gravity_.dot(state.positions.segment<3>(3 * p) - cloth_.rest_positions.row(p).transpose());
  return e;
}

double ImplicitEulerCloth::largest_strain_change(const Eigen::VectorXd& before,
                                                 const Eigen::VectorXd& after) const {
  double largest = 0;
  for (int k = 0; k < cloth_.num_stretch; ++k) {
    const ClothSpring& s = cloth_.springs[static_cast<std::size_t>(k)];
    const double from = (before.segment<3>(3 * s.i) - before.segment<3>(3 * s.j)).norm();
    const double to = (after.segment<3>(3 * s.i) - after.segment<3>(3 * s.j)).norm();
    largest = std::max(largest, std::abs(to - from) / s.rest_length);
  }
  return largest;
}

double ImplicitEulerCloth::largest_strain(const Eigen::VectorXd& positions) const {
  double largest = 0;
  for (int k = 0; k < cloth_.num_stretch; ++k) {
    const ClothSpring& s = cloth_.springs[static_cast<std::size_t>(k)];
    largest = std::max(largest,
                       spring_strain(positions.segment<3>(3 * s.i) - positions.segment<3>(3 * s.j),
                                     s.rest_length));
  }
  return largest;
}

}  // namespace ramus
