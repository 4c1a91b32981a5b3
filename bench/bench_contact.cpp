// Contact in the full-space simulator on the tori scene (data/contact/tori_in_bowl.json: eight
// tori of 2,152 tets dropped into a bowl at 24 Hz): one backward-Euler step after the tori have
// landed, and its parts, to split a step into detection, assembly and solve; and self-collision
// detection against the number of tori (the bounding-volume hierarchy's O(n log n)).
#include <benchmark/benchmark.h>

#include <Eigen/CholmodSupport>

#include "ramus/precompute/contact/collider_spec.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/fem/tet_matrix_assembler.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/spec_mesh.h"

namespace {

// The example's scene, built as `ramus simulate-full` builds it.
struct Tori {
  ramus::ModelSpec spec =
      ramus::load_model_spec(RAMUS_SOURCE_DIR "/data/contact/tori_in_bowl.json");
  ramus::TetMesh torus =
      ramus::read_spec_tet_mesh(spec.mesh_path, spec.tetrahedralize, spec.length_unit, {});
  ramus::TetMesh mesh = ramus::placed_copies(torus, spec.copies);
  ramus::StvkFemModel model{mesh, ramus::assign_materials(mesh, spec.material)};
  ramus::FullSpaceOptions options = [this] {
    ramus::FullSpaceOptions o;
    o.time_step = spec.simulation.settings.time_step;
    o.gravity = spec.simulation.settings.gravity;
    std::vector<std::string> warnings;
    o.contact = ramus::resolve_contact_options(spec.contact, spec.spec_path, mesh.rest_positions,
                                               model.lumped_vertex_masses(), warnings);
    return o;
  }();
  ramus::FullSpaceSimulator simulator{model, ramus::DofMap(mesh.num_vertices(), {}), options};
  ramus::FullSpaceState state = simulator.rest_state();
  // Twelve frames (0.5 s): the tori have landed in the bowl and on each other.
  Tori() {
    for (int step = 0; step < 12; ++step) simulator.step_backward_euler(state);
  }
};

Tori& tori() {
  static Tori instance;
  return instance;
}

// One step, with what it did: Newton iterations, energy evaluations, contacts.
void BM_ToriStep(benchmark::State& state) {
  Tori& t = tori();
  double iterations = 0, evaluations = 0, self_contacts = 0, collider_contacts = 0, steps = 0;
  for (auto _ : state) {
    const ramus::NewtonReport report = t.simulator.step_backward_euler(t.state);
    iterations += report.iterations;
    evaluations += report.objective_evaluations;
    self_contacts += t.simulator.contact_statistics().self_contacts;
    collider_contacts += t.simulator.contact_statistics().active_contacts;
    ++steps;
  }
  state.counters["newton_iterations"] = iterations / steps;
  state.counters["energy_evaluations"] = evaluations / steps;
  state.counters["self_contacts"] = self_contacts / steps;
  state.counters["bowl_contacts"] = collider_contacts / steps;
}
BENCHMARK(BM_ToriStep)->Unit(benchmark::kMillisecond)->Iterations(4);

// Detection, once per energy evaluation: boxes, trees, point-in-tet, nearest triangles.
void BM_ToriSelfDetection(benchmark::State& state) {
  Tori& t = tori();
  for (auto _ : state)
    benchmark::DoNotOptimize(t.simulator.self_collision().find_contacts(t.state.positions, false));
  state.counters["surface_triangles"] = t.simulator.self_collision().num_surface_triangles();
}
BENCHMARK(BM_ToriSelfDetection)->Unit(benchmark::kMillisecond);

// The contact Hessian blocks of one Newton iteration (bowl and self, detection included).
void BM_ToriContactHessian(benchmark::State& state) {
  Tori& t = tori();
  ramus::StepContact contact(t.options.contact, t.model.lumped_vertex_masses(), t.mesh.tets);
  contact.begin_step(t.state.positions, t.state.time, t.options.time_step);
  double sum = 0;
  for (auto _ : state) {
    contact.add_hessian_blocks(t.state.positions, true,
                               [&](int, const Eigen::Matrix3d& b) { sum += b(0, 0); });
    contact.add_pair_blocks(
        t.state.positions, true,
        [&](const std::array<int, 4>&, const Eigen::Matrix<double, 12, 12>& b) { sum += b(0, 0); });
  }
  benchmark::DoNotOptimize(sum);
}
BENCHMARK(BM_ToriContactHessian)->Unit(benchmark::kMillisecond);

// The elastic Hessian of one Newton iteration (PSD-projected per tet, fixed pattern).
void BM_ToriElasticHessian(benchmark::State& state) {
  Tori& t = tori();
  ramus::TetMatrixAssembler stiffness(t.mesh.tets, t.simulator.dofs());
  for (auto _ : state) {
    stiffness.set_zero();
    t.model.add_stiffness(t.state.positions, 1.0, true, stiffness);
  }
  state.counters["nonzeros"] = static_cast<double>(stiffness.matrix().nonZeros());
}
BENCHMARK(BM_ToriElasticHessian)->Unit(benchmark::kMillisecond);

// The solve of one Newton iteration: CHOLMOD's factorization of K + M / h² and one solve.
void BM_ToriSolve(benchmark::State& state) {
  Tori& t = tori();
  ramus::TetMatrixAssembler assembler(t.mesh.tets, t.simulator.dofs());
  t.model.add_stiffness(t.state.positions, 1.0, true, assembler);
  const double h = t.options.time_step;
  t.model.add_consistent_mass(1.0 / (h * h), assembler);
  const Eigen::SparseMatrix<double>& H = assembler.matrix();
  Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>, Eigen::Lower> solver;
  solver.analyzePattern(H);
  const Eigen::VectorXd right = Eigen::VectorXd::Ones(H.rows());
  for (auto _ : state) {
    solver.factorize(H);
    benchmark::DoNotOptimize(Eigen::VectorXd(solver.solve(right)));
  }
}
BENCHMARK(BM_ToriSolve)->Unit(benchmark::kMillisecond);

// Detection over n tori in a row, each overlapping the next by 5 mm: time per surface vertex
// stays about flat (n log n).
void BM_SelfDetectionScaling(benchmark::State& state) {
  const ramus::TetMesh& torus = tori().torus;
  std::vector<Eigen::Isometry3d> poses;
  for (int k = 0; k < state.range(0); ++k) {
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    pose.translation() = Eigen::Vector3d(0.265 * k, 0, 0);
    poses.push_back(pose);
  }
  const ramus::TetMesh row = ramus::placed_copies(torus, poses);
  ramus::SelfCollisionOptions options;
  options.enabled = true;
  options.stiffness = 1e5;
  const ramus::SelfCollisionPenalty penalty(row.tets, row.num_vertices(), options);
  const Eigen::VectorXd x = ramus::flatten_positions(row.rest_positions);
  std::size_t contacts = 0;
  for (auto _ : state) contacts = penalty.find_contacts(x, false).size();
  state.counters["tets"] = static_cast<double>(row.num_tets());
  state.counters["contacts"] = static_cast<double>(contacts);
  state.counters["seconds_per_tet"] = benchmark::Counter(
      static_cast<double>(row.num_tets()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_SelfDetectionScaling)->RangeMultiplier(2)->Range(1, 16)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
