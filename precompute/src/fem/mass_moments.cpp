#include "ramus/precompute/fem/mass_moments.h"

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

MassMoments tet_mass_moments(const Eigen::MatrixX3d& X, const Eigen::MatrixX4i& tets,
                             const std::vector<Material>& materials, const std::vector<int>& which,
                             const Eigen::Vector3d& reference) {
  MassMoments m;
  const auto count = which.empty() ? static_cast<std::size_t>(tets.rows()) : which.size();
  for (std::size_t k = 0; k < count; ++k) {
    const int t = which.empty() ? static_cast<int>(k) : which[k];
    const double mass =
        materials[static_cast<std::size_t>(t)].density * signed_tet_volume(X, tets, t);
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    Eigen::Matrix3d outer = Eigen::Matrix3d::Zero();
    for (int a = 0; a < 4; ++a) {
      const Eigen::Vector3d y = X.row(tets(t, a)).transpose() - reference;
      sum += y;
      outer += y * y.transpose();
    }
    m.mass += mass;
    m.first += mass / 4.0 * sum;
    m.second += mass / 20.0 * (outer + sum * sum.transpose());
  }
  return m;
}

}  // namespace ramus
