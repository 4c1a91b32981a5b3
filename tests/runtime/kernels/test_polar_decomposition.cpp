// Polar decomposition and its rotation derivatives (paper Eq. 7-9): exactness of A = R S, and
// omega, Ṙ, Ṡ, omega_dot, R̈ against analytic references and finite differences along smooth
// paths A(t) = R(t) S(t) (general, near a rotation, repeated singular values, through the
// identity, near-singular).
#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>

#include "ramus/runtime/kernels/polar_decomposition.h"
#include "support/finite_differences.h"

using namespace ramus;
using test::relative_error;

namespace {

using Eigen::Matrix3d;
using Eigen::Vector3d;

// A(t) = R(t) S(t) with R(t) = Rz(a(t)) Rx(b(t)) R0 (a rotation about a moving axis) and
// S(t) = S0 + t S1 + t² S2, with exact first and second derivatives. Because the
// factors are known, the exact Ṙ, R̈, Ṡ are references too (when S(t) is positive definite).
struct Path {
  double a0 = 0, a1 = 0, a2 = 0;  // a(t) = a0 + a1 t + a2 t²
  double b0 = 0, b1 = 0, b2 = 0;  // b(t) = b0 + b1 t + b2 t²
  Matrix3d R0 = Matrix3d::Identity();
  Matrix3d S0 = Matrix3d::Identity(), S1 = Matrix3d::Zero(), S2 = Matrix3d::Zero();

  struct Sample {
    Matrix3d A, A_dot, A_ddot, R, R_dot, R_ddot, S, S_dot;
  };

  Sample at(double t) const {
    const Vector3d z = Vector3d::UnitZ(), x = Vector3d::UnitX();
    const Matrix3d zt = skew_matrix(z), xt = skew_matrix(x);
    const double a = a0 + a1 * t + a2 * t * t, ad = a1 + 2 * a2 * t, add = 2 * a2;
    const double b = b0 + b1 * t + b2 * t * t, bd = b1 + 2 * b2 * t, bdd = 2 * b2;
    const Matrix3d P = Eigen::AngleAxisd(a, z).toRotationMatrix();
    const Matrix3d Q = Eigen::AngleAxisd(b, x).toRotationMatrix() * R0;
    const Matrix3d P_dot = ad * zt * P, P_ddot = (add * zt + ad * ad * zt * zt) * P;
    const Matrix3d Q_dot = bd * xt * Q, Q_ddot = (bdd * xt + bd * bd * xt * xt) * Q;
    Sample s;
    s.R = P * Q;
    s.R_dot = P_dot * Q + P * Q_dot;
    s.R_ddot = P_ddot * Q + 2 * P_dot * Q_dot + P * Q_ddot;
    s.S = S0 + t * S1 + t * t * S2;
    s.S_dot = S1 + 2 * t * S2;
    const Matrix3d S_ddot = 2 * S2;
    s.A = s.R * s.S;
    s.A_dot = s.R_dot * s.S + s.R * s.S_dot;
    s.A_ddot = s.R_ddot * s.S + 2 * s.R_dot * s.S_dot + s.R * S_ddot;
    return s;
  }
};

Matrix3d random_rotation(std::mt19937& rng) {
  std::normal_distribution<double> n(0, 1);
  const Eigen::Quaterniond q(n(rng), n(rng), n(rng), n(rng));
  return q.normalized().toRotationMatrix();
}

Matrix3d random_symmetric(std::mt19937& rng, double scale) {
  std::normal_distribution<double> n(0, scale);
  Matrix3d M;
  for (int i = 0; i < 9; ++i) M.data()[i] = n(rng);
  return 0.5 * (M + M.transpose());
}

void check_decomposition(const Matrix3d& A, const PolarDecomposition& p) {
  const double tol = 1e-14;
  CHECK((p.R.transpose() * p.R - Matrix3d::Identity()).norm() < tol);
  CHECK(std::abs(p.R.determinant() - 1) < tol);
  CHECK((p.S - p.S.transpose()).norm() <= tol * p.S.norm());
  CHECK((p.R * p.S - A).norm() < tol * std::max(A.norm(), 1e-300));
}

// Finite-difference step for first derivatives: central differences have truncation error
// ~h²|R'''|/6 and round-off ~eps/h, balanced near h = eps^(1/3) ~ 6e-6 (errors ~1e-11).
// Second differences: truncation ~h²|R''''|/12, round-off ~4 eps/h², balanced near
// h = eps^(1/4) ~ 1e-4 (errors ~1e-8). Measured: ~1e-10 (first) and ~5e-8 (second), so the
// tolerances leave margins of ~100 and ~20.
constexpr double kFirstStep = 1e-5;
constexpr double kSecondStep = 2e-4;
constexpr double kFirstTol = 1e-8;
constexpr double kSecondTol = 1e-6;

struct Errors {
  double omega, R_dot, S_dot, omega_dot, R_ddot;
};

// Compares polar_rotation_derivatives at t against finite differences of polar_decomposition
// along the path (and, when `exact` is set, against the path's exact derivatives).
Errors check_path(const Path& path, double t, bool exact) {
  const Path::Sample s = path.at(t);
  const PolarDecomposition p = polar_decomposition(s.A);
  check_decomposition(s.A, p);
  const PolarRotationDerivatives d = polar_rotation_derivatives(p, s.A_dot, s.A_ddot);

  // R and S along the path, flattened for the finite-difference helper.
  const auto rotation_at = [&](double time) -> Eigen::VectorXd {
    return test::flat(polar_decomposition(path.at(time).A).R);
  };
  const auto stretch_at = [&](double time) -> Eigen::VectorXd {
    return test::flat(polar_decomposition(path.at(time).A).S);
  };
  const Matrix3d R_dot_fd = test::unflat<3, 3>(test::finite_derivative(t, rotation_at, kFirstStep));
  const Matrix3d S_dot_fd = test::unflat<3, 3>(test::finite_derivative(t, stretch_at, kFirstStep));
  const Vector3d omega_fd = skew_vector(R_dot_fd * p.R.transpose());
  const Matrix3d R_ddot_fd =
      test::unflat<3, 3>(test::finite_second_derivative(t, rotation_at, kSecondStep));
  // R̈ Rᵀ = omega_dot~ + omega~², and omega~² is symmetric.
  const Vector3d omega_dot_fd = skew_vector(R_ddot_fd * p.R.transpose());

  Errors e{};
  e.omega = relative_error(d.omega, omega_fd);
  e.R_dot = relative_error(d.R_dot, R_dot_fd);
  // Ṡ = Rᵀ (Ȧ - Ṙ S) is accurate relative to |Ȧ| (near a rotation |Ṡ| << |Ȧ|), and so is
  // its difference quotient (round-off ~eps |S| / h).
  e.S_dot = (d.S_dot - S_dot_fd).norm() / std::max(S_dot_fd.norm(), s.A_dot.norm());
  e.omega_dot = relative_error(d.omega_dot, omega_dot_fd);
  e.R_ddot = relative_error(d.R_ddot, R_ddot_fd);
  CAPTURE(t, e.omega, e.R_dot, e.S_dot, e.omega_dot, e.R_ddot);
  CHECK(e.omega < kFirstTol);
  CHECK(e.R_dot < kFirstTol);
  CHECK(e.S_dot < kFirstTol);
  CHECK(e.omega_dot < kSecondTol);
  CHECK(e.R_ddot < kSecondTol);
  // Consistency of the returned quantities with each other.
  CHECK((d.R_dot - skew_matrix(d.omega) * p.R).norm() < 1e-13 * (1 + d.R_dot.norm()));
  CHECK((d.S_dot - d.S_dot.transpose()).norm() < 1e-13 * (1 + d.S_dot.norm()));
  if (exact) {
    CHECK(relative_error(p.R, s.R) < 1e-13);
    CHECK(relative_error(p.S, s.S) < 1e-13);
    CHECK(relative_error(d.R_dot, s.R_dot) < 1e-12);
    CHECK(relative_error(d.S_dot, s.S_dot) < 1e-12);
    CHECK(relative_error(d.R_ddot, s.R_ddot) < 1e-12);
  }
  return e;
}

Path general_path() {
  std::mt19937 rng(3);
  Path path;
  path.a0 = 0.7, path.a1 = 1.3, path.a2 = -0.4;
  path.b0 = 0.4, path.b1 = -0.9, path.b2 = 0.5;
  path.R0 = random_rotation(rng);
  path.S0 = Vector3d(1.6, 1.0, 0.6).asDiagonal();
  path.S0 = path.R0 * path.S0 * path.R0.transpose() + random_symmetric(rng, 0.05);
  path.S1 = random_symmetric(rng, 0.2);
  path.S2 = random_symmetric(rng, 0.1);
  return path;
}

}  // namespace

TEST_CASE("skew_matrix is the cross product and skew_vector inverts it", "[runtime][kernels]") {
  const Vector3d w(0.3, -1.2, 2.5), x(-0.7, 0.4, 1.1);
  CHECK((skew_matrix(w) * x - w.cross(x)).norm() < 1e-15);
  CHECK((skew_matrix(w) + skew_matrix(w).transpose()).norm() == 0);
  CHECK((skew_vector(skew_matrix(w)) - w).norm() == 0);
  // skew_vector takes the skew-symmetric part: a symmetric addition does not change it.
  Matrix3d sym;
  sym << 1, 2, 3, 2, 4, 5, 3, 5, 6;
  CHECK((skew_vector(skew_matrix(w) + sym) - w).norm() < 1e-15);
  Matrix3d M;
  M << 1, 2, 3, 4, 5, 6, 7, 8, 10;
  CHECK((skew_matrix(skew_vector(M)) - 0.5 * (M - M.transpose())).norm() < 1e-15);
}

TEST_CASE("Polar decomposition: rotation times symmetric, exact to round-off",
          "[runtime][kernels]") {
  std::mt19937 rng(11);
  std::normal_distribution<double> n(0, 1);
  // General matrices with positive determinant: S positive definite and unique.
  for (int trial = 0; trial < 20; ++trial) {
    Matrix3d A;
    for (int i = 0; i < 9; ++i) A.data()[i] = n(rng);
    if (A.determinant() < 0) A.col(0) *= -1;
    const PolarDecomposition p = polar_decomposition(A);
    check_decomposition(A, p);
    const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(p.S);
    CHECK(eig.eigenvalues().minCoeff() > 0);
  }
  // Identity, a pure rotation, repeated singular values.
  const Matrix3d Q = random_rotation(rng);
  for (const Matrix3d& A :
       {Matrix3d(Matrix3d::Identity()), Q, Matrix3d(Q * Vector3d(2, 2, 1).asDiagonal()),
        Matrix3d(Vector3d(2, 2, 1).asDiagonal() * Q), Matrix3d(3 * Q)}) {
    const PolarDecomposition p = polar_decomposition(A);
    check_decomposition(A, p);
  }
  {
    const PolarDecomposition p = polar_decomposition(Matrix3d::Identity());
    CHECK((p.R - Matrix3d::Identity()).norm() < 1e-15);
    CHECK((p.S - Matrix3d::Identity()).norm() < 1e-15);
  }
  {
    const Matrix3d S = Q.transpose() * Vector3d(2, 2, 1).asDiagonal() * Q;
    const PolarDecomposition p = polar_decomposition(Q * S);
    CHECK((p.R - Q).norm() < 1e-14);
    CHECK((p.S - S).norm() < 1e-14);
  }
  // Near-singular and singular (rank 2): R is still a rotation, S positive semi-definite.
  for (const double smallest : {1e-8, 1e-14, 0.0}) {
    const Matrix3d B = random_rotation(rng);
    const Matrix3d A = Q * Vector3d(1.5, 0.8, smallest).asDiagonal() * B;
    const PolarDecomposition p = polar_decomposition(A);
    check_decomposition(A, p);
    const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(p.S);
    CHECK(eig.eigenvalues().minCoeff() > -1e-14);
    if (smallest > 0) CHECK(relative_error(p.R, Q * B) < 1e-12);
  }
  // det(A) < 0: R a proper rotation, A = R S, S symmetric with the eigenvalue -σ_min.
  {
    const Matrix3d B = random_rotation(rng);
    const Matrix3d A = Q * Vector3d(1.5, 0.8, -0.3).asDiagonal() * B;
    const PolarDecomposition p = polar_decomposition(A);
    check_decomposition(A, p);
    const Eigen::SelfAdjointEigenSolver<Matrix3d> eig(p.S);
    CHECK(eig.eigenvalues()(0) == Approx(-0.3).margin(1e-14));
    CHECK(eig.eigenvalues()(1) == Approx(0.8).margin(1e-14));
    CHECK(eig.eigenvalues()(2) == Approx(1.5).margin(1e-14));
  }
}

TEST_CASE("Polar rotation derivatives: general path (Eq. 7-9 vs exact and FD)",
          "[runtime][kernels]") {
  const Path path = general_path();
  for (const double t : {-0.3, 0.0, 0.45}) check_path(path, t, true);
}

TEST_CASE("Polar rotation derivatives: near a rotation", "[runtime][kernels]") {
  std::mt19937 rng(5);
  Path path = general_path();
  path.S0 = Matrix3d::Identity() + random_symmetric(rng, 1e-4);
  path.S1 = random_symmetric(rng, 1e-3);
  path.S2 = random_symmetric(rng, 1e-3);
  for (const double t : {0.0, 0.2}) check_path(path, t, true);
}

TEST_CASE("Polar rotation derivatives: repeated singular values", "[runtime][kernels]") {
  std::mt19937 rng(9);
  const Matrix3d Q = random_rotation(rng);
  Path path = general_path();
  const double t0 = 0.25;
  // S(t0) = Q diag(2, 2, 1) Qᵀ: a double singular value exactly at t0.
  const Matrix3d S_t0 = Q * Vector3d(2, 2, 1).asDiagonal() * Q.transpose();
  path.S1 = random_symmetric(rng, 0.3);
  path.S2 = Matrix3d::Zero();
  path.S0 = S_t0 - t0 * path.S1;
  check_path(path, t0, true);
  // S(t) = I + (t - t0) N with N having a repeated eigenvalue: triple singular value at t0 and
  // double ones elsewhere.
  const Matrix3d N = Q * Vector3d(0.5, 0.5, -0.2).asDiagonal() * Q.transpose();
  path.S1 = N;
  path.S0 = Matrix3d::Identity() - t0 * N;
  for (const double t : {t0, t0 + 0.1}) check_path(path, t, true);
}

TEST_CASE("Polar rotation derivatives: path through the identity", "[runtime][kernels]") {
  std::mt19937 rng(13);
  Path path;
  // a(0) = b(0) = 0 and R0 = I: R(0) = I; S(0) = I, so A(0) = I.
  path.a1 = 0.8, path.a2 = 0.3, path.b1 = -1.1, path.b2 = 0.6;
  path.S1 = random_symmetric(rng, 0.3);
  path.S2 = random_symmetric(rng, 0.2);
  const Path::Sample s = path.at(0);
  CHECK((s.A - Matrix3d::Identity()).norm() == 0);
  for (const double t : {0.0, 1e-3}) check_path(path, t, true);
}

TEST_CASE("Polar rotation derivatives: near-singular A", "[runtime][kernels]") {
  std::mt19937 rng(17);
  const Matrix3d Q = random_rotation(rng);
  Path path = general_path();
  // S(t) = Q (D(t) + E(t)) Qᵀ with the third eigenvalue fixed at 1e-6 (so S stays positive
  // definite across the FD stencil) while the first two eigenvectors rotate in their plane.
  Matrix3d D0 = Vector3d(1.0, 0.5, 1e-6).asDiagonal();
  D0(0, 1) = D0(1, 0) = 0.1;
  Matrix3d D1 = Vector3d(0.3, -0.2, 0).asDiagonal();
  D1(0, 1) = D1(1, 0) = 0.15;
  Matrix3d D2 = Vector3d(0.1, 0.05, 0).asDiagonal();
  path.S0 = Q * D0 * Q.transpose();
  path.S1 = Q * D1 * Q.transpose();
  path.S2 = Q * D2 * Q.transpose();
  const Errors e = check_path(path, 0.1, false);
  // Loose exact check: R is determined to ~eps |A| / (σ2 + σ3) and the derivatives are stable
  // because G's eigenvalues are the pairwise sums σi + σj (>= σ2 here).
  const Path::Sample s = path.at(0.1);
  const PolarDecomposition p = polar_decomposition(s.A);
  const PolarRotationDerivatives d = polar_rotation_derivatives(p, s.A_dot, s.A_ddot);
  CHECK(relative_error(p.R, s.R) < 1e-12);
  CHECK(relative_error(d.R_dot, s.R_dot) < 1e-10);
  CHECK(relative_error(d.R_ddot, s.R_ddot) < 1e-10);
  CHECK(e.omega < kFirstTol);
}
