// The local/global solver of "Stabilizing integrators for real-time physics" (2018, §4.2) on a
// projective energy (projective_energy.h) with lumped masses: backward Euler as Projective
// Dynamics ((M + h² L) x = M y + h² J p, Eq. 28), implicit midpoint with the projections at
// (x + x_n) / 2 ((M + h²/4 L) x = M y + h²/2 J p - h²/4 L x_n, Eq. 30), both matrices factored
// once by CHOLMOD; and the energy-stabilized midpoint (§4.1, Eq. 20-24): the midpoint blended
// toward backward Euler (a few iterations from the midpoint's end) when it gained energy over the
// tracked total, or toward forward Euler when it lost some, then the momentum-preserving damping
// (§4.3), whose loss the tracked total follows. Kinematic colliders enter as Projective
// Dynamics' collision constraints: a vertex inside a collider, or heading in, carries for the
// step the term w/2 |x - P(x)|² (P the nearest point outside), w a multiple of m / h²; their
// Coulomb friction acts after each step on that term's force.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <vector>

#include "ramus/precompute/cloth/cloth_self_repulsion.h"
#include "ramus/precompute/contact/level_set_collider.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/fem/projective_energy.h"

namespace ramus {

/// The step a LocalGlobalIntegrator takes.
enum class LocalGlobalMethod {
  kBackwardEuler,            ///< Projective Dynamics: `iterations` local/global iterations
  kImplicitMidpoint,         ///< Eq. 30, `iterations` iterations, v = 2 (x - x_n) / h - v_n
  kEnergyStabilizedMidpoint  ///< the midpoint blended by energy (the paper's method)
};

/// A cloth's triangles (#F by 3) and its repulsion's settings.
struct LocalGlobalSelfContact {
  Eigen::MatrixX3i triangles;
  ClothSelfRepulsionOptions repulsion;
};

struct LocalGlobalOptions {
  double time_step = 1.0 / 60.0;                      ///< h, s
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< m/s²
  int iterations = 10;                                ///< of the backward-Euler or midpoint solve
  int stabilization_iterations = 1;         ///< of the backward-Euler solve that stabilizes
  double energy_tolerance = 0.01;           ///< ε of Eq. 24, relative to the energy's scale
  double momentum_damping = 0;              ///< k of Eq. 33 in [0, 1], applied after every step
  std::vector<LevelSetCollider> colliders;  ///< kinematic
  double collision_stiffness = 100;         ///< a collider's weight on vertex v: this m_v / h²
  /// Coulomb's mu per collider (empty: every collider frictionless), acting after each step on
  /// the collision term's force (the optimization paper's after-solve friction).
  std::vector<double> collider_friction;
  /// A cloth against itself: its triangles and the repulsion impulses after each step
  /// (cloth_self_repulsion.h), or nothing; backward Euler only (step refuses the midpoints).
  std::optional<LocalGlobalSelfContact> self_contact;
};

/// What one step did.
struct LocalGlobalReport {
  int iterations = 0;  ///< local/global iterations, all solves together
  /// kEnergyStabilizedMidpoint: -1 toward forward Euler, +1 toward backward Euler, 0 neither.
  int blend = 0;
  double alpha = 0;                ///< α of the blend (0: the first side untouched)
  double damping_loss = 0;         ///< kinetic energy the damping removed, J
  double friction_loss = 0;        ///< kinetic energy the colliders' friction removed, J
  double self_repulsion_loss = 0;  ///< J: what the cloth's repulsion took (it may add: < 0)
  int self_impulses = 0;           ///< the cloth's repulsion impulses in the step
  double deepest = 0;              ///< the deepest vertex inside a collider at the end (m, >= 0)
};

class LocalGlobalIntegrator {
 public:
  /// `energy` must outlive the integrator; masses lumped per vertex (#V, kg, > 0 where free);
  /// `fixed` vertices keep their positions. Factors M + h² L and M + h²/4 L. OptionError for
  /// options out of bounds or a fixed vertex that does not exist.
  LocalGlobalIntegrator(const ProjectiveEnergy& energy, Eigen::VectorXd masses,
                        std::vector<int> fixed, Eigen::VectorXd rest_positions,
                        LocalGlobalOptions options);
  ~LocalGlobalIntegrator();

  const LocalGlobalOptions& options() const { return options_; }
  const Eigen::VectorXd& masses() const { return masses_; }
  const std::vector<int>& fixed() const { return fixed_; }

  /// Rest positions, zero velocities, t = 0, no tracked energy.
  FullSpaceState rest_state() const;
  /// One step of length options().time_step under gravity and `external_forces` (3#V, N, or
  /// empty); state.positions, velocities, time and (for the blend) its energy track advance.
  LocalGlobalReport step(FullSpaceState& state, LocalGlobalMethod method,
                         const Eigen::VectorXd& external_forces = {});

  /// H = ½ vᵀ M v + E(x) + the collision terms (colliders at state.time) - fᵀ (x - X), J,
  /// f = gravity plus `external_forces`.
  double total_energy(const FullSpaceState& state,
                      const Eigen::VectorXd& external_forces = {}) const;

 private:
  struct Factors;
  const ProjectiveEnergy& energy_;
  Eigen::VectorXd masses_;
  std::vector<int> fixed_;
  Eigen::VectorXd rest_;
  LocalGlobalOptions options_;
  std::unique_ptr<Factors> factors_;

  /// Gravity plus the external forces, 3#V.
  Eigen::VectorXd step_forces(const Eigen::VectorXd& external_forces) const;
  /// Runs `iterations` local/global iterations of backward Euler (midpoint = false) or the
  /// midpoint from x_n, v_n under forces f, starting at x (3#V), which it overwrites; the
  /// colliders at `time`.
  void solve(const Eigen::VectorXd& x_n, const Eigen::VectorXd& v_n, const Eigen::VectorXd& f,
             bool midpoint, int iterations, double time, Eigen::VectorXd& x) const;
  /// Factors M + h² (L + W) and M + h²/4 (L + W), W the weights of the `active` collision terms
  /// (collider c, vertex v at c #V + v).
  void factor(const std::vector<char>& active);
  /// The terms active in a step from x_n at `time` (its start) whose inertial guess is `guess`.
  std::vector<char> active_terms(const Eigen::VectorXd& x_n, const Eigen::VectorXd& guess,
                                 double time) const;
  /// Σ w (x - P(x)) over every vertex inside a collider at `time` (#V by 3, N).
  VertexRows collision_gradient(const VertexRows& x, double time) const;
  /// Adds Σ w P(x) of the step's active terms at `time` to *jp (#V by 3) when given; returns
  /// Σ w/2 |x - P(x)|² over every vertex inside and sets *deepest (m) when given.
  double add_collision_projections(const VertexRows& x, double time, VertexRows* jp,
                                   double* deepest = nullptr) const;
  /// Coulomb friction after a step ending at x (3#V) at `time`: each vertex inside a collider
  /// with mu > 0 has its slip against the collider slowed by mu h |w (x - P(x))| / m, to rest at
  /// most (v, 3#V). The kinetic energy taken (J).
  double apply_collider_friction(const Eigen::VectorXd& x, double time, Eigen::VectorXd& v) const;
  /// H's terms summed at x, v (3#V) under forces f (colliders at `time`), and a scale for the
  /// tolerance.
  double energy_at(const Eigen::VectorXd& x, const Eigen::VectorXd& v, const Eigen::VectorXd& f,
                   double time, double* scale = nullptr) const;
};

}  // namespace ramus
