// Degrees of freedom of a vertex mesh (3 per vertex, x y z interleaved) and which are free.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace ramus {

/// Flattens #V by 3 positions into a 3#V vector (x0 y0 z0 x1 ...).
Eigen::VectorXd flatten_positions(const Eigen::MatrixX3d& positions);

/// Inverse of flatten_positions: 3#V vector to #V by 3.
Eigen::MatrixX3d unflatten_positions(const Eigen::VectorXd& flat);

/// Maps the 3#V mesh DOFs to the compact list of free DOFs (vertices listed as fixed drop out).
class DofMap {
 public:
  DofMap() = default;
  /// Throws MeshError when a fixed vertex index is outside [0, num_vertices).
  DofMap(int num_vertices, const std::vector<int>& fixed_vertices);

  int num_vertices() const { return num_vertices_; }
  int num_dofs() const { return 3 * num_vertices_; }
  int num_free_dofs() const { return static_cast<int>(free_dofs_.size()); }
  /// Index of mesh DOF `dof` among the free DOFs, or -1 when it is fixed.
  int free_index(int dof) const { return free_index_[static_cast<size_t>(dof)]; }
  bool is_vertex_fixed(int v) const { return free_index_[3 * static_cast<size_t>(v)] < 0; }
  /// Free DOF k -> mesh DOF (length num_free_dofs()).
  const std::vector<int>& free_dofs() const { return free_dofs_; }
  const std::vector<int>& fixed_vertices() const { return fixed_vertices_; }

  /// The free entries of a 3#V vector (length num_free_dofs()).
  Eigen::VectorXd restrict_to_free(const Eigen::VectorXd& full) const;
  /// Writes the free entries of `full` from `free`, leaving fixed entries untouched.
  void scatter_free(const Eigen::VectorXd& free, Eigen::VectorXd& full) const;

 private:
  int num_vertices_ = 0;
  std::vector<int> free_index_;
  std::vector<int> free_dofs_;
  std::vector<int> fixed_vertices_;
};

}  // namespace ramus
