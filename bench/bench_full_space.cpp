// Full-space StVK costs on the standard cantilever beam (1 x 0.2 x 0.2 m, 30x6x6 hexes = 6,480
// tets, E = 1e6 Pa, nu = 0.45, rho = 1000, clamped at x = 0): internal forces, tangent stiffness
// assembly, and one backward-Euler step under gravity (Newton + line search, CHOLMOD); the same
// step with the beam's tip sagging onto a barrier sphere (with friction), and the contact terms
// alone (every vertex against every collider: value, gradient and Hessian blocks).
#include <benchmark/benchmark.h>

#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/generators/mesh_generators.h"

namespace {

struct Beam {
  ramus::TetMesh mesh = ramus::make_cantilever_beam(30, 6, 6);
  ramus::StvkFemModel model{mesh, ramus::assign_materials(mesh, {1e6, 0.45, 1000})};
  std::vector<int> clamped() const {
    std::vector<int> fixed;
    for (int v = 0; v < mesh.num_vertices(); ++v)
      if (mesh.vertex_flags(v) == 1) fixed.push_back(v);
    return fixed;
  }
  Eigen::VectorXd deformed() const {
    Eigen::VectorXd x = model.rest_positions();
    for (Eigen::Index v = 0; v < x.size() / 3; ++v) x(3 * v + 2) -= 0.1 * x(3 * v) * x(3 * v);
    return x;
  }
};

const Beam& beam() {
  static const Beam instance;
  return instance;
}

void BM_StvkInternalForces(benchmark::State& state) {
  const Eigen::VectorXd x = beam().deformed();
  Eigen::VectorXd gradient(x.size());
  for (auto _ : state) {
    gradient.setZero();
    beam().model.add_elastic_energy_gradient(x, gradient);
    benchmark::DoNotOptimize(gradient.data());
  }
  state.counters["tets"] = beam().mesh.num_tets();
}
BENCHMARK(BM_StvkInternalForces)->Unit(benchmark::kMillisecond);

void BM_StvkStiffnessAssembly(benchmark::State& state) {
  const Eigen::VectorXd x = beam().deformed();
  ramus::TetMatrixAssembler assembler(beam().mesh.tets,
                                      ramus::DofMap(beam().mesh.num_vertices(), beam().clamped()));
  for (auto _ : state) {
    assembler.set_zero();
    beam().model.add_stiffness(x, 1.0, false, assembler);
    benchmark::DoNotOptimize(assembler.matrix().valuePtr());
  }
  state.counters["nonzeros"] = static_cast<double>(assembler.matrix().nonZeros());
}
BENCHMARK(BM_StvkStiffnessAssembly)->Unit(benchmark::kMillisecond);

void BM_BackwardEulerStep(benchmark::State& state) {
  ramus::FullSpaceOptions options;
  options.time_step = 0.01;
  options.gravity = {0, 0, -9.81};
  ramus::FullSpaceSimulator simulator(
      beam().model, ramus::DofMap(beam().mesh.num_vertices(), beam().clamped()), options);
  ramus::FullSpaceState s = simulator.rest_state();
  double iterations = 0, steps = 0;
  for (auto _ : state) {
    const ramus::NewtonReport report = simulator.step_backward_euler(s);
    iterations += report.iterations;
    ++steps;
  }
  state.counters["newton_iterations_per_step"] = iterations / steps;
}
BENCHMARK(BM_BackwardEulerStep)->Unit(benchmark::kMillisecond);

// A barrier sphere under the beam's free end (it sags onto it within 0.2 s), friction 0.5.
ramus::ContactOptions sphere_under_tip() {
  ramus::ColliderContact sphere;
  sphere.collider.shape = ramus::ColliderShape::kSphere;
  sphere.collider.size = Eigen::Vector4d(0.2, 0, 0, 0);
  sphere.collider.motion.initial.translation = Eigen::Vector3d(0.9, 0.0, -0.25);
  sphere.delta = 1e-3;
  sphere.friction = 0.5;
  ramus::ContactOptions contact;
  contact.colliders = {sphere};
  return contact;
}

// The step with the sphere: the first 50 steps (the tip lands) before timing, so that every
// timed step has contacts active.
void BM_BackwardEulerStepOnSphere(benchmark::State& state) {
  ramus::FullSpaceOptions options;
  options.time_step = 0.01;
  options.gravity = {0, 0, -9.81};
  options.rayleigh_mass = 2;
  options.contact = sphere_under_tip();
  ramus::FullSpaceSimulator simulator(
      beam().model, ramus::DofMap(beam().mesh.num_vertices(), beam().clamped()), options);
  ramus::FullSpaceState s = simulator.rest_state();
  for (int k = 0; k < 50; ++k) simulator.step_backward_euler(s);
  double iterations = 0, steps = 0, contacts = 0;
  for (auto _ : state) {
    const ramus::NewtonReport report = simulator.step_backward_euler(s);
    iterations += report.iterations;
    contacts += simulator.contact_statistics().active_contacts;
    ++steps;
  }
  state.counters["newton_iterations_per_step"] = iterations / steps;
  state.counters["active_contacts"] = contacts / steps;
}
BENCHMARK(BM_BackwardEulerStepOnSphere)->Unit(benchmark::kMillisecond);

// The contact terms of one Newton iteration at a sagged shape: energy and gradient, and the
// Hessian blocks, of every vertex against `colliders` spheres (no broad phase: linear in both).
void BM_ContactTerms(benchmark::State& state) {
  ramus::ContactOptions contact;
  for (int k = 0; k < state.range(0); ++k) {
    ramus::ContactOptions one = sphere_under_tip();
    one.colliders[0].collider.motion.initial.translation.x() -= 0.2 * k;
    contact.colliders.push_back(one.colliders[0]);
  }
  ramus::StepContact terms(contact, beam().model.lumped_vertex_masses(), beam().mesh.tets);
  const Eigen::VectorXd x = beam().deformed();
  terms.begin_step(x, 0.01, 0.01);
  Eigen::VectorXd gradient(x.size());
  double blocks = 0;
  for (auto _ : state) {
    gradient.setZero();
    benchmark::DoNotOptimize(terms.add_gradient(x, gradient));
    terms.add_hessian_blocks(x, true,
                             [&](int, const Eigen::Matrix3d& block) { blocks += block(0, 0); });
  }
  benchmark::DoNotOptimize(blocks);
  state.counters["vertex_collider_pairs"] =
      static_cast<double>(beam().mesh.num_vertices() * state.range(0));
}
BENCHMARK(BM_ContactTerms)->Arg(1)->Arg(4)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
