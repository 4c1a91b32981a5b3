// `ramus simulate model.h5 -o out.pvd`: the runtime (Algorithm 1 over the model's domain tree,
// each domain's integrator, docs/INTEGRATORS.md) on a model file. The scenario (time step, steps,
// gravity, damping, forces, lumping, per-domain tuning) is the model's stored settings and
// scenario; command line options override it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "model_trust_options.h"
#include "output_paths.h"
#include "plot_script.h"
#include "ramus/error.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"
#include "reduced_run_options.h"
#include "run_progress.h"
#include "series_budget.h"

namespace ramus::cli {

namespace {

// "semi-implicit Newmark", "siere (s = 3)", or "integrators: be x 2, siere (s = 3) x 1".
std::string integrator_description(const RuntimeSettings& settings, const DomainSettings& n) {
  std::string text = to_string(n.integrator);
  if (n.integrator == Integrator::kNewmark)
    text = settings.newton_iterations == 1 ? "semi-implicit Newmark" : "implicit Newmark (Newton)";
  if (uses_split_modes(n.integrator)) text += " (s = " + std::to_string(n.split_modes) + ")";
  return text;
}

std::string integrators_description(const RuntimeSettings& settings) {
  std::vector<std::pair<std::string, int>> counts;
  for (const DomainSettings& n : settings.domains) {
    const std::string name = integrator_description(settings, n);
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& entry) { return entry.first == name; });
    if (it == counts.end())
      counts.emplace_back(name, 1);
    else
      ++it->second;
  }
  if (counts.size() == 1) return counts.front().first;
  std::string text = "integrators:";
  for (const auto& [name, count] : counts) text += " " + name + " x " + std::to_string(count) + ",";
  text.pop_back();
  return text;
}

struct Args {
  TrustArgs trust;  ///< which signatures the model must carry
  std::string model, output;
  ReducedRunArgs run;
  bool ascii = false;  ///< ASCII frames instead of binary, zlib-compressed ones
  int threads = 1;
  bool domain_by_domain = false;
  bool ignore_spec = false;
  std::string plot;  // --plot PREFIX
  CLI::App* command = nullptr;
};

// What --plot records every step: energies and one vertex's world position.
struct PlotSeries {
  std::vector<double> time, elastic, kinetic;
  std::vector<Eigen::Vector3d> vertex;
};

// Each part stepped alone (its single-domain model, anchored, with the run's time step, gravity
// and the settings of its first domain): µs per step, the best of 3 runs of 20 steps.
std::vector<double> lone_step_us(const ReducedModel& data, const RuntimeSettings& settings) {
  std::vector<double> cost;
  for (std::size_t p = 0; p < data.parts.size(); ++p) {
    std::size_t first = 0;
    while (first < data.domains.size() && data.domains[first].part != static_cast<int>(p)) ++first;
    const auto model = compile_model(single_domain_model(data.parts[p]));
    RuntimeSettings lone = model->settings;
    lone.time_step = settings.time_step;
    lone.gravity = settings.gravity;
    lone.domains.assign(1, settings.domains[std::min(first, settings.domains.size() - 1)]);
    Simulator simulator(model, lone);
    simulator.initialize();
    double best = 1e300;
    for (int run = 0; run < 3; ++run) {
      const auto start = std::chrono::steady_clock::now();
      for (int k = 0; k < 20; ++k) simulator.step();
      best = std::min(
          best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    cost.push_back(1e6 * best / 20);
  }
  return cost;
}

// --plot PREFIX: PREFIX_energy, PREFIX_vertex and PREFIX_domains as CSV and PNG
// (scripts/plot_simulation.py).
void write_plots(const std::string& prefix, const PlotSeries& series, int vertex,
                 const ReducedModel& data, const RuntimeSettings& settings) {
  const auto csv = [&](const std::string& what, const auto& write_rows) {
    const std::string path = prefix + "_" + what + ".csv";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f) throw Error("cannot write '" + path + "'");
    write_rows(f);
    const bool ok = std::fclose(f) == 0;
    if (!ok) throw Error("cannot write '" + path + "'");
    plot_with_script("plot_simulation.py", path, prefix + "_" + what + ".png");
    std::printf("plot      %s_%s.png (and .csv)\n", prefix.c_str(), what.c_str());
  };
  csv("energy", [&](std::FILE* f) {
    std::fprintf(f, "time,elastic_J,kinetic_J\n");
    for (std::size_t k = 0; k < series.time.size(); ++k)
      std::fprintf(f, "%.9g,%.9g,%.9g\n", series.time[k], series.elastic[k], series.kinetic[k]);
  });
  csv("vertex", [&](std::FILE* f) {
    std::fprintf(f, "time,x,y,z\n");
    for (std::size_t k = 0; k < series.time.size(); ++k)
      std::fprintf(f, "%.9g,%.12g,%.12g,%.12g\n", series.time[k], series.vertex[k](0),
                   series.vertex[k](1), series.vertex[k](2));
  });
  std::printf("          (vertex %d: the first force's, else the farthest from the root)\n",
              vertex);
  const std::vector<double> cost = lone_step_us(data, settings);
  csv("domains", [&](std::FILE* f) {
    std::fprintf(f, "domain,name,part,r,lone_step_us\n");
    for (std::size_t i = 0; i < data.domains.size(); ++i) {
      const ReducedDomain& d = data.domains[i];
      const ReducedPart& part = data.parts[static_cast<std::size_t>(d.part)];
      std::fprintf(f, "%zu,%s,%s,%d,%.4g\n", i, d.name.c_str(), part.name.c_str(),
                   part.polynomial.r, cost[static_cast<std::size_t>(d.part)]);
    }
  });
}

const char* lumping_name(InterfaceLumping lumping) {
  switch (lumping) {
    case InterfaceLumping::kInterface:
      return ", L1 (interface) lumping";
    case InterfaceLumping::kCenterOfMass:
      return ", L2 (centre-of-mass) lumping";
    case InterfaceLumping::kRigidSubtree:
      return ", L3 (rigid-subtree) lumping";
  }
  return "";
}

// The embedded surface's series beside `output` (<stem>_surface.pvd), or "" without output.
std::string surface_series_path(const std::string& output) {
  if (output.empty()) return "";
  const std::filesystem::path path(output);
  return (path.parent_path() / (path.stem().string() + "_surface.pvd")).string();
}

// A force at the first domain holding its vertex (global vertex indices, or the rest position
// nearest to `at`).
struct ResolvedForce {
  PointForce force;
  int domain, vertex;
};

std::vector<ResolvedForce> resolve_forces(const Model& model, const Eigen::MatrixX3d& rest,
                                          const std::vector<PointForce>& forces) {
  const auto num_global = static_cast<int>(rest.rows());
  std::vector<ResolvedForce> resolved;
  for (PointForce f : forces) {
    if (f.at) {
      Eigen::Index nearest = 0;
      (rest.rowwise() - f.at->transpose()).rowwise().squaredNorm().minCoeff(&nearest);
      f.vertex = static_cast<int>(nearest);
    }
    if (f.vertex < 0 || f.vertex >= num_global)
      throw OptionError("force: vertex " + std::to_string(f.vertex) +
                        " does not exist (the model has " + std::to_string(num_global) +
                        " vertices)");
    const auto [d, v] = vertex_copy(model, f.vertex);
    if (d < 0)
      throw OptionError("force: vertex " + std::to_string(f.vertex) + " belongs to no domain");
    resolved.push_back({f, d, v});
  }
  return resolved;
}

// One line per force: its vector, vertex, domain and window ("throughout", "from t = a s" or
// "t in [a, b) s").
void report_forces(const std::vector<ResolvedForce>& resolved, const Model& model,
                   const Eigen::MatrixX3d& rest) {
  for (const ResolvedForce& f : resolved) {
    char window[96];
    if (f.force.start <= 0 && f.force.end >= 1e300)
      std::snprintf(window, sizeof window, "throughout");
    else if (f.force.end >= 1e300)
      std::snprintf(window, sizeof window, "from t = %g s", f.force.start);
    else
      std::snprintf(window, sizeof window, "t in [%g, %g) s", f.force.start, f.force.end);
    char snapped[128] = "";  // a force given by position: where, and how far its vertex is
    if (f.force.at)
      std::snprintf(snapped, sizeof snapped, " (nearest to (%g, %g, %g): %.3g m away)",
                    (*f.force.at)(0), (*f.force.at)(1), (*f.force.at)(2),
                    (rest.row(f.force.vertex).transpose() - *f.force.at).norm());
    std::printf("force     (%g, %g, %g) N at vertex %d%s (domain '%s'), %s\n", f.force.force(0),
                f.force.force(1), f.force.force(2), f.force.vertex, snapped,
                model.domains[static_cast<size_t>(f.domain)].name.c_str(), window);
  }
}

// Finite reduced coordinates can still place a vertex at infinity (a basis or frame that
// overflows): such a frame is an error, never written.
void check_positions(const Simulator& simulator, const Eigen::MatrixX3d& p, const char* what) {
  if (!p.allFinite())
    throw NumericalError("t = " + std::to_string(simulator.time()) + " s: " + what +
                         " positions are not finite (the model's basis or frames overflow)");
}

// -o: the run as ParaView series, the undivided mesh's and (<stem>_surface.pvd) the embedded
// surface's, each frame with its displacement (and velocity) and the domain of each tet.
class RunSeries {
 public:
  RunSeries(const Args& args, const Model& model, Eigen::MatrixX3d rest) : rest_(std::move(rest)) {
    if (args.output.empty()) return;
    const VtuEncoding encoding = args.ascii ? VtuEncoding::kAscii : VtuEncoding::kCompressed;
    writer_ = std::make_unique<PvdSeriesWriter>(args.output, encoding);
    surface_output_ = surface_series_path(args.output);
    // The render mesh, when some part has a render surface (else the tet mesh says it all).
    const RenderMesh& mesh = model.render;
    if (std::any_of(mesh.pieces.begin(), mesh.pieces.end(),
                    [](const RenderPiece& p) { return !p.from_boundary; })) {
      surface_writer_ = std::make_unique<PvdSeriesWriter>(surface_output_, encoding);
      surface_rest_.resize(mesh.num_vertices, 3);
      render_rest_vertices(model, surface_rest_.data());
      surface_triangles_.resize(mesh.num_triangles, 3);
      render_triangles(model, surface_triangles_.data());
      surface_positions_.resize(mesh.num_vertices, 3);
    }
    tets_ = global_tets(model, &tet_domain_);
    for (const auto& domain : model.domains) domain_names_.push_back(domain.name);
  }
  void write_frame(Simulator& simulator) {
    if (!writer_) return;
    simulator.global_positions(positions_);
    check_positions(simulator, positions_, "vertex");
    simulator.global_velocities(velocities_);
    fields_.point_data = {{"displacement", positions_ - rest_}, {"velocity", velocities_}};
    fields_.cell_ints = {{"domain", tet_domain_}};
    fields_.strings = {{"domain_names", domain_names_}};  // (row i: the name of domain i)
    writer_->add_frame(simulator.time(), positions_, tets_, fields_);
    if (!surface_writer_) return;
    simulator.render_vertices(surface_positions_.data());
    const Eigen::MatrixX3d positions = surface_positions_;
    check_positions(simulator, positions, "surface");
    surface_fields_.point_data = {{"displacement", positions - surface_rest_}};
    surface_writer_->add_surface_frame(simulator.time(), positions,
                                       Eigen::MatrixX3i(surface_triangles_), surface_fields_);
  }
  // Bytes of the latest frame's files (the series' size budget).
  double latest_frame_bytes() const {
    std::vector<std::string> files;
    if (writer_ && writer_->num_frames() > 0)
      files.push_back(writer_->frame_path(writer_->num_frames() - 1));
    if (surface_writer_ && surface_writer_->num_frames() > 0)
      files.push_back(surface_writer_->frame_path(surface_writer_->num_frames() - 1));
    return files_bytes(files);
  }
  // The series' .pvd files, and a line for each.
  void finish(const std::string& output) {
    if (writer_) writer_->finish();
    if (surface_writer_) surface_writer_->finish();
    if (writer_)
      std::printf("output    %s (%d frames; %s)\n", output.c_str(), writer_->num_frames(),
                  kFrameConvention);
    if (surface_writer_)
      std::printf("output    %s (render surface: %d vertices, %d triangles)\n",
                  surface_output_.c_str(), static_cast<int>(surface_rest_.rows()),
                  static_cast<int>(surface_triangles_.rows()));
  }

 private:
  Eigen::MatrixX3d rest_;
  // The render mesh (render_vertices' layout: a vertex's x, y, z together).
  Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> surface_rest_, surface_positions_;
  Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor> surface_triangles_;
  std::unique_ptr<PvdSeriesWriter> writer_, surface_writer_;
  std::string surface_output_;
  Eigen::MatrixX4i tets_;
  Eigen::VectorXi tet_domain_;
  std::vector<std::string> domain_names_;
  Eigen::MatrixX3d positions_, velocities_;
  VtuFields fields_, surface_fields_;
};

// The vertex --plot follows: the first force's, else the farthest from the root's origin.
int followed_vertex(const std::vector<ResolvedForce>& resolved, const Model& model,
                    const Eigen::MatrixX3d& rest) {
  if (!resolved.empty()) return resolved.front().force.vertex;
  if (rest.rows() == 0) return 0;
  Eigen::Index farthest = 0;
  (rest.rowwise() - model.domains.front().rest_origin.transpose())
      .rowwise()
      .squaredNorm()
      .maxCoeff(&farthest);
  return static_cast<int>(farthest);
}

// What a run's summary reports beyond its last state: each step's cost, the largest displacement
// over the frames checked and the interfaces' largest distance from a rigid motion (Eq. 5).
struct RunRecord {
  std::vector<double> step_us;
  double max_displacement = 0, max_displacement_time = 0;
  double max_nonrigidity = 0, max_nonrigidity_time = 0;
  int max_nonrigidity_domain = -1;

  void interfaces(const Simulator& simulator) {
    for (int domain = 1; domain < simulator.num_domains(); ++domain)
      if (const double measure = simulator.interface_nonrigidity(domain);
          measure > max_nonrigidity) {
        max_nonrigidity = measure;
        max_nonrigidity_domain = domain;
        max_nonrigidity_time = simulator.time();
      }
  }
  // The colliders: the largest force, the most samples touching, the closest sample.
  double max_contact_force = 0, closest = INFINITY;
  int most_active = -1;
  void contact(const Simulator& simulator) {
    const ContactReport report = simulator.contact();
    max_contact_force = std::max(max_contact_force, report.force.norm());
    most_active = std::max(most_active, report.active);
    closest = std::min(closest, report.smallest_distance);
  }
  void displacement(const Simulator& simulator, const Eigen::MatrixX3d& positions,
                    const Eigen::MatrixX3d& rest) {
    const double u = (positions - rest).rowwise().norm().maxCoeff();
    if (u > max_displacement) {
      max_displacement = u;
      max_displacement_time = simulator.time();
    }
  }
};

// The summary lines: cost per step with the profile's split, the final state, the interfaces.
void report_run(const RunRecord& record, const Simulator& simulator, const Model& model,
                const Eigen::MatrixX3d& rest) {
  if (!record.step_us.empty()) {
    std::vector<double> sorted = record.step_us;
    std::sort(sorted.begin(), sorted.end());
    double total = 0;
    for (double us : record.step_us) total += us;
    const Workspace::Profile& p = simulator.profile();
    const double split = p.core_seconds + p.domain_seconds;
    std::printf(
        "per step  mean %.2f us, median %.2f us, max %.2f us (%zu steps); "
        "frames/coupling %.0f %%, domain steps %.0f %%\n",
        total / static_cast<double>(sorted.size()), sorted[sorted.size() / 2], sorted.back(),
        sorted.size(), split > 0 ? 100 * p.core_seconds / split : 0.0,
        split > 0 ? 100 * p.domain_seconds / split : 0.0);
  }
  Eigen::MatrixX3d positions;
  simulator.global_positions(positions);
  std::printf(
      "final     t = %.4f s, max |u| = %.4g m (largest %.4g m, at t = %.4g s), elastic %.4g J\n",
      simulator.time(), (positions - rest).rowwise().norm().maxCoeff(), record.max_displacement,
      record.max_displacement_time, simulator.elastic_energy());
  if (record.most_active >= 0)
    std::printf(
        "contact   largest force %.4g N, at most %d samples within the contact distance, "
        "closest %.3g m\n",
        record.max_contact_force, record.most_active, record.closest);
  if (record.max_nonrigidity_domain > 0)
    std::printf("interface non-rigidity |A - R| / |A| at most %.2f %% ('%s' at t = %.4g s)\n",
                100 * record.max_nonrigidity,
                model.domains[static_cast<std::size_t>(record.max_nonrigidity_domain)].name.c_str(),
                record.max_nonrigidity_time);
}

void run(const Args& args) {
  refuse_outputs_over_inputs(
      {args.model}, {{"--output", args.output}, {"--output", surface_series_path(args.output)}});
  if (!args.plot.empty()) {  // (its folder checked before the run, not after)
    const std::filesystem::path folder = std::filesystem::path(args.plot).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder))
      throw OptionError("--plot: folder '" + folder.string() + "' does not exist");
  }
  ReducedModel data = read_model_file(args.model, model_trust(args.trust));
  // The model's settings and its stored scenario (steps, forces, output cadence), then the
  // options given on the command line.
  RunScenario scenario = model_scenario(*args.command, args.run, data, args.ignore_spec);
  // (--plot measures each part alone afterwards: its parts and domains kept)
  ReducedModel kept;
  if (!args.plot.empty()) {
    kept.parts = data.parts;
    kept.domains = data.domains;
  }
  const auto model = compile_model(std::move(data));
  const Eigen::MatrixX3d rest = global_rest_positions(*model);
  const int num_domains = model->num_domains();
  RuntimeSettings& settings = scenario.settings;
  const std::vector<ResolvedForce> resolved = resolve_forces(*model, rest, scenario.forces);

  // The simulator, and what it runs.
  if (args.threads < 1 || args.threads > kMaxStepThreads)
    throw OptionError("--threads: expected 1 to " + std::to_string(kMaxStepThreads) + ", got " +
                      std::to_string(args.threads));
  Simulator simulator(model, settings);
  simulator.set_profiling(true);
  simulator.set_threads(args.threads);
  simulator.set_batched_evaluation(!args.domain_by_domain);
  simulator.reserve_vertex_forces(static_cast<int>(resolved.size()));
  std::printf(
      "model     %s: %d vertices, %d domain%s, total r = %d%s, h = %g s, %d steps, "
      "%s%s\n",
      args.model.c_str(), static_cast<int>(rest.rows()), num_domains, num_domains == 1 ? "" : "s",
      model->num_dofs, simulator.free_root() ? " (free-flying)" : "", settings.time_step,
      scenario.steps, integrators_description(settings).c_str(),
      num_domains == 1 ? "" : lumping_name(settings.lumping));
  report_forces(resolved, *model, rest);
  // The scenario's colliders, each moving at its constant velocities.
  for (std::size_t k = 0; k < scenario.colliders.size(); ++k) {
    const ColliderResult added = simulator.add_collider(scenario.colliders[k]);
    if (added.status != ColliderStatus::kOk)
      throw InputError(
          args.model, 0,
          "runtime/scenario/colliders: collider " + std::to_string(k) + ": " + added.message);
  }
  if (!scenario.colliders.empty())
    std::printf("colliders %zu, from the model's scenario (contact distance %g m)\n",
                scenario.colliders.size(), settings.contact_distance);

  // The initial state, its frame and the plot's first sample.
  RunSeries frames(args, *model, rest);
  const auto apply_forces = [&](double t) {
    simulator.clear_vertex_forces();
    for (const ResolvedForce& f : resolved)
      if (f.force.start <= t && t < f.force.end)
        simulator.add_vertex_force(f.domain, f.vertex, f.force.force);
  };
  apply_forces(0.0);
  if (const StepStatus status = simulator.initialize(); status != StepStatus::kOk)
    throw NumericalError("initial state: " + std::string(to_string(status)));
  simulator.reset_profile();
  frames.write_frame(simulator);
  // Without --output-every, a cadence that keeps the series under 50 MB.
  SeriesBudget budget(scenario.output_every, scenario.steps,
                      given_setting(*args.command, args.run, "output_every").has_value());
  int output_every = budget.after_frame(0, frames.latest_frame_bytes());
  PlotSeries series;
  const int followed = followed_vertex(resolved, *model, rest);
  Eigen::MatrixX3d positions;
  const auto sample = [&] {
    if (args.plot.empty()) return;
    simulator.global_positions(positions);
    series.time.push_back(simulator.time());
    series.elastic.push_back(simulator.elastic_energy());
    series.kinetic.push_back(simulator.kinetic_energy());
    series.vertex.push_back(positions.row(followed).transpose());
  };
  sample();

  // The steps: each timed, its frame written every output_every steps; progress on stderr
  // about every 2 s of a longer run (writing frames takes most of it).
  RunRecord record;
  record.step_us.reserve(static_cast<size_t>(scenario.steps));
  RunProgress progress("simulate ");
  for (int step = 1; step <= scenario.steps; ++step) {
    progress(step - 1, scenario.steps);
    apply_forces(simulator.time() + settings.time_step);
    const auto start = std::chrono::steady_clock::now();
    const StepStatus status = simulator.step();
    record.step_us.push_back(
        1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (status != StepStatus::kOk)
      throw NumericalError("step " + std::to_string(step) + ": " + to_string(status));
    sample();
    record.interfaces(simulator);
    if (!scenario.colliders.empty()) record.contact(simulator);
    if (step % output_every == 0) {
      simulator.global_positions(positions);
      check_positions(simulator, positions, "vertex");
      record.displacement(simulator, positions, rest);
      frames.write_frame(simulator);
      output_every = budget.after_frame(step, frames.latest_frame_bytes());
    }
  }
  budget.report("--output-every");
  report_run(record, simulator, *model, rest);
  frames.finish(args.output);
  if (!args.plot.empty()) write_plots(args.plot, series, followed, kept, settings);
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "simulate",
      "Run the real-time reduced simulation of a model file (the domain tree of Algorithm 1, "
      "each domain's integrator) with the scenario of its spec; prints the per-step cost "
      "and writes a .pvd series");
  args->command = command;
  command->add_option("model", args->model, "Model file (.h5)")->required();
  add_trust_options(command, args->trust);
  command->add_option("-o,--output", args->output,
                      "Output series (.pvd; a model's embedded surface: <stem>_surface.pvd); "
                      "none: timing only");
  command->add_flag("--ascii", args->ascii,
                    "Write ASCII frames (default: binary, zlib-compressed; ParaView reads both)");
  command->add_flag("--ignore-spec", args->ignore_spec, kIgnoreSpecHelp);
  command
      ->add_option("--threads", args->threads,
                   "Threads of the step (independent domains depth by depth); results equal one "
                   "thread's bit for bit")
      ->capture_default_str();
  command->add_flag(
      "--domain-by-domain,--node-by-node", args->domain_by_domain,
      "Step every domain alone (default: a part's childless instances eight at a "
      "time in SIMD lanes under SI and SBDF2; equal to rounding; --node-by-node: its old name)");
  command->add_option("--plot", args->plot,
                      "Write PREFIX_energy.png (elastic and kinetic energy over time), "
                      "PREFIX_vertex.png (the pulled or farthest vertex's trajectory) and "
                      "PREFIX_domains.png (each domain's lone step cost), with their CSVs");
  add_reduced_run_options(command, args->run, {"steps", "output_every"});
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
