#include "ramus/precompute/fem/dof_map.h"

#include <algorithm>
#include <string>

#include "ramus/error.h"

namespace ramus {

Eigen::VectorXd flatten_positions(const Eigen::MatrixX3d& positions) {
  Eigen::VectorXd flat(3 * positions.rows());
  for (Eigen::Index v = 0; v < positions.rows(); ++v) flat.segment<3>(3 * v) = positions.row(v);
  return flat;
}

Eigen::MatrixX3d unflatten_positions(const Eigen::VectorXd& flat) {
  Eigen::MatrixX3d positions(flat.size() / 3, 3);
  for (Eigen::Index v = 0; v < positions.rows(); ++v) positions.row(v) = flat.segment<3>(3 * v);
  return positions;
}

DofMap::DofMap(int num_vertices, const std::vector<int>& fixed_vertices)
    : num_vertices_(num_vertices), free_index_(3 * static_cast<size_t>(num_vertices), 0) {
  for (int v : fixed_vertices) {
    if (v < 0 || v >= num_vertices)
      throw MeshError("fixed vertex " + std::to_string(v) + " is out of range (mesh has " +
                          std::to_string(num_vertices) + " vertices)",
                      -1, v);
    for (int c = 0; c < 3; ++c) free_index_[3 * static_cast<size_t>(v) + c] = -1;
  }
  for (int dof = 0; dof < 3 * num_vertices; ++dof) {
    if (free_index_[static_cast<size_t>(dof)] < 0) continue;
    free_index_[static_cast<size_t>(dof)] = static_cast<int>(free_dofs_.size());
    free_dofs_.push_back(dof);
  }
  for (int v = 0; v < num_vertices; ++v)
    if (is_vertex_fixed(v)) fixed_vertices_.push_back(v);
}

Eigen::VectorXd DofMap::restrict_to_free(const Eigen::VectorXd& full) const {
  Eigen::VectorXd free(num_free_dofs());
  for (int k = 0; k < num_free_dofs(); ++k) free(k) = full(free_dofs_[static_cast<size_t>(k)]);
  return free;
}

void DofMap::scatter_free(const Eigen::VectorXd& free, Eigen::VectorXd& full) const {
  for (int k = 0; k < num_free_dofs(); ++k) full(free_dofs_[static_cast<size_t>(k)]) = free(k);
}

}  // namespace ramus
