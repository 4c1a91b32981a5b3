#include "ramus/precompute/fem/tet_matrix_assembler.h"

#include <algorithm>
#include <array>

namespace ramus {

TetMatrixAssembler::TetMatrixAssembler(const Eigen::MatrixX4i& tets, const DofMap& dofs) {
  const auto num_tets = static_cast<size_t>(tets.rows());
  const int num_vertices = dofs.num_vertices();

  // Vertex adjacency (each vertex with itself and every vertex it shares a tet with), in
  // compressed rows: counted, filled, then sorted and deduplicated per vertex. This is the
  // pattern at vertex level; every (vertex, neighbour) pair is a 3 by 3 block of DOFs.
  std::vector<int> start(static_cast<size_t>(num_vertices) + 1, 0);
  for (size_t t = 0; t < num_tets; ++t)
    for (int a = 0; a < 4; ++a)
      start[static_cast<size_t>(tets(static_cast<Eigen::Index>(t), a)) + 1] += 4;
  for (size_t v = 0; v < static_cast<size_t>(num_vertices); ++v) start[v + 1] += start[v];
  std::vector<int> neighbours(static_cast<size_t>(start.back()));
  std::vector<int> fill(start.begin(), start.end() - 1);
  for (size_t t = 0; t < num_tets; ++t)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        neighbours[static_cast<size_t>(
            fill[static_cast<size_t>(tets(static_cast<Eigen::Index>(t), a))]++)] =
            tets(static_cast<Eigen::Index>(t), b);
  std::vector<int> unique_start(start.size(), 0);
  for (size_t v = 0; v < static_cast<size_t>(num_vertices); ++v) {
    const auto first = neighbours.begin() + start[v], last = neighbours.begin() + start[v + 1];
    std::sort(first, last);
    unique_start[v + 1] = static_cast<int>(std::unique(first, last) - first);
  }

  // Columns of free DOFs: for free DOF (v, i), the free DOFs of v's neighbours in order (rows
  // sorted, since neighbours are sorted and free indices increase with the DOF index).
  const int n = dofs.num_free_dofs();
  std::vector<int> outer(static_cast<size_t>(n) + 1, 0);
  for (int v = 0; v < num_vertices; ++v) {
    int rows = 0;
    for (int k = 0; k < unique_start[static_cast<size_t>(v) + 1]; ++k) {
      const int w = neighbours[static_cast<size_t>(start[static_cast<size_t>(v)] + k)];
      for (int j = 0; j < 3; ++j) rows += dofs.free_index(3 * w + j) >= 0 ? 1 : 0;
    }
    for (int i = 0; i < 3; ++i)
      if (const int col = dofs.free_index(3 * v + i); col >= 0)
        outer[static_cast<size_t>(col) + 1] = rows;
  }
  for (size_t c = 0; c < static_cast<size_t>(n); ++c) outer[c + 1] += outer[c];
  matrix_.resize(n, n);
  matrix_.resizeNonZeros(outer.back());
  std::copy(outer.begin(), outer.end(), matrix_.outerIndexPtr());
  int* inner = matrix_.innerIndexPtr();
  for (int v = 0; v < num_vertices; ++v)
    for (int i = 0; i < 3; ++i) {
      const int col = dofs.free_index(3 * v + i);
      if (col < 0) continue;
      int slot = outer[static_cast<size_t>(col)];
      for (int k = 0; k < unique_start[static_cast<size_t>(v) + 1]; ++k) {
        const int w = neighbours[static_cast<size_t>(start[static_cast<size_t>(v)] + k)];
        for (int j = 0; j < 3; ++j)
          if (const int row = dofs.free_index(3 * w + j); row >= 0) inner[slot++] = row;
      }
    }
  set_zero();

  // Each element entry's slot: found by bisection in its (short, sorted) column.
  auto slots = std::make_shared<std::vector<int>>(num_tets * 144, -1);
  const int* outer_ptr = matrix_.outerIndexPtr();
  for (size_t t = 0; t < num_tets; ++t) {
    std::array<int, 12> element_dofs{};
    for (int a = 0; a < 4; ++a)
      for (int i = 0; i < 3; ++i)
        element_dofs[static_cast<size_t>(3 * a + i)] =
            dofs.free_index(3 * tets(static_cast<Eigen::Index>(t), a) + i);
    for (size_t c = 0; c < 12; ++c) {
      const int col = element_dofs[c];
      if (col < 0) continue;
      for (size_t r = 0; r < 12; ++r) {
        const int row = element_dofs[r];
        if (row < 0) continue;
        const int* found =
            std::lower_bound(inner + outer_ptr[col], inner + outer_ptr[col + 1], row);
        (*slots)[144 * t + 12 * c + r] = static_cast<int>(found - inner);
      }
    }
  }
  // Each vertex's diagonal block: the (a, a) block of a tet holding it.
  auto diagonal = std::make_shared<std::vector<int>>(static_cast<size_t>(num_vertices) * 9, -1);
  for (size_t t = 0; t < num_tets; ++t)
    for (int a = 0; a < 4; ++a) {
      const auto v = static_cast<size_t>(tets(static_cast<Eigen::Index>(t), a));
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i)
          (*diagonal)[9 * v + static_cast<size_t>(3 * j + i)] =
              (*slots)[144 * t + static_cast<size_t>(12 * (3 * a + j) + 3 * a + i)];
    }
  value_slots_ = std::move(slots);
  vertex_slots_ = std::move(diagonal);
}

void TetMatrixAssembler::add_vertex_block(int v, const Eigen::Matrix3d& block) {
  const int* slots = vertex_slots_->data() + 9 * static_cast<size_t>(v);
  double* values = matrix_.valuePtr();
  for (int k = 0; k < 9; ++k)
    if (slots[k] >= 0) values[slots[k]] += block.data()[k];
}

void TetMatrixAssembler::set_zero() {
  std::fill(matrix_.valuePtr(), matrix_.valuePtr() + matrix_.nonZeros(), 0.0);
}

void TetMatrixAssembler::add(int t, const Eigen::Matrix<double, 12, 12>& element_matrix) {
  const int* slots = value_slots_->data() + 144 * static_cast<size_t>(t);
  double* values = matrix_.valuePtr();
  for (int k = 0; k < 144; ++k)
    if (slots[k] >= 0) values[slots[k]] += element_matrix.data()[k];
}

}  // namespace ramus
