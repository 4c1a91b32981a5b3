// A cloth against itself by the repulsion impulses of Bridson, Fedkiw and Anderson ("Robust
// treatment of collisions, contact and friction for cloth animation", 2002, §7.2), point against
// triangle: after the solve, each particle near a triangle it is not a corner of (the triangles'
// boxes in Eigen's KdBVH at the step's start, then the closest point) has the normal relative
// velocity of the pair changed: never closing the gap below the cloth's thickness within the step
// (an inelastic impulse, so a fast layer cannot pass through a slow one), and where closer than
// the thickness pushed apart by h k d, up to 0.1 d / h (d the overlap); the impulse shared by the
// barycentric weights (I / (1 + Σ w²), which conserves momentum; a pinned particle, or one held on
// a collider, takes none), with Coulomb friction on it;
// Gauss-Seidel sweeps over the pairs, since one push can close another gap.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace ramus {

/// The repulsion's settings.
struct ClothSelfRepulsionOptions {
  double thickness = 0.005;  ///< m: the gap the cloth keeps between its layers
  double stiffness = 1000;   ///< k (N/m) of the repulsion inside the thickness (Bridson: stretch's)
  double friction = 0;       ///< Coulomb's mu between layers
  int sweeps = 5;            ///< Gauss-Seidel sweeps over the pairs
};

/// What one application did.
struct ClothSelfRepulsionReport {
  int pairs = 0;             ///< particle-triangle pairs within reach in the step
  int impulses = 0;          ///< impulses applied, all sweeps
  double closest = 0;        ///< m: the smallest particle-triangle gap at the step's start
  double friction_work = 0;  ///< J: kinetic energy the friction took
};

/// Changes the velocities v (3#V, m/s) of equal-mass particles (`mass`, kg) of the cloth with
/// `triangles` (#F by 3) for a step of h (s) from positions x (3#V, m): a particle and a triangle
/// (not its own) whose gap is within the thickness plus what their speeds cover in the step.
/// `movable` (#V, or empty for all 1): 0 for a particle the impulses may not move (pinned, or
/// held on a collider), the other side of its pairs then taking them whole.
ClothSelfRepulsionReport apply_cloth_self_repulsion(const Eigen::MatrixX3i& triangles, double mass,
                                                    const Eigen::VectorXd& x, double h,
                                                    const ClothSelfRepulsionOptions& options,
                                                    const std::vector<double>& movable,
                                                    Eigen::VectorXd& v);

}  // namespace ramus
