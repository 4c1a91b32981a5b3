// A symmetric matrix stored for fast products y = A x with a single instance: only the lower
// triangle, cut into column blocks of width B whose rows below the block are packed in chunks of
// one SIMD packet, column after column. Each block is then one contiguous stream, and every
// loaded packet serves two FMAs (y_i += A_ic x_c and y_c += A_ic x_i): half the memory traffic
// of a full matrix-vector product, about twice Eigen's selfadjointView product on 2024 CPUs.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <vector>

namespace ramus {

class SymmetricPanelMatrix {
 public:
  SymmetricPanelMatrix() = default;
  /// Packs the lower triangle of the symmetric n by n matrix A (its upper triangle is not read).
  explicit SymmetricPanelMatrix(const Eigen::MatrixXd& A);

  /// n, and the padded length that multiply's vectors must have (a multiple of the block width).
  Eigen::Index size() const { return n_; }
  Eigen::Index padded_size() const { return padded_; }
  /// The padded length for an n by n matrix.
  static Eigen::Index padded_size_for(Eigen::Index n);
  /// Bytes of the packed storage.
  std::size_t bytes() const;

  /// y = A x for x, y of length padded_size() (x zero beyond size()). Allocates nothing.
  void multiply(const double* x, double* y) const noexcept;

 private:
  Eigen::Index n_ = 0, padded_ = 0;
  std::vector<double> diagonal_blocks_;  // B by B per block, column-major
  std::vector<double, Eigen::aligned_allocator<double>> panels_;
  std::vector<Eigen::Index> panel_offsets_;
};

}  // namespace ramus
