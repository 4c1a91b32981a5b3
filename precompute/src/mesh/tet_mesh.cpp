#include "ramus/precompute/mesh/tet_mesh.h"

#include <Eigen/Dense>

namespace ramus {

double signed_tet_volume(const Eigen::MatrixX3d& X, const Eigen::MatrixX4i& tets, int t) {
  const Eigen::Vector3d x0 = X.row(tets(t, 0));
  Eigen::Matrix3d D;
  for (int c = 0; c < 3; ++c) D.col(c) = X.row(tets(t, c + 1)).transpose() - x0;
  return D.determinant() / 6.0;
}

}  // namespace ramus
