#include "ramus/runtime/kernels/system_force.h"

#include "packet_register.h"

namespace ramus {

SystemForceScratch::SystemForceScratch(int r)
    : kron_q_omega(Eigen::VectorXd::Zero(3 * r)),
      w7_product(Eigen::VectorXd::Zero(3 * r)),
      w6_qdot(Eigen::VectorXd::Zero(3 * r)),
      w6_q(Eigen::VectorXd::Zero(3 * r)),
      monomials(Eigen::VectorXd::Zero(13 + 10 * r)) {}

namespace {

// out[i] = Bᵀ.col(first + i) · z for i < 4: four independent FMA chains per packet of z, each
// packet of z loaded once into a register (one dot product at a time was one chain, bound by
// the FMA latency: 2.6 % of the oak's step in the branches' r = 20 system force).
void four_dot_products(const Eigen::MatrixXd& Bt, Eigen::Index first, const double* z,
                       double* out) noexcept {
  using namespace Eigen::internal;
  using Packet = packet_traits<double>::type;
  constexpr int kPacket = packet_traits<double>::size;
  const Eigen::Index n = Bt.rows();
  const double* column[4];
  for (int i = 0; i < 4; ++i) column[i] = Bt.col(first + i).data();
  Packet sum[4];
  for (int i = 0; i < 4; ++i) sum[i] = pset1<Packet>(0.0);
  Eigen::Index b = 0;
  for (; b + kPacket <= n; b += kPacket) {
    Packet zb = ploadu<Packet>(z + b);
    in_register(zb);
    for (int i = 0; i < 4; ++i) sum[i] = pmadd(ploadu<Packet>(column[i] + b), zb, sum[i]);
  }
  for (int i = 0; i < 4; ++i) {
    double total = predux(sum[i]);
    for (Eigen::Index c = b; c < n; ++c) total += column[i][c] * z[c];
    out[i] = total;
  }
}

}  // namespace

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

namespace {

// ω∘ω's pairs (a, b): the squares, then the products counted twice in ωᵀ M ω.
constexpr int kPairA[6] = {0, 1, 2, 0, 0, 1};
constexpr int kPairB[6] = {0, 1, 2, 1, 2, 2};

// Σ_ab M(a, b) ω_a ω_b = Σ_k coefficient_k (ω∘ω)_k: M(a, a), then M(a, b) + M(b, a).
double pair_coefficient(const Eigen::Ref<const Eigen::Matrix3d>& M, int k) {
  const int a = kPairA[k], b = kPairB[k];
  return a == b ? M(a, a) : M(a, b) + M(b, a);
}

}  // namespace

// B's columns, block by block (z's order): W1ᵀ; -W2ᵀ; W3; W4ᵀ; -(W5_l's pairs); -W6 regrouped,
// B(l, 3p + a) = -W6(p, 3l + a); -(W7_lp's pairs), B(l, 6p + k). Stored as Bᵀ.
SystemForceMatrix::SystemForceMatrix(const SystemForceIntegrals& w) {
  const Eigen::Index r = w.w3.size();
  Eigen::MatrixXd B = Eigen::MatrixXd::Zero(r, 13 + 10 * r);
  if (r > 0) {
    B.middleCols<3>(0) = w.w1.transpose();
    B.middleCols<3>(3) = -w.w2.transpose();
    B.col(6) = w.w3;
    B.middleCols(7, r) = w.w4.transpose();
  }
  for (Eigen::Index l = 0; l < r; ++l) {
    const Eigen::Matrix3d w5 = w.w5.middleCols<3>(3 * l);
    for (int k = 0; k < 6; ++k) B(l, 7 + r + k) = -pair_coefficient(w5, k);
    for (Eigen::Index p = 0; p < r; ++p) {
      for (int a = 0; a < 3; ++a) B(l, 13 + r + 3 * p + a) = -w.w6(p, 3 * l + a);
      const Eigen::Matrix3d w7 = w.w7.block<3, 3>(3 * l, 3 * p);
      for (int k = 0; k < 6; ++k) B(l, 13 + 4 * r + 6 * p + k) = -pair_coefficient(w7, k);
    }
  }
  transposed_ = B.transpose();
}

void SystemForceMatrix::evaluate(const Eigen::Ref<const Eigen::VectorXd>& q,
                                 const Eigen::Ref<const Eigen::VectorXd>& qdot,
                                 const FrameKinematics& frame, SystemForceScratch& scratch,
                                 Eigen::Ref<Eigen::VectorXd> force,
                                 const UniformScale& scale) const noexcept {
  const Eigen::Index r = transposed_.cols();
  if (r == 0) return;
  const Eigen::Vector3d& omega = frame.angular_velocity;
  const Eigen::Vector3d& alpha = frame.angular_acceleration;
  const double omega_squared = omega.squaredNorm();
  Eigen::Matrix<double, 6, 1> pairs;
  for (int k = 0; k < 6; ++k) pairs(k) = omega(kPairA[k]) * omega(kPairB[k]);
  // z, block by block.
  double* z = scratch.monomials.data();
  Eigen::Map<Eigen::Vector3d>(z + 0) = scale.load * frame.linear_acceleration;
  Eigen::Map<Eigen::Vector3d>(z + 3) = scale.moment * alpha;
  z[6] = scale.moment * omega_squared;
  Eigen::Map<Eigen::VectorXd>(z + 7, r) = omega_squared * q;
  Eigen::Map<Eigen::Matrix<double, 6, 1>>(z + 7 + r) = scale.moment * pairs;
  for (Eigen::Index p = 0; p < r; ++p) {
    Eigen::Map<Eigen::Vector3d>(z + 13 + r + 3 * p) = (2.0 * qdot(p)) * omega + q(p) * alpha;
    Eigen::Map<Eigen::Matrix<double, 6, 1>>(z + 13 + 4 * r + 6 * p) = q(p) * pairs;
  }
  // f_l = (row l of B) · z: dot products over contiguous columns of Bᵀ (faster than the
  // matrix-vector product at a leaf's r: measured 6 % of the oak's step), four at a time.
  Eigen::Index l = 0;
  for (; l + 4 <= r; l += 4) four_dot_products(transposed_, l, z, force.data() + l);
  for (; l < r; ++l) force(l) = transposed_.col(l).dot(scratch.monomials);
}

}  // namespace ramus
