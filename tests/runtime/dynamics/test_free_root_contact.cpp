// The implicit barrier on a free root's rigid body (runtime/src/dynamics/free_root_contact.h):
// Φ's gradient against finite differences of Φ, its Gauss-Newton Hessian against finite
// differences of the gradient where it is exact (a half-space: the samples affine in y, φ linear
// in them), and Newton's step stopping at the barrier where the inertia alone would go through.
#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

#include "dynamics/free_root_contact.h"
#include "support/collider_points.h"
#include "support/finite_differences.h"
#include "support/random_models.h"

namespace ramus {
namespace {

struct Setup {
  std::shared_ptr<const Model> model;
  std::vector<ContactCandidate> candidates;
  std::vector<int> counts, starts;
  std::vector<StepCollider> colliders;
  FreeRootContactStep step;
};

// Three samples on each of two domains of the random tree, between delta/20 and 0.9 delta from
// `shape`; a body of 2 kg with a random inertia, h = 10 ms.
Setup make_setup(ColliderShape shape, const Eigen::Vector4d& size) {
  Setup s;
  s.model = compile_model(test::make_model(5));
  const Model& model = *s.model;
  test::Random random(7);
  StepCollider collider;
  collider.used = true;
  collider.collider.shape = shape;
  collider.collider.size = size;
  collider.collider.pose.rotation = test::random_rotation(random);
  collider.collider.pose.translation = Eigen::Vector3d(0.1, 0.4, -0.2);
  collider.end = collider.collider.pose;
  s.colliders = {collider};
  FreeRootContactStep& step = s.step;
  step.stiffness = 1e3;
  step.distance = 0.05;
  s.counts.assign(static_cast<std::size_t>(model.num_domains()), 0);
  // (Three candidates' room a domain.)
  s.candidates.resize(3 * static_cast<std::size_t>(model.num_domains()));
  s.starts.resize(static_cast<std::size_t>(model.num_domains()));
  for (int d = 0; d < model.num_domains(); ++d) s.starts[static_cast<std::size_t>(d)] = 3 * d;
  for (int d : {0, 2}) {
    for (int k = 0; k < 3; ++k) {
      ContactCandidate& c = s.candidates[static_cast<std::size_t>(3 * d + k)];
      c.sample = k;
      c.start = test::point_near_collider(collider, step.distance, random);
    }
    s.counts[static_cast<std::size_t>(d)] = 3;
  }
  step.model = s.model.get();
  step.counts = s.counts.data();
  step.starts = s.starts.data();
  step.candidates = s.candidates.data();
  step.colliders = s.colliders.data();
  step.center = collider.collider.pose.translation + Eigen::Vector3d(0.3, -0.2, 0.5);
  step.predicted << 1e-3, -2e-3, 5e-4, 0.01, -0.02, 0.015;
  step.mass_weight = 2 / 1e-4;
  const Eigen::Matrix3d a = random.matrix(3, 3, 0.1);
  step.inertia_weight = (a * a.transpose() + 0.01 * Eigen::Matrix3d::Identity()) / 1e-4;
  return s;
}

void check_derivatives(const Setup& s, bool hessian_exact) {
  const FreeRootContactStep& step = s.step;
  const Eigen::VectorXd y = step.predicted + Vector6d::Constant(1e-4);
  Vector6d gradient;
  Matrix6d hessian;
  const double value = step.evaluate(y, &gradient, &hessian);
  CHECK(value == Approx(step.evaluate(y, nullptr, nullptr)).epsilon(1e-14));
  const auto phi = [&](const Eigen::VectorXd& z) {
    return step.evaluate(Vector6d(z), nullptr, nullptr);
  };
  const Eigen::VectorXd fd = test::finite_gradient(y, phi, 1e-7, test::Stencil::kCentral4);
  CHECK((fd - gradient).norm() <= 1e-6 * gradient.norm());
  // The Gauss-Newton Hessian is PSD past the inertia.
  CHECK(Eigen::SelfAdjointEigenSolver<Matrix6d>(hessian).eigenvalues().minCoeff() > 0);
  if (!hessian_exact) return;
  const auto grad = [&](const Eigen::VectorXd& z) {
    Vector6d g;
    step.evaluate(Vector6d(z), &g, nullptr);
    return Eigen::VectorXd(g);
  };
  const Eigen::MatrixXd fd_hessian = test::finite_jacobian(y, grad, 1e-7, test::Stencil::kCentral4);
  CHECK((fd_hessian - hessian).norm() <= 1e-5 * hessian.norm());
}

TEST_CASE("A free root's contact step has the gradient and Hessian of its potential",
          "[runtime][dynamics][contact]") {
  SECTION("half-space: the Gauss-Newton Hessian is exact") {
    check_derivatives(make_setup(ColliderShape::kHalfSpace, Eigen::Vector4d::Zero()), true);
  }
  SECTION("sphere and capsule: the gradient") {
    check_derivatives(make_setup(ColliderShape::kSphere, Eigen::Vector4d(0.3, 0, 0, 0)), false);
    check_derivatives(make_setup(ColliderShape::kCapsule, Eigen::Vector4d(0.2, 0.3, 0, 0)), false);
  }
}

TEST_CASE("A free root's contact step stops short of the collider the inertia would cross",
          "[runtime][dynamics][contact]") {
  Setup s = make_setup(ColliderShape::kHalfSpace, Eigen::Vector4d::Zero());
  // The prediction carries every sample 10 cm into the half-space (along its inward normal).
  const Eigen::Vector3d normal = s.colliders[0].end.rotation.col(2);
  s.step.predicted.setZero();
  s.step.predicted.head<3>() = -0.1 * normal;
  s.step.stiffness = 1e8;  // the runtime's default (Pa/m)
  const Vector6d y = solve_free_root_contact_step(s.step, 20);
  double closest = INFINITY;
  for (int d : {0, 2})
    for (int k = 0; k < 3; ++k) {
      const ContactCandidate& c = s.candidates[static_cast<std::size_t>(3 * d + k)];
      const Eigen::Vector3d x = c.start + y.head<3>() + y.tail<3>().cross(c.start - s.step.center);
      closest = std::min(closest,
                         collider_level_set(s.colliders[0].collider, s.colliders[0].end, x).value);
    }
  CHECK(closest > 0);
  // Stationary: the inertia balances the barrier.
  Vector6d gradient;
  s.step.evaluate(y, &gradient, nullptr);
  CHECK(gradient.norm() < 1e-6 * s.step.mass_weight * 0.1);
}

}  // namespace
}  // namespace ramus
