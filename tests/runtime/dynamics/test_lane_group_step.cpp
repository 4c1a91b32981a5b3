// The lane step's polar decomposition (src/dynamics/lane_group_step.h): eight matrices at once,
// each lane as the scalar polar_decomposition gives it, including a lane that converges late,
// one with det A < 0 (the only one sent to the scalar SVD) and a near-singular one, next to
// lanes that settle at once; and near rotations, the step's usual case, none of them sent to
// the scalar path. The whole lane step is checked against the domain-by-domain step in
// tests/precompute/mesh/test_tree_generator.cpp. Also the packet transposes that carry rows into
// lanes and back.
#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include "dynamics/lane_group_step.h"
#include "ramus/runtime/kernels/polar_decomposition.h"

using namespace ramus;

namespace {

lanes::Mat3 to_lanes(const Eigen::Matrix3d (&A)[lanes::kLanes]) {
  lanes::Mat3 M;
  for (int k = 0; k < lanes::kLanes; ++k)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) M(i, j)(k) = A[k](i, j);
  return M;
}

Eigen::Matrix3d lane(const lanes::Mat3& M, int k) {
  Eigen::Matrix3d A;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A(i, j) = M(i, j)(k);
  return A;
}

}  // namespace

TEST_CASE("Polar decompositions in lanes equal the scalar one lane by lane",
          "[runtime][dynamics][lanes]") {
  const Eigen::Matrix3d rotation =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  Eigen::Matrix3d stretch;
  stretch << 1.3, 0.2, -0.1, 0.2, 0.8, 0.05, -0.1, 0.05, 1.1;
  Eigen::Matrix3d reflection = rotation;
  reflection.col(2) *= -1;  // det < 0: no rotation factor by the iteration
  Eigen::Matrix3d ill = rotation * Eigen::Vector3d(1, 1, 1e-9).asDiagonal();
  const Eigen::Matrix3d cases[8] = {rotation * (Eigen::Matrix3d::Identity() + 1e-6 * stretch),
                                    rotation * stretch,
                                    reflection,
                                    ill,
                                    rotation,
                                    25.0 * rotation * stretch,
                                    Eigen::Matrix3d::Identity(),
                                    rotation.transpose() * stretch};
  // The cases in every lane: the lanes in turn, each set the cases shifted by one.
  for (int shift = 0; shift < 8; ++shift) {
    Eigen::Matrix3d set[lanes::kLanes];
    for (int k = 0; k < lanes::kLanes; ++k) set[k] = cases[(k + shift) % 8];
    lanes::Mat3 R, S;
    // Only the reflection goes to the scalar decomposition (the near-singular A settles in the
    // iteration: the scaled Newton steps converge from any nonsingular A).
    CHECK(polar_decomposition_lanes(to_lanes(set), R, S) == 1);
    for (int k = 0; k < lanes::kLanes; ++k) {
      INFO("lane " << k);
      const PolarDecomposition expected = polar_decomposition(set[k]);
      CHECK((lane(R, k) - expected.R).cwiseAbs().maxCoeff() < 1e-14);
      CHECK((lane(S, k) - expected.S).cwiseAbs().maxCoeff() <
            1e-14 * expected.S.cwiseAbs().maxCoeff());
      // And a rotation with A = R S (the definition, not only agreement).
      CHECK(std::abs(lane(R, k).determinant() - 1) < 1e-12);
      CHECK((lane(R, k) * lane(S, k) - set[k]).cwiseAbs().maxCoeff() <
            1e-13 * set[k].cwiseAbs().maxCoeff());
    }
  }
}

TEST_CASE("Polar decompositions of near rotations settle in lanes without the scalar path",
          "[runtime][dynamics][lanes]") {
  // A leaf's interface map: a rotation times I + a small strain, every lane a different one (the
  // usual case: every lane settles at the same iteration, none goes to the scalar SVD).
  Eigen::Matrix3d set[lanes::kLanes];
  for (int k = 0; k < lanes::kLanes; ++k) {
    Eigen::Matrix3d strain;
    strain << 1, 0.3, -0.2, 0.3, -0.5, 0.1, -0.2, 0.1, 0.7;
    set[k] = Eigen::AngleAxisd(0.2 * k, Eigen::Vector3d(1, -1, 2 + k).normalized()) *
             (Eigen::Matrix3d::Identity() + 1e-4 * (k + 1) * strain);
  }
  lanes::Mat3 R, S;
  CHECK(polar_decomposition_lanes(to_lanes(set), R, S) == 0);
  for (int k = 0; k < lanes::kLanes; ++k) {
    INFO("lane " << k);
    const PolarDecomposition expected = polar_decomposition(set[k]);
    CHECK((lane(R, k) - expected.R).cwiseAbs().maxCoeff() < 1e-15);
    CHECK((lane(S, k) - expected.S).cwiseAbs().maxCoeff() < 1e-15);
  }
}

TEST_CASE("Rows into lanes and back by packet transposes", "[runtime][dynamics]") {
  // Every length (packet squares and a remainder) and every lane count: each value lands in its
  // lane and row, and the rows past `count` are left as they were.
  constexpr int kMax = 13;
  for (int n = 0; n <= kMax; ++n)
    for (int count = 1; count <= lanes::kLanes; ++count) {
      INFO("n " << n << " count " << count);
      double source[lanes::kLanes][kMax], target[lanes::kLanes][kMax];
      const double* in[lanes::kLanes];
      double* out[lanes::kLanes];
      for (int lane = 0; lane < lanes::kLanes; ++lane) {
        for (int l = 0; l < kMax; ++l) {
          source[lane][l] = 100.0 * lane + l + 0.5;
          target[lane][l] = -1.0;
        }
        in[lane] = source[lane];
        out[lane] = target[lane];
      }
      lanes::Lane values[kMax];
      lanes::load_transposed(in, n, values);
      for (int l = 0; l < n; ++l)
        for (int lane = 0; lane < lanes::kLanes; ++lane)
          REQUIRE(values[l](lane) == source[lane][l]);
      lanes::store_transposed(values, n, out, count);
      for (int lane = 0; lane < lanes::kLanes; ++lane)
        for (int l = 0; l < kMax; ++l)
          REQUIRE(target[lane][l] == (lane < count && l < n ? source[lane][l] : -1.0));
    }
}
