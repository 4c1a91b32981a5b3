#include "ramus/runtime/contact/level_set_shapes.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

namespace ramus {

namespace {

using Eigen::Matrix2d;
using Eigen::Matrix3d;
using Eigen::Vector2d;
using Eigen::Vector3d;

// A function of the plane (rho, z) with its gradient and Hessian, for shapes of revolution.
struct PlaneSample {
  double value = 0;
  Vector2d gradient = Vector2d::Zero();
  Matrix2d hessian = Matrix2d::Zero();
};

// |p - c| in any dimension: gradient (p - c)/d, Hessian (I - g gᵀ)/d.
template <int N>
void distance_to_point(const Eigen::Matrix<double, N, 1>& p, const Eigen::Matrix<double, N, 1>& c,
                       double& value, Eigen::Matrix<double, N, 1>& gradient,
                       Eigen::Matrix<double, N, N>& hessian) {
  const Eigen::Matrix<double, N, 1> r = p - c;
  value = r.norm();
  if (value < 1e-300) {  // on the point itself: any unit direction, no curvature
    gradient.setZero();
    gradient(N - 1) = 1;
    hessian.setZero();
    return;
  }
  gradient = r / value;
  hessian = (Eigen::Matrix<double, N, N>::Identity() - gradient * gradient.transpose()) / value;
}

// The signed distance to a box of half sizes `half` rounded by `radius` (any dimension): outside
// the inner box (half - radius) the distance to it minus the radius, inside the largest face
// coordinate. `sign` holds the signs of p (the box is symmetric).
template <int N>
void rounded_box(const Eigen::Matrix<double, N, 1>& p, const Eigen::Matrix<double, N, 1>& half,
                 double radius, double& value, Eigen::Matrix<double, N, 1>& gradient,
                 Eigen::Matrix<double, N, N>& hessian) {
  const Eigen::Matrix<double, N, 1> sign = p.unaryExpr([](double v) { return v < 0 ? -1.0 : 1.0; });
  const Eigen::Matrix<double, N, 1> q =
      p.cwiseAbs() - (half - Eigen::Matrix<double, N, 1>::Constant(radius));
  gradient.setZero();
  hessian.setZero();
  if ((q.array() > 0).any()) {
    // Outside the inner box: distance to its nearest face, edge or corner (active coordinates).
    const Eigen::Matrix<double, N, 1> outside = q.cwiseMax(0.0);
    const double distance = outside.norm();
    value = distance - radius;
    gradient = sign.cwiseProduct(outside) / distance;
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        if (q(i) > 0 && q(j) > 0)
          hessian(i, j) = ((i == j ? 1.0 : 0.0) - gradient(i) * gradient(j)) / distance;
    return;
  }
  // Inside: the nearest face, a plane.
  int k = 0;
  value = q.maxCoeff(&k) - radius;
  gradient(k) = sign(k);
}

// A function of (rho, z) lifted to 3D about the z axis: grad = F_rho e_rho + F_z e_z,
// Hess = [e_rho e_z] H2 [e_rho e_z]ᵀ + F_rho (I_xy - e_rho e_rhoᵀ) / rho.
LevelSetSample revolve(const Vector3d& p, const PlaneSample& f) {
  const double rho = std::sqrt(p.x() * p.x() + p.y() * p.y());
  const Vector3d e_rho = rho > 1e-12 ? Vector3d(p.x() / rho, p.y() / rho, 0) : Vector3d::UnitX();
  Eigen::Matrix<double, 3, 2> basis;
  basis << e_rho, Vector3d::UnitZ();
  LevelSetSample s;
  s.value = f.value;
  s.gradient = basis * f.gradient;
  s.hessian = basis * f.hessian * basis.transpose();
  // The circle's curvature; on the axis its limit F_rho_rho (F even in rho).
  const double hoop = rho > 1e-12 ? f.gradient(0) / rho : f.hessian(0, 0);
  const Matrix3d in_plane = Vector3d(1, 1, 0).asDiagonal();
  s.hessian += hoop * (in_plane - e_rho * e_rho.transpose());
  return s;
}

// The bowl's wall in the (rho, z) plane: an arc of radius R + t/2 below z = 0, t thick, with a
// round rim (a half disc about the arc's end).
PlaneSample bowl_wall(const Vector2d& p, double inner_radius, double thickness) {
  const double middle = inner_radius + 0.5 * thickness;
  PlaneSample s;
  if (p.y() <= 0) {
    double r = 0;
    Vector2d n;
    Matrix2d curvature;
    distance_to_point<2>(p, Vector2d::Zero(), r, n, curvature);
    const double sign = r >= middle ? 1.0 : -1.0;
    s.value = std::abs(r - middle) - 0.5 * thickness;
    s.gradient = sign * n;
    s.hessian = sign * curvature;
  } else {
    distance_to_point<2>(p, Vector2d(middle, 0), s.value, s.gradient, s.hessian);
    s.value -= 0.5 * thickness;
  }
  return s;
}

// The signed distance and its gradient alone, for the shapes a game moves most (a half-space, a
// sphere, a capsule): nothing of the Hessian, no hypot. False for the other shapes.
bool distance_and_gradient(ColliderShape shape, const Eigen::Vector4d& size, const Vector3d& p,
                           LevelSetSample& s) {
  Vector3d r;
  switch (shape) {
    case ColliderShape::kHalfSpace:
      s.value = p.z();
      s.gradient = Vector3d::UnitZ();
      return true;
    case ColliderShape::kSphere:
      r = p;
      break;
    case ColliderShape::kCapsule:
      r = Vector3d(p.x(), p.y(), p.z() - std::clamp(p.z(), -size(1), size(1)));
      break;
    default:
      return false;
  }
  const double d = r.norm();
  s.value = d - size(0);
  s.gradient = d < 1e-300 ? Vector3d::UnitZ() : Vector3d(r / d);
  return true;
}

}  // namespace

LevelSetSample sample_local_level_set(ColliderShape shape, const Eigen::Vector4d& size,
                                      const Vector3d& p, bool with_hessian) {
  LevelSetSample s;
  if (!with_hessian && distance_and_gradient(shape, size, p, s)) return s;
  switch (shape) {
    case ColliderShape::kHalfSpace:
      s.value = p.z();
      s.gradient = Vector3d::UnitZ();
      break;
    case ColliderShape::kSphere:
      distance_to_point<3>(p, Vector3d::Zero(), s.value, s.gradient, s.hessian);
      s.value -= size(0);
      break;
    case ColliderShape::kCapsule: {
      // Distance to the axis segment, less the radius.
      const Vector3d nearest(0, 0, std::clamp(p.z(), -size(1), size(1)));
      if (std::abs(p.z()) <= size(1)) {
        PlaneSample f;
        f.value = std::hypot(p.x(), p.y()) - size(0);
        f.gradient = Vector2d(1, 0);
        s = revolve(p, f);
      } else {
        distance_to_point<3>(p, nearest, s.value, s.gradient, s.hessian);
        s.value -= size(0);
      }
      break;
    }
    case ColliderShape::kRoundedBox:
      rounded_box<3>(p, size.head<3>(), size(3), s.value, s.gradient, s.hessian);
      break;
    case ColliderShape::kCylinder: {
      PlaneSample f;
      rounded_box<2>(Vector2d(std::hypot(p.x(), p.y()), p.z()), Vector2d(size(0), size(1)), size(2),
                     f.value, f.gradient, f.hessian);
      s = revolve(p, f);
      break;
    }
    case ColliderShape::kBowl:
      s = revolve(p, bowl_wall(Vector2d(std::hypot(p.x(), p.y()), p.z()), size(0), size(1)));
      break;
    case ColliderShape::kMesh:
      s.value = std::numeric_limits<double>::infinity();  // no grid here: nothing to touch
      break;
  }
  return s;
}

const char* collider_size_problem(ColliderShape shape, const Eigen::Vector4d& size) {
  if (!size.allFinite()) return "sizes must be finite";
  switch (shape) {
    case ColliderShape::kHalfSpace:
      return nullptr;
    case ColliderShape::kSphere:
      return size(0) > 0 ? nullptr : "radius must be positive";
    case ColliderShape::kCapsule:
      if (!(size(0) > 0)) return "radius must be positive";
      return size(1) >= 0 ? nullptr : "half_length must not be negative";
    case ColliderShape::kRoundedBox:
      if (!(size.head<3>().minCoeff() > 0)) return "half sizes must be positive";
      if (!(size(3) >= 0 && size(3) <= size.head<3>().minCoeff()))
        return "edge radius must lie in [0, the smallest half size]";
      return nullptr;
    case ColliderShape::kCylinder:
      if (!(size(0) > 0 && size(1) > 0)) return "radius and half_height must be positive";
      if (!(size(2) >= 0 && size(2) <= std::min(size(0), size(1))))
        return "edge radius must lie in [0, min(radius, half_height)]";
      return nullptr;
    case ColliderShape::kBowl:
      return size(0) > 0 && size(1) > 0 ? nullptr
                                        : "inner radius and wall thickness must be positive";
    case ColliderShape::kMesh:
      return nullptr;
  }
  return "unknown shape";
}

}  // namespace ramus
