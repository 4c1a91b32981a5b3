// Reduced system forces (substructuring paper, Eq. 13-14, Appendix B): the precomputed integrals
// W1..W7 against their definitions, and the runtime evaluation of Eq. 14 against -∫ρ Uᵀ a(X) dV
// integrated directly (4-point rule, exact for the quadratic integrand) on a moving, deformed box
// with per-tet density; mass-orthonormal and free-body bases; no allocation; r = 0; size errors.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/dof_map.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/reduction/modal_analysis.h"
#include "ramus/precompute/substructuring/system_force_integrals.h"
#include "ramus/runtime/kernels/system_force.h"
#include "support/allocation_counter.h"
#include "support/test_meshes.h"
#include "support/test_tets.h"

using namespace ramus;
using test::relative_error;

namespace {

// A 0.4 x 0.2 x 0.2 m box (96 tets) whose density differs from tet to tet (600..1500 kg/m^3).
StvkFemModel box_model() {
  const TetMesh mesh = test::box_mesh(4, 2, 2, 0.4, 0.2, 0.2);
  std::vector<Material> materials = assign_materials(mesh, {1e6, 0.45, 1000});
  for (size_t t = 0; t < materials.size(); ++t) materials[t].density = 600.0 + 70.0 * (t % 14);
  return StvkFemModel(mesh, materials);
}

// A frame F placed at kFrameOrigin with axes kFrameRotation (x = R X + origin, world vectors
// v = R V): the integrals only see rest positions and modes expressed in F.
const Eigen::Vector3d kFrameOrigin(0.7, -0.3, 1.1);
const Eigen::Matrix3d kFrameRotation =
    Eigen::AngleAxisd(0.6, Eigen::Vector3d(1, 2, -1).normalized()).toRotationMatrix();

// Rest positions in F (#V by 3): rows (x - origin)ᵀ R.
Eigen::MatrixX3d positions_in_frame(const StvkFemModel& model) {
  return (model.mesh().rest_positions.rowwise() - kFrameOrigin.transpose()) * kFrameRotation;
}

// A world-axes basis (3#V by r) with every vertex's displacements rotated into F's axes.
Eigen::MatrixXd basis_in_frame(const Eigen::MatrixXd& world_basis) {
  Eigen::MatrixXd basis(world_basis.rows(), world_basis.cols());
  for (Eigen::Index v = 0; v < world_basis.rows() / 3; ++v)
    basis.middleRows<3>(3 * v) = kFrameRotation.transpose() * world_basis.middleRows<3>(3 * v);
  return basis;
}

Eigen::MatrixXd random_matrix(Eigen::Index rows, Eigen::Index cols, double scale,
                              std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Eigen::MatrixXd m(rows, cols);
  for (Eigen::Index k = 0; k < m.size(); ++k) m.data()[k] = u(rng);
  return m;
}

Eigen::Vector3d random_vector3(double scale, std::mt19937& rng) {
  return random_matrix(3, 1, scale, rng);
}

// X~ with X~ v = X × v.
Eigen::Matrix3d skew(const Eigen::Vector3d& x) {
  Eigen::Matrix3d s;
  s << 0, -x(2), x(1), x(2), 0, -x(0), -x(1), x(0), 0;
  return s;
}

// One quadrature point: density * weight * volume, rest position X (in F) and modes U(X) (3 by r).
struct QuadraturePoint {
  double mass;
  Eigen::Vector3d rest_position;
  Eigen::MatrixXd modes;
};

// The 4-point degree-2 rule on every tet: barycentric (α, β, β, β) and permutations, weights 1/4.
std::vector<QuadraturePoint> quadrature_points(const StvkFemModel& model, const Eigen::MatrixX3d& X,
                                               const Eigen::MatrixXd& U) {
  const double alpha = 0.5854101966249685, beta = 0.1381966011250105;
  std::vector<QuadraturePoint> points;
  for (int t = 0; t < model.num_tets(); ++t) {
    const double tet_mass = model.materials()[static_cast<size_t>(t)].density *
                            model.rest_data()[static_cast<size_t>(t)].volume;
    for (int g = 0; g < 4; ++g) {
      QuadraturePoint point{tet_mass / 4, Eigen::Vector3d::Zero(),
                            Eigen::MatrixXd::Zero(3, U.cols())};
      for (int c = 0; c < 4; ++c) {
        const int v = model.mesh().tets(t, c);
        const double lambda = c == g ? alpha : beta;
        point.rest_position += lambda * X.row(v).transpose();
        point.modes += lambda * U.middleRows<3>(3 * v);
      }
      points.push_back(point);
    }
  }
  return points;
}

// Eq. 13 integrated directly: f = -∫ρ U(X)ᵀ a(X) dV, with a(X) of Eq. 12 without Ẍ at the current
// local position X = X_rest + U q, Ẋ = U q̇.
Eigen::VectorXd system_force_by_quadrature(const std::vector<QuadraturePoint>& points,
                                           const Eigen::VectorXd& q, const Eigen::VectorXd& qdot,
                                           const FrameKinematics& frame) {
  const Eigen::Vector3d& omega = frame.angular_velocity;
  Eigen::VectorXd force = Eigen::VectorXd::Zero(q.size());
  for (const QuadraturePoint& point : points) {
    const Eigen::Vector3d x = point.rest_position + point.modes * q;
    const Eigen::Vector3d xdot = point.modes * qdot;
    const Eigen::Vector3d acceleration = frame.linear_acceleration +
                                         frame.angular_acceleration.cross(x) +
                                         omega.cross(omega.cross(x)) + 2 * omega.cross(xdot);
    force -= point.mass * point.modes.transpose() * acceleration;
  }
  return force;
}

// W1..W7 straight from their definitions (Eq. 20-23) in the layouts of SystemForceIntegrals.
SystemForceIntegrals integrals_by_quadrature(const std::vector<QuadraturePoint>& points, int r) {
  SystemForceIntegrals w;
  w.w1.setZero(3, r);
  w.w2.setZero(3, r);
  w.w3.setZero(r);
  w.w4.setZero(r, r);
  w.w5.setZero(3, 3 * r);
  w.w6.setZero(r, 3 * r);
  w.w7.setZero(3 * r, 3 * r);
  for (const QuadraturePoint& point : points) {
    const double m = point.mass;
    const Eigen::Vector3d& X = point.rest_position;
    const Eigen::MatrixXd& U = point.modes;
    for (int l = 0; l < r; ++l) {
      const Eigen::Vector3d u_l = U.col(l);
      w.w1.col(l) -= m * u_l;
      w.w2.col(l) += m * skew(X) * u_l;
      w.w3(l) += m * u_l.dot(X);
      w.w4.col(l) += m * U.transpose() * u_l;
      w.w5.middleCols<3>(3 * l) += m * u_l * X.transpose();
      w.w6.middleCols(3 * l, 3) += m * U.transpose() * skew(u_l);
      for (int p = 0; p < r; ++p) w.w7.block<3, 3>(3 * l, 3 * p) += m * u_l * U.col(p).transpose();
    }
  }
  return w;
}

Eigen::VectorXd evaluate_system_force(const SystemForceIntegrals& w, const Eigen::VectorXd& q,
                                      const Eigen::VectorXd& qdot, const FrameKinematics& frame) {
  SystemForceScratch scratch(static_cast<int>(q.size()));
  Eigen::VectorXd force(q.size());
  system_force(w, q, qdot, frame, scratch, force);
  return force;
}

// The same through the step's packed form, f = B z.
Eigen::VectorXd evaluate_packed(const SystemForceIntegrals& w, const Eigen::VectorXd& q,
                                const Eigen::VectorXd& qdot, const FrameKinematics& frame,
                                const UniformScale& scale = UniformScale()) {
  SystemForceScratch scratch(static_cast<int>(q.size()));
  Eigen::VectorXd force(q.size());
  SystemForceMatrix(w).evaluate(q, qdot, frame, scratch, force, scale);
  return force;
}

// Uᵀ M [e_x e_y e_z] (r by 3): the reduced gravity basis, in the axes of U.
Eigen::MatrixXd gravity_basis(const StvkFemModel& model, const Eigen::MatrixXd& U) {
  Eigen::MatrixXd e = Eigen::MatrixXd::Zero(3 * model.num_vertices(), 3);
  for (int v = 0; v < model.num_vertices(); ++v) e.middleRows<3>(3 * v).setIdentity();
  return U.transpose() * (model.consistent_mass_matrix() * e);
}

}  // namespace

TEST_CASE("compute_system_force_integrals: each W equals its defining integral",
          "[runtime][kernels]") {
  const StvkFemModel model = box_model();
  const Eigen::MatrixX3d X = positions_in_frame(model);
  std::mt19937 rng(3);
  const int r = 5;
  const Eigen::MatrixXd U = random_matrix(3 * model.num_vertices(), r, 0.1, rng);
  const SystemForceIntegrals w = compute_system_force_integrals(model, U, X);
  const SystemForceIntegrals expected = integrals_by_quadrature(quadrature_points(model, X, U), r);

  REQUIRE(w.w1.rows() == 3);
  REQUIRE(w.w1.cols() == r);
  REQUIRE(w.w2.rows() == 3);
  REQUIRE(w.w2.cols() == r);
  REQUIRE(w.w3.size() == r);
  REQUIRE(w.w4.rows() == r);
  REQUIRE(w.w4.cols() == r);
  REQUIRE(w.w5.rows() == 3);
  REQUIRE(w.w5.cols() == 3 * r);
  REQUIRE(w.w6.rows() == r);
  REQUIRE(w.w6.cols() == 3 * r);
  REQUIRE(w.w7.rows() == 3 * r);
  REQUIRE(w.w7.cols() == 3 * r);
  CHECK(relative_error(w.w1, expected.w1) < 1e-12);
  CHECK(relative_error(w.w2, expected.w2) < 1e-12);
  CHECK(relative_error(w.w3, expected.w3) < 1e-12);
  CHECK(relative_error(w.w4, expected.w4) < 1e-12);
  CHECK(relative_error(w.w5, expected.w5) < 1e-12);
  CHECK(relative_error(w.w6, expected.w6) < 1e-12);
  CHECK(relative_error(w.w7, expected.w7) < 1e-12);
  // Symmetries of the definitions: W4 and W7 symmetric, W6_l row p = -(W6_p row l).
  CHECK(w.w4 == w.w4.transpose());
  CHECK(w.w7 == w.w7.transpose());
  for (int l = 0; l < r; ++l)
    for (int p = 0; p < r; ++p)
      CHECK((w.w6.block<1, 3>(p, 3 * l) + w.w6.block<1, 3>(l, 3 * p)).norm() < 1e-14 * w.w6.norm());
}

TEST_CASE("system_force (Eq. 14) equals -∫ρ Uᵀ a(X) dV on a moving, deformed domain",
          "[runtime][kernels]") {
  const StvkFemModel model = box_model();
  const Eigen::MatrixX3d X = positions_in_frame(model);
  std::mt19937 rng(11);
  const int r = 7;
  const Eigen::MatrixXd U = random_matrix(3 * model.num_vertices(), r, 0.1, rng);
  const SystemForceIntegrals w = compute_system_force_integrals(model, U, X);
  const std::vector<QuadraturePoint> points = quadrature_points(model, X, U);

  // Displacements |U q| up to ~0.1 m on a 0.4 m box, velocities ~1 m/s.
  const Eigen::VectorXd q = random_matrix(r, 1, 0.5, rng);
  const Eigen::VectorXd qdot = random_matrix(r, 1, 5, rng);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(r);
  const Eigen::Vector3d a = random_vector3(10, rng), alpha = random_vector3(20, rng),
                        omega = random_vector3(3, rng), none = Eigen::Vector3d::Zero();
  struct Case {
    std::string name;
    Eigen::VectorXd q, qdot;
    FrameKinematics frame;
  };
  // Each case adds terms of Eq. 14 to the ones before, so a wrong term is located by the first
  // failing case.
  const std::vector<Case> cases = {
      {"linear acceleration (W1)", q, qdot, {a, none, none}},
      {"angular acceleration at rest (W2)", zero, zero, {none, none, alpha}},
      {"angular acceleration, deformed (W2, W6 q)", q, zero, {none, none, alpha}},
      {"angular velocity at rest (W3, W5)", zero, zero, {none, omega, none}},
      {"angular velocity, deformed (W3, W5, W4 q, W7 q)", q, zero, {none, omega, none}},
      {"angular velocity, moving at rest shape (W3, W5, Coriolis W6 q̇)",
       zero,
       qdot,
       {none, omega, none}},
      {"everything", q, qdot, {a, omega, alpha}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Eigen::VectorXd expected = system_force_by_quadrature(points, c.q, c.qdot, c.frame);
    const Eigen::VectorXd force = evaluate_system_force(w, c.q, c.qdot, c.frame);
    REQUIRE(force.size() == r);
    CHECK(expected.norm() > 0);
    CHECK(relative_error(force, expected) < 1e-12);
    CHECK(relative_error(evaluate_packed(w, c.q, c.qdot, c.frame), expected) < 1e-12);
  }
}

namespace {

// W1..W7 of the right sizes for r, entries in [-1, 1], without their symmetries.
SystemForceIntegrals random_integrals(int r, std::mt19937& rng) {
  SystemForceIntegrals w;
  w.w1 = random_matrix(3, r, 1, rng);
  w.w2 = random_matrix(3, r, 1, rng);
  w.w3 = random_matrix(r, 1, 1, rng);
  w.w4 = random_matrix(r, r, 1, rng);
  w.w5 = random_matrix(3, 3 * r, 1, rng);
  w.w6 = random_matrix(r, 3 * r, 1, rng);
  w.w7 = random_matrix(3 * r, 3 * r, 1, rng);
  return w;
}

}  // namespace

TEST_CASE("SystemForceMatrix: B z equals Eq. 14 term by term, at any scale, without allocation",
          "[runtime][kernels]") {
  std::mt19937 rng(9);
  for (const int r : {1, 8, 20}) {
    // W5, W6, W7 without their symmetries: B must place every entry (W7 is symmetric in
    // practice; the packing does not rely on it).
    const SystemForceIntegrals w = random_integrals(r, rng);
    const Eigen::VectorXd q = random_matrix(r, 1, 1, rng), qdot = random_matrix(r, 1, 1, rng);
    const FrameKinematics frame{random_vector3(1, rng), random_vector3(1, rng),
                                random_vector3(1, rng)};
    for (const double s : {1.0, 0.6, 1.4}) {
      INFO("r = " << r << ", scale " << s);
      const UniformScale scale(s);
      SystemForceScratch scratch(r);
      Eigen::VectorXd expected(r);
      system_force(w, q, qdot, frame, scratch, expected, scale);
      CHECK(relative_error(evaluate_packed(w, q, qdot, frame, scale), expected) < 1e-13);
    }
    const SystemForceMatrix packed(w);
    CHECK(packed.r() == r);
    CHECK(packed.transposed().rows() == 13 + 10 * r);
    SystemForceScratch scratch(r);
    Eigen::VectorXd force(r);
    const long allocations = test::count_allocations([&] {
      for (int k = 0; k < 10; ++k) packed.evaluate(q, qdot, frame, scratch, force);
    });
    CHECK(allocations == 0);
  }
}

TEST_CASE("Mass-orthonormal bases: W4 = I and W1 = -Gᵀ, a free body's basis has W1 = W2 = 0",
          "[runtime][kernels]") {
  const StvkFemModel model = box_model();
  const Eigen::MatrixX3d X = positions_in_frame(model);
  const double mass = model.total_mass();

  SECTION("clamped at x = 0: linear modes only") {
    std::vector<int> clamped;
    for (int v = 0; v < model.num_vertices(); ++v)
      if (model.mesh().rest_positions(v, 0) == 0.0) clamped.push_back(v);
    const DofMap dofs(model.num_vertices(), clamped);
    const LinearModes modes = compute_linear_modes(model, dofs, 6);
    const Eigen::MatrixXd U = basis_in_frame(
        compute_reduced_basis(model, dofs, modes, Eigen::MatrixXd(dofs.num_dofs(), 0), 6).basis);
    const SystemForceIntegrals w = compute_system_force_integrals(model, U, X);
    CHECK((w.w4 - Eigen::MatrixXd::Identity(6, 6)).norm() < 1e-10);
    const Eigen::MatrixXd G = gravity_basis(model, U);
    CHECK(G.norm() > 0.1 * std::sqrt(mass));  // bending modes move the centre of mass
    CHECK(relative_error(w.w1, -G.transpose()) < 1e-12);
  }

  SECTION("free body: linear modes and modal derivatives, rigid motion excluded") {
    const DofMap dofs(model.num_vertices(), {});
    const LinearModes modes = compute_linear_modes(model, dofs, 4);
    REQUIRE(modes.num_rigid_modes == 6);
    const Eigen::MatrixXd derivatives = compute_modal_derivatives(model, dofs, modes);
    const int r = 8;
    const Eigen::MatrixXd U =
        basis_in_frame(compute_reduced_basis(model, dofs, modes, derivatives, r).basis);
    const SystemForceIntegrals w = compute_system_force_integrals(model, U, X);
    CHECK((w.w4 - Eigen::MatrixXd::Identity(r, r)).norm() < 1e-10);
    // |∫ρ e·U_l| <= sqrt(m) and |∫ρ X × U_l| <= sqrt(∫ρ |X|^2) for M-normalized modes.
    const double radius = X.rowwise().norm().maxCoeff();
    CHECK(w.w1.norm() < 1e-8 * std::sqrt(mass));
    CHECK(w.w2.norm() < 1e-8 * std::sqrt(mass) * radius);
  }
}

TEST_CASE("system_force allocates nothing", "[runtime][kernels]") {
  std::mt19937 rng(5);
  for (const int r : {1, 8, 60}) {
    // Any integrals of the right sizes will do: only the evaluation is timed for allocations.
    const SystemForceIntegrals w = random_integrals(r, rng);
    const Eigen::VectorXd q = random_matrix(r, 1, 1, rng), qdot = random_matrix(r, 1, 1, rng);
    const FrameKinematics frame{random_vector3(1, rng), random_vector3(1, rng),
                                random_vector3(1, rng)};
    SystemForceScratch scratch(r);
    Eigen::VectorXd force(r);
    double sum = 0;
    // Nothing but system_force runs while counting (no Catch2 macros either).
    const long allocations = test::count_allocations([&] {
      for (int k = 0; k < 10; ++k) {
        system_force(w, q, qdot, frame, scratch, force);
        sum += force.sum();
      }
    });
    INFO("r = " << r);
    CHECK(allocations == 0);
    CHECK(std::isfinite(sum));
    CHECK(force == evaluate_system_force(w, q, qdot, frame));
  }
}

TEST_CASE("r = 0: empty integrals and an empty force", "[runtime][kernels]") {
  const StvkFemModel model = box_model();
  const SystemForceIntegrals w = compute_system_force_integrals(
      model, Eigen::MatrixXd(3 * model.num_vertices(), 0), positions_in_frame(model));
  CHECK(w.w1.rows() == 3);
  CHECK(w.w1.cols() == 0);
  CHECK(w.w2.rows() == 3);
  CHECK(w.w2.cols() == 0);
  CHECK(w.w3.size() == 0);
  CHECK(w.w4.size() == 0);
  CHECK(w.w5.rows() == 3);
  CHECK(w.w5.cols() == 0);
  CHECK(w.w6.size() == 0);
  CHECK(w.w7.size() == 0);
  const FrameKinematics frame{{1, 2, 3}, {0.1, 0.2, 0.3}, {4, 5, 6}};
  SystemForceScratch scratch(0);
  Eigen::VectorXd force;
  system_force(w, Eigen::VectorXd(), Eigen::VectorXd(), frame, scratch, force);
  CHECK(force.size() == 0);
  SystemForceScratch unsized;
  system_force(SystemForceIntegrals{}, Eigen::VectorXd(), Eigen::VectorXd(), frame, unsized, force);
  CHECK(force.size() == 0);
}

TEST_CASE("compute_system_force_integrals: size mismatches throw OptionError",
          "[runtime][kernels]") {
  const StvkFemModel model = box_model();
  const Eigen::MatrixX3d X = positions_in_frame(model);
  const int num_dofs = 3 * model.num_vertices();
  CHECK_THROWS_AS(compute_system_force_integrals(model, Eigen::MatrixXd::Zero(num_dofs - 3, 2), X),
                  OptionError);
  CHECK_THROWS_AS(compute_system_force_integrals(model, Eigen::MatrixXd::Zero(num_dofs, 2),
                                                 X.topRows(X.rows() - 1)),
                  OptionError);
}
