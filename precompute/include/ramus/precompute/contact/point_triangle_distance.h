// The squared distance from a point to a triangle with its exact gradient and Hessian in the 12
// coordinates (point, three corners), on whichever feature is closest (a corner, an edge or the
// face): the optimization paper's §5.3 self-collision distance d.
#pragma once

#include <Eigen/Core>

namespace ramus {

/// The closest feature of a triangle to a point, and the squared distance's derivatives.
struct PointTriangleDistance {
  double squared_distance = 0;            ///< d = |p - c|², m²; c the closest point
  Eigen::Vector3d weights;                ///< c's barycentric weights on (t0, t1, t2)
  Eigen::Matrix<double, 12, 1> gradient;  ///< dd / d(p, t0, t1, t2), m
  Eigen::Matrix<double, 12, 12> hessian;  ///< d²d / d(p, t0, t1, t2)², dimensionless
};

/// Squared distance from p to the triangle (t0, t1, t2), all in m. The derivatives are those
/// of the closest feature's distance (exact inside each feature's region, where d is smooth);
/// with `with_hessian` false the Hessian is left zero.
PointTriangleDistance point_triangle_distance(const Eigen::Vector3d& p, const Eigen::Vector3d& t0,
                                              const Eigen::Vector3d& t1, const Eigen::Vector3d& t2,
                                              bool with_hessian = true);

/// Barycentric weights of the point of triangle (t0, t1, t2) closest to p (Ericson's regions).
Eigen::Vector3d closest_point_weights(const Eigen::Vector3d& p, const Eigen::Vector3d& t0,
                                      const Eigen::Vector3d& t1, const Eigen::Vector3d& t2);

}  // namespace ramus
