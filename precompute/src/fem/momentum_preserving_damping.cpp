#include "ramus/precompute/fem/momentum_preserving_damping.h"

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <algorithm>

namespace ramus {

Momenta momenta(const Eigen::VectorXd& masses, const Eigen::VectorXd& x, const Eigen::VectorXd& v) {
  Momenta m;
  for (Eigen::Index i = 0; i < masses.size(); ++i) {
    const Eigen::Vector3d p = masses(i) * v.segment<3>(3 * i);
    m.linear += p;
    m.angular += Eigen::Vector3d(x.segment<3>(3 * i)).cross(p);
  }
  return m;
}

double damp_non_rigid_velocity(const Eigen::VectorXd& masses, const std::vector<int>& fixed,
                               const Eigen::VectorXd& x, double k, Eigen::VectorXd& v) {
  if (k <= 0) return 0;
  std::vector<char> is_fixed(static_cast<size_t>(masses.size()), 0);
  for (int f : fixed) is_fixed[static_cast<size_t>(f)] = 1;
  // Centre of mass and its velocity over the free vertices.
  double mass = 0;
  Eigen::Vector3d center = Eigen::Vector3d::Zero(), velocity = Eigen::Vector3d::Zero();
  for (Eigen::Index i = 0; i < masses.size(); ++i) {
    if (is_fixed[static_cast<size_t>(i)]) continue;
    mass += masses(i);
    center += masses(i) * x.segment<3>(3 * i);
    velocity += masses(i) * v.segment<3>(3 * i);
  }
  if (!(mass > 0)) return 0;
  center /= mass;
  velocity /= mass;
  // Angular momentum and inertia about the centre; ω = I⁻¹ L (least squares when I is singular,
  // as for vertices on a line).
  Eigen::Vector3d angular = Eigen::Vector3d::Zero();
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();
  for (Eigen::Index i = 0; i < masses.size(); ++i) {
    if (is_fixed[static_cast<size_t>(i)]) continue;
    const Eigen::Vector3d r = x.segment<3>(3 * i) - center;
    angular += masses(i) * r.cross(Eigen::Vector3d(v.segment<3>(3 * i)));
    inertia += masses(i) * (r.squaredNorm() * Eigen::Matrix3d::Identity() - r * r.transpose());
  }
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen;
  eigen.computeDirect(inertia);
  const Eigen::Vector3d values = eigen.eigenvalues();
  Eigen::Vector3d inverse = Eigen::Vector3d::Zero();
  for (int axis = 0; axis < 3; ++axis)
    if (values(axis) > 1e-12 * values.maxCoeff()) inverse(axis) = 1 / values(axis);
  const Eigen::Vector3d omega =
      eigen.eigenvectors() * inverse.asDiagonal() * eigen.eigenvectors().transpose() * angular;
  // Each free vertex loses k of its non-rigid velocity.
  double removed = 0;
  for (Eigen::Index i = 0; i < masses.size(); ++i) {
    if (is_fixed[static_cast<size_t>(i)]) continue;
    const Eigen::Vector3d r = x.segment<3>(3 * i) - center;
    const Eigen::Vector3d before = v.segment<3>(3 * i);
    const Eigen::Vector3d after = before - k * (before - velocity - omega.cross(r));
    removed += 0.5 * masses(i) * (before.squaredNorm() - after.squaredNorm());
    v.segment<3>(3 * i) = after;
  }
  return std::max(0.0, removed);
}

}  // namespace ramus
