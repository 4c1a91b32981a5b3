// The paper's oak (substructuring paper §5, Table 1): `ramus generate tree`'s default tree (1,436
// domains: a trunk, 41 branches of 5 limb meshes, 1,394 leaves of one leaf mesh; r̂ = 11,992)
// built in memory. BM_OakPrecompute: every part reduced once and every instance placed (no file);
// BM_OakStep: one semi-implicit step of the whole tree (the spec's settings), and its split into
// core (frames, coupling, lumping) and domain (StVK + solves) time; BM_OakRender: world positions
// of all 54,398 vertices into a buffer (double, float), against the domain-by-domain
// global_positions. BM_OakStep's arguments: batched StVK evaluation on / off, 1 or 2 threads;
// BM_OakLoneSum: the sum over the domains of a lone step of each domain's part (the coupled step's
// bound). BM_OakContactInterleaved: the step with a far collider and with a capsule swinging
// through the crown against the step without one. BM_OakStates: snapshots against the step.
// BM_Forest: 2 and 16 oaks stepped as one batch on 1 thread and on every core.
// BM_OakRenderVertices: the render mesh with and without normals against the step.
#include <benchmark/benchmark.h>

#include <Eigen/Geometry>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ramus/precompute/generators/tree_generator.h"
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/precompute/substructuring/assembly_builder.h"
#include "ramus/ramus.h"
#include "ramus/runtime/contact/reduced_contact.h"
#include "ramus/runtime/dynamics/step_objects.h"
#include "ramus/runtime/simulator.h"

namespace {

const ramus::ReducedModel& oak_data() {
  static const ramus::ReducedModel data = [] {
    const ramus::Assembly assembly = ramus::tree_assembly(ramus::make_tree());
    return ramus::build_assembly_model(assembly.parts, assembly.instances, 1e-6);
  }();
  return data;
}

// Runs f and adds its seconds to `total` (the interleaved benchmarks' rounds).
template <class F>
void timed(double& total, F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::shared_ptr<const ramus::Model> oak() {
  static const std::shared_ptr<const ramus::Model> model = ramus::compile_model(oak_data());
  return model;
}

// The generated spec's simulation block on `settings`: h = 0.01 s, SI, Rayleigh 0.5 / 0.002,
// gravity, and its wind (4 m/s with gusts of 50 % and eddies of 1.5 m/s; with `wind_scales`,
// a gust period of 3 s and eddies of 3 m, else the settings' own).
ramus::RuntimeSettings oak_settings(ramus::RuntimeSettings settings, bool wind_scales = true) {
  settings.time_step = 0.01;
  settings.gravity = Eigen::Vector3d(0, 0, -9.81);
  settings.wind.mean_velocity = Eigen::Vector3d(4, 1, 0);
  settings.wind.gust = 0.5;
  settings.wind.turbulence = 1.5;
  settings.wind.seed = 1;
  if (wind_scales) {
    settings.wind.gust_period = 3;
    settings.wind.turbulence_length = 3;
  }
  for (ramus::DomainSettings& n : settings.domains) {
    n.integrator = ramus::Integrator::kSemiImplicitEuler;
    n.rayleigh_mass = 0.5;
    n.rayleigh_stiffness = 0.002;
  }
  return settings;
}

std::unique_ptr<ramus::Simulator> oak_simulator() {
  const auto model = oak();
  auto sim = std::make_unique<ramus::Simulator>(model, oak_settings(model->settings));
  sim->initialize();
  return sim;
}

// The childless domains with a contact sample within the contact distance of collider 0.
int touched_leaves(const ramus::Simulator& sim) {
  const ramus::Model& model = sim.model();
  const ramus::Collider& collider = sim.colliders()[0];
  int touched = 0;
  for (const int i : model.childless_domains)
    for (int k = 0; k < model.part_of(i).contact.size(); ++k) {
      const Eigen::Vector3d x = ramus::sample_world_position(model, sim.state(), i, k);
      const Eigen::Vector3d local =
          collider.pose.rotation.transpose() * (x - collider.pose.translation);
      if (ramus::sample_local_level_set(collider.shape, collider.size, local).value <
          sim.settings().contact_distance) {
        ++touched;
        break;
      }
    }
  return touched;
}

void BM_OakPrecompute(benchmark::State& state) {
  for (auto _ : state) {
    const ramus::Assembly assembly = ramus::tree_assembly(ramus::make_tree());
    benchmark::DoNotOptimize(
        ramus::build_assembly_model(assembly.parts, assembly.instances, 1e-6, 0));
  }
  state.counters["domains"] = static_cast<double>(oak_data().domains.size());
}
BENCHMARK(BM_OakPrecompute)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_OakStep(benchmark::State& state) {
  const bool profiled = state.range(0) == 1;
  auto sim = oak_simulator();
  sim->set_profiling(profiled);
  sim->set_batched_evaluation(state.range(1) == 1);
  sim->set_threads(static_cast<int>(state.range(2)));
  for (auto _ : state)
    if (sim->step() != ramus::StepStatus::kOk) state.SkipWithError("the oak's step failed");
  state.counters["domains"] = sim->num_domains();
  state.counters["total_r"] = sim->model().num_dofs;
  // A leaf instance's memory (the last domain is a leaf): its share of the State and its
  // attachment data (the measure), and the rest of what it costs a running object: its
  // domain record in the Model and its share of the Workspace.
  const ramus::Model& model = sim->model();
  const int leaf = model.num_domains() - 1;
  const ramus::DomainInterface& attachment =
      model.domains[static_cast<std::size_t>(leaf)].interface;
  state.counters["leaf_state_B"] =
      static_cast<double>(ramus::domain_state_bytes(model, sim->state(), leaf));
  state.counters["leaf_attachment_B"] = static_cast<double>(attachment.bytes());
  state.counters["leaf_record_B"] = static_cast<double>(ramus::domain_model_bytes(model, leaf)) -
                                    state.counters["leaf_attachment_B"];
  state.counters["leaf_workspace_B"] =
      static_cast<double>(ramus::domain_workspace_bytes(model, sim->workspace(), leaf));
  if (profiled) {
    const auto& p = sim->profile();
    state.counters["core_us"] = 1e6 * p.core_seconds / std::max<long>(1, p.steps);
    state.counters["domain_us"] = 1e6 * p.domain_seconds / std::max<long>(1, p.steps);
  }
}
BENCHMARK(BM_OakStep)
    ->ArgsProduct({{0, 1}, {1, 0}, {1}})
    ->Args({0, 1, 2})
    ->Args({0, 0, 2})
    ->ArgNames({"profiled", "batched", "threads"})
    ->Unit(benchmark::kMicrosecond);

// The bound for the coupled step: every domain stepped alone as the single-domain model of
// its part (anchored: no frames, no system force, no lumping), with the oak's settings, times
// the part's domain count, summed.
struct LoneParts {
  std::vector<std::unique_ptr<ramus::Simulator>> simulators;  // one per part
  std::vector<double> placed;                                 // its domain count in the oak
  // Seconds per oak step: `steps` steps of each part, scaled by its count.
  double seconds_per_step(int steps) {
    double sum = 0;
    for (std::size_t p = 0; p < simulators.size(); ++p) {
      const auto start = std::chrono::steady_clock::now();
      for (int k = 0; k < steps; ++k) simulators[p]->step();
      sum += placed[p] *
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
             steps;
    }
    return sum;
  }
};

LoneParts lone_parts() {
  const ramus::ReducedModel& data = oak_data();
  const auto oak_settings = oak_simulator()->settings();
  LoneParts lone;
  for (std::size_t p = 0; p < data.parts.size(); ++p) {
    const auto model = ramus::compile_model(ramus::single_domain_model(data.parts[p]));
    ramus::RuntimeSettings settings = model->settings;
    settings.time_step = oak_settings.time_step;
    settings.gravity = oak_settings.gravity;
    settings.domains.assign(1, oak_settings.domains.front());
    lone.simulators.push_back(std::make_unique<ramus::Simulator>(model, settings));
    lone.simulators.back()->initialize();
    lone.placed.push_back(0);
  }
  for (const ramus::ReducedDomain& d : data.domains)
    lone.placed[static_cast<std::size_t>(d.part)] += 1;
  return lone;
}

// The step's configurations interleaved (rounds of 10 steps each, in turn), so that a shared,
// noisy machine loads them alike: one thread in lanes (batched), one thread domain by domain, two
// threads domain by domain, two threads in lanes, and the lone sum (BM_OakLoneSum's, 50 steps of
// each part). Counters: µs per step of each, and the ratios.
void BM_OakStepInterleaved(benchmark::State& state) {
  struct Config {
    const char* name;
    bool batched;
    int threads;
  };
  const Config configs[] = {{"batched_1t", true, 1},
                            {"domain_1t", false, 1},
                            {"domain_2t", false, 2},
                            {"batched_2t", true, 2}};
  std::vector<std::unique_ptr<ramus::Simulator>> sims;
  for (const Config& c : configs) {
    sims.push_back(oak_simulator());
    sims.back()->set_batched_evaluation(c.batched);
    sims.back()->set_threads(c.threads);
    for (int k = 0; k < 5; ++k) sims.back()->step();
  }
  LoneParts lone = lone_parts();
  std::vector<double> seconds(sims.size(), 0.0);
  double lone_seconds = 0;
  long rounds = 0;
  for (auto _ : state) {
    for (std::size_t c = 0; c < sims.size(); ++c) {
      const auto start = std::chrono::steady_clock::now();
      for (int k = 0; k < 10; ++k)
        if (sims[c]->step() != ramus::StepStatus::kOk) state.SkipWithError("the oak's step failed");
      seconds[c] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    lone_seconds += 10.0 * lone.seconds_per_step(50);
    ++rounds;
  }
  const double steps = 10.0 * static_cast<double>(std::max<long>(1, rounds));
  for (std::size_t c = 0; c < sims.size(); ++c)
    state.counters[std::string(configs[c].name) + "_us"] = 1e6 * seconds[c] / steps;
  state.counters["lone_sum_us"] = 1e6 * lone_seconds / steps;
  state.counters["domain_over_batched"] = seconds[1] / seconds[0];
  state.counters["batched_over_lone_sum"] = seconds[0] / lone_seconds;
  state.counters["threads_speedup"] = seconds[1] / seconds[2];
  state.counters["batched_threads_speedup"] = seconds[0] / seconds[3];
}
BENCHMARK(BM_OakStepInterleaved)->Unit(benchmark::kMillisecond)->MinTime(5);

// Contact against the contact-free oak, interleaved in one run (issue 34): one oak without a
// collider, one with a capsule 50 m away (the far-object overhead: the broad phase's cost), one
// with a capsule of radius state.range(0) cm (40: a branch's reach; 120: wide enough for the
// issue's 100 leaves a step) swinging across the crown at 70 % of the height, at up to 1.5 m/s
// (moved kinematically each step, as a game would), and the leaves it touches per step.
void BM_OakContactInterleaved(benchmark::State& state) {
  const auto model = oak();
  Eigen::MatrixX3d rest;
  ramus::Simulator(model).global_positions(rest);
  const Eigen::Vector3d lo = rest.colwise().minCoeff(), hi = rest.colwise().maxCoeff();
  const Eigen::Vector3d crown(0.5 * (lo.x() + hi.x()), 0.5 * (lo.y() + hi.y()),
                              lo.z() + 0.7 * (hi.z() - lo.z()));
  // x(t) = centre - A cos(omega t): from just outside the crown's -x side across it and back,
  // 1.5 m/s at the fastest.
  const double amplitude =
                   0.5 * (hi.x() - lo.x()) + 0.1 + 0.01 * static_cast<double>(state.range(0)),
               omega = 1.5 / amplitude;
  ramus::Collider capsule;
  capsule.shape = ramus::ColliderShape::kCapsule;
  capsule.size =
      Eigen::Vector4d(0.01 * static_cast<double>(state.range(0)), 0.5 * (hi.y() - lo.y()), 0, 0);
  capsule.pose.rotation = Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitX()).matrix();
  capsule.pose.translation = crown - Eigen::Vector3d(amplitude, 0, 0);
  ramus::Collider far = capsule;
  far.pose.translation = crown + Eigen::Vector3d(50, 0, 0);
  std::vector<std::unique_ptr<ramus::Simulator>> sims;
  for (int k = 0; k < 3; ++k) sims.push_back(oak_simulator());
  if (sims[1]->add_collider(far).status != ramus::ColliderStatus::kOk ||
      sims[2]->add_collider(capsule).status != ramus::ColliderStatus::kOk) {
    state.SkipWithError("a collider was refused");
    return;
  }
  const double h = sims[0]->settings().time_step;
  std::vector<double> seconds(sims.size(), 0.0);
  double touched = 0;
  long steps = 0;
  for (auto _ : state) {
    for (int k = 0; k < 10; ++k) {
      ramus::RigidPose target = capsule.pose;
      target.translation.x() = crown.x() - amplitude * std::cos(omega * (sims[2]->time() + h));
      sims[2]->colliders().move_kinematic(0, target, h);
      for (std::size_t c = 0; c < sims.size(); ++c) {
        const auto start = std::chrono::steady_clock::now();
        if (sims[c]->step() != ramus::StepStatus::kOk) state.SkipWithError("a step failed");
        seconds[c] +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      ++steps;
    }
    touched += touched_leaves(*sims[2]);
  }
  const double n = static_cast<double>(std::max<long>(1, steps));
  state.counters["free_us"] = 1e6 * seconds[0] / n;
  state.counters["far_us"] = 1e6 * seconds[1] / n;
  state.counters["sweep_us"] = 1e6 * seconds[2] / n;
  state.counters["far_over_free"] = seconds[1] / seconds[0];
  state.counters["sweep_over_free"] = seconds[2] / seconds[0];
  state.counters["leaves_touched"] = touched / static_cast<double>(std::max<long>(1, steps / 10));
}
BENCHMARK(BM_OakContactInterleaved)->Unit(benchmark::kMillisecond)->MinTime(10)->Arg(40)->Arg(120);

// Each iteration's time is the lone sum.
void BM_OakLoneSum(benchmark::State& state) {
  LoneParts lone = lone_parts();
  for (auto _ : state) state.SetIterationTime(lone.seconds_per_step(50));
}
BENCHMARK(BM_OakLoneSum)->UseManualTime()->Unit(benchmark::kMicrosecond);

template <typename Scalar>
void BM_OakRender(benchmark::State& state) {
  auto sim = oak_simulator();
  for (int k = 0; k < 20; ++k) sim->step();
  std::vector<Scalar> out(3 * static_cast<std::size_t>(sim->model().num_global_vertices));
  for (auto _ : state) {
    sim->render_positions(out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["vertices"] = sim->model().num_global_vertices;
}
BENCHMARK(BM_OakRender<double>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_OakRender<float>)->Unit(benchmark::kMicrosecond);

// render_vertices alone, called again and again (warm caches; BM_OakRenderVertices has the step
// between calls): Arg 0 positions, 1 with normals.
void BM_OakRenderVerticesAlone(benchmark::State& state) {
  auto sim = oak_simulator();
  for (int k = 0; k < 20; ++k) sim->step();
  const bool normals = state.range(0) != 0;
  std::vector<float> out(6 * static_cast<std::size_t>(sim->model().render.num_vertices));
  for (auto _ : state) {
    sim->render_vertices(out.data(), normals);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["vertices"] = sim->model().render.num_vertices;
}
BENCHMARK(BM_OakRenderVerticesAlone)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The render mesh (docs/RENDERING.md: 1,394 leaf blades from one piece, the wood's boundary)
// interleaved with the step in one run: render_vertices as float positions, with normals, and
// the path it replaced (the C0 mesh, then each blade vertex as the barycentric combination of its
// tet's vertices). Counters: µs of each, ratios to the step, vertices.
void BM_OakRenderVertices(benchmark::State& state) {
  auto sim = oak_simulator();
  for (int k = 0; k < 20; ++k) sim->step();
  const ramus::Model& model = sim->model();
  const int S = model.render.num_vertices;
  std::vector<float> positions(3 * static_cast<std::size_t>(S)),
      shaded(6 * static_cast<std::size_t>(S));
  // The old path's tables: per blade vertex its domain's global vertices at its tet's corners.
  std::vector<Eigen::Vector4i> corners;
  std::vector<Eigen::Vector4d> weights;
  for (const ramus::RenderPiece& piece : model.render.pieces) {
    if (piece.from_boundary) continue;
    const ramus::PartRenderSurface& surface =
        oak_data().parts[static_cast<std::size_t>(piece.part)].render_surface;
    const ramus::Part& part = model.parts[static_cast<std::size_t>(piece.part)];
    for (const int i : piece.domains)
      for (Eigen::Index v = 0; v < surface.size(); ++v) {
        Eigen::Vector4i g;
        for (int c = 0; c < 4; ++c)
          g(c) = model.domains[static_cast<std::size_t>(i)].global_vertices(
              part.tets(surface.tet(v), c));
        corners.push_back(g);
        weights.push_back(surface.barycentric.row(v).transpose());
      }
  }
  Eigen::MatrixX3d global, old_blades(static_cast<Eigen::Index>(corners.size()), 3);
  double step_s = 0, positions_s = 0, normals_s = 0, old_s = 0;
  long rounds = 0;
  for (auto _ : state) {
    timed(step_s, [&] { sim->step(); });
    timed(positions_s, [&] { sim->render_vertices(positions.data(), false); });
    timed(normals_s, [&] { sim->render_vertices(shaded.data(), true); });
    timed(old_s, [&] {
      sim->global_positions(global);
      for (std::size_t k = 0; k < corners.size(); ++k) {
        Eigen::RowVector3d x = Eigen::RowVector3d::Zero();
        for (int c = 0; c < 4; ++c) x += weights[k](c) * global.row(corners[k](c));
        old_blades.row(static_cast<Eigen::Index>(k)) = x;
      }
    });
    benchmark::DoNotOptimize(positions.data());
    benchmark::DoNotOptimize(shaded.data());
    benchmark::DoNotOptimize(old_blades.data());
    ++rounds;
  }
  const double n = static_cast<double>(std::max<long>(1, rounds));
  state.counters["step_us"] = 1e6 * step_s / n;
  state.counters["positions_us"] = 1e6 * positions_s / n;
  state.counters["with_normals_us"] = 1e6 * normals_s / n;
  state.counters["old_blades_us"] = 1e6 * old_s / n;
  state.counters["normals_over_step"] = normals_s / step_s;
  state.counters["old_over_normals"] = old_s / normals_s;
  state.counters["vertices"] = S;
  state.counters["blade_vertices"] = static_cast<double>(corners.size());
}
BENCHMARK(BM_OakRenderVertices)->Unit(benchmark::kMillisecond)->MinTime(3);

void BM_OakGlobalPositions(benchmark::State& state) {
  auto sim = oak_simulator();
  for (int k = 0; k < 20; ++k) sim->step();
  Eigen::MatrixX3d out;
  for (auto _ : state) {
    sim->global_positions(out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_OakGlobalPositions)->Unit(benchmark::kMicrosecond);

// A game's frame (one step, then every vertex's world position as float) through the C
// interface (ramus/ramus.h, the model read from a file) and through Simulator, interleaved in
// rounds of 10 frames with the same settings (h = 0.01 s, SI, Rayleigh 0.5 / 0.002, gravity, the
// wind's mean, gust and eddies). Counters: µs per frame of each and the C path's overhead.
void BM_OakFrameCApi(benchmark::State& state) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "ramus_bench_oak_c_api.h5").string();
  ramus::write_model_file(oak_data(), path);
  ramus_status status;
  ramus_model* c_model = ramus_model_load(path.c_str(), &status);
  ramus_object* c_oak = ramus_object_create(c_model, &status);
  const double gravity[3] = {0, 0, -9.81}, wind[3] = {4, 1, 0};
  if (!c_oak || ramus_object_set_time_step(c_oak, 0.01) != RAMUS_OK ||
      ramus_object_set_integrator(c_oak, RAMUS_SEMI_IMPLICIT_EULER) != RAMUS_OK ||
      ramus_object_set_damping(c_oak, 0.5, 0.002) != RAMUS_OK ||
      ramus_object_set_gravity(c_oak, gravity) != RAMUS_OK ||
      ramus_object_set_wind(c_oak, wind, 0.5, 1.5, 1) != RAMUS_OK) {
    state.SkipWithError(ramus_last_error());
    return;
  }
  // The same object through C++.
  const auto model = ramus::load_model(path);
  std::filesystem::remove(path);
  ramus::Simulator cpp_oak(model, oak_settings(model->settings, false));  // (as the C calls)
  cpp_oak.initialize();
  const std::size_t values = 3 * static_cast<std::size_t>(model->num_global_vertices);
  std::vector<float> c_buffer(values), cpp_buffer(values);
  double c_seconds = 0, cpp_seconds = 0;
  long rounds = 0;
  using Clock = std::chrono::steady_clock;
  for (auto _ : state) {
    auto start = Clock::now();
    for (int k = 0; k < 10; ++k) {
      if (ramus_object_step(c_oak) != RAMUS_OK) state.SkipWithError("the C step failed");
      ramus_object_vertex_positions_f(c_oak, c_buffer.data(), values);
    }
    c_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    start = Clock::now();
    for (int k = 0; k < 10; ++k) {
      if (cpp_oak.step() != ramus::StepStatus::kOk) state.SkipWithError("the C++ step failed");
      cpp_oak.render_positions(cpp_buffer.data());
    }
    cpp_seconds += std::chrono::duration<double>(Clock::now() - start).count();
    ++rounds;
  }
  const double frames = 10.0 * static_cast<double>(std::max<long>(1, rounds));
  state.counters["c_api_us"] = 1e6 * c_seconds / frames;
  state.counters["cpp_us"] = 1e6 * cpp_seconds / frames;
  state.counters["c_over_cpp"] = c_seconds / cpp_seconds;
  // Both paths stepped the same object alike: the same positions.
  float apart = 0;
  for (std::size_t v = 0; v < values; ++v)
    apart = std::max(apart, std::abs(c_buffer[v] - cpp_buffer[v]));
  state.counters["max_apart_m"] = apart;
  ramus_object_free(c_oak);
  ramus_model_free(c_model);
}
BENCHMARK(BM_OakFrameCApi)->Unit(benchmark::kMillisecond)->MinTime(5);

}  // namespace

// Snapshots of the oak (docs/STATES.md) against its step, interleaved in one run: save and
// restore a whole-state blob (kStateAll: CRC-32 included), copy the physics between two objects,
// reset. Counters: µs of each and their ratio to the step; the blob's size.
void BM_OakStates(benchmark::State& state) {
  auto sim = oak_simulator();
  auto other = oak_simulator();
  for (int k = 0; k < 5; ++k) sim->step();
  std::vector<unsigned char> blob(sim->state_size(ramus::kStateAll));
  double step_s = 0, save_s = 0, restore_s = 0, copy_s = 0, reset_s = 0;
  long rounds = 0;
  for (auto _ : state) {
    timed(step_s, [&] { sim->step(); });
    timed(save_s, [&] { sim->save_state(ramus::kStateAll, blob.data(), blob.size()); });
    timed(restore_s, [&] {
      if (other->restore_state(blob.data(), blob.size()) != ramus::SnapshotStatus::kOk)
        state.SkipWithError("restore failed");
    });
    timed(copy_s, [&] { other->copy_state_from(*sim, ramus::kStatePhysics); });
    timed(reset_s, [&] { other->reset(); });
    ++rounds;
  }
  const double n = static_cast<double>(std::max<long>(1, rounds));
  state.counters["step_us"] = 1e6 * step_s / n;
  state.counters["save_us"] = 1e6 * save_s / n;
  state.counters["restore_us"] = 1e6 * restore_s / n;
  state.counters["copy_physics_us"] = 1e6 * copy_s / n;
  state.counters["reset_us"] = 1e6 * reset_s / n;
  state.counters["save_over_step"] = save_s / step_s;
  state.counters["restore_over_step"] = restore_s / step_s;
  state.counters["copy_over_step"] = copy_s / step_s;
  state.counters["blob_kB"] = static_cast<double>(blob.size()) / 1024.0;
}
BENCHMARK(BM_OakStates)->Unit(benchmark::kMillisecond)->MinTime(3);

// A forest (issue 37 item 6): state.range(0) oaks stepped as one batch (step_objects: each
// oak's whole step on one thread), on 1 thread and on all the machine's cores, interleaved in
// one run. Counters: ms per forest step of each and the speedup.
void BM_Forest(benchmark::State& state) {
  const int oaks = static_cast<int>(state.range(0));
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::unique_ptr<ramus::Simulator>> forest;
  std::vector<ramus::ObjectStep> entries;
  for (int k = 0; k < oaks; ++k) {
    forest.push_back(oak_simulator());
    entries.push_back(forest.back()->batch_entry());
  }
  ramus::step_objects(entries.data(), entries.size(), cores);  // (starts the thread team)
  double one_s = 0, all_s = 0;
  long rounds = 0;
  for (auto _ : state) {
    for (const int threads : {1, cores}) {
      const auto start = std::chrono::steady_clock::now();
      if (ramus::step_objects(entries.data(), entries.size(), threads) != 0)
        state.SkipWithError("an oak's step failed");
      (threads == 1 ? one_s : all_s) +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
    ++rounds;
  }
  const double n = static_cast<double>(std::max<long>(1, rounds));
  state.counters["cores"] = cores;
  state.counters["one_thread_ms"] = 1e3 * one_s / n;
  state.counters["all_cores_ms"] = 1e3 * all_s / n;
  state.counters["speedup"] = one_s / all_s;
}
BENCHMARK(BM_Forest)->Arg(2)->Arg(16)->Unit(benchmark::kMillisecond)->MinTime(5);

BENCHMARK_MAIN();
