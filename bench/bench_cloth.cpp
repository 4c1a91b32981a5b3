// The mass-spring cloth of "Implementing the implicit Euler method for mass-spring systems"
// (2004): a square cloth of n by n particles (1 m, default cloth settings, pinned at its two
// corners at y = +0.5 m, gravity along -z, h = 1/60 s), after 30 frames of falling.
// BM_ClothFrame/n/t/m: one frame (implicit Euler, Jacobi CG to 10^-t of |b| or m iterations, the
// defaults 3 and 200; the strain rule's halvings included), with CG iterations and steps per
// frame as counters.
// BM_ClothSystemProduct/n: one matrix-free product A p over the per-spring blocks (CG's cost
// per iteration). BM_ClothPrepare/n: the forces, Jacobians and blocks of one step.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>

#include "ramus/precompute/cloth/implicit_euler_cloth.h"

namespace {

struct Scene {
  ramus::MassSpringCloth cloth;
  std::unique_ptr<ramus::ImplicitEulerCloth> simulator;
  ramus::ClothState state;

  explicit Scene(int n, double tolerance = 0, int max_iterations = 0) {
    ramus::ClothSettings settings;
    if (tolerance > 0) settings.cg_tolerance = tolerance;
    if (max_iterations > 0) settings.cg_iterations = max_iterations;
    cloth = ramus::build_mass_spring_cloth(ramus::make_square_cloth(n, 1.0), settings,
                                           {n * (n - 1), n * n - 1}, "square");
    simulator = std::make_unique<ramus::ImplicitEulerCloth>(cloth, settings, 1.0 / 60,
                                                            Eigen::Vector3d(0, 0, -9.81));
    state = simulator->rest_state();
    for (int frame = 0; frame < 30; ++frame) simulator->advance(state, Eigen::VectorXd());
  }
};

void BM_ClothFrame(benchmark::State& state) {
  Scene scene(static_cast<int>(state.range(0)),
              std::pow(10.0, -static_cast<double>(state.range(1))),
              static_cast<int>(state.range(2)));
  long iterations = 0, steps = 0, frames = 0;
  for (auto _ : state) {
    const ramus::ClothStepReport report = scene.simulator->advance(scene.state, Eigen::VectorXd());
    iterations += report.cg_iterations;
    steps += report.steps + report.discarded;
    ++frames;
  }
  state.counters["particles"] = static_cast<double>(scene.cloth.num_particles());
  state.counters["springs"] = static_cast<double>(scene.cloth.num_springs());
  state.counters["cg_per_frame"] = static_cast<double>(iterations) / static_cast<double>(frames);
  state.counters["steps_per_frame"] = static_cast<double>(steps) / static_cast<double>(frames);
}
BENCHMARK(BM_ClothFrame)
    ->Args({30, 3, 200})
    ->Args({100, 3, 200})
    ->Args({100, 3, 2000})
    ->Args({100, 2, 200})
    ->Args({100, 2, 20})
    ->Unit(benchmark::kMillisecond);

void BM_ClothSystemProduct(benchmark::State& state) {
  Scene scene(static_cast<int>(state.range(0)));
  scene.simulator->prepare(scene.state, Eigen::VectorXd(), 1.0 / 60);
  const Eigen::VectorXd p = Eigen::VectorXd::Random(scene.state.positions.size());
  Eigen::VectorXd out(p.size());
  for (auto _ : state) {
    scene.simulator->system().multiply(p, out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_ClothSystemProduct)->Arg(100)->Unit(benchmark::kMicrosecond);

void BM_ClothPrepare(benchmark::State& state) {
  Scene scene(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Eigen::VectorXd b = scene.simulator->prepare(scene.state, Eigen::VectorXd(), 1.0 / 60);
    benchmark::DoNotOptimize(b.data());
  }
}
BENCHMARK(BM_ClothPrepare)->Arg(100)->Unit(benchmark::kMicrosecond);

}  // namespace
BENCHMARK_MAIN();
