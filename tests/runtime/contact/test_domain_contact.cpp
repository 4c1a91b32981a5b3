// A domain's contact potential in its reduced coordinates (runtime/src/contact/domain_contact.h):
// gradient and Hessian against finite differences, the reduced force against its full-space
// definition, the vertex forces of the barrier projected by Uᵀ Rᵀ, and a semi-implicit stage in
// contact against the stationarity of its model (integrators/implicit_stage.cpp).
#include <catch2/catch.hpp>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

#include "contact/domain_contact.h"
#include "integrators/domain_equation.h"
#include "ramus/runtime/contact/contact_response.h"
#include "support/finite_differences.h"
#include "support/random_models.h"

namespace ramus {
namespace {

struct ContactSetup {
  std::shared_ptr<const Model> model;
  UniformScale scale{1.3};
  std::vector<StepCollider> colliders;
  std::vector<ContactCandidate> candidates;
  DomainContact contact;
  Eigen::VectorXd q;
};

// Every sample of the random single-domain part against `collider` (placed so that the nearest
// sample lies at a third of delta), in a turned and moved frame, with friction mu.
ContactSetup make_setup(ColliderShape shape, const Eigen::Vector4d& size, double mu) {
  ContactSetup s;
  s.model = compile_model(test::make_single_domain_model());
  const Part& part = s.model->parts[0];
  test::Random random(7);
  s.q = random.matrix(part.r, 1, 0.01);
  DomainContact& c = s.contact;
  c.samples = &part.contact;
  c.scale = &s.scale;
  c.rotation = test::random_rotation(random);
  c.origin = Eigen::Vector3d(0.3, -0.2, 0.5);
  c.stiffness = 1e5;
  c.time_step = 0.01;
  c.friction_speed = 0.05;
  // The samples at q; the collider's pose puts the nearest at delta / 3.
  const int S = part.contact.size();
  Eigen::Matrix3Xd x(3, S);
  for (int k = 0; k < S; ++k)
    x.col(k) = c.origin + c.rotation * sample_local_position(part.contact, s.scale, k, s.q);
  const Eigen::Vector3d centre = x.rowwise().mean();
  const double extent = (x.colwise() - centre).colwise().norm().maxCoeff();
  c.distance = 0.5 * extent;
  StepCollider step;
  step.used = true;
  step.collider.shape = shape;
  step.collider.size = size * extent;
  step.collider.friction = mu;
  step.collider.pose.rotation = test::random_rotation(random);
  step.collider.pose.translation = centre + Eigen::Vector3d(0, 0, -2 * extent);
  if (shape == ColliderShape::kRoundedBox) step.collider.size(3) = 0.2 * extent;
  double nearest = INFINITY;
  for (int k = 0; k < S; ++k)
    nearest =
        std::min(nearest, collider_level_set(step.collider, step.collider.pose, x.col(k)).value);
  step.collider.pose.translation +=
      (nearest - c.distance / 3) * Eigen::Vector3d::UnitZ();  // (a shift along z: exact for
  // the distance only roughly; the sample nearest it is what matters)
  step.end = step.collider.pose;
  step.end.translation += Eigen::Vector3d(0.01, 0, 0) * extent;  // it moves during the step
  s.colliders = {step};
  c.colliders = s.colliders.data();
  for (int k = 0; k < S; ++k) {
    const LevelSetSample phi = collider_level_set(step.collider, step.collider.pose, x.col(k));
    if (!(phi.value < c.distance)) continue;
    ContactCandidate candidate;
    candidate.sample = k;
    candidate.collider = 0;
    candidate.normal = phi.gradient;
    candidate.normal_force = 2.0 + k;
    candidate.start = x.col(k) + Eigen::Vector3d(0.001, -0.002, 0.0005);
    candidate.collider_velocity = Eigen::Vector3d(0.05, 0.02, 0);
    s.candidates.push_back(candidate);
  }
  c.candidates = s.candidates.data();
  c.count = static_cast<int>(s.candidates.size());
  return s;
}

void check_derivatives(ContactSetup& s) {
  REQUIRE(s.contact.count >= 2);
  const int r = static_cast<int>(s.q.size());
  const auto energy = [&](const Eigen::VectorXd& q) { return s.contact.energy(q); };
  const auto gradient_at = [&](const Eigen::VectorXd& q) {
    Eigen::VectorXd g = Eigen::VectorXd::Zero(r);
    Eigen::MatrixXd H = Eigen::MatrixXd::Zero(r, r);
    s.contact.add_derivatives(q, g, H, false);
    return g;
  };
  Eigen::VectorXd g = Eigen::VectorXd::Zero(r);
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(r, r);
  CHECK(s.contact.add_derivatives(s.q, g, H, false) == Approx(energy(s.q)).epsilon(1e-12));
  const Eigen::VectorXd g_fd = test::finite_gradient(s.q, energy, 1e-7, test::Stencil::kCentral4);
  CHECK((g - g_fd).norm() <= 1e-6 * g.norm());
  const Eigen::MatrixXd H_fd =
      test::finite_jacobian(s.q, gradient_at, 1e-7, test::Stencil::kCentral4);
  CHECK((H - H_fd).norm() <= 1e-5 * H.norm());
  // The Gauss-Newton Hessian is symmetric positive semi-definite.
  Eigen::MatrixXd G = Eigen::MatrixXd::Zero(r, r);
  Eigen::VectorXd unused = Eigen::VectorXd::Zero(r);
  s.contact.add_derivatives(s.q, unused, G, true);
  // (Its level sets without their Hessians: the same gradient.)
  CHECK((unused - g).norm() <= 1e-12 * g.norm());
  CHECK((G - G.transpose()).norm() <= 1e-12 * G.norm());
  CHECK(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(G).eigenvalues().minCoeff() >=
        -1e-10 * G.norm());
}

TEST_CASE("a domain's contact potential has the gradient and Hessian of its energy in q",
          "[contact][fd]") {
  SECTION("sphere, with friction") {
    ContactSetup s = make_setup(ColliderShape::kSphere, Eigen::Vector4d(1, 0, 0, 0), 0.4);
    check_derivatives(s);
  }
  SECTION("capsule") {
    ContactSetup s = make_setup(ColliderShape::kCapsule, Eigen::Vector4d(0.8, 1.0, 0, 0), 0.0);
    check_derivatives(s);
  }
  SECTION("rounded box, with friction") {
    ContactSetup s = make_setup(ColliderShape::kRoundedBox, Eigen::Vector4d(1, 1.2, 1, 0), 0.7);
    check_derivatives(s);
  }
  SECTION("half-space") {
    ContactSetup s = make_setup(ColliderShape::kHalfSpace, Eigen::Vector4d::Zero(), 0.2);
    check_derivatives(s);
  }
}

TEST_CASE("a domain's reduced contact force is Uᵀ Rᵀ of the barrier's vertex forces", "[contact]") {
  ContactSetup s = make_setup(ColliderShape::kSphere, Eigen::Vector4d(1, 0, 0, 0), 0.0);
  const Part& part = s.model->parts[0];
  const int r = part.r;
  // Full space: every sample vertex at x = o + R (s X + s^-3/2 U q) from the part's own mesh and
  // basis, its force -kappa s² a b'(phi) ∇phi, projected by the scaled basis.
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(r);
  const StepCollider& col = s.colliders[0];
  for (const ContactCandidate& c : s.candidates) {
    const int v = part.contact.vertices(c.sample);
    const Eigen::MatrixXd U = part.basis.middleRows(3 * v, 3) * s.scale.basis;
    const Eigen::Vector3d x =
        s.contact.origin +
        s.contact.rotation * (s.scale.length * part.rest_positions.row(v).transpose() + U * s.q);
    const LevelSetSample phi = collider_level_set(col.collider, col.end, x);
    const double a = s.scale.length * s.scale.length * part.contact.weights(c.sample);
    const Eigen::Vector3d force = -s.contact.stiffness * a *
                                  continued_log_barrier(phi.value, s.contact.distance).first *
                                  phi.gradient;
    expected += U.transpose() * (s.contact.rotation.transpose() * force);
  }
  Eigen::VectorXd g = Eigen::VectorXd::Zero(r);
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(r, r);
  s.contact.add_derivatives(s.q, g, H, true);
  REQUIRE(expected.norm() > 0);
  CHECK((-g - expected).norm() <= 1e-12 * expected.norm());
}

// The smallest level set over the candidates' samples at q.
double closest_sample(const ContactSetup& s, const Eigen::VectorXd& q) {
  double closest = INFINITY;
  for (const ContactCandidate& c : s.candidates) {
    const Eigen::Vector3d x =
        s.contact.origin +
        s.contact.rotation * sample_local_position(*s.contact.samples, s.scale, c.sample, q);
    closest =
        std::min(closest, collider_level_set(s.colliders[0].collider, s.colliders[0].end, x).value);
  }
  return closest;
}

TEST_CASE(
    "a semi-implicit stage in contact minimizes the elasticity's quadratic model plus the "
    "barrier",
    "[contact]") {
  ContactSetup s = make_setup(ColliderShape::kSphere, Eigen::Vector4d(1, 0, 0, 0), 0.4);
  const Part& part = s.model->parts[0];
  const int r = part.r;
  const Eigen::VectorXd load = Eigen::VectorXd::Zero(r);
  DomainEquation e;
  e.part = &part;
  e.forces = &part.forces;
  e.scale = &s.scale;
  e.load = &load;
  e.domain.rayleigh_mass = 0.5;
  e.domain.rayleigh_stiffness = 0.002;
  const double ch = 0.01;
  // g and K at q_lin = q̂ = q, as the stage evaluates them.
  IntegratorScratch reference(r);
  evaluate_internal_forces(e, s.q, reference, false);
  const Eigen::VectorXd g = reference.gradient;
  const Eigen::MatrixXd K = reference.stiffness;
  // A momentum towards the collider (along the barrier's gradient), doubled until the stage
  // without the barrier takes a sample through it.
  Eigen::VectorXd towards = Eigen::VectorXd::Zero(r);
  Eigen::MatrixXd unused = Eigen::MatrixXd::Zero(r, r);
  s.contact.add_derivatives(s.q, towards, unused, true);
  towards.normalize();
  IntegratorScratch scratch(r);
  Eigen::VectorXd q(r), v(r);
  const auto stage = [&](double speed, bool with_contact, bool linearized) {
    e.contact = with_contact ? &s.contact : nullptr;
    scratch.q_hat = s.q;
    scratch.p_hat = speed * towards;
    q = s.q;
    solve_stage(e, ch, linearized, 50, 1e-12, false, scratch, q, v);
  };
  double speed = 1e-4;
  for (stage(speed, false, true); closest_sample(s, q) > 0 && speed < 1e6;
       stage(speed, false, true))
    speed *= 2;
  REQUIRE(closest_sample(s, q) <= 0);
  const Eigen::VectorXd free_q = q;

  // In contact: outside the collider, and ∇Φ = 0 for Φ the stage's potential with E replaced
  // by its quadratic model about q_lin: (1 + c h α) Δ + c h β K Δ - c h p̂ + (c h)² (g + K Δ +
  // ∇B(q)), Δ = q - q̂ = q - q_lin.
  stage(speed, true, true);
  CHECK(closest_sample(s, q) > 0);
  const Eigen::VectorXd delta = q - s.q;
  Eigen::VectorXd barrier = Eigen::VectorXd::Zero(r);
  s.contact.add_derivatives(q, barrier, unused, true);
  const Eigen::VectorXd stationarity = (1 + ch * e.domain.rayleigh_mass) * delta +
                                       ch * e.domain.rayleigh_stiffness * (K * delta) -
                                       ch * speed * towards + ch * ch * (g + K * delta + barrier);
  CHECK(stationarity.norm() <= 1e-8 * ch * speed);
  CHECK((q - free_q).norm() >= 0.01 * (free_q - s.q).norm());
  CHECK((v - delta / ch).norm() <= 1e-12 * v.norm());
  // The fully implicit stage (the polynomial's E) is another point, outside the collider too.
  const Eigen::VectorXd linearized_q = q;
  stage(speed, true, false);
  CHECK(closest_sample(s, q) > 0);
  CHECK((q - linearized_q).norm() > 0);
}

TEST_CASE("the continued barrier is the log barrier above delta/10 and C² below", "[contact][fd]") {
  const double delta = 0.01, floor = kBarrierFloor * delta;
  for (const double d : {0.5 * delta, 0.2 * delta, floor + 1e-9})
    CHECK(continued_log_barrier(d, delta).value == log_barrier(d, delta).value);
  // Continuity of the value and both derivatives at the floor, and finite inside.
  const ScalarDerivatives above = log_barrier(floor * (1 + 1e-9), delta);
  const ScalarDerivatives below = continued_log_barrier(floor * (1 - 1e-9), delta);
  CHECK(below.value == Approx(above.value).epsilon(1e-7));
  CHECK(below.first == Approx(above.first).epsilon(1e-7));
  CHECK(below.second == Approx(above.second).epsilon(1e-6));
  const ScalarDerivatives inside = continued_log_barrier(-delta, delta);
  CHECK(std::isfinite(inside.value));
  CHECK(inside.first < continued_log_barrier(0, delta).first);
  const auto b = [&](double d) { return continued_log_barrier(d, delta).value; };
  for (const double d : {-0.5 * delta, 0.05 * delta})
    CHECK(continued_log_barrier(d, delta).first ==
          Approx((b(d + 1e-8) - b(d - 1e-8)) / 2e-8).epsilon(1e-6));
}

}  // namespace
}  // namespace ramus
