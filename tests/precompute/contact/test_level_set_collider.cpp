// The analytic colliders' level sets: known distances, and finite-difference checks of the
// gradient and Hessian of every shape on each of its branches, in the local frame and through a
// moving pose.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "ramus/precompute/contact/level_set_collider.h"
#include "support/finite_differences.h"

using namespace ramus;
using Eigen::Vector3d;
using Eigen::Vector4d;
using test::finite_gradient;
using test::finite_jacobian;
using test::relative_error;

namespace {

struct ShapeCase {
  const char* name;
  ColliderShape shape;
  Vector4d size;
};

const ShapeCase kShapes[] = {
    {"half-space", ColliderShape::kHalfSpace, Vector4d::Zero()},
    {"sphere", ColliderShape::kSphere, Vector4d(0.5, 0, 0, 0)},
    {"capsule", ColliderShape::kCapsule, Vector4d(0.3, 0.6, 0, 0)},
    {"rounded box", ColliderShape::kRoundedBox, Vector4d(0.5, 0.4, 0.3, 0.1)},
    {"cylinder", ColliderShape::kCylinder, Vector4d(0.5, 0.4, 0.1, 0)},
    {"bowl", ColliderShape::kBowl, Vector4d(1.0, 0.1, 0, 0)},
};

double local_value(const ShapeCase& c, const Vector3d& p) {
  return sample_local_level_set(c.shape, c.size, p).value;
}

}  // namespace

TEST_CASE("Each shape's level set has its known distances", "[precompute][contact]") {
  const auto phi = [](ColliderShape shape, const Vector4d& size, const Vector3d& p) {
    return sample_local_level_set(shape, size, p).value;
  };
  CHECK(phi(ColliderShape::kHalfSpace, {}, {3, -2, 0.25}) == Approx(0.25));
  CHECK(phi(ColliderShape::kSphere, {0.5, 0, 0, 0}, {0, 2, 0}) == Approx(1.5));
  CHECK(phi(ColliderShape::kSphere, {0.5, 0, 0, 0}, {0, 0, 0.1}) == Approx(-0.4));
  // Capsule: beside the axis, and beyond a cap along the axis.
  CHECK(phi(ColliderShape::kCapsule, {0.3, 0.6, 0, 0}, {1, 0, 0.5}) == Approx(0.7));
  CHECK(phi(ColliderShape::kCapsule, {0.3, 0.6, 0, 0}, {0, 0, -1.4}) == Approx(0.5));
  // Rounded box: off a face, off a rounded corner, inside.
  const Vector4d box(0.5, 0.4, 0.3, 0.1);
  CHECK(phi(ColliderShape::kRoundedBox, box, {1.5, 0, 0}) == Approx(1.0));
  CHECK(phi(ColliderShape::kRoundedBox, box, {0.4 + 0.3, 0.3 + 0.4, 0.0}) == Approx(0.4));
  CHECK(phi(ColliderShape::kRoundedBox, box, {0, 0, 0.1}) == Approx(-0.2));
  // Cylinder: off the side, off the flat end.
  CHECK(phi(ColliderShape::kCylinder, {0.5, 0.4, 0.1, 0}, {0, 2, 0}) == Approx(1.5));
  CHECK(phi(ColliderShape::kCylinder, {0.5, 0.4, 0.1, 0}, {0.1, 0, -1}) == Approx(0.6));
  // Bowl (inner radius 1, wall 0.1): its centre is 1 from the wall, its bottom inside the wall,
  // a point above the rim 0.2 from the rim's round.
  CHECK(phi(ColliderShape::kBowl, {1, 0.1, 0, 0}, {0, 0, 0}) == Approx(1.0));
  CHECK(phi(ColliderShape::kBowl, {1, 0.1, 0, 0}, {0, 0, -1.05}) == Approx(-0.05));
  CHECK(phi(ColliderShape::kBowl, {1, 0.1, 0, 0}, {1.05, 0, 0.25}) == Approx(0.2));
  CHECK(phi(ColliderShape::kBowl, {1, 0.1, 0, 0}, {0, 0, -1.5}) == Approx(0.4));
}

TEST_CASE("Each shape's gradient and Hessian match finite differences of its level set",
          "[precompute][contact]") {
  std::mt19937 random(3);
  std::uniform_real_distribution<double> coordinate(-1.6, 1.6);
  for (const ShapeCase& c : kShapes) {
    int checked = 0;
    for (int trial = 0; checked < 60 && trial < 2000; ++trial) {
      const Vector3d p(coordinate(random), coordinate(random), coordinate(random));
      // Skip the medial sets (where phi has a kink) by asking the one-sided slopes to agree.
      const double h = 1e-5;
      bool smooth = true;
      for (int k = 0; k < 3 && smooth; ++k) {
        const Vector3d e = Vector3d::Unit(k) * 20 * h;
        const double left = local_value(c, p) - local_value(c, p - e);
        const double right = local_value(c, p + e) - local_value(c, p);
        smooth = std::abs(left - right) < 1e-6;
      }
      if (!smooth || std::hypot(p.x(), p.y()) < 0.05) continue;
      ++checked;
      const LevelSetSample s = sample_local_level_set(c.shape, c.size, p);
      const Eigen::VectorXd gradient = finite_gradient(
          p, [&](const Eigen::VectorXd& y) { return local_value(c, y); }, h);
      const Eigen::MatrixXd hessian = finite_jacobian(
          p,
          [&](const Eigen::VectorXd& y) {
            return Eigen::VectorXd(sample_local_level_set(c.shape, c.size, y).gradient);
          },
          h);
      INFO(c.name << " at " << p.transpose());
      CHECK((s.gradient - gradient).norm() < 1e-7);
      CHECK((s.hessian - hessian).norm() < 1e-4 * std::max(1.0, hessian.norm()));
      CHECK(s.gradient.norm() == Approx(1.0).epsilon(1e-9));
    }
    INFO(c.name);
    CHECK(checked == 60);
  }
}

TEST_CASE("A moving collider's level set and velocity follow its pose", "[precompute][contact]") {
  LevelSetCollider capsule;
  capsule.shape = ColliderShape::kCapsule;
  capsule.size = Vector4d(0.2, 0.5, 0, 0);
  capsule.motion.initial.rotation = Eigen::AngleAxisd(0.7, Vector3d(1, 2, 3).normalized()).matrix();
  capsule.motion.initial.translation = Vector3d(0.3, -0.2, 1.0);
  capsule.motion.linear_velocity = Vector3d(0.5, 0, -0.25);
  capsule.motion.angular_velocity = Vector3d(0, 1.5, 0.5);
  const double time = 0.8;
  const Vector3d x(0.6, 0.1, 0.9);
  const LevelSetSample s = sample_level_set(capsule, x, time);
  const auto value = [&](const Eigen::VectorXd& y) {
    return sample_level_set(capsule, y, time).value;
  };
  CHECK(relative_error(s.gradient, finite_gradient(x, value, 1e-6)) < 1e-7);
  const Eigen::MatrixXd hessian = finite_jacobian(
      x,
      [&](const Eigen::VectorXd& y) {
        return Eigen::VectorXd(sample_level_set(capsule, y, time).gradient);
      },
      1e-6);
  CHECK(relative_error(s.hessian, hessian) < 1e-5);
  // The velocity of the material point at x is the time derivative of its path.
  const RigidPose now = capsule.motion.pose_at(time);
  const Vector3d local = now.rotation.transpose() * (x - now.translation);
  const auto path = [&](double t) {
    const RigidPose pose = capsule.motion.pose_at(t);
    return Eigen::VectorXd(pose.rotation * local + pose.translation);
  };
  CHECK(relative_error(capsule.motion.velocity_at(x, time),
                       test::finite_derivative(time, path, 1e-6)) < 1e-8);
}

TEST_CASE("Collider sizes that do not suit their shape are named", "[precompute][contact]") {
  CHECK(collider_size_problem(ColliderShape::kSphere, Vector4d(0.5, 0, 0, 0)) == nullptr);
  CHECK(std::string(collider_size_problem(ColliderShape::kSphere, Vector4d(-1, 0, 0, 0))) ==
        "radius must be positive");
  CHECK(collider_size_problem(ColliderShape::kRoundedBox, Vector4d(1, 1, 0.2, 0.3)) != nullptr);
  CHECK(collider_size_problem(ColliderShape::kCylinder, Vector4d(1, 1, 0.2, 0)) == nullptr);
  CHECK(collider_size_problem(ColliderShape::kBowl, Vector4d(1, 0, 0, 0)) != nullptr);
  CHECK(collider_size_problem(ColliderShape::kCapsule, Vector4d(0.1, NAN, 0, 0)) != nullptr);
}

TEST_CASE("A keyframed collider passes through its keys, and its velocity is its motion's rate",
          "[precompute][contact]") {
  ColliderMotion motion;
  const auto key = [](double time, const Eigen::Vector3d& position, double degrees) {
    PoseKeyframe k;
    k.time = time;
    k.pose.translation = position;
    k.pose.rotation = Eigen::AngleAxisd(degrees * M_PI / 180, Eigen::Vector3d(1, 1, 0).normalized())
                          .toRotationMatrix();
    return k;
  };
  motion.keyframes = {key(0.5, {0, 0, 0}, 0), key(1.5, {1, 0, 0}, 40), key(2, {1, 1, 0}, 10)};
  for (const PoseKeyframe& k : motion.keyframes) {
    const RigidPose pose = motion.pose_at(k.time);
    CHECK((pose.translation - k.pose.translation).norm() < 1e-14);
    CHECK((pose.rotation - k.pose.rotation).norm() < 1e-12);
  }
  // Held before the first key and after the last, at rest there.
  CHECK((motion.pose_at(0).translation - motion.keyframes.front().pose.translation).norm() == 0);
  CHECK((motion.pose_at(3).rotation - motion.keyframes.back().pose.rotation).norm() < 1e-12);
  const Eigen::Vector3d local(0.3, -0.2, 0.5);
  CHECK(motion.velocity_at(motion.pose_at(0.2).rotation * local, 0.2).norm() == 0);
  // Inside the intervals, a material point's velocity is d/dt (R(t) p + T(t)).
  for (const double t : {0.8, 1.2, 1.7, 1.9}) {
    const auto point = [&](double time) {
      const RigidPose pose = motion.pose_at(time);
      return Eigen::Vector3d(pose.rotation * local + pose.translation);
    };
    const double h = 1e-6;
    const Eigen::Vector3d rate = (point(t + h) - point(t - h)) / (2 * h);
    CHECK((motion.velocity_at(point(t), t) - rate).norm() < 1e-7);
  }
}
