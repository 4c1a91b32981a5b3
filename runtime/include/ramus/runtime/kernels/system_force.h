// Reduced system forces of a domain in an accelerating, rotating frame (substructuring paper,
// Eq. 13-14): f_sys = -∫ρ Uᵀ a(X) dV with a(X) the world acceleration of the material point
// (Eq. 12) minus the part Ẍ = U q̈ (that one stays on the left-hand side as the mass matrix).
// O(r^2), allocation-free, noexcept: it runs inside the real-time step.
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/data/uniform_scale.h"

namespace ramus {

/// Kinematics of a frame F_i in the world, all expressed in F_i's own axes.
struct FrameKinematics {
  Eigen::Vector3d linear_acceleration = Eigen::Vector3d::Zero();   ///< a_i (m/s^2)
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();      ///< ω_i (rad/s)
  Eigen::Vector3d angular_acceleration = Eigen::Vector3d::Zero();  ///< α_i (rad/s^2)
};

/// Scratch of system_force: sized for r by the constructor, reused without allocation.
struct SystemForceScratch {
  SystemForceScratch() = default;
  explicit SystemForceScratch(int r);
  Eigen::VectorXd kron_q_omega, w7_product, w6_qdot, w6_q;  ///< 3r each
  Eigen::VectorXd monomials;                                ///< 13 + 10r: SystemForceMatrix's z
};

/// f_sys (r) of Eq. 14 for reduced coordinates q and velocities qdot (r each) of a domain whose
/// frame moves with `frame`; r = w.w3.size(), and r = 0 leaves `force` alone. `force` must have
/// r entries and `scratch` be SystemForceScratch(r) (both are overwritten); nothing is allocated.
/// `scale`: the domain places its part at that uniform scale (W1 by s^3/2, W2, W3, W5 by s^5/2).
void system_force(const SystemForceIntegrals& w, const Eigen::Ref<const Eigen::VectorXd>& q,
                  const Eigen::Ref<const Eigen::VectorXd>& qdot, const FrameKinematics& frame,
                  SystemForceScratch& scratch, Eigen::Ref<Eigen::VectorXd> force,
                  const UniformScale& scale = UniformScale()) noexcept;

/// Eq. 14 as one matrix-vector product, the form the step uses: f_sys is linear in the
/// monomials z = (s^3/2 a, s^5/2 α, s^5/2 |ω|², |ω|² q, s^5/2 ω∘ω, vec(2 q̇ ωᵀ + q αᵀ), q ⊗ ω∘ω)
/// (13 + 10r numbers; ω∘ω = (ω0², ω1², ω2², ω0ω1, ω0ω2, ω1ω2)), so f_sys = B z with B (r by
/// 13 + 10r) packed once from W1..W7: one product of contiguous r-columns, about 10 r² flops.
class SystemForceMatrix {
 public:
  SystemForceMatrix() = default;
  explicit SystemForceMatrix(const SystemForceIntegrals& w);
  int r() const { return static_cast<int>(transposed_.cols()); }
  const Eigen::MatrixXd& transposed() const { return transposed_; }  ///< Bᵀ: 13 + 10r by r
  /// As system_force (same arguments and scratch), from B.
  void evaluate(const Eigen::Ref<const Eigen::VectorXd>& q,
                const Eigen::Ref<const Eigen::VectorXd>& qdot, const FrameKinematics& frame,
                SystemForceScratch& scratch, Eigen::Ref<Eigen::VectorXd> force,
                const UniformScale& scale = UniformScale()) const noexcept;

 private:
  Eigen::MatrixXd transposed_;
};

}  // namespace ramus
