// One spring of a mass-spring system ("Implementing the implicit Euler method for mass-spring
// systems", 2004, §2.2): its energy, its force and the Jacobians of that force. With
// d = x_i - x_j, rest length L and stiffness k:
//   E = k/2 (|d| - L)²,  f_j = k (1 - L/|d|) d = -f_i  (the paper's f_ij, added to f_j),
//   J_x = df_j/dx_i = k [d̂ d̂ᵀ + (1 - L/|d|) (I - d̂ d̂ᵀ)],  df_i/dx_i = -J_x,
// and the damping force kd (v_i - v_j) on j, J_v = kd I.
#pragma once

#include <Eigen/Core>

namespace ramus {

/// E = k/2 (|x_i - x_j| - L)² (J): positions in m, L in m, k in N/m.
double spring_energy(const Eigen::Vector3d& xi, const Eigen::Vector3d& xj, double rest_length,
                     double stiffness);

/// f_j = k (1 - L/|d|) d with d = x_i - x_j (N): the force on particle j; particle i feels -f_j.
/// Zero for |d| = 0.
Eigen::Vector3d spring_force_on_j(const Eigen::Vector3d& d, double rest_length, double stiffness);

/// J_x = df_j/dx_i (N/m), symmetric. With `drop_compression`, the transverse term
/// (1 - L/|d|)(I - d̂ d̂ᵀ) is left out where negative (a compressed spring), so every J_x is
/// positive semi-definite and the implicit system stays positive definite for conjugate gradients
/// (Choi and Ko, "Stable but responsive cloth", 2002; the paper's §4.4). Without it, the exact
/// derivative.
Eigen::Matrix3d spring_jacobian(const Eigen::Vector3d& d, double rest_length, double stiffness,
                                bool drop_compression);

/// |(|d| - L)| / L: how far a spring is stretched or compressed, relative to its rest length.
inline double spring_strain(const Eigen::Vector3d& d, double rest_length) {
  return std::abs(d.norm() - rest_length) / rest_length;
}

}  // namespace ramus
