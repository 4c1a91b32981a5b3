#include "ramus/runtime/dynamics/system_force.h"

namespace ramus {

SystemForceScratch::SystemForceScratch(int r)
    : kron_q_omega(Eigen::VectorXd::Zero(3 * r)),
      w7_product(Eigen::VectorXd::Zero(3 * r)),
      w6_qdot(Eigen::VectorXd::Zero(3 * r)),
      w6_q(Eigen::VectorXd::Zero(3 * r)) {}

// Eq. 14, term by term, with v_l the 3-block l of a 3r vector v:
//   W1_lᵀ a, W2_lᵀ α, W3_l and qᵀ W4_l     columns / entries of W1, W2, W3 and (W4ᵀ q)
//   ωᵀ W5_l ω                               the 3 by 3 block l of W5, directly
//   2 q̇ᵀ W6_l ω = (W6ᵀ 2q̇)_l · ω           qᵀ W6_l α = (W6ᵀ q)_l · α
//   (ω ωᵀ) : Σ_p W7_lp q_p = ωᵀ Σ_p W7_lp (q_p ω) = (W7 (q ⊗ ω))_l · ω
// Matrix-vector products with W7 (3r by 3r), W6ᵀ (twice, 3r by r) and W4: about 21 r^2 flops.
void system_force(const SystemForceIntegrals& w, const Eigen::Ref<const Eigen::VectorXd>& q,
                  const Eigen::Ref<const Eigen::VectorXd>& qdot, const FrameKinematics& frame,
                  SystemForceScratch& scratch, Eigen::Ref<Eigen::VectorXd> force,
                  const UniformScale& scale) noexcept {
  const Eigen::Index r = w.w3.size();
  if (r == 0) return;
  // W1 scales as s^3/2 and W2, W3, W5 as s^5/2: folded into the frame's vectors.
  const Eigen::Vector3d a = scale.load * frame.linear_acceleration;
  const Eigen::Vector3d& omega = frame.angular_velocity;
  const Eigen::Vector3d& alpha = frame.angular_acceleration;
  const Eigen::Vector3d alpha_moment = scale.moment * alpha;
  const Eigen::Vector3d omega_moment = scale.moment * omega;
  const double omega_squared = omega.squaredNorm();

  for (Eigen::Index p = 0; p < r; ++p) scratch.kron_q_omega.segment<3>(3 * p) = q(p) * omega;
  scratch.w7_product.noalias() = w.w7 * scratch.kron_q_omega;
  scratch.w6_qdot.noalias() = w.w6.transpose() * qdot;
  scratch.w6_q.noalias() = w.w6.transpose() * q;

  // Linear and centrifugal terms first: force = W1ᵀ a - W2ᵀ α + |ω|² (W3 + W4ᵀ q).
  force.noalias() = w.w1.transpose() * a;
  force.noalias() -= w.w2.transpose() * alpha_moment;
  force.noalias() += omega_squared * (w.w4.transpose() * q);
  force += (omega_squared * scale.moment) * w.w3;

  for (Eigen::Index l = 0; l < r; ++l) {
    const Eigen::Vector3d w5_omega = w.w5.middleCols<3>(3 * l) * omega_moment;
    const Eigen::Vector3d coriolis_and_w7 =
        w5_omega + 2.0 * scratch.w6_qdot.segment<3>(3 * l) + scratch.w7_product.segment<3>(3 * l);
    force(l) -= coriolis_and_w7.dot(omega) + scratch.w6_q.segment<3>(3 * l).dot(alpha);
  }
}

}  // namespace ramus
