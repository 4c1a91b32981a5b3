// The momentum-preserving damping the stabilizing-integrators paper (2018, §4.3, Eq. 32-33)
// takes from Position Based Dynamics: each free vertex's velocity loses a share k of its
// difference from the best-fit rigid motion v_cm + ω × (x_i - x_cm), so the linear and angular
// momentum of the free vertices stay as they were and only deformation is damped.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace ramus {

/// Momentum (kg m/s) and angular momentum about the origin (kg m²/s) of point masses (#V, kg)
/// at x with velocities v (flat 3#V vectors).
struct Momenta {
  Eigen::Vector3d linear = Eigen::Vector3d::Zero(), angular = Eigen::Vector3d::Zero();
};
Momenta momenta(const Eigen::VectorXd& masses, const Eigen::VectorXd& x, const Eigen::VectorXd& v);

/// Applies v_i -= k (v_i - v_cm - ω × r_i) to every vertex not in `fixed` (sorted), the rigid
/// fit over those vertices with lumped `masses` (#V, kg); k in [0, 1]. Returns the kinetic energy
/// removed, ½ Σ m_i (|v_i|² before - after), J (>= 0).
double damp_non_rigid_velocity(const Eigen::VectorXd& masses, const std::vector<int>& fixed,
                               const Eigen::VectorXd& x, double k, Eigen::VectorXd& v);

}  // namespace ramus
