// Rotations from and to rotation vectors (runtime internals): exp(w~) by Rodrigues' formula and
// its inverse, as the free root and a moving anchor carry their frames through a step.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace ramus {

/// exp(w~): the rotation by |w| about w / |w| (the identity for w = 0).
inline Eigen::Matrix3d rotation_exponential(const Eigen::Vector3d& w) noexcept {
  const double angle = w.norm();
  if (angle < 1e-300) return Eigen::Matrix3d::Identity();
  return Eigen::AngleAxisd(angle, w / angle).toRotationMatrix();
}

/// The rotation vector of R (|w| <= π).
inline Eigen::Vector3d rotation_logarithm(const Eigen::Matrix3d& R) noexcept {
  const Eigen::AngleAxisd turn(R);
  return turn.angle() * turn.axis();
}

}  // namespace ramus
