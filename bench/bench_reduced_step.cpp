// The real-time reduced step and the precompute stages on the standard cantilever beam
// (1 x 0.2 x 0.2 m, 30x6x6 hexes = 6,480 tets, StVK E = 1e6 Pa, nu = 0.45, rho = 1000, fixed at
// x = 0), through the real pipeline: 10 linear modes + modal derivatives, mass-PCA to r.
//   BM_ReducedNewmarkStep/r     one semi-implicit Newmark step under gravity (force + stiffness
//                               + r by r LDLT), what a game pays per domain and frame
//   BM_Precompute<Stage>/r      linear modes, modal derivatives (r1 = 10, and r1 = 15: 120 MDs),
//                               mass-PCA basis, cubic polynomial
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/reduction/modal_analysis.h"
#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/precompute/reduction/reduced_stvk_coefficients.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"

namespace {

struct Beam {
  ramus::TetMesh mesh = ramus::make_cantilever_beam(30, 6, 6);
  ramus::StvkFemModel model{mesh, ramus::assign_materials(mesh, {1e6, 0.45, 1000})};
  ramus::DofMap dofs{mesh.num_vertices(), clamped()};
  std::vector<int> clamped() const {
    std::vector<int> fixed;
    for (int v = 0; v < mesh.num_vertices(); ++v)
      if (mesh.vertex_flags(v) == 1) fixed.push_back(v);
    return fixed;
  }
};

const Beam& beam() {
  static const Beam instance;
  return instance;
}

std::shared_ptr<const ramus::ReducedModel> reduced_model(int r) {
  static std::map<int, std::shared_ptr<const ramus::ReducedModel>> cache;
  auto& entry = cache[r];
  if (!entry) {
    entry = std::make_shared<ramus::ReducedModel>(ramus::single_domain_model(
        ramus::build_reduced_part(beam().model, beam().dofs, {10, r, true})));
  }
  return entry;
}

void BM_ReducedNewmarkStep(benchmark::State& state) {
  const int r = static_cast<int>(state.range(0));
  const auto model = ramus::compile_model(*reduced_model(r));
  ramus::RuntimeSettings settings = model->settings;
  settings.time_step = 1.0 / 60.0;
  settings.gravity = {0, 0, -9.81};
  // (The model's default integrator is SBDF2: this benchmark is the semi-implicit Newmark's.)
  for (ramus::DomainSettings& domain : settings.domains)
    domain.integrator = ramus::Integrator::kNewmark;
  ramus::Simulator simulator(model, settings);
  for (auto _ : state) {
    if (simulator.step() != ramus::StepStatus::kOk) state.SkipWithError("step failed");
    benchmark::DoNotOptimize(simulator.state().q.data());
  }
  state.counters["r"] = r;
}
BENCHMARK(BM_ReducedNewmarkStep)->Arg(10)->Arg(20)->Arg(30)->Unit(benchmark::kMicrosecond);

// One step of `state`'s integrator (args: enum value, r, split refresh steps k) on the beam at
// 60 Hz under `gravity`, swinging from rest; the split methods with s = 5 modes, the fully
// implicit ones to a relative step of 1e-10 (at most 20 iterations).
void integrator_step(benchmark::State& state, const Eigen::Vector3d& gravity) {
  const auto integrator = static_cast<ramus::Integrator>(state.range(0));
  const int r = static_cast<int>(state.range(1));
  const auto model = ramus::compile_model(*reduced_model(r));
  ramus::RuntimeSettings settings = model->settings;
  settings.time_step = 1.0 / 60.0;
  settings.gravity = gravity;
  for (ramus::DomainSettings& domain : settings.domains) {
    domain.integrator = integrator;
    domain.split_modes = 5;
    domain.split_refresh_steps = static_cast<int>(state.range(2));
  }
  ramus::Simulator simulator(model, settings);
  long long steps = 0;
  for (auto _ : state) {
    if (simulator.step() != ramus::StepStatus::kOk) state.SkipWithError("step failed");
    benchmark::DoNotOptimize(simulator.state().q.data());
    ++steps;
  }
  // Full eigen-decompositions per step (the split methods' refreshes).
  if (ramus::uses_split_modes(integrator) && steps > 0)
    state.counters["refresh"] =
        static_cast<double>(simulator.state().split_modes.front().decompositions) /
        static_cast<double>(steps);
  state.SetLabel(
      std::string(ramus::to_string(integrator)) +
      (ramus::uses_split_modes(integrator) ? " s=5 k=" + std::to_string(state.range(2)) : ""));
}

// Every integrator under gravity: large deformation (the tip sags ~30 %).
void BM_IntegratorStep(benchmark::State& state) {
  integrator_step(state, {0, 0, -9.81});
}

// SIERE against SI on a mildly deforming object (g / 100: the low modes barely change).
void BM_MildIntegratorStep(benchmark::State& state) {
  integrator_step(state, {0, 0, -0.0981});
}
BENCHMARK(BM_MildIntegratorStep)
    ->Args({static_cast<int>(ramus::Integrator::kSemiImplicitEuler), 20, 1})
    ->Args({static_cast<int>(ramus::Integrator::kSiere), 20, 1})
    ->Args({static_cast<int>(ramus::Integrator::kSiere), 20, 10})
    ->Args({static_cast<int>(ramus::Integrator::kSiere), 20, 60})
    ->Unit(benchmark::kMicrosecond);

void integrator_arguments(benchmark::internal::Benchmark* b) {
  for (int r : {8, 20, 30}) {
    for (int i = 1; i <= ramus::kNumIntegrators; ++i) b->Args({i, r, 1});
    for (int k : {10, 60}) b->Args({static_cast<int>(ramus::Integrator::kSiere), r, k});
  }
}
BENCHMARK(BM_IntegratorStep)->Apply(integrator_arguments)->Unit(benchmark::kMicrosecond);

void BM_PrecomputeLinearModes(benchmark::State& state) {
  const int r1 = static_cast<int>(state.range(0));
  for (auto _ : state)
    benchmark::DoNotOptimize(ramus::compute_linear_modes(beam().model, beam().dofs, r1));
}
BENCHMARK(BM_PrecomputeLinearModes)->Arg(10)->Arg(15)->Unit(benchmark::kMillisecond);

void BM_PrecomputeModalDerivatives(benchmark::State& state) {
  const int r1 = static_cast<int>(state.range(0));
  const ramus::LinearModes modes = ramus::compute_linear_modes(beam().model, beam().dofs, r1);
  for (auto _ : state)
    benchmark::DoNotOptimize(ramus::compute_modal_derivatives(beam().model, beam().dofs, modes));
  state.counters["derivatives"] = r1 * (r1 + 1) / 2;
}
BENCHMARK(BM_PrecomputeModalDerivatives)->Arg(10)->Arg(15)->Unit(benchmark::kMillisecond);

void BM_PrecomputeBasis(benchmark::State& state) {
  const int r = static_cast<int>(state.range(0));
  const ramus::LinearModes modes = ramus::compute_linear_modes(beam().model, beam().dofs, 10);
  const Eigen::MatrixXd derivatives =
      ramus::compute_modal_derivatives(beam().model, beam().dofs, modes);
  for (auto _ : state)
    benchmark::DoNotOptimize(
        ramus::compute_reduced_basis(beam().model, beam().dofs, modes, derivatives, r));
}
BENCHMARK(BM_PrecomputeBasis)->Arg(10)->Arg(20)->Arg(30)->Unit(benchmark::kMillisecond);

void BM_PrecomputePolynomial(benchmark::State& state) {
  const int r = static_cast<int>(state.range(0));
  const Eigen::MatrixXd& U = reduced_model(r)->parts.front().basis;
  for (auto _ : state)
    benchmark::DoNotOptimize(ramus::compute_reduced_stvk_polynomial(beam().model, U));
}
BENCHMARK(BM_PrecomputePolynomial)->Arg(10)->Arg(20)->Arg(30)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
