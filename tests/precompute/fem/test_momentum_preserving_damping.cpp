// The momentum-preserving damping (stabilizing-integrators paper Eq. 32-33): momentum and
// angular momentum of the free vertices kept, kinetic energy lost as reported, a rigid motion
// untouched, k = 1 leaving the rigid motion alone; fixed vertices left as they are.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <random>

#include "ramus/precompute/fem/momentum_preserving_damping.h"

using namespace ramus;

namespace {

double kinetic(const Eigen::VectorXd& m, const Eigen::VectorXd& v) {
  double k = 0;
  for (Eigen::Index i = 0; i < m.size(); ++i) k += 0.5 * m(i) * v.segment<3>(3 * i).squaredNorm();
  return k;
}

}  // namespace

TEST_CASE("momentum-preserving damping keeps both momenta and removes what it reports",
          "[local_global]") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  const int n = 40;
  Eigen::VectorXd m(n), x(3 * n), v(3 * n);
  for (int i = 0; i < n; ++i) m(i) = 0.5 + 0.4 * u(rng);
  for (int k = 0; k < 3 * n; ++k) x(k) = u(rng), v(k) = u(rng);
  const Momenta before = momenta(m, x, v);
  const double energy_before = kinetic(m, v);
  Eigen::VectorXd damped = v;
  const double removed = damp_non_rigid_velocity(m, {}, x, 0.3, damped);
  const Momenta after = momenta(m, x, damped);
  CHECK((after.linear - before.linear).norm() < 1e-12 * before.linear.norm() + 1e-14);
  CHECK((after.angular - before.angular).norm() < 1e-12 * before.angular.norm() + 1e-14);
  CHECK(removed > 0.05 * energy_before);
  CHECK(kinetic(m, damped) == Approx(energy_before - removed).epsilon(1e-12));

  // k = 1 leaves the rigid fit: damping it again removes nothing, and it is a rigid field.
  Eigen::VectorXd rigid = v;
  damp_non_rigid_velocity(m, {}, x, 1.0, rigid);
  Eigen::VectorXd again = rigid;
  CHECK(damp_non_rigid_velocity(m, {}, x, 1.0, again) < 1e-12 * energy_before);
  CHECK((again - rigid).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("momentum-preserving damping leaves a rigid motion and fixed vertices alone",
          "[local_global]") {
  const int n = 10;
  Eigen::VectorXd m = Eigen::VectorXd::Ones(n), x(3 * n), v(3 * n);
  const Eigen::Vector3d velocity(0.2, -0.1, 0.3), omega(1, 2, -0.5);
  for (int i = 0; i < n; ++i) {
    x.segment<3>(3 * i) = Eigen::Vector3d(i, 0.3 * i * i, -0.1 * i);
    v.segment<3>(3 * i) = velocity + omega.cross(Eigen::Vector3d(x.segment<3>(3 * i)));
  }
  Eigen::VectorXd damped = v;
  CHECK(damp_non_rigid_velocity(m, {}, x, 0.7, damped) < 1e-10);
  CHECK((damped - v).cwiseAbs().maxCoeff() < 1e-10);
  // A fixed vertex with a (wrong) velocity keeps it; the others are fitted without it.
  damped(0) = 5;
  Eigen::VectorXd with_fixed = damped;
  damp_non_rigid_velocity(m, {0}, x, 0.7, with_fixed);
  CHECK(with_fixed(0) == 5);
  CHECK((with_fixed.tail(3 * n - 3) - v.tail(3 * n - 3)).cwiseAbs().maxCoeff() < 1e-10);
}
