#include "ramus/precompute/mesh/tet_mesh.h"

#include <Eigen/Dense>

namespace ramus {

double signed_tet_volume(const Eigen::MatrixX3d& X, const Eigen::MatrixX4i& tets, int t) {
  const Eigen::Vector3d x0 = X.row(tets(t, 0));
  Eigen::Matrix3d D;
  for (int c = 0; c < 3; ++c) D.col(c) = X.row(tets(t, c + 1)).transpose() - x0;
  return D.determinant() / 6.0;
}

TetMesh placed_copies(const TetMesh& mesh, const std::vector<Eigen::Isometry3d>& poses) {
  const auto copies = static_cast<Eigen::Index>(poses.size());
  const Eigen::Index V = mesh.rest_positions.rows(), T = mesh.tets.rows();
  TetMesh placed;
  placed.label_names = mesh.label_names;
  placed.read_notes = mesh.read_notes;
  placed.rest_positions.resize(copies * V, 3);
  placed.tets.resize(copies * T, 4);
  if (mesh.labels.size() > 0) placed.labels.resize(copies * mesh.labels.size());
  if (mesh.vertex_flags.size() > 0) placed.vertex_flags.resize(copies * mesh.vertex_flags.size());
  for (Eigen::Index k = 0; k < copies; ++k) {
    const Eigen::Isometry3d& pose = poses[static_cast<std::size_t>(k)];
    placed.rest_positions.middleRows(k * V, V) =
        ((mesh.rest_positions * pose.linear().transpose()).rowwise() +
         pose.translation().transpose());
    placed.tets.middleRows(k * T, T) = mesh.tets.array() + static_cast<int>(k * V);
    if (mesh.labels.size() > 0) placed.labels.segment(k * T, T) = mesh.labels;
    if (mesh.vertex_flags.size() > 0) placed.vertex_flags.segment(k * V, V) = mesh.vertex_flags;
  }
  return placed;
}

}  // namespace ramus
