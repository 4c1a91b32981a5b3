#include "ramus/precompute/fem/tet_matrix_assembler.h"

#include <algorithm>

namespace ramus {

TetMatrixAssembler::TetMatrixAssembler(const Eigen::MatrixX4i& tets, const DofMap& dofs) {
  const auto num_tets = static_cast<size_t>(tets.rows());
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(num_tets * 144);
  std::vector<int> element_dofs(num_tets * 12);
  for (size_t t = 0; t < num_tets; ++t)
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i)
        element_dofs[12 * t + 3 * a + i] =
            dofs.free_index(3 * tets(static_cast<Eigen::Index>(t), a) + i);
  for (size_t t = 0; t < num_tets; ++t)
    for (int r = 0; r < 12; ++r)
      for (int c = 0; c < 12; ++c) {
        const int row = element_dofs[12 * t + r], col = element_dofs[12 * t + c];
        if (row >= 0 && col >= 0) triplets.emplace_back(row, col, 0.0);
      }
  matrix_.resize(dofs.num_free_dofs(), dofs.num_free_dofs());
  matrix_.setFromTriplets(triplets.begin(), triplets.end());
  matrix_.makeCompressed();

  value_slots_.assign(num_tets * 144, -1);
  const int* outer = matrix_.outerIndexPtr();
  const int* inner = matrix_.innerIndexPtr();
  for (size_t t = 0; t < num_tets; ++t)
    for (int c = 0; c < 12; ++c) {
      const int col = element_dofs[12 * t + c];
      if (col < 0) continue;
      for (int r = 0; r < 12; ++r) {
        const int row = element_dofs[12 * t + r];
        if (row < 0) continue;
        const int* found = std::lower_bound(inner + outer[col], inner + outer[col + 1], row);
        value_slots_[144 * t + 12 * static_cast<size_t>(c) + r] = static_cast<int>(found - inner);
      }
    }
}

void TetMatrixAssembler::set_zero() {
  std::fill(matrix_.valuePtr(), matrix_.valuePtr() + matrix_.nonZeros(), 0.0);
}

void TetMatrixAssembler::add(int t, const Eigen::Matrix<double, 12, 12>& element_matrix) {
  const int* slots = value_slots_.data() + 144 * static_cast<size_t>(t);
  double* values = matrix_.valuePtr();
  for (int k = 0; k < 144; ++k)
    if (slots[k] >= 0) values[slots[k]] += element_matrix.data()[k];
}

}  // namespace ramus
