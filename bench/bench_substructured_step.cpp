// The real-time substructured step (ramus::step, Algorithm 1 of Barbič & Zhao 2011) on
// synthetic trees of 10 to 1000 domains and on the bundled plant.
//
// Synthetic trees are instanced from one precomputed chain: a beam 0.6 x 0.1 x 0.1 m (12x2x2
// cells, 288 tets, StVK E = 1e8 Pa, nu = 0.45, rho = 1000) clamped at x = 0 and cut by tet
// centroid into three equal domains R -> C1 -> C2 (96 tets, 45 vertices each), r modes each
// (r / 2 linear modes + modal derivatives). A tree of d domains is breadth-first with branching
// factor 3 (parent of k = (k - 1) / 3, depth ceil(log3(2d + 1)) - 1): domain 0 = R, the root's
// children = copies of C1, deeper domains = copies of C2. C1 and C2 are the same box in their
// own frames, so a C2 copy hangs below a C2 copy with the interface data refitted to C2's basis
// (compute_parent_interface); frames, global vertex numbering (copies share only their interface
// vertices) and subtree masses / centres / inertias are those of the instanced tree, so the
// model passes find_model_inconsistency. Geometrically the copies overlap (irrelevant here).
// The tree is compiled with three parts (R, C1, C2) shared by all copies: the polynomial
// is packed once per part, so the working set no longer grows with d.
//   BM_SubstructuredStep/d/r             L1 lumping, profile off: the headline time per step
//   BM_SubstructuredStepProfiled/d/r     same with options.profile: rt:core vs rt:StVK split
//   BM_SubstructuredStepL2[Profiled]/d/r L2 (centre-of-mass) lumping
//   BM_PlantStep[Profiled]/L:1..3        the model file named by RAMUS_PLANT_MODEL (made by
//                                        `ramus precompute data/plant/plant.json -o ...`), with
//                                        the scenario of its stored spec, lumping L1, L2 or L3
// All runs: h = 1/60 s, gravity, Rayleigh damping, one constant vertex force on a leaf (plant:
// the spec's time step, gravity, damping and point forces, held on), 30 warm-up steps. Counters:
// domains, total_r, us_per_step, us_per_domain, step_MB (the model data a step reads, see
// step_data_bytes), state_bytes_per_domain (the per-object State) and, when profiled, core_percent
// (frames, polar decomposition, system and interface forces) and domain_percent (reduced StVK
// forces + Newmark solves). Profiling reads the clock 3 times per domain and step, so take the
// headline time from the unprofiled run.
#include <benchmark/benchmark.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/precompute/substructuring/interface_fit.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kBranching = 3;
constexpr int kWarmupSteps = 30;
const ramus::Material kMaterial{1e8, 0.45, 1000};

// The precomputed chain R -> C1 -> C2 and the interface of a C2 copy below a C2 copy.
struct ChainTemplate {
  ramus::ReducedModel chain;
  ramus::ParentInterface c2_below_c2;
};

// Mass, first and second moments (∫ρ, ∫ρ X, ∫ρ X Xᵀ) in some frame.
struct MassMoments {
  double mass = 0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
};

// Exact moments of a domain's tets in its own frame (∫ X Xᵀ over a tet = V / 20 (Σ x_i x_iᵀ +
// s sᵀ), s = Σ x_i).
MassMoments own_moments(const ramus::ReducedPart& domain) {
  MassMoments m;
  for (Eigen::Index t = 0; t < domain.tets.rows(); ++t) {
    Eigen::Vector3d x[4];
    for (int c = 0; c < 4; ++c) x[c] = domain.rest_positions.row(domain.tets(t, c)).transpose();
    const double volume = (x[1] - x[0]).cross(x[2] - x[0]).dot(x[3] - x[0]) / 6.0;
    const double rho_v = domain.density(t) * volume;
    const Eigen::Vector3d s = x[0] + x[1] + x[2] + x[3];
    Eigen::Matrix3d outer = s * s.transpose();
    for (const Eigen::Vector3d& xi : x) outer += xi * xi.transpose();
    m.mass += rho_v;
    m.first += rho_v * s / 4.0;
    m.second += rho_v / 20.0 * outer;
  }
  return m;
}

// Moments of a child's subtree in its parent's frame (X_parent = c + R X_child).
MassMoments in_parent_frame(const MassMoments& m, const Eigen::Matrix3d& R,
                            const Eigen::Vector3d& c) {
  MassMoments out;
  out.mass = m.mass;
  const Eigen::Vector3d Rh = R * m.first;
  out.first = m.mass * c + Rh;
  out.second = R * m.second * R.transpose() + c * Rh.transpose() + Rh * c.transpose() +
               m.mass * c * c.transpose();
  return out;
}

// Subtree mass, centre of mass and inertia (∫ρ (|y|² I - y yᵀ) about the centre) of every
// domain of `model` from its own tets and its children's subtrees.
void set_subtree_moments(ramus::ReducedModel& model) {
  const int d = static_cast<int>(model.domains.size());
  std::vector<MassMoments> moments(static_cast<size_t>(d));
  for (int k = 0; k < d; ++k)
    moments[static_cast<size_t>(k)] = own_moments(ramus::part_of(model, k));
  for (int k = d - 1; k > 0; --k) {
    const ramus::ReducedDomain& child = model.domains[static_cast<size_t>(k)];
    const MassMoments m = in_parent_frame(moments[static_cast<size_t>(k)],
                                          child.interface.rest_rotation, child.interface.centroid);
    MassMoments& parent = moments[static_cast<size_t>(child.parent)];
    parent.mass += m.mass;
    parent.first += m.first;
    parent.second += m.second;
  }
  for (int k = 0; k < d; ++k) {
    const MassMoments& m = moments[static_cast<size_t>(k)];
    ramus::ReducedDomain& domain = model.domains[static_cast<size_t>(k)];
    const Eigen::Vector3d center = m.first / m.mass;
    const Eigen::Matrix3d central = m.second - m.mass * center * center.transpose();
    domain.subtree_mass = m.mass;
    domain.subtree_center_of_mass = center;
    domain.subtree_inertia = central.trace() * Eigen::Matrix3d::Identity() - central;
  }
}

const ChainTemplate& chain_template(int r) {
  static std::map<int, std::unique_ptr<ChainTemplate>> cache;
  std::unique_ptr<ChainTemplate>& entry = cache[r];
  if (entry) return *entry;
  const ramus::TetMesh mesh = ramus::make_box_tet_mesh({0.6, 0.1, 0.1}, 12, 2, 2);
  Eigen::VectorXi tet_domain(mesh.num_tets());
  for (int t = 0; t < mesh.num_tets(); ++t) {
    double x = 0;
    for (int c = 0; c < 4; ++c) x += mesh.rest_positions(mesh.tets(t, c), 0) / 4;
    tet_domain(t) = std::min(2, static_cast<int>(x / 0.2));
  }
  std::vector<int> anchors;
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (mesh.rest_positions(v, 0) < 1e-12) anchors.push_back(v);
  const ramus::DomainTree tree =
      ramus::build_domain_tree(mesh, tet_domain, anchors, {{0, "R"}, {1, "C1"}, {2, "C2"}});
  ramus::ReductionSpec reduction;
  reduction.r = r;
  reduction.linear_modes = r / 2;
  entry = std::make_unique<ChainTemplate>();
  entry->chain =
      ramus::build_substructured_model(mesh, ramus::assign_materials(mesh, kMaterial), tree,
                                       anchors, std::vector<ramus::ReductionSpec>(3, reduction));
  const std::vector<ramus::ReducedDomain>& chain = entry->chain.domains;
  if (chain.size() != 3 || chain[1].parent != 0 || chain[2].parent != 1)
    throw std::runtime_error("the template is not the chain R -> C1 -> C2");
  const ramus::ReducedPart &c1 = entry->chain.parts[1], &c2 = entry->chain.parts[2];
  // C2's interface indexes C1's mesh; it fits C2's mesh when both are the same box in their
  // frames with the same vertex and tet numbering.
  if (c1.rest_positions.rows() != c2.rest_positions.rows() || c1.tets != c2.tets ||
      (c1.rest_positions - c2.rest_positions).cwiseAbs().maxCoeff() > 1e-9)
    throw std::runtime_error("C1 and C2 differ: a C2 copy cannot hang below a C2 copy");
  const ramus::ParentInterface& c2_itf = chain[2].interface;
  entry->c2_below_c2 =
      ramus::compute_parent_interface(c2.rest_positions, c2.basis, c2_itf.parent_vertices,
                                      c2_itf.child_vertices, c2_itf.weights, c2_itf.rest_rotation);
  // The moments computed here reproduce the builder's subtree data on the chain itself.
  ramus::ReducedModel check = entry->chain;
  set_subtree_moments(check);
  for (size_t k = 0; k < 3; ++k) {
    const ramus::ReducedDomain &a = chain[k], &b = check.domains[k];
    if (std::abs(a.subtree_mass - b.subtree_mass) > 1e-9 * a.subtree_mass ||
        (a.subtree_center_of_mass - b.subtree_center_of_mass).norm() > 1e-9 ||
        (a.subtree_inertia - b.subtree_inertia).norm() > 1e-9 * a.subtree_inertia.norm())
      throw std::runtime_error("subtree moments disagree with the builder's on domain " + a.name);
  }
  return *entry;
}

// A breadth-first tree of d domains instanced from the chain (see the file comment): three parts
// (the chain's R, C1, C2), each placed as often as the tree needs.
std::shared_ptr<const ramus::Model> instanced_tree(int d, int r) {
  static std::map<std::pair<int, int>, std::shared_ptr<const ramus::Model>> cache;
  auto& entry = cache[{d, r}];
  if (entry) return entry;
  const ChainTemplate& tpl = chain_template(r);
  const std::vector<ramus::ReducedDomain>& chain = tpl.chain.domains;
  auto model = std::make_shared<ramus::ReducedModel>();
  model->provenance.tool_version = "bench_substructured_step";
  model->parts = tpl.chain.parts;
  model->domains.reserve(static_cast<size_t>(d));
  int next_global = 0;
  for (int k = 0; k < d; ++k) {
    const int parent = k == 0 ? -1 : (k - 1) / kBranching;
    const int kind = k == 0 ? 0 : parent == 0 ? 1 : 2;
    model->domains.push_back(chain[static_cast<size_t>(kind)]);
    ramus::ReducedDomain& domain = model->domains.back();
    domain.name = "domain_" + std::to_string(k);
    domain.part = kind;
    domain.parent = parent;
    const Eigen::Index V = model->parts[static_cast<size_t>(kind)].rest_positions.rows();
    domain.global_vertices.setConstant(V, -1);
    if (k > 0) {
      const ramus::ReducedDomain& p = model->domains[static_cast<size_t>(parent)];
      if (kind == 2 && parent > kBranching) domain.interface = tpl.c2_below_c2;
      const ramus::ParentInterface& itf = domain.interface;
      for (Eigen::Index i = 0; i < itf.child_vertices.size(); ++i)
        domain.global_vertices(itf.child_vertices(i)) = p.global_vertices(itf.parent_vertices(i));
      domain.frame_rotation = p.frame_rotation * itf.rest_rotation;
      domain.frame_origin = p.frame_origin + p.frame_rotation * itf.centroid;
    }
    for (Eigen::Index v = 0; v < V; ++v)
      if (domain.global_vertices(v) < 0) domain.global_vertices(v) = next_global++;
  }
  model->num_global_vertices = next_global;
  set_subtree_moments(*model);
  if (const std::string problem = ramus::find_model_inconsistency(*model); !problem.empty())
    throw std::runtime_error("instanced tree of " + std::to_string(d) + " domains: " + problem);
  entry = ramus::compile_model(std::move(*model));
  return entry;
}

// Vertex of a mesh farthest along (1, 1, 1): the free tip corner of a leaf beam.
int tip_vertex(const Eigen::MatrixX3d& rest_positions) {
  Eigen::Index best = 0;
  rest_positions.rowwise().sum().maxCoeff(&best);
  return static_cast<int>(best);
}

// Bytes of model data one step reads: per part the packed polynomial, W1..W7, the gravity
// basis and the four r by r matrices of the Newmark solve; per domain its interface bases
// (scratch vectors and frames left out).
double step_data_bytes(const ramus::Model& model) {
  double bytes = 0;
  for (const ramus::Part& proto : model.parts) {
    const ramus::SystemForceIntegrals& w = proto.system_force;
    double doubles = 4.0 * proto.r * proto.r + static_cast<double>(w.w3.size());
    for (const Eigen::MatrixXd* m :
         {&w.w1, &w.w2, &w.w4, &w.w5, &w.w6, &w.w7, &proto.gravity_basis})
      doubles += static_cast<double>(m->size());
    bytes += 8 * doubles + static_cast<double>(proto.forces.coefficient_bytes());
  }
  for (const ramus::Domain& domain : model.domains)
    bytes += 48.0 * domain.interface.bases_cols;  // 12 floats a column
  return bytes;
}

// Steps `simulator` in the benchmark loop after a warm-up, reports the counters and returns the
// time per step (µs).
double time_steps(benchmark::State& state, ramus::Simulator& simulator, bool profile) {
  for (int k = 0; k < kWarmupSteps; ++k) {
    if (simulator.step() != ramus::StepStatus::kOk) {
      state.SkipWithError("warm-up step failed");
      return 0;
    }
  }
  simulator.reset_profile();
  const Clock::time_point start = Clock::now();
  for (auto _ : state) {
    if (simulator.step() != ramus::StepStatus::kOk) {
      state.SkipWithError("step failed");
      break;
    }
    benchmark::DoNotOptimize(simulator.state().q.data());
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const int d = simulator.num_domains();
  state.counters["step_MB"] = step_data_bytes(simulator.model()) / 1e6;
  state.counters["state_bytes_per_domain"] =
      static_cast<double>(ramus::state_bytes(simulator.model(), simulator.state())) / d;
  const int total_r = simulator.model().num_dofs;
  const double us = 1e6 * seconds / static_cast<double>(std::max<int64_t>(1, state.iterations()));
  state.counters["domains"] = d;
  state.counters["total_r"] = total_r;
  state.counters["us_per_step"] = us;
  state.counters["us_per_domain"] = us / d;
  if (profile) {
    const ramus::Workspace::Profile& p = simulator.profile();
    const double total = p.core_seconds + p.domain_seconds;
    state.counters["core_percent"] = total > 0 ? 100 * p.core_seconds / total : 0;
    state.counters["domain_percent"] = total > 0 ? 100 * p.domain_seconds / total : 0;
  }
  return us;
}

void run_tree(benchmark::State& state, ramus::InterfaceLumping lumping, bool profile) {
  const int d = static_cast<int>(state.range(0));
  const int r = static_cast<int>(state.range(1));
  std::shared_ptr<const ramus::Model> model;
  try {
    model = instanced_tree(d, r);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  ramus::RuntimeSettings settings = model->settings;
  settings.time_step = 1.0 / 60.0;
  settings.gravity = {0, 0, -9.81};
  settings.lumping = lumping;
  for (ramus::DomainSettings& domain : settings.domains) {
    domain.rayleigh_mass = 1.0;
    domain.rayleigh_stiffness = 1e-3;
  }
  ramus::Simulator simulator(model, settings);
  simulator.set_profiling(profile);
  const int leaf = d - 1;  // breadth-first: the last domain is a leaf
  simulator.add_vertex_force(leaf, tip_vertex(model->part_of(leaf).rest_positions), {0, 1.0, 0});
  simulator.initialize();
  time_steps(state, simulator, profile);
}

void BM_SubstructuredStep(benchmark::State& state) {
  run_tree(state, ramus::InterfaceLumping::kInterface, false);
}
void BM_SubstructuredStepProfiled(benchmark::State& state) {
  run_tree(state, ramus::InterfaceLumping::kInterface, true);
}
void BM_SubstructuredStepL2(benchmark::State& state) {
  run_tree(state, ramus::InterfaceLumping::kCenterOfMass, false);
}
void BM_SubstructuredStepL2Profiled(benchmark::State& state) {
  run_tree(state, ramus::InterfaceLumping::kCenterOfMass, true);
}

void tree_sizes(benchmark::internal::Benchmark* b) {
  for (int r : {8, 20})
    for (int d : {10, 30, 100, 300, 1000}) b->Args({d, r});
  b->ArgNames({"d", "r"})->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_SubstructuredStep)->Apply(tree_sizes);
BENCHMARK(BM_SubstructuredStepProfiled)->Apply(tree_sizes);
BENCHMARK(BM_SubstructuredStepL2)
    ->Args({100, 8})
    ->Args({100, 20})
    ->ArgNames({"d", "r"})
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SubstructuredStepL2Profiled)
    ->Args({100, 8})
    ->Args({100, 20})
    ->ArgNames({"d", "r"})
    ->Unit(benchmark::kMicrosecond);

// The plant model file of RAMUS_PLANT_MODEL (cached) with the point forces of its stored spec;
// nullptr, the benchmark skipped with the reason, when there is none.
struct Plant {
  std::shared_ptr<const ramus::Model> model;
  std::vector<ramus::PointForce> forces;
};
const Plant* load_plant(benchmark::State& state) {
  const char* path = std::getenv("RAMUS_PLANT_MODEL");
  if (path == nullptr || *path == '\0') {
    state.SkipWithError("set RAMUS_PLANT_MODEL");
    return nullptr;
  }
  static std::map<std::string, Plant> cache;
  Plant& plant = cache[path];
  try {
    if (!plant.model) {
      ramus::ReducedModel data = ramus::read_model_file(path);
      try {  // the point forces of the stored spec
        plant.forces =
            ramus::parse_model_spec(data.provenance.spec_json, data.provenance.spec_path).forces;
      } catch (const ramus::Error&) {
      }
      plant.model = ramus::compile_model(std::move(data));
    }
  } catch (const ramus::Error& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
  return &plant;
}

// The plant with the scenario of its stored spec (as `ramus simulate` reads it): time step,
// gravity, damping, per-domain tuning and point forces (held on); the lumping is the
// benchmark's argument (1: L1 interface, 2: L2 centre of mass, 3: L3 rigid subtree).
void run_plant(benchmark::State& state, bool profile) {
  const Plant* plant = load_plant(state);
  if (!plant) return;
  const ramus::Model& model = *plant->model;
  // The model's own settings (from its spec), lumping from the argument.
  ramus::RuntimeSettings settings = model.settings;
  const int lumping = static_cast<int>(state.range(0));
  settings.lumping = lumping == 2   ? ramus::InterfaceLumping::kCenterOfMass
                     : lumping == 3 ? ramus::InterfaceLumping::kRigidSubtree
                                    : ramus::InterfaceLumping::kInterface;
  ramus::Simulator simulator(plant->model, settings);
  simulator.set_profiling(profile);
  const Eigen::MatrixX3d rest = ramus::global_rest_positions(model);
  for (const ramus::PointForce& f : plant->forces) {
    Eigen::Index vertex = f.vertex;
    if (f.at) (rest.rowwise() - f.at->transpose()).rowwise().squaredNorm().minCoeff(&vertex);
    if (vertex < 0 || vertex >= rest.rows()) continue;
    const auto [domain, local] = ramus::vertex_copy(model, static_cast<int>(vertex));
    simulator.add_vertex_force(domain, local, f.force);
  }
  simulator.initialize();
  state.counters["ms_per_step"] = time_steps(state, simulator, profile) / 1000.0;
}

// The plant with a sphere against the plant without (issue 34), interleaved in one run: the
// spec's settings under gravity alone; a sphere of a fifth of the plant's width swinging across
// it at 3/4 of its height at up to 0.5 m/s, moved kinematically each step; the samples within
// the contact distance per step. 4,000 steps (20 s).
void BM_PlantContactInterleaved(benchmark::State& state) {
  const Plant* plant = load_plant(state);
  if (!plant) return;
  const Eigen::MatrixX3d rest = ramus::global_rest_positions(*plant->model);
  const Eigen::Vector3d lo = rest.colwise().minCoeff(), hi = rest.colwise().maxCoeff();
  const Eigen::Vector3d middle(0.5 * (lo.x() + hi.x()), 0.5 * (lo.y() + hi.y()),
                               lo.z() + 0.75 * (hi.z() - lo.z()));
  ramus::Collider sphere;
  sphere.shape = ramus::ColliderShape::kSphere;
  sphere.size(0) = 0.2 * (hi.x() - lo.x());
  const double amplitude = 0.5 * (hi.x() - lo.x()) + 2 * sphere.size(0), omega = 0.5 / amplitude;
  sphere.pose.translation = middle - Eigen::Vector3d(amplitude, 0, 0);
  ramus::Simulator free(plant->model), touched(plant->model);
  if (touched.add_collider(sphere).status != ramus::ColliderStatus::kOk) {
    state.SkipWithError("the sphere was refused");
    return;
  }
  const double h = touched.settings().time_step;
  double seconds[2] = {0, 0}, active = 0;
  long steps = 0;
  for (auto _ : state) {
    ramus::RigidPose target = sphere.pose;
    target.translation.x() = middle.x() - amplitude * std::cos(omega * (touched.time() + h));
    touched.colliders().move_kinematic(0, target, h);
    ramus::Simulator* sims[2] = {&free, &touched};
    for (int c = 0; c < 2; ++c) {
      const auto start = std::chrono::steady_clock::now();
      const ramus::StepStatus status = sims[c]->step();
      seconds[c] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (status != ramus::StepStatus::kOk) {
        state.SkipWithError("a step failed");
        return;
      }
    }
    active += touched.contact().active;
    ++steps;
  }
  const double n = static_cast<double>(std::max<long>(1, steps));
  state.counters["free_us"] = 1e6 * seconds[0] / n;
  state.counters["sphere_us"] = 1e6 * seconds[1] / n;
  state.counters["sphere_over_free"] = seconds[1] / seconds[0];
  state.counters["samples_touching"] = active / n;
}
BENCHMARK(BM_PlantContactInterleaved)->Unit(benchmark::kMicrosecond)->Iterations(4000);

void BM_PlantStep(benchmark::State& state) {
  run_plant(state, false);
}
void BM_PlantStepProfiled(benchmark::State& state) {
  run_plant(state, true);
}
BENCHMARK(BM_PlantStep)->DenseRange(1, 3)->ArgName("L")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlantStepProfiled)->DenseRange(1, 3)->ArgName("L")->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
