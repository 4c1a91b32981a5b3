// Exact reduced StVK coefficients. Per tet e (volume V, Lamé mu, lambda) and coordinate a, the
// displacement gradient is H_a = sum_v U(3v..3v+2, a) G_v^T, so the Green strain is
//   E(q) = sum_a eps_a q_a + 1/2 sum_ab Q_ab q_a q_b,  eps_a = sym(H_a),
//   Q_ab = (H_a^T H_b + H_b^T H_a) / 2,
// and with <A, B> = mu A:B + lambda/2 tr A tr B the energy V <E, E> has the parts
//   quadratic  sum_ab    q_a q_b         V <eps_a, eps_b>       -> K2_ab  = 2 S_ab
//   cubic      sum_abc   q_a q_b q_c     V <eps_a, Q_bc>  =: C_a(bc)
//   quartic    sum_abcd  q_a q_b q_c q_d V/4 <Q_ab, Q_cd> =: W_(ab)(cd) / 4
// (S, C, W summed over tets). Every symmetric 3 by 3 tensor becomes a 7-vector
//   z = sqrt(V) [sqrt(mu) (S00, S11, S22), sqrt(2 mu) (S01, S02, S12), sqrt(|lambda|/2) tr S]
// so that V <A, B> = z_A . z_B (the trace term subtracted when lambda < 0). Stacking the z of all
// tets as columns, S = Y Y^T (r by r), C = Y Z^T (r by p), W = Z Z^T (p by p): blocked GEMM / SYRK
// over element blocks, one accumulator per thread. Differentiating the monomials:
//   d^3 E / dq_i dq_j dq_a      = 2 (C_i(ja) + C_j(ia) + C_a(ij)),
//   d^4 E / dq_i dq_j dq_k dq_l = 2 (W_(ij)(kl) + W_(ik)(jl) + W_(il)(jk)).
#include "ramus/precompute/reduction/reduced_stvk_coefficients.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "ramus/error.h"

namespace ramus {

namespace {

constexpr int kComponents = 7;  // entries of a strain 7-vector z

// Sums over one thread's tets, plus that thread's block buffers.
struct Accumulator {
  Eigen::MatrixXd W;           // p by p, lower triangle: sum V <Q_ab, Q_cd>
  Eigen::MatrixXd C;           // r by p: sum V <eps_a, Q_bc>
  Eigen::MatrixXd S;           // r by r, lower triangle: sum V <eps_a, eps_b>
  Eigen::MatrixXd Z, Y;        // p by 7B, r by 7B: z of Q_ab and eps_a for the block's tets
  Eigen::MatrixXd Zneg, Yneg;  // p by B, r by B: trace entries of tets with lambda < 0
  Eigen::MatrixXd Ue, Ht;      // 12 by r corner rows of U; 9 by r, column a = vec(H_a)

  Accumulator(int r, int p, int block) {
    W.setZero(p, p);
    C.setZero(r, p);
    S.setZero(r, r);
    Z.resize(p, kComponents * block);
    Y.resize(r, kComponents * block);
    Zneg.resize(p, block);
    Yneg.resize(r, block);
    Ue.resize(12, r);
    Ht.resize(9, r);
  }
};

// dvec(F)/dx for one tet (9 by 12): vec index i + 3 k depends on corner v's coordinate i.
Eigen::Matrix<double, 9, 12> gradient_operator(const LinearTetRest& rest) {
  Eigen::Matrix<double, 9, 12> B = Eigen::Matrix<double, 9, 12>::Zero();
  for (int v = 0; v < 4; ++v)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) B(i + 3 * k, 3 * v + i) = rest.shape_gradients(v, k);
  return B;
}

// Accumulates the tets [begin, end) (one block) into `acc`. `basis_rows` is U, row-major.
void accumulate_block(
    const StvkFemModel& model,
    const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& basis_rows,
    int begin, int end, Accumulator& acc) {
  const int r = static_cast<int>(basis_rows.cols());
  const Eigen::MatrixX4i& tets = model.mesh().tets;
  int num_negative = 0;
  for (int t = begin; t < end; ++t) {
    const int e = t - begin;
    const LinearTetRest& rest = model.rest_data()[static_cast<size_t>(t)];
    const LameParameters& lame = model.lame()[static_cast<size_t>(t)];
    for (int v = 0; v < 4; ++v)
      acc.Ue.middleRows<3>(3 * v) = basis_rows.middleRows<3>(3 * tets(t, v));
    acc.Ht.noalias() = gradient_operator(rest) * acc.Ue;

    const double s_diag = std::sqrt(rest.volume * lame.mu);
    const double s_off = std::sqrt(2.0 * rest.volume * lame.mu);
    const double s_trace = std::sqrt(0.5 * rest.volume * std::abs(lame.lambda));
    const bool negative = lame.lambda < 0;
    const int c0 = kComponents * e;
    // Columns for the trace entry: the block's own, or (lambda < 0) the subtracted ones.
    double* z_trace = negative ? acc.Zneg.col(num_negative).data() : acc.Z.col(c0 + 6).data();
    double* y_trace = negative ? acc.Yneg.col(num_negative).data() : acc.Y.col(c0 + 6).data();
    if (negative) {
      acc.Z.col(c0 + 6).setZero();
      acc.Y.col(c0 + 6).setZero();
      ++num_negative;
    }

    // Linear strains eps_a = sym(H_a); H_a(i, k) = Ht(i + 3 k, a).
    const auto h = [&](int i, int k) { return acc.Ht.row(i + 3 * k).transpose(); };
    acc.Y.col(c0 + 0) = s_diag * h(0, 0);
    acc.Y.col(c0 + 1) = s_diag * h(1, 1);
    acc.Y.col(c0 + 2) = s_diag * h(2, 2);
    acc.Y.col(c0 + 3) = (0.5 * s_off) * (h(0, 1) + h(1, 0));
    acc.Y.col(c0 + 4) = (0.5 * s_off) * (h(0, 2) + h(2, 0));
    acc.Y.col(c0 + 5) = (0.5 * s_off) * (h(1, 2) + h(2, 1));
    Eigen::Map<Eigen::VectorXd>(y_trace, r) = s_trace * (h(0, 0) + h(1, 1) + h(2, 2));

    // Quadratic strains Q_ab, b >= a, in packed pair order.
    double* z[6];
    for (int c = 0; c < 6; ++c) z[c] = acc.Z.col(c0 + c).data();
    for (int a = 0, row = 0; a < r; ++a) {
      const double* ha = acc.Ht.col(a).data();
      for (int b = a; b < r; ++b, ++row) {
        const double* hb = acc.Ht.col(b).data();
        double q[3][3];  // (H_a^T H_b)(k, l) = sum_i H_a(i, k) H_b(i, l)
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l)
            q[k][l] = ha[3 * k] * hb[3 * l] + ha[3 * k + 1] * hb[3 * l + 1] +
                      ha[3 * k + 2] * hb[3 * l + 2];
        z[0][row] = s_diag * q[0][0];
        z[1][row] = s_diag * q[1][1];
        z[2][row] = s_diag * q[2][2];
        z[3][row] = (0.5 * s_off) * (q[0][1] + q[1][0]);
        z[4][row] = (0.5 * s_off) * (q[0][2] + q[2][0]);
        z[5][row] = (0.5 * s_off) * (q[1][2] + q[2][1]);
        z_trace[row] = s_trace * (q[0][0] + q[1][1] + q[2][2]);
      }
    }
  }

  const Eigen::Index cols = kComponents * (end - begin);
  const auto Z = acc.Z.leftCols(cols);
  const auto Y = acc.Y.leftCols(cols);
  acc.W.selfadjointView<Eigen::Lower>().rankUpdate(Z);
  acc.C.noalias() += Y * Z.transpose();
  acc.S.selfadjointView<Eigen::Lower>().rankUpdate(Y);
  if (num_negative > 0) {
    const auto Zn = acc.Zneg.leftCols(num_negative);
    const auto Yn = acc.Yneg.leftCols(num_negative);
    acc.W.selfadjointView<Eigen::Lower>().rankUpdate(Zn, -1.0);
    acc.C.noalias() -= Yn * Zn.transpose();
    acc.S.selfadjointView<Eigen::Lower>().rankUpdate(Yn, -1.0);
  }
}

}  // namespace

ReducedStvkPolynomial compute_reduced_stvk_polynomial(const StvkFemModel& model,
                                                      const Eigen::MatrixXd& basis,
                                                      int num_threads) {
  if (basis.rows() != 3 * static_cast<Eigen::Index>(model.num_vertices()))
    throw OptionError("compute_reduced_stvk_polynomial: basis has " + std::to_string(basis.rows()) +
                      " rows, the model has 3 * " + std::to_string(model.num_vertices()) + " DOFs");
  if (basis.cols() == 0) throw OptionError("compute_reduced_stvk_polynomial: empty basis (r = 0)");
  if (!basis.allFinite())
    throw OptionError("compute_reduced_stvk_polynomial: basis has a non-finite entry");
  const int r = static_cast<int>(basis.cols());
  const int p = num_pairs(r);
  const int T = model.num_tets();

  // Blocks of tets: Z holds at most ~4M doubles per thread; every thread gets work.
  int threads = num_threads > 0
                    ? num_threads
                    : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const double z_budget = 4.0 * 1024 * 1024 / (kComponents * static_cast<double>(p));
  int block = static_cast<int>(std::clamp(z_budget, 8.0, 256.0));
  block = std::max(8, std::min(block, (T + threads - 1) / threads));
  const int num_blocks = (T + block - 1) / block;
  threads = std::max(1, std::min(threads, num_blocks));

  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> basis_rows = basis;
  std::vector<Accumulator> acc;
  acc.reserve(static_cast<size_t>(threads));
  for (int k = 0; k < threads; ++k) acc.emplace_back(r, p, block);
  // Thread k takes the contiguous blocks [k B / n, (k + 1) B / n): deterministic for fixed n.
  const auto work = [&](int k) {
    const int first = static_cast<int>(static_cast<long>(num_blocks) * k / threads);
    const int last = static_cast<int>(static_cast<long>(num_blocks) * (k + 1) / threads);
    for (int b = first; b < last; ++b)
      accumulate_block(model, basis_rows, b * block, std::min(T, (b + 1) * block),
                       acc[static_cast<size_t>(k)]);
  };
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  {
    std::vector<std::jthread> pool;
    for (int k = 1; k < threads; ++k)
      pool.emplace_back([&, k] {
        try {
          work(k);
        } catch (...) {
          errors[static_cast<size_t>(k)] = std::current_exception();
        }
      });
    try {
      work(0);
    } catch (...) {
      errors[0] = std::current_exception();
    }
  }
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  Accumulator& sum = acc[0];
  for (int k = 1; k < threads; ++k) {
    sum.W.triangularView<Eigen::Lower>() += acc[static_cast<size_t>(k)].W;
    sum.C += acc[static_cast<size_t>(k)].C;
    sum.S.triangularView<Eigen::Lower>() += acc[static_cast<size_t>(k)].S;
  }
  Eigen::MatrixXd& W = sum.W;
  const Eigen::MatrixXd& C = sum.C;
  W.triangularView<Eigen::StrictlyUpper>() = W.transpose();

  Eigen::MatrixXi pair(r, r);  // pair(a, b) = pair_index(min, max)
  for (int a = 0; a < r; ++a)
    for (int b = a; b < r; ++b) pair(a, b) = pair(b, a) = pair_index(a, b, r);

  ReducedStvkPolynomial poly;
  poly.r = r;
  poly.quadratic.resize(p);
  poly.cubic.resize(p, r);
  poly.quartic.resize(p, p);
  for (int i = 0; i < r; ++i)
    for (int j = i; j < r; ++j) {
      const int ij = pair(i, j);
      poly.quadratic(ij) = 2.0 * sum.S(j, i);
      for (int a = 0; a < r; ++a)
        poly.cubic(ij, a) = 2.0 * (C(i, pair(j, a)) + C(j, pair(i, a)) + C(a, ij));
    }
  // Lower triangle of the quartic (kl >= ij), then the mirror: exactly symmetric.
  for (int k = 0; k < r; ++k)
    for (int l = k; l < r; ++l) {
      const int kl = pair(k, l);
      for (int i = 0; i < r; ++i)
        for (int j = i; j < r; ++j) {
          const int ij = pair(i, j);
          if (ij > kl) break;
          poly.quartic(kl, ij) =
              2.0 * (W(ij, kl) + W(pair(i, k), pair(j, l)) + W(pair(i, l), pair(j, k)));
        }
    }
  poly.quartic.triangularView<Eigen::StrictlyUpper>() = poly.quartic.transpose();
  return poly;
}

}  // namespace ramus
