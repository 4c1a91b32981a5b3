#include "symmetric_panel_matrix.h"

namespace ramus {

namespace {

using Packet = Eigen::internal::packet_traits<double>::type;
constexpr int kPacket = Eigen::internal::packet_traits<double>::size;
// Block width: 8 columns with 512-bit packets, else 4 (measured on AVX-512 and SSE2 builds).
constexpr int kBlock = kPacket >= 8 ? 8 : 4;

}  // namespace

Eigen::Index SymmetricPanelMatrix::padded_size_for(Eigen::Index n) {
  return (n + kBlock - 1) / kBlock * kBlock;
}

std::size_t SymmetricPanelMatrix::bytes() const {
  return sizeof(double) * (diagonal_blocks_.size() + panels_.size()) +
         sizeof(Eigen::Index) * panel_offsets_.size();
}

SymmetricPanelMatrix::SymmetricPanelMatrix(const Eigen::MatrixXd& A)
    : n_(A.rows()), padded_((A.rows() + kBlock - 1) / kBlock * kBlock) {
  const Eigen::Index blocks = (n_ + kBlock - 1) / kBlock;
  diagonal_blocks_.assign(static_cast<size_t>(blocks * kBlock * kBlock), 0.0);
  panel_offsets_.assign(static_cast<size_t>(blocks + 1), 0);
  auto entry = [&](Eigen::Index row, Eigen::Index col) {
    return row < n_ && col < n_ ? A(std::max(row, col), std::min(row, col)) : 0.0;
  };
  Eigen::Index total = 0;
  for (Eigen::Index b = 0; b < blocks; ++b) {
    const Eigen::Index first_row = (b + 1) * kBlock;
    const Eigen::Index rows =
        first_row < padded_ ? (padded_ - first_row + kPacket - 1) / kPacket * kPacket : 0;
    total += rows * kBlock;
  }
  panels_.reserve(static_cast<size_t>(total));
  for (Eigen::Index b = 0; b < blocks; ++b) {
    const Eigen::Index j = b * kBlock;
    for (int c = 0; c < kBlock; ++c)
      for (int r = 0; r < kBlock; ++r)
        diagonal_blocks_[static_cast<size_t>(b * kBlock * kBlock + c * kBlock + r)] =
            entry(j + r, j + c);
    panel_offsets_[static_cast<size_t>(b)] = static_cast<Eigen::Index>(panels_.size());
    for (Eigen::Index i = j + kBlock; i < padded_; i += kPacket)
      for (int c = 0; c < kBlock; ++c)
        for (int k = 0; k < kPacket; ++k) panels_.push_back(entry(i + k, j + c));
  }
  panel_offsets_[static_cast<size_t>(blocks)] = static_cast<Eigen::Index>(panels_.size());
}

void SymmetricPanelMatrix::multiply(const double* x, double* y) const noexcept {
  using namespace Eigen::internal;
  constexpr int kPacketsPerBlock = kBlock / kPacket;
  for (Eigen::Index i = 0; i < padded_; ++i) y[i] = 0.0;
  const Eigen::Index blocks = static_cast<Eigen::Index>(panel_offsets_.size()) - 1;
  for (Eigen::Index b = 0; b < blocks; ++b) {
    const Eigen::Index j = b * kBlock;
    // The diagonal block, stored full (both triangles; zero beyond n): y_block += D x_block.
    const double* d = diagonal_blocks_.data() + b * kBlock * kBlock;
    Packet yb[kPacketsPerBlock];
    for (int k = 0; k < kPacketsPerBlock; ++k) yb[k] = ploadu<Packet>(y + j + k * kPacket);
    Packet xc[kBlock], t[kBlock];
    for (int c = 0; c < kBlock; ++c) {
      xc[c] = pset1<Packet>(x[j + c]);
      t[c] = pset1<Packet>(0.0);
      for (int k = 0; k < kPacketsPerBlock; ++k)
        yb[k] = pmadd(ploadu<Packet>(d + c * kBlock + k * kPacket), xc[c], yb[k]);
    }
    for (int k = 0; k < kPacketsPerBlock; ++k) pstoreu(y + j + k * kPacket, yb[k]);
    const double* a = panels_.data() + panel_offsets_[static_cast<size_t>(b)];
    for (Eigen::Index i = j + kBlock; i < padded_; i += kPacket, a += kBlock * kPacket) {
      const Packet xi = ploadu<Packet>(x + i);
      // Two independent partial sums: one FMA chain into y_i would be latency-bound.
      Packet s0 = ploadu<Packet>(y + i), s1 = pset1<Packet>(0.0);
      for (int c = 0; c < kBlock; c += 2) {
        const Packet a0 = pload<Packet>(a + c * kPacket), a1 = pload<Packet>(a + (c + 1) * kPacket);
        s0 = pmadd(a0, xc[c], s0);
        s1 = pmadd(a1, xc[c + 1], s1);
        t[c] = pmadd(a0, xi, t[c]);
        t[c + 1] = pmadd(a1, xi, t[c + 1]);
      }
      pstoreu(y + i, padd(s0, s1));
    }
    for (int c = 0; c < kBlock; ++c) y[j + c] += predux(t[c]);
  }
}

}  // namespace ramus
