// The lane step's polar decomposition (src/dynamics/lane_group_step.h): eight matrices at once,
// each lane as the scalar polar_decomposition gives it, including a lane that converges late,
// one with det A < 0 and one too ill-conditioned for the iteration (both the SVD's), next to
// lanes that settle at once. The whole lane step is checked against the node-by-node step in
// tests/precompute/mesh/test_tree_generator.cpp.
#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include "dynamics/lane_group_step.h"
#include "ramus/runtime/dynamics/polar_decomposition.h"

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
    polar_decomposition_lanes(to_lanes(set), R, S);
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
