// The local/global solver of "Stabilizing integrators for real-time physics" (2018, §4.2)
// against Newton on the same energy, and its cloth at the mass-spring paper's size.
// BM_LocalGlobalCloth/n/m: one step (10 iterations; m = 0 backward Euler, 1 the midpoint, 2 the
// energy-stabilized midpoint with 1 stabilizing iteration) of an n by n cloth (1 m, default
// cloth settings, pinned at two corners, h = 1/60 s) after 30 steps of falling.
// BM_BeamNewtonIteration / BM_BeamLocalGlobalIteration: one Newton iteration of backward Euler
// (FullSpaceSimulator, CHOLMOD, the step's time over its iterations) and one local/global
// iteration on the standard beam mesh (30x6x6 hexes, 6,480 tets) of fixed corotated material
// with nu = 0 (both minimize the same energy), clamped at x = 0, h = 0.01 s.
// BM_SpinningCubeStep/m (the paper's Tab. 1 and 2 in shape, on its Fig. 5 scene: a 1 m cube of
// 4³ cells, 384 tets, fixed corotated E = 1e6 Pa, nu = 0, stretched 20 % and spinning at 3 rad/s,
// h = 0.033 s; 30 steps from the start, as the paper averages 30 frames): m = 0 backward Euler
// (Newton), 1 the energy-tracking midpoint (Newton), 2 backward Euler (local/global, 10), 3 the
// energy-stabilized midpoint (local/global, 10 + 1), 4 and 5 the midpoint (local/global, 10) in
// 10 and 100 substeps.
#include <benchmark/benchmark.h>

#include <memory>

#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/fem/local_global_integrator.h"
#include "ramus/precompute/generators/mesh_generators.h"

namespace {

Eigen::VectorXd flat(const Eigen::MatrixX3d& rows) {
  const ramus::VertexRows r = rows;
  return Eigen::Map<const Eigen::VectorXd>(r.data(), r.size());
}

struct ClothScene {
  ramus::MassSpringCloth cloth;
  std::unique_ptr<ramus::ProjectiveEnergy> energy;
  std::unique_ptr<ramus::LocalGlobalIntegrator> integrator;
  ramus::FullSpaceState state;

  ClothScene(int n, int iterations) {
    cloth = ramus::build_mass_spring_cloth(ramus::make_square_cloth(n, 1.0), {},
                                           {n * (n - 1), n * n - 1}, "square");
    energy = std::make_unique<ramus::ProjectiveEnergy>(ramus::projective_cloth_energy(cloth));
    ramus::LocalGlobalOptions options;
    options.time_step = 1.0 / 60;
    options.gravity = {0, 0, -9.81};
    options.iterations = iterations;
    integrator = std::make_unique<ramus::LocalGlobalIntegrator>(
        *energy, Eigen::VectorXd::Constant(cloth.num_particles(), cloth.particle_mass),
        cloth.pinned, flat(cloth.rest_positions), options);
    state = integrator->rest_state();
    for (int step = 0; step < 30; ++step)
      integrator->step(state, ramus::LocalGlobalMethod::kBackwardEuler);
  }
};

void BM_LocalGlobalCloth(benchmark::State& state) {
  ClothScene scene(static_cast<int>(state.range(0)), 10);
  const auto method = static_cast<ramus::LocalGlobalMethod>(state.range(1));
  long iterations = 0, steps = 0;
  for (auto _ : state) {
    iterations += scene.integrator->step(scene.state, method).iterations;
    ++steps;
  }
  state.counters["particles"] = static_cast<double>(scene.cloth.num_particles());
  state.counters["iterations_per_step"] =
      static_cast<double>(iterations) / static_cast<double>(steps);
}
BENCHMARK(BM_LocalGlobalCloth)
    ->Args({30, 0})
    ->Args({100, 0})
    ->Args({100, 1})
    ->Args({100, 2})
    ->Unit(benchmark::kMillisecond);

struct Beam {
  ramus::TetMesh mesh = ramus::make_cantilever_beam(30, 6, 6);
  ramus::StvkFemModel model{
      mesh, ramus::assign_materials(mesh, {1e6, 0, 1000, ramus::ElasticModel::kFixedCorotated})};
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

void BM_BeamNewtonIteration(benchmark::State& state) {
  ramus::FullSpaceOptions options;
  options.time_step = 0.01;
  options.gravity = {0, 0, -9.81};
  ramus::FullSpaceSimulator simulator(
      beam().model, ramus::DofMap(beam().mesh.num_vertices(), beam().clamped()), options);
  long iterations = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ramus::FullSpaceState s = simulator.rest_state();
    state.ResumeTiming();
    iterations += simulator.step_backward_euler(s).iterations;
  }
  // The time of one iteration: the step's over its iterations.
  state.counters["newton_iterations"] =
      static_cast<double>(iterations) / static_cast<double>(state.iterations());
  state.SetItemsProcessed(iterations);
}
BENCHMARK(BM_BeamNewtonIteration)->Unit(benchmark::kMillisecond);

void BM_BeamLocalGlobalIteration(benchmark::State& state) {
  const ramus::ProjectiveEnergy energy = ramus::projective_corotated_energy(beam().model);
  ramus::LocalGlobalOptions options;
  options.time_step = 0.01;
  options.gravity = {0, 0, -9.81};
  options.iterations = 1;
  ramus::LocalGlobalIntegrator integrator(energy, beam().model.lumped_vertex_masses(),
                                          beam().clamped(), beam().model.rest_positions(), options);
  ramus::FullSpaceState s = integrator.rest_state();
  for (auto _ : state) integrator.step(s, ramus::LocalGlobalMethod::kBackwardEuler);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_BeamLocalGlobalIteration)->Unit(benchmark::kMillisecond);

// The Fig. 5 cube's mesh, model and start (positions, velocities).
struct SpinningCube {
  ramus::TetMesh mesh = ramus::make_box_tet_mesh(Eigen::Vector3d(1, 1, 1), 4, 4, 4);
  ramus::StvkFemModel model{
      mesh, ramus::assign_materials(mesh, {1e6, 0, 1000, ramus::ElasticModel::kFixedCorotated})};
  void start(ramus::FullSpaceState& state) const {
    const Eigen::Vector3d center(0.5, 0.5, 0.5), omega(0, 0, 3);
    for (int v = 0; v < mesh.num_vertices(); ++v) {
      Eigen::Vector3d r = mesh.rest_positions.row(v).transpose() - center;
      r.x() *= 1.2;
      state.positions.segment<3>(3 * v) = center + r;
      state.velocities.segment<3>(3 * v) = omega.cross(r);
    }
  }
};

void BM_SpinningCubeStep(benchmark::State& state) {
  const SpinningCube cube;
  const int method = static_cast<int>(state.range(0));
  const int substeps = method == 4 ? 10 : method == 5 ? 100 : 1;
  if (method <= 1) {
    ramus::FullSpaceOptions options;
    options.time_step = 0.033;
    ramus::FullSpaceSimulator simulator(cube.model, ramus::DofMap(cube.mesh.num_vertices(), {}),
                                        options);
    ramus::FullSpaceState s = simulator.rest_state();
    cube.start(s);
    for (auto _ : state)
      if (method == 0)
        simulator.step_backward_euler(s);
      else
        simulator.step_energy_tracking_midpoint(s);
    return;
  }
  const ramus::ProjectiveEnergy energy = ramus::projective_corotated_energy(cube.model);
  ramus::LocalGlobalOptions options;
  options.time_step = 0.033 / substeps;
  ramus::LocalGlobalIntegrator integrator(energy, cube.model.lumped_vertex_masses(), {},
                                          cube.model.rest_positions(), options);
  const ramus::LocalGlobalMethod step = method == 2 ? ramus::LocalGlobalMethod::kBackwardEuler
                                        : method == 3
                                            ? ramus::LocalGlobalMethod::kEnergyStabilizedMidpoint
                                            : ramus::LocalGlobalMethod::kImplicitMidpoint;
  ramus::FullSpaceState s = integrator.rest_state();
  cube.start(s);
  for (auto _ : state)
    for (int k = 0; k < substeps; ++k) integrator.step(s, step);
}
BENCHMARK(BM_SpinningCubeStep)->DenseRange(0, 5)->Iterations(30)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
