// The mass-spring cloth of "Implementing the implicit Euler method for mass-spring systems"
// (2004): a square cloth of n by n particles (1 m, default cloth settings, pinned at its two
// corners at y = +0.5 m, gravity along -z, h = 1/60 s), after 30 frames of falling.
// BM_ClothFrame/n/t/m: one frame (implicit Euler, Jacobi CG to 10^-t of |b| or m iterations, the
// defaults 3 and 200; the strain rule's halvings included), with CG iterations and steps per
// frame as counters.
// BM_ClothSystemProduct/n: one matrix-free product A p over the per-spring blocks (CG's cost
// per iteration). BM_ClothPrepare/n: the forces, Jacobians and blocks of one step.
// BM_ClothDrapeFrame/n/mu: a free n by n cloth dropped 5 cm onto a sphere of radius 0.25 m
// (Baraff and Witkin's constraints, Coulomb mu / 10), one frame after 60 (draped), with the held
// particles as a counter. BM_ClothLayersFrame/n: an n by n cloth of 0.6 m thrown at 3 m/s onto
// a 1 m one on the floor (data/cloth/cloth_layers.json's scene), one frame after 60, with the
// repulsion's impulses as a counter; BM_ClothSelfRepulsion/n: the repulsion alone on that state.
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>

#include "ramus/precompute/cloth/implicit_euler_cloth.h"
#include "ramus/precompute/mesh/surface_mesh.h"

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

// A free n by n cloth of 1 m over a sphere of radius 0.25 m whose top is 5 cm below it, mu.
ramus::ClothCollider drape_sphere(double mu) {
  ramus::ClothCollider sphere;
  sphere.collider.shape = ramus::ColliderShape::kSphere;
  sphere.collider.size(0) = 0.25;
  sphere.collider.motion.initial.translation = Eigen::Vector3d(0, 0, -0.3);
  sphere.friction = mu;
  sphere.delta = 1e-3;
  return sphere;
}

void BM_ClothDrapeFrame(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const ramus::ClothSettings settings;
  const ramus::MassSpringCloth cloth =
      ramus::build_mass_spring_cloth(ramus::make_square_cloth(n, 1.0), settings, {}, "square");
  ramus::ImplicitEulerCloth simulator(cloth, settings, 1.0 / 60, Eigen::Vector3d(0, 0, -9.81));
  simulator.set_colliders({drape_sphere(static_cast<double>(state.range(1)) / 10)});
  ramus::ClothState cloth_state = simulator.rest_state();
  for (int frame = 0; frame < 60; ++frame) simulator.advance(cloth_state, Eigen::VectorXd());
  long iterations = 0, held = 0, frames = 0;
  for (auto _ : state) {
    const ramus::ClothStepReport report = simulator.advance(cloth_state, Eigen::VectorXd());
    iterations += report.cg_iterations;
    held += report.contacts;
    ++frames;
  }
  state.counters["cg_per_frame"] = static_cast<double>(iterations) / static_cast<double>(frames);
  state.counters["held"] = static_cast<double>(held) / static_cast<double>(frames);
}
BENCHMARK(BM_ClothDrapeFrame)
    ->Args({30, 0})
    ->Args({30, 3})
    ->Args({100, 3})
    ->Unit(benchmark::kMillisecond);

// Two n by n cloths: 1 m on the floor, 0.6 m turned 30 degrees 5 cm above it moving down at
// 3 m/s; stepped 60 frames.
struct Layers {
  ramus::MassSpringCloth cloth;
  std::unique_ptr<ramus::ImplicitEulerCloth> simulator;
  ramus::ClothState state;
  ramus::ClothSelfRepulsionOptions repulsion;

  explicit Layers(int n) {
    const ramus::SurfaceMesh one = ramus::make_square_cloth(n, 1.0);
    ramus::SurfaceMesh both;
    both.vertices.resize(2 * one.num_vertices(), 3);
    both.triangles.resize(2 * one.num_triangles(), 3);
    const double c = 0.6 * std::cos(M_PI / 6), s = 0.6 * std::sin(M_PI / 6);
    Eigen::Matrix3d turn;
    turn << c, -s, 0, s, c, 0, 0, 0, 1;
    both.vertices << one.vertices,
        (one.vertices * turn.transpose()).rowwise() + Eigen::RowVector3d(0, 0, 0.05);
    both.triangles << one.triangles, one.triangles.array() + one.num_vertices();
    const ramus::ClothSettings settings;
    cloth = ramus::build_mass_spring_cloth(both, settings, {}, "layers");
    simulator = std::make_unique<ramus::ImplicitEulerCloth>(cloth, settings, 1.0 / 60,
                                                            Eigen::Vector3d(0, 0, -9.81));
    ramus::ClothCollider floor;
    floor.collider.shape = ramus::ColliderShape::kHalfSpace;
    floor.friction = 0.3;
    floor.delta = 1e-3;
    simulator->set_colliders({floor});
    repulsion.thickness = settings.thickness;
    repulsion.stiffness = settings.stretch_stiffness;
    repulsion.friction = 0.3;
    simulator->set_self_repulsion(repulsion);
    state = simulator->rest_state();
    for (int p = one.num_vertices(); p < cloth.num_particles(); ++p)
      state.velocities(3 * p + 2) = -3;
    for (int frame = 0; frame < 60; ++frame) simulator->advance(state, Eigen::VectorXd());
  }
};

void BM_ClothLayersFrame(benchmark::State& state) {
  Layers layers(static_cast<int>(state.range(0)));
  long impulses = 0, frames = 0;
  for (auto _ : state) {
    impulses += layers.simulator->advance(layers.state, Eigen::VectorXd()).self_impulses;
    ++frames;
  }
  state.counters["impulses"] = static_cast<double>(impulses) / static_cast<double>(frames);
}
BENCHMARK(BM_ClothLayersFrame)->Arg(20)->Arg(50)->Unit(benchmark::kMillisecond);

void BM_ClothSelfRepulsion(benchmark::State& state) {
  Layers layers(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Eigen::VectorXd v = layers.state.velocities;
    const ramus::ClothSelfRepulsionReport report = ramus::apply_cloth_self_repulsion(
        layers.cloth.triangles, layers.cloth.particle_mass, layers.state.positions, 1.0 / 60,
        layers.repulsion, {}, v);
    benchmark::DoNotOptimize(report.impulses);
  }
}
BENCHMARK(BM_ClothSelfRepulsion)->Arg(20)->Arg(50)->Unit(benchmark::kMillisecond);
