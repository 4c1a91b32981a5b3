#include "ramus/precompute/cloth/spring_forces.h"

#include <Eigen/Dense>

namespace ramus {

double spring_energy(const Eigen::Vector3d& xi, const Eigen::Vector3d& xj, double rest_length,
                     double stiffness) {
  const double stretch = (xi - xj).norm() - rest_length;
  return 0.5 * stiffness * stretch * stretch;
}

Eigen::Vector3d spring_force_on_j(const Eigen::Vector3d& d, double rest_length, double stiffness) {
  const double length = d.norm();
  if (length == 0) return Eigen::Vector3d::Zero();
  return stiffness * (1 - rest_length / length) * d;
}

Eigen::Matrix3d spring_jacobian(const Eigen::Vector3d& d, double rest_length, double stiffness,
                                bool drop_compression) {
  const double length = d.norm();
  if (length == 0) return stiffness * Eigen::Matrix3d::Identity();
  // Along the spring: k d̂ d̂ᵀ; across it: k (1 - L/|d|), negative when compressed.
  const Eigen::Vector3d n = d / length;
  const Eigen::Matrix3d along = n * n.transpose();
  double across = 1 - rest_length / length;
  if (drop_compression && across < 0) across = 0;
  return stiffness * (along + across * (Eigen::Matrix3d::Identity() - along));
}

}  // namespace ramus
