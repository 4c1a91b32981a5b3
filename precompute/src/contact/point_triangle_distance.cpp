#include "ramus/precompute/contact/point_triangle_distance.h"

#include <Eigen/Dense>
#include <array>

namespace ramus {

Eigen::Vector3d closest_point_weights(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                                      const Eigen::Vector3d& b, const Eigen::Vector3d& c) {
  // Voronoi regions of the corners, then of the edges, else the face (Ericson, Real-Time
  // Collision Detection, 2005, §5.1.5).
  const Eigen::Vector3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return {1, 0, 0};
  const Eigen::Vector3d bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return {0, 1, 0};
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 / (d1 - d3);
    return {1 - v, v, 0};
  }
  const Eigen::Vector3d cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return {0, 0, 1};
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double w = d2 / (d2 - d6);
    return {1 - w, 0, w};
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    return {0, 1 - w, w};
  }
  const double denominator = va + vb + vc;
  if (!(denominator > 0)) return {1, 0, 0};  // a degenerate triangle: its first corner
  const double v = vb / denominator, w = vc / denominator;
  return {1 - v - w, v, w};
}

PointTriangleDistance point_triangle_distance(const Eigen::Vector3d& p, const Eigen::Vector3d& t0,
                                              const Eigen::Vector3d& t1, const Eigen::Vector3d& t2,
                                              bool with_hessian) {
  PointTriangleDistance result;
  const std::array<Eigen::Vector3d, 3> corners = {t0, t1, t2};
  result.weights = closest_point_weights(p, t0, t1, t2);
  const Eigen::Vector3d closest =
      result.weights(0) * t0 + result.weights(1) * t1 + result.weights(2) * t2;
  const Eigen::Vector3d r = p - closest;
  result.squared_distance = r.squaredNorm();
  // Gradient by the envelope theorem: d(x) = min over the feature's parameters beta of
  // |p - c(beta)|², so dd/dx = 2 r dr/dx at fixed beta, with dr/dx = A = [I, -w0 I, -w1 I, -w2 I].
  Eigen::Matrix<double, 3, 12> A;
  A.leftCols<3>().setIdentity();
  for (int j = 0; j < 3; ++j)
    A.block<3, 3>(0, 3 + 3 * j) = -result.weights(j) * Eigen::Matrix3d::Identity();
  result.gradient = 2 * A.transpose() * r;
  result.hessian.setZero();
  if (!with_hessian) return result;
  // Hessian: d_xx - d_xb (d_bb)^-1 d_bx over the feature's parameters (its corners q_0..q_m
  // with weight > 0, e_k = q_k - q_0): d_xx = 2 AᵀA, d_bb = 2 EᵀE, d_xb_k = -2 (Aᵀ e_k + S_kᵀ r)
  // with S_k = d e_k / dx.
  std::array<int, 3> feature{};
  int size = 0;
  for (int j = 0; j < 3; ++j)
    if (result.weights(j) > 0) feature[size++] = j;
  result.hessian = 2 * A.transpose() * A;
  const int parameters = size - 1;
  if (parameters <= 0) return result;
  Eigen::Matrix<double, 3, Eigen::Dynamic, 0, 3, 2> E(3, parameters);
  Eigen::Matrix<double, Eigen::Dynamic, 12, 0, 2, 12> B(parameters, 12);
  for (int k = 0; k < parameters; ++k) {
    E.col(k) = corners[feature[k + 1]] - corners[feature[0]];
    Eigen::Matrix<double, 3, 12> S = Eigen::Matrix<double, 3, 12>::Zero();
    S.block<3, 3>(0, 3 + 3 * feature[k + 1]).setIdentity();
    S.block<3, 3>(0, 3 + 3 * feature[0]) = -Eigen::Matrix3d::Identity();
    B.row(k) = -2 * (A.transpose() * E.col(k) + S.transpose() * r).transpose();
  }
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 2, 2> G = 2 * E.transpose() * E;
  if (!(std::abs(G.determinant()) > 1e-30 * std::pow(G.trace(), parameters))) return result;
  result.hessian -= B.transpose() * G.inverse() * B;
  return result;
}

}  // namespace ramus
