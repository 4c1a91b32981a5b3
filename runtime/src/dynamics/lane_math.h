// Arithmetic on eight domains at once, one domain per SIMD lane (runtime internals): a Lane holds
// one quantity of eight domains (two AVX registers), Vec3 and Mat3 their 3-vectors and 3 by 3
// matrices, and multiply_shared the product of a matrix the eight share (a part's
// coefficients) with their eight vectors. Every operation acts lane by lane, so a lane's result
// does not depend on its neighbours. Used by lane_group_step.cpp.
#pragma once

#include <Eigen/Core>

#include <vector>

#include "../kernels/packet_register.h"

namespace ramus::lanes {

constexpr int kLanes = 8;
using Lane = Eigen::Array<double, kLanes, 1>;  ///< one value of kLanes domains
using LaneBuffer = std::vector<Lane, Eigen::aligned_allocator<Lane>>;  ///< n values of 4 domains

/// Half a Lane: one value of four domains (one AVX register). Math without shared coefficients
/// (kinematics, polar decompositions) runs on halves: a Mat3 of halves is 9 registers, not 18,
/// and far fewer values round-trip through the stack.
using Half = Eigen::Array4d;

/// A 3-vector of L's domains (L: Lane or Half).
template <class L>
struct Vec3T {
  L v[3];
  L& operator[](int i) { return v[i]; }
  const L& operator[](int i) const { return v[i]; }
};

/// A 3 by 3 matrix of L's domains, (row, col).
template <class L>
struct Mat3T {
  L m[3][3];
  L& operator()(int row, int col) { return m[row][col]; }
  const L& operator()(int row, int col) const { return m[row][col]; }
};

using Vec3 = Vec3T<Lane>;
using Mat3 = Mat3T<Lane>;

template <class L>
inline Vec3T<L> add(const Vec3T<L>& a, const Vec3T<L>& b) {
  return {{a[0] + b[0], a[1] + b[1], a[2] + b[2]}};
}

template <class L>
inline Vec3T<L> cross(const Vec3T<L>& a, const Vec3T<L>& b) {
  return {{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]}};
}

/// A x.
template <class L>
inline Vec3T<L> multiply(const Mat3T<L>& A, const Vec3T<L>& x) {
  Vec3T<L> y;
  for (int i = 0; i < 3; ++i) y[i] = A(i, 0) * x[0] + A(i, 1) * x[1] + A(i, 2) * x[2];
  return y;
}

/// Aᵀ x.
template <class L>
inline Vec3T<L> transpose_multiply(const Mat3T<L>& A, const Vec3T<L>& x) {
  Vec3T<L> y;
  for (int i = 0; i < 3; ++i) y[i] = A(0, i) * x[0] + A(1, i) * x[1] + A(2, i) * x[2];
  return y;
}

/// A B.
template <class L>
inline Mat3T<L> multiply(const Mat3T<L>& A, const Mat3T<L>& B) {
  Mat3T<L> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C(i, j) = A(i, 0) * B(0, j) + A(i, 1) * B(1, j) + A(i, 2) * B(2, j);
  return C;
}

/// Aᵀ B.
template <class L>
inline Mat3T<L> transpose_multiply(const Mat3T<L>& A, const Mat3T<L>& B) {
  Mat3T<L> C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C(i, j) = A(0, i) * B(0, j) + A(1, i) * B(1, j) + A(2, i) * B(2, j);
  return C;
}

template <class L>
inline L determinant(const Mat3T<L>& A) {
  return A(0, 0) * (A(1, 1) * A(2, 2) - A(2, 1) * A(1, 2)) -
         A(1, 0) * (A(0, 1) * A(2, 2) - A(2, 1) * A(0, 2)) +
         A(2, 0) * (A(0, 1) * A(1, 2) - A(1, 1) * A(0, 2));
}

/// A⁻¹ by cofactors (A well conditioned).
template <class L>
inline Mat3T<L> inverse(const Mat3T<L>& A) {
  Mat3T<L> C;  // the cofactors, transposed
  C(0, 0) = A(1, 1) * A(2, 2) - A(1, 2) * A(2, 1);
  C(0, 1) = A(0, 2) * A(2, 1) - A(0, 1) * A(2, 2);
  C(0, 2) = A(0, 1) * A(1, 2) - A(0, 2) * A(1, 1);
  C(1, 0) = A(1, 2) * A(2, 0) - A(1, 0) * A(2, 2);
  C(1, 1) = A(0, 0) * A(2, 2) - A(0, 2) * A(2, 0);
  C(1, 2) = A(0, 2) * A(1, 0) - A(0, 0) * A(1, 2);
  C(2, 0) = A(1, 0) * A(2, 1) - A(1, 1) * A(2, 0);
  C(2, 1) = A(0, 1) * A(2, 0) - A(0, 0) * A(2, 1);
  C(2, 2) = A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0);
  const L inverse_det = 1.0 / (A(0, 0) * C(0, 0) + A(0, 1) * C(1, 0) + A(0, 2) * C(2, 0));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C(i, j) *= inverse_det;
  return C;
}

/// w with M's skew part = w~: ½ (M21 - M12, M02 - M20, M10 - M01).
template <class L>
inline Vec3T<L> skew_vector(const Mat3T<L>& M) {
  return {{0.5 * (M(2, 1) - M(1, 2)), 0.5 * (M(0, 2) - M(2, 0)), 0.5 * (M(1, 0) - M(0, 1))}};
}

/// w~ A (w~ x = w × x).
template <class L>
inline Mat3T<L> skew_multiply(const Vec3T<L>& w, const Mat3T<L>& A) {
  Mat3T<L> C;
  for (int j = 0; j < 3; ++j) {
    C(0, j) = w[1] * A(2, j) - w[2] * A(1, j);
    C(1, j) = w[2] * A(0, j) - w[0] * A(2, j);
    C(2, j) = w[0] * A(1, j) - w[1] * A(0, j);
  }
  return C;
}

template <class L>
inline L trace(const Mat3T<L>& A) {
  return A(0, 0) + A(1, 1) + A(2, 2);
}

/// tr(S) I - S.
template <class L>
inline Mat3T<L> trace_minus(const Mat3T<L>& S) {
  Mat3T<L> C;
  const L t = trace(S);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C(i, j) = -S(i, j);
  for (int i = 0; i < 3; ++i) C(i, i) += t;
  return C;
}

// (PacketBlock<Packet4d, 4> and arrays of packets: GCC warns that __m256d's alignment attribute
// is dropped from a template argument; Eigen's own headers silence the same warning.)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wignored-attributes"
#endif

/// out[l](lane) = rows[lane][l] for l < n: one row of n values per lane of L (8 for a Lane, 4
/// for a Half) into n lane values, a packet square at a time through registers (Eigen's
/// ptranspose; n mod packet size values one by one). store_transposed is its inverse: the two
/// share the loop's shape but not its direction.
/// Scalar writes into a lane read back as a vector soon after stall the load (store
/// forwarding): this is the way in.
template <class L>
inline void load_transposed(const double* const* rows, int n, L* out) noexcept {
  using namespace Eigen::internal;
  using Packet = packet_traits<double>::type;
  constexpr int kWidth = L::SizeAtCompileTime;
  constexpr int kPacket = packet_traits<double>::size <= kWidth ? packet_traits<double>::size : 0;
  int l = 0;
  if constexpr (kPacket > 0)
    for (; l + kPacket <= n; l += kPacket)
      for (int c = 0; c < kWidth; c += kPacket) {
        PacketBlock<Packet, kPacket> block;
        for (int k = 0; k < kPacket; ++k) block.packet[k] = ploadu<Packet>(rows[c + k] + l);
        ptranspose(block);
        for (int k = 0; k < kPacket; ++k) pstoreu(out[l + k].data() + c, block.packet[k]);
      }
  for (; l < n; ++l)
    for (int lane = 0; lane < kWidth; ++lane) out[l](lane) = rows[lane][l];
}

/// rows[lane][l] = in[l](lane) for l < n and lane < count: the way out of load_transposed.
template <class L>
inline void store_transposed(const L* in, int n, double* const* rows, int count) noexcept {
  using namespace Eigen::internal;
  using Packet = packet_traits<double>::type;
  constexpr int kWidth = L::SizeAtCompileTime;
  constexpr int kPacket = packet_traits<double>::size <= kWidth ? packet_traits<double>::size : 0;
  int l = 0;
  if constexpr (kPacket > 0)
    for (; l + kPacket <= n; l += kPacket)
      for (int c = 0; c < count; c += kPacket) {
        PacketBlock<Packet, kPacket> block;
        for (int k = 0; k < kPacket; ++k) block.packet[k] = ploadu<Packet>(in[l + k].data() + c);
        ptranspose(block);
        for (int k = 0; k < kPacket && c + k < count; ++k)
          pstoreu(rows[c + k] + l, block.packet[k]);
      }
  for (; l < n; ++l)
    for (int lane = 0; lane < count; ++lane) rows[lane][l] = in[l](lane);
}

/// out[a] = Σ_b M(a, b) x[b] for a < rows, b < cols: M(a, b) = M[a * row_stride + b *
/// col_stride] is shared by the lanes, x (cols) and out (rows) are per lane. A block of kRows
/// rows keeps 2 kRows four-lane sums in registers (independent FMA chains hide the latency);
/// each x[b] is loaded once into registers for the block and each M(a, b) broadcast once for all
/// lanes.
template <int kRows>
inline void multiply_shared_rows(const double* M, int cols, Eigen::Index row_stride,
                                 Eigen::Index col_stride, const Lane* x, Lane* out) noexcept {
  using namespace Eigen::internal;
  using Packet = packet_traits<double>::type;
  constexpr int kPacket = packet_traits<double>::size;
  constexpr int kParts = kPacket <= kLanes ? kLanes / kPacket : 1;
  if constexpr (kPacket <= kLanes && kLanes % kPacket == 0) {
    // kRows by kParts sums in registers; x[b]'s packets loaded once each (in_register).
    Packet sum[kRows][kParts];
    for (int i = 0; i < kRows; ++i)
      for (int k = 0; k < kParts; ++k) sum[i][k] = pset1<Packet>(0.0);
    for (int b = 0; b < cols; ++b) {
      Packet xb[kParts];
      for (int k = 0; k < kParts; ++k) {
        xb[k] = pload<Packet>(x[b].data() + k * kPacket);
        in_register(xb[k]);
      }
      const double* column = M + b * col_stride;
      for (int i = 0; i < kRows; ++i) {
        const Packet m = pset1<Packet>(column[i * row_stride]);
        for (int k = 0; k < kParts; ++k) sum[i][k] = pmadd(m, xb[k], sum[i][k]);
      }
    }
    for (int i = 0; i < kRows; ++i)
      for (int k = 0; k < kParts; ++k) pstore(out[i].data() + k * kPacket, sum[i][k]);
  } else {
    Lane sum[kRows];
    for (int i = 0; i < kRows; ++i) sum[i] = Lane::Zero();
    for (int b = 0; b < cols; ++b) {
      const Lane& xb = x[b];
      const double* column = M + b * col_stride;
      for (int i = 0; i < kRows; ++i) sum[i] += column[i * row_stride] * xb;
    }
    for (int i = 0; i < kRows; ++i) out[i] = sum[i];
  }
}

/// Rows in blocks of six (12 sums and the two halves of x[b]: 14 of AVX2's 16 registers), four
/// where six would leave two, then the remainder as one block.
inline void multiply_shared(const double* M, int rows, int cols, Eigen::Index row_stride,
                            Eigen::Index col_stride, const Lane* x, Lane* out) noexcept {
  int a = 0;
  for (; rows - a >= 6 && rows - a != 8; a += 6)
    multiply_shared_rows<6>(M + a * row_stride, cols, row_stride, col_stride, x, out + a);
  for (; rows - a >= 4; a += 4)
    multiply_shared_rows<4>(M + a * row_stride, cols, row_stride, col_stride, x, out + a);
  const double* rest = M + a * row_stride;
  switch (rows - a) {
    case 3:
      multiply_shared_rows<3>(rest, cols, row_stride, col_stride, x, out + a);
      break;
    case 2:
      multiply_shared_rows<2>(rest, cols, row_stride, col_stride, x, out + a);
      break;
    case 1:
      multiply_shared_rows<1>(rest, cols, row_stride, col_stride, x, out + a);
      break;
    default:
      break;
  }
}

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace ramus::lanes
