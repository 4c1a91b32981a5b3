// Implicit Euler for a mass-spring cloth as "Implementing the implicit Euler method for
// mass-spring systems" (2004) gives it: one linear system per step,
//   (M - h df/dv - h² df/dx) Δv = h (f₀ + h df/dx v₀),  x₁ = x₀ + h (v₀ + Δv),
// solved matrix-free by Jacobi-preconditioned conjugate gradients (§3.2.2, §4.2) over precomputed
// per-spring blocks C = h kd I + h² J_x of six numbers (§4.1); a step leaving a stretch spring
// strained beyond the limit is discarded and redone at half the size, and two good steps double it
// again (§3.2.3). "Deformed" is read as Baraff and Witkin's rule the paper cites: a stretch
// spring's length changing by more than the limit (of its rest length) within one step; an
// absolute strain limit would halve forever a cloth its own weight strains past it. Pinned
// particles, and particles held on a collider (cloth_contact_constraints.h), are held by the
// filter P A P + (I - P).
#pragma once

#include <Eigen/Core>
#include <limits>
#include <optional>
#include <vector>

#include "ramus/precompute/cloth/cloth_contact_constraints.h"
#include "ramus/precompute/cloth/cloth_self_repulsion.h"
#include "ramus/precompute/cloth/mass_spring_cloth.h"

namespace ramus {

/// The cloth's positions and velocities, particle by particle (3#V each).
struct ClothState {
  Eigen::VectorXd positions;   ///< 3#V, m
  Eigen::VectorXd velocities;  ///< 3#V, m/s
  double time = 0;             ///< s
};

/// What one frame's advance did.
struct ClothStepReport {
  int steps = 0;                   ///< steps kept to cover the frame
  int discarded = 0;               ///< steps redone at half the size by the strain rule
  int cg_iterations = 0;           ///< over every solve of the frame, discarded ones too
  bool cg_converged = true;        ///< every solve reached cloth.cg_tolerance
  double largest_strain = 0;       ///< of a stretch spring at the frame's end
  double largest_step_strain = 0;  ///< the largest change of a stretch spring in a kept step
  double next_step = 0;            ///< s: the step size the next frame starts with
  bool strain_kept_over = false;   ///< a step kept over the limit after max_halvings halvings
  int contacts = 0;                ///< particles held on a collider in the frame's last step
  int releases = 0;                ///< holds let go (their impulse pulled) and re-solved
  double friction_work = 0;        ///< J: what the colliders' friction took in the frame
  double smallest_distance = 0;    ///< m: min phi over particles and colliders at the frame's end
  int self_impulses = 0;           ///< the self-repulsion's impulses in the frame
  /// m: the smallest particle-triangle gap met in the frame (+inf without self-repulsion)
  double closest_self_gap = std::numeric_limits<double>::infinity();
};

/// The system matrix A = M - h df/dv - h² df/dx of one step at the positions it was prepared at,
/// matrix-free: a block C (six numbers, symmetric) per spring; A p adds C (p_i - p_j) to row i and
/// subtracts it from row j, with pinned rows and columns replaced by the identity, and the
/// normals of particles held on a collider filtered likewise (P A P + I - P).
class ClothSystemMatrix {
 public:
  /// The blocks are built by ImplicitEulerCloth (prepare), not here.
  explicit ClothSystemMatrix(const MassSpringCloth& cloth);
  /// out = A p (3#V each), filtered.
  void multiply(const Eigen::VectorXd& p, Eigen::VectorXd& out) const;
  /// out = A p with only the pinned particles filtered: the held particles' rows of A p - b are
  /// their colliders' impulses.
  void multiply_unfiltered(const Eigen::VectorXd& p, Eigen::VectorXd& out) const;
  /// out += alpha A p, filtered, for any vector expression p and out (Eigen's matrix-free
  /// product).
  template <class In, class Out>
  void multiply_add(const In& p, double alpha, Out& out) const;
  /// diag(A)⁻¹ (3#V): the Jacobi preconditioner.
  const Eigen::VectorXd& inverse_diagonal() const { return inverse_diagonal_; }
  Eigen::Index size() const { return 3 * static_cast<Eigen::Index>(free_.size()); }

 private:
  friend class ImplicitEulerCloth;
  struct Block {
    int i, j;
    double c[6];  // xx, xy, xz, yy, yz, zz
  };
  double mass_;
  std::vector<double> free_;  // 1 for a free particle, 0 for a pinned one
  std::vector<Block> blocks_;
  Eigen::VectorXd inverse_diagonal_;
  const ClothContactConstraints* held_ = nullptr;       // the particles held on colliders, if any
  mutable Eigen::VectorXd input_, filtered_, product_;  // the filtered product's workspace
  template <class In, class Out>
  void add_pinned_product(const In& p, double alpha, Out& out) const;
};

/// Steps a cloth: forces, Jacobians and blocks in one pass over the springs, then CG.
class ImplicitEulerCloth {
 public:
  /// `frame_step` (s): what advance covers; gravity (m/s²) pulls every particle.
  ImplicitEulerCloth(const MassSpringCloth& cloth, const ClothSettings& settings, double frame_step,
                     const Eigen::Vector3d& gravity);

  /// The rest positions, at rest, t = 0.
  ClothState rest_state() const;
  /// One frame: steps of h / 2^k (k from the frame before, raised by the strain rule, lowered after
  /// two good steps) until frame_step is covered. `external` (3#V, N, or empty) acts throughout.
  ClothStepReport advance(ClothState& state, const Eigen::VectorXd& external);
  /// The colliders the particles meet from now on (Baraff and Witkin's constraints).
  void set_colliders(std::vector<ClothCollider> colliders);
  const ClothContactConstraints& contact() const { return contact_; }
  /// The cloth against itself after each solve (cloth_self_repulsion.h), or nothing.
  void set_self_repulsion(std::optional<ClothSelfRepulsionOptions> options) {
    self_repulsion_ = options;
  }
  /// One implicit Euler step of size h, no halving; the CG iterations it took (converged set),
  /// `report`'s contact fields (contacts, releases, friction_work) filled when given.
  int step(ClothState& state, const Eigen::VectorXd& external, double h, bool& converged,
           ClothStepReport* report = nullptr);

  /// f(x, v): springs, their damping, gravity and `external` (3#V, N; may be empty).
  Eigen::VectorXd forces(const ClothState& state, const Eigen::VectorXd& external) const;
  /// Kinetic + spring + gravity energy (J), gravity's from the rest positions.
  double energy(const ClothState& state) const;
  /// The largest strain |(|d| - L)| / L of a stretch spring.
  double largest_strain(const Eigen::VectorXd& positions) const;
  /// The largest change | |d_after| - |d_before| | / L of a stretch spring: the strain rule's.
  double largest_strain_change(const Eigen::VectorXd& before, const Eigen::VectorXd& after) const;

  const MassSpringCloth& cloth() const { return cloth_; }
  const ClothSystemMatrix& system() const { return system_; }
  /// Fills system() for a step of size h at `state` and returns its right-hand side
  /// b = h (f₀ + h df/dx v₀) (pinned rows zero).
  Eigen::VectorXd prepare(const ClothState& state, const Eigen::VectorXd& external, double h);

 private:
  const MassSpringCloth& cloth_;
  ClothSettings settings_;
  double frame_step_;
  Eigen::Vector3d gravity_;
  ClothSystemMatrix system_;
  double step_ = 0;     // the current step size
  int good_steps_ = 0;  // steps kept in a row at it
  ClothState saved_;    // the state before a step the strain rule may discard
  Eigen::VectorXd b_, dv_, guess_;
  double last_h_ = 0;  // the size of the step dv_ is from
  ClothContactConstraints contact_;
  std::optional<ClothSelfRepulsionOptions> self_repulsion_;
  std::vector<double> movable_;         // per particle: 1 if the self-repulsion may move it
  Eigen::VectorXd z_, rhs_, residual_;  // the held particles' Δv, the filtered b, A Δv - b
};

template <class In, class Out>
void ClothSystemMatrix::multiply_add(const In& p, double alpha, Out& out) const {
  if (held_ == nullptr || held_->active().empty()) return add_pinned_product(p, alpha, out);
  // P A P p + (I - P) p: the held particles' normals filtered out and back in.
  input_ = p;
  filtered_ = input_;
  held_->filter(filtered_);
  product_.setZero(input_.size());
  add_pinned_product(filtered_, 1.0, product_);
  held_->filter_rows(input_, product_);
  out += alpha * product_;
}

template <class In, class Out>
void ClothSystemMatrix::add_pinned_product(const In& p, double alpha, Out& out) const {
  // The mass (identity on pinned rows), then each spring's block on its two particles.
  const Eigen::Index n = static_cast<Eigen::Index>(free_.size());
  for (Eigen::Index v = 0; v < n; ++v) {
    const double m = free_[static_cast<std::size_t>(v)] > 0 ? mass_ : 1.0;
    for (int c = 0; c < 3; ++c) out.coeffRef(3 * v + c) += alpha * m * p.coeff(3 * v + c);
  }
  for (const Block& s : blocks_) {
    const double wi = free_[static_cast<std::size_t>(s.i)],
                 wj = free_[static_cast<std::size_t>(s.j)];
    const double dx = wi * p.coeff(3 * s.i) - wj * p.coeff(3 * s.j);
    const double dy = wi * p.coeff(3 * s.i + 1) - wj * p.coeff(3 * s.j + 1);
    const double dz = wi * p.coeff(3 * s.i + 2) - wj * p.coeff(3 * s.j + 2);
    const double tx = s.c[0] * dx + s.c[1] * dy + s.c[2] * dz;
    const double ty = s.c[1] * dx + s.c[3] * dy + s.c[4] * dz;
    const double tz = s.c[2] * dx + s.c[4] * dy + s.c[5] * dz;
    const double ai = alpha * wi, aj = alpha * wj;
    out.coeffRef(3 * s.i) += ai * tx;
    out.coeffRef(3 * s.i + 1) += ai * ty;
    out.coeffRef(3 * s.i + 2) += ai * tz;
    out.coeffRef(3 * s.j) -= aj * tx;
    out.coeffRef(3 * s.j + 1) -= aj * ty;
    out.coeffRef(3 * s.j + 2) -= aj * tz;
  }
}

}  // namespace ramus
