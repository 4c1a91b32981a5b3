// Cloth particles against kinematic colliders by Baraff and Witkin's constraints ("Large steps in
// cloth simulation", 1998, §5.1-5.3), the mechanism the mass-spring paper (2004, §5) names for
// cloth/solid contact: a particle touching a collider (within its delta, or carried inside by the
// step's prediction) has the normal component of its Δv prescribed, so its normal velocity ends
// equal to the collider's there; the conjugate gradients solve the filtered system P A P + (I - P)
// (P removes the normal per constrained particle); a position correction y = -phi n puts it back
// on the surface; a constraint whose impulse pulls (the collider would hold the cloth) is released
// and the step re-solved; friction is Coulomb's on the solved normal impulse (after the solve, as
// Bridson, Fedkiw and Anderson's 2002 impulses).
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/precompute/cloth/cloth_self_repulsion.h"
#include "ramus/precompute/contact/level_set_collider.h"

namespace ramus {

/// A collider as the cloth meets it.
struct ClothCollider {
  LevelSetCollider collider;
  double friction = 0;  ///< Coulomb's mu
  double delta = 0;     ///< m: a particle this close to the surface at a step's start is held
};

/// One particle held on a collider for a step.
struct ParticleConstraint {
  int particle = 0;
  int collider = 0;
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< the collider's outward unit normal
  Eigen::Vector3d collider_velocity = Eigen::Vector3d::Zero();  ///< m/s, its material point's
  double phi = 0;    ///< m, the particle's distance to the surface at the step's start (< 0 inside)
  double scale = 1;  ///< kg: the filtered operator's entry on the held normal (A's diagonal there)
};

/// What catching the particles entering colliders did in a step.
struct ClothCatchReport {
  int caught = 0;            ///< particle-collider impulses
  double friction_work = 0;  ///< J
};

/// The constraints of one step and what they did.
class ClothContactConstraints {
 public:
  ClothContactConstraints() = default;
  ClothContactConstraints(std::vector<ClothCollider> colliders, int num_particles);

  bool empty() const { return colliders_.empty(); }
  const std::vector<ClothCollider>& colliders() const { return colliders_; }
  const std::vector<ParticleConstraint>& active() const { return active_; }

  /// Holds, for a step from `time`, every free particle (free[p] > 0) within a
  /// collider's delta of x (3#V) unless let go in the step before: against the collider it is
  /// deepest in (one constraint a particle). `diagonal` (3#V, kg) is A's: each hold's scale.
  void detect(const Eigen::VectorXd& x, double time, const std::vector<double>& free,
              const Eigen::VectorXd& diagonal);
  /// p ← P p: the normal component of each held particle removed (3#V).
  void filter(Eigen::VectorXd& p) const;
  /// out ← P out + s (I - P) p over the held particles, s their scales (the filtered operator's
  /// rows: with s A's diagonal, Jacobi sees held and free rows alike).
  void filter_rows(const Eigen::VectorXd& p, Eigen::VectorXd& out) const;
  /// z (3#V): the Δv each held particle's normal needs, (u·n - v·n) n (one hovering within
  /// delta keeps its gap); zero elsewhere.
  void prescribed_velocity_change(const Eigen::VectorXd& v, Eigen::VectorXd& z) const;
  /// Releases the held particles whose normal impulse (residual·n, with residual = A Δv - b in
  /// N s, 3#V) pulls them towards the collider by more than `noise` (N s: what the solve's own
  /// inexactness puts in a row); the number released.
  int release_pulling(const Eigen::VectorXd& residual, double noise);
  /// Coulomb friction on the solved velocities v (3#V) of held particles of mass `mass` (kg):
  /// the slip against the collider slowed by mu λ / m, to rest at most. The energy taken (J).
  double apply_friction(const Eigen::VectorXd& residual, double mass, Eigen::VectorXd& v) const;
  /// Which particles the self-repulsion's impulses may move (#V: 1, or 0 for a pinned one,
  /// free[p] = 0, or one held on a collider).
  void movable_particles(const std::vector<double>& free, std::vector<double>& movable) const;
  /// After the solve, each free particle not held that x + h v (3#V each) would take inside a
  /// collider at time + h: its normal velocity raised so it ends on the surface (an inelastic
  /// impulse) and its slip slowed by mu times that (Coulomb); it is held from the next step on.
  ClothCatchReport catch_entering(const Eigen::VectorXd& x, double time, double h,
                                  const std::vector<double>& free, double mass,
                                  Eigen::VectorXd& v) const;
  /// x ← x + y: each held particle inside its collider moved along its normal by -phi, onto the
  /// surface.
  void correct_positions(Eigen::VectorXd& x) const;
  /// The smallest phi of any particle of x (3#V) against any collider at `time` (m; +inf with
  /// no colliders): below 0, the deepest penetration.
  double smallest_distance(const Eigen::VectorXd& x, double time) const;

 private:
  std::vector<ClothCollider> colliders_;
  std::vector<ParticleConstraint> active_;
  std::vector<char> let_go_;  // per particle: its hold was let go in the last step
  std::vector<char> held_;    // per particle: held in this step
};

}  // namespace ramus
