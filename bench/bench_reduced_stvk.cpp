// Reduced StVK on the standard cantilever beam (30x6x6 hexes = 6,480 tets, E = 1e6 Pa,
// nu = 0.45, rho = 1000, clamped at x = 0) with a smooth, mass-orthonormal basis of r fields:
// the real-time evaluation of force + stiffness (ReducedStvkForces::evaluate) and the offline
// precomputation of the polynomial coefficients (compute_reduced_stvk_polynomial).
#include <benchmark/benchmark.h>

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <map>
#include <memory>
#include <random>

#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/reduction/reduced_stvk_coefficients.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"

namespace {

struct Beam {
  ramus::TetMesh mesh = ramus::make_cantilever_beam(30, 6, 6);
  ramus::StvkFemModel model{mesh, ramus::assign_materials(mesh, {1e6, 0.45, 1000})};
};

const Beam& beam() {
  static const Beam instance;
  return instance;
}

// r smooth displacement fields e_c x^n g(y, z) (zero on the clamped end x = 0), lowest degrees
// first, made orthonormal in the consistent mass matrix (3#V by r).
Eigen::MatrixXd smooth_basis(int r) {
  const Eigen::MatrixX3d& X = beam().mesh.rest_positions;
  Eigen::MatrixXd U = Eigen::MatrixXd::Zero(3 * X.rows(), r);
  int column = 0;
  for (int n = 1; column < r; ++n)
    for (int g = 0; g < 3 && column < r; ++g)
      for (int c = 0; c < 3 && column < r; ++c, ++column)
        for (Eigen::Index v = 0; v < X.rows(); ++v) {
          const double y = (X(v, 1) - 0.1) / 0.1, z = (X(v, 2) - 0.1) / 0.1;
          U(3 * v + c, column) = std::pow(X(v, 0), n) * (g == 0 ? 1.0 : g == 1 ? y : z);
        }
  const Eigen::SparseMatrix<double> M = beam().model.consistent_mass_matrix();
  const Eigen::MatrixXd gram = U.transpose() * (M * U);
  const Eigen::LLT<Eigen::MatrixXd> llt(gram);
  // U L^-T: (U L^-T)^T M (U L^-T) = L^-1 (L L^T) L^-T = I.
  return llt.matrixU().solve<Eigen::OnTheRight>(U);
}

const ramus::ReducedStvkPolynomial& polynomial(int r) {
  static std::map<int, std::unique_ptr<ramus::ReducedStvkPolynomial>> cache;
  auto& entry = cache[r];
  if (!entry)
    entry = std::make_unique<ramus::ReducedStvkPolynomial>(
        ramus::compute_reduced_stvk_polynomial(beam().model, smooth_basis(r)));
  return *entry;
}

// Flops of one evaluate(): quartic symmetric product 2p^2, cubic product 2pr, monomials p,
// packed sums 6p, unpacking + gradient ~2r^2.
double evaluate_flops(int r) {
  const double p = ramus::num_pairs(r);
  return 2 * p * p + 2 * p * r + 7 * p + 2.0 * r * r;
}

void BM_ReducedStvkEvaluate(benchmark::State& state) {
  const int r = static_cast<int>(state.range(0));
  ramus::ReducedStvkForces forces(polynomial(r));
  std::mt19937 rng(1);
  std::normal_distribution<double> normal(0, 1);
  Eigen::VectorXd q(r), gradient(r);
  for (int a = 0; a < r; ++a) q(a) = 0.01 * normal(rng);
  Eigen::MatrixXd hessian(r, r);
  for (auto _ : state) {
    forces.evaluate(q, gradient, hessian);
    benchmark::DoNotOptimize(gradient.data());
    benchmark::DoNotOptimize(hessian.data());
    benchmark::ClobberMemory();
  }
  state.counters["p"] = ramus::num_pairs(r);
  state.counters["GFLOP/s"] =
      benchmark::Counter(evaluate_flops(r) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReducedStvkEvaluate)->Arg(10)->Arg(20)->Arg(30)->Unit(benchmark::kMicrosecond);

// n instances of one part: one at a time (batched = 0) or in evaluate_batch's matrix-matrix
// products (1); time per instance.
void BM_ReducedStvkBatch(benchmark::State& state) {
  const int r = static_cast<int>(state.range(0)), n = 1024;
  const bool batched = state.range(1) == 1;
  const ramus::ReducedStvkForces forces(polynomial(r), true);
  const Eigen::MatrixXd q = 0.01 * Eigen::MatrixXd::Random(r, n);
  const int columns = ramus::stvk_batch_columns(r);
  ramus::ReducedStvkBatchScratch batch(r, columns);
  ramus::ReducedStvkScratch single(r);
  Eigen::MatrixXd gradients(r, n), packed(ramus::num_pairs(r), n), hessian(r, r);
  Eigen::VectorXd energies(n);
  for (auto _ : state) {
    if (batched) {
      for (int first = 0; first < n; first += columns) {
        const int c = std::min(columns, n - first);
        forces.evaluate_batch(q.middleCols(first, c), batch, gradients.middleCols(first, c),
                              packed.middleCols(first, c), energies.segment(first, c));
      }
    } else {
      for (int k = 0; k < n; ++k) forces.evaluate(q.col(k), single, gradients.col(k), hessian);
    }
    benchmark::DoNotOptimize(gradients.data());
    benchmark::ClobberMemory();
  }
  state.counters["per_instance_us"] = benchmark::Counter(
      1e-6 * n, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ReducedStvkBatch)
    ->ArgsProduct({{4, 8, 20}, {0, 1}})
    ->ArgNames({"r", "batched"})
    ->Unit(benchmark::kMicrosecond);

// Precomputation: args r and threads (0 = all cores). Real time: it runs on several threads.
void BM_ReducedStvkPrecompute(benchmark::State& state) {
  const int r = static_cast<int>(state.range(0));
  const Eigen::MatrixXd U = smooth_basis(r);
  for (auto _ : state) {
    const ramus::ReducedStvkPolynomial poly =
        ramus::compute_reduced_stvk_polynomial(beam().model, U, static_cast<int>(state.range(1)));
    benchmark::DoNotOptimize(poly.quartic.data());
  }
  // The SYRK that dominates: p (p + 1) / 2 entries of W, 7 #T multiply-adds each.
  const double p = ramus::num_pairs(r);
  state.counters["syrk_GFLOP/s"] =
      benchmark::Counter(p * (p + 1) * 7.0 * beam().mesh.num_tets() * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReducedStvkPrecompute)
    ->ArgsProduct({{10, 20, 30}, {1, 0}})
    ->ArgNames({"r", "threads"})
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
