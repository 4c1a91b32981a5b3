// Assembles per-tet 12 by 12 matrices into one sparse matrix over the free DOFs, reusing the
// sparsity pattern: the pattern and each element's value slots are computed once, and copies of an
// assembler share the slots (a stiffness and a mass assembler cost one pattern).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <vector>

#include "ramus/precompute/fem/dof_map.h"

namespace ramus {

class TetMatrixAssembler {
 public:
  TetMatrixAssembler() = default;
  /// Pattern of every (free DOF, free DOF) pair coupled by a tet of `tets` (#T by 4).
  TetMatrixAssembler(const Eigen::MatrixX4i& tets, const DofMap& dofs);

  /// Zeroes the values, keeping the pattern.
  void set_zero();
  /// Adds the 12 by 12 element matrix of tet t (rows/cols of fixed DOFs are dropped).
  void add(int t, const Eigen::Matrix<double, 12, 12>& element_matrix);
  /// Adds a 3 by 3 block on vertex v's diagonal (rows/cols of fixed DOFs dropped; v in a tet).
  void add_vertex_block(int v, const Eigen::Matrix3d& block);
  /// The assembled matrix (num_free_dofs by num_free_dofs, compressed, symmetric storage).
  const Eigen::SparseMatrix<double>& matrix() const { return matrix_; }

 private:
  Eigen::SparseMatrix<double> matrix_;
  // #T * 144 indices into matrix_.valuePtr(), -1 when fixed; shared by copies.
  std::shared_ptr<const std::vector<int>> value_slots_;
  // #V * 9 indices of each vertex's diagonal block (column-major), -1 when fixed or unused.
  std::shared_ptr<const std::vector<int>> vertex_slots_;
};

}  // namespace ramus
