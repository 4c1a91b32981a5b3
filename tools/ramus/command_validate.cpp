// `ramus validate spec.json model.h5 -o trajectories.csv`: the substructuring paper's accuracy
// experiment (Fig. 7). The full-space FEM (ground truth, implicit Newmark), and the model's
// substructured runtime with interface (L1), centre-of-mass (L2) and rigid-subtree (L3) lumping,
// all start from rest with a velocity along the first eigenmode of the whole mesh, scaled so that
// the stem (base: the anchors' centre; top: the highest vertex above the anchors) would bend by a
// given angle in the linear regime. Records two tracked vertices, estimates each method's lowest
// natural frequency and reports the cost per step.
#include <Eigen/Geometry>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>

#include "commands.h"
#include "finite_number.h"
#include "model_trust_options.h"
#include "output_paths.h"
#include "printing_listener.h"
#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/spec_mesh.h"
#include "ramus/precompute/reduction/lumping_experiment.h"
#include "ramus/precompute/reduction/modal_analysis.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"
#include "reduced_run_options.h"
#include "run_progress.h"

namespace ramus::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  TrustArgs trust;  ///< which signatures the model must carry
  std::string spec, model, output, summary, series;
  int series_every = 1;
  double bend_degrees = 45;
  double periods = 3;
  ReducedRunArgs settings;  ///< --dt
  CLI::App* command = nullptr;
  bool gravity = false;
};

// One method's run: positions of the tracked vertices and of the stem top, per step.
struct Trajectory {
  std::string name;
  std::vector<Eigen::Vector3d> a, b, stem_top;
  double seconds_per_step = 0;
};

std::string format_number(double value, const char* format) {
  char text[32];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// --series PREFIX: PREFIX_full.pvd, PREFIX_L1.pvd, PREFIX_L2.pvd and PREFIX_L3.pvd over the
// undivided mesh, every `every`-th step, each frame with its displacement, its difference from
// the full FEM's and the domain of each tet.
class Series {
 public:
  Series(const std::string& prefix, int every, const TetMesh& mesh, const Model& model)
      : every_(std::max(1, every)), rest_(mesh.rest_positions) {
    if (prefix.empty()) return;
    tets_ = global_tets(model, &tet_domain_);
    for (const Domain& domain : model.domains) domain_names_.push_back(domain.name);
    for (const char* tag : {"_full.pvd", "_L1.pvd", "_L2.pvd", "_L3.pvd"})
      writers_.push_back(std::make_unique<PvdSeriesWriter>(prefix + tag));
    prefix_ = prefix;
  }
  bool on(std::size_t frame) const {
    return !writers_.empty() && frame % static_cast<std::size_t>(every_) == 0;
  }
  void add(int method, double time, const Eigen::MatrixX3d& positions,
           const Eigen::MatrixX3d& full_positions) {
    VtuFields fields;
    fields.point_data = {{"displacement", positions - rest_},
                         {"difference", positions - full_positions}};
    fields.cell_ints = {{"domain", tet_domain_}};
    fields.strings = {{"domain_names", domain_names_}};
    writers_[static_cast<std::size_t>(method)]->add_frame(time, positions, tets_, fields);
  }
  void finish() {
    if (writers_.empty()) return;
    for (auto& writer : writers_) writer->finish();
    std::printf("series       %s_full.pvd, _L1.pvd, _L2.pvd, _L3.pvd (%d frames each; %s)\n",
                prefix_.c_str(), writers_.front()->num_frames(), kFrameConvention);
  }

 private:
  int every_;
  Eigen::MatrixX3d rest_;
  Eigen::MatrixX4i tets_;
  Eigen::VectorXi tet_domain_;
  std::vector<std::string> domain_names_;
  std::vector<std::unique_ptr<PvdSeriesWriter>> writers_;
  std::string prefix_;
};

// The spec's mesh and anchors and the model made from it (same undivided mesh, else an error).
struct Inputs {
  ModelSpec spec;
  std::shared_ptr<const Model> model;
  TetMesh mesh;
  std::vector<int> fixed;
  Eigen::MatrixX3d rest;  ///< the model's global rest positions (the mesh's)
};

Inputs load_inputs(const Args& args) {
  Inputs in;
  in.spec = load_spec(args.spec);
  const ModelSpec& spec = in.spec;
  std::vector<std::string> inputs = spec_input_files(spec);
  inputs.push_back(args.model);
  refuse_outputs_over_inputs(inputs, {{"--output", args.output}, {"--summary", args.summary}});
  if (spec.assembly)
    throw InputError(spec.spec_path, 0,
                     "an assembly (parts and instances) has no one-mesh full-space model yet: "
                     "`ramus validate` takes a one-mesh spec");
  refuse_full_space_only(spec);
  in.model = load_model(args.model, model_trust(args.trust));
  in.mesh = read_spec_tet_mesh(spec.mesh_path, spec.tetrahedralize, spec.length_unit,
                               printing_listener());
  try {
    in.fixed = select_vertices(in.mesh, spec.fixed);
  } catch (const MeshError& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  if (in.fixed.empty())
    throw OptionError(spec.spec_path +
                      ": the experiment needs an anchored object (no fixed vertex)");
  in.rest = global_rest_positions(*in.model);
  const Eigen::MatrixX3d& rest = in.rest;
  if (rest.rows() != in.mesh.num_vertices() ||
      (rest - in.mesh.rest_positions).cwiseAbs().maxCoeff() >
          1e-9 * (1 + rest.cwiseAbs().maxCoeff()))
    throw OptionError(
        args.model + ": was not made from " + spec.spec_path +
        " (its undivided mesh differs from the spec's mesh); re-run ramus precompute");
  return in;
}

// The points the experiment follows: the stem's base (the anchors' centre) and top, A (the
// highest vertex) and B (the farthest from the stem's axis).
struct Tracked {
  Eigen::Vector3d base = Eigen::Vector3d::Zero();
  int stem_top = 0;
  Eigen::Index a_vertex = 0, b_vertex = 0;
};

Tracked tracked_points(const Inputs& in, const LinearModes& modes) {
  const Eigen::MatrixX3d& rest = in.rest;
  Tracked t;
  // The stem's top: the highest vertex within twice the anchor's radius of the vertical axis
  // through the base (whatever the partition).
  for (int v : in.fixed) t.base += rest.row(v).transpose() / static_cast<double>(in.fixed.size());
  double anchor_radius = 0;
  for (int v : in.fixed)
    anchor_radius =
        std::max(anchor_radius, (rest.row(v).head<2>() - t.base.head<2>().transpose()).norm());
  t.stem_top = in.fixed.front();
  for (int v = 0; v < in.mesh.num_vertices(); ++v)
    if ((rest.row(v).head<2>() - t.base.head<2>().transpose()).norm() <= 2 * anchor_radius &&
        rest(v, 2) > rest(t.stem_top, 2))
      t.stem_top = v;
  rest.col(2).maxCoeff(&t.a_vertex);
  (rest.leftCols<2>().rowwise() - t.base.head<2>().transpose())
      .rowwise()
      .squaredNorm()
      .maxCoeff(&t.b_vertex);
  // An object that is no upright stem (a beam held at one end): its "stem top" is the vertex the
  // first mode moves most, as far from the anchors as the mode reaches.
  const Eigen::VectorXd mode_motion =
      modes.modes.col(0).reshaped(3, in.mesh.num_vertices()).colwise().norm().transpose();
  if (mode_motion(t.stem_top) < 1e-3 * mode_motion.maxCoeff()) {
    Eigen::Index most = 0;
    mode_motion.maxCoeff(&most);
    t.stem_top = static_cast<int>(most);
  }
  if (mode_motion(t.a_vertex) < 1e-3 * mode_motion.maxCoeff()) t.a_vertex = t.stem_top;
  return t;
}

// What every run shares: the step, its count, the start and the points followed.
struct RunSetup {
  double h = 0;
  int steps = 0;
  Eigen::VectorXd velocity;  ///< 3#V: along the first mode
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();
  Tracked tracked;
};

// Ground truth: full-space implicit Newmark (trapezoidal rule), solved to tolerance; its
// positions at the series' frames kept in `full_frames`.
Trajectory run_full_fem(const Inputs& in, const StvkFemModel& fem, const DofMap& dofs,
                        const RunSetup& run, Series& series,
                        std::vector<Eigen::MatrixX3d>& full_frames) {
  Trajectory t{"full FEM", {}, {}, {}, 0};
  FullSpaceOptions options;
  options.time_step = run.h;
  options.gravity = run.gravity;
  options.rayleigh_mass = in.spec.simulation.domain.rayleigh_mass;
  options.rayleigh_stiffness = in.spec.simulation.domain.rayleigh_stiffness;
  FullSpaceSimulator full(fem, dofs, options);
  FullSpaceState state = full.rest_state();
  state.velocities = run.velocity;
  full.initialize_acceleration(state);
  const auto record = [&] {
    const auto x = [&](Eigen::Index v) {
      return Eigen::Vector3d(state.positions.segment<3>(3 * v));
    };
    t.a.push_back(x(run.tracked.a_vertex));
    t.b.push_back(x(run.tracked.b_vertex));
    t.stem_top.push_back(x(run.tracked.stem_top));
    if (series.on(t.a.size() - 1)) {
      const Eigen::MatrixX3d positions = state.positions.reshaped(3, in.rest.rows()).transpose();
      full_frames.push_back(positions);
      series.add(0, run.h * static_cast<double>(t.a.size() - 1), positions, positions);
    }
  };
  record();
  RunProgress progress("validate  full FEM");
  const auto start = Clock::now();
  for (int k = 0; k < run.steps; ++k) {
    const NewtonReport report = full.step_newmark(state);
    if (!report.converged)
      std::fprintf(stderr, "ramus: warning: full FEM step %d did not converge\n", k + 1);
    record();
    progress(k + 1, run.steps);
  }
  t.seconds_per_step = std::chrono::duration<double>(Clock::now() - start).count() / run.steps;
  return t;
}

// The model's substructured runtime with `lumping`, the paper's semi-implicit Newmark in every
// domain, from the same start; its frames beside the full FEM's (method `method` of the series).
Trajectory run_lumping(const Inputs& in, InterfaceLumping lumping, const RunSetup& run, int method,
                       int series_every, Series& series,
                       const std::vector<Eigen::MatrixX3d>& full_frames) {
  Trajectory t{lumping == InterfaceLumping::kInterface      ? "L1 (interface)"
               : lumping == InterfaceLumping::kCenterOfMass ? "L2 (centre of mass)"
                                                            : "L3 (rigid subtree)",
               {},
               {},
               {},
               0};
  RuntimeSettings settings = in.model->settings;
  settings.time_step = run.h;
  settings.gravity = run.gravity;
  settings.lumping = lumping;
  settings.newton_iterations = 1;
  for (DomainSettings& domain : settings.domains) {
    domain.integrator = Integrator::kNewmark;
    domain.rayleigh_mass = in.spec.simulation.domain.rayleigh_mass;
    domain.rayleigh_stiffness = in.spec.simulation.domain.rayleigh_stiffness;
    domain.stiffness_scale = 1;
  }
  Simulator sim(in.model, settings);
  const int n = in.mesh.num_vertices();
  Eigen::MatrixX3d v(n, 3), x;
  for (int i = 0; i < n; ++i) v.row(i) = run.velocity.segment<3>(3 * i).transpose();
  if (sim.set_velocity_field(v) != StepStatus::kOk)
    throw NumericalError(t.name + ": the initial state is not finite");
  const auto record = [&] {
    sim.global_positions(x);
    t.a.push_back(x.row(run.tracked.a_vertex).transpose());
    t.b.push_back(x.row(run.tracked.b_vertex).transpose());
    t.stem_top.push_back(x.row(run.tracked.stem_top).transpose());
    const std::size_t frame = t.a.size() - 1;
    if (series.on(frame))
      series.add(method, run.h * static_cast<double>(frame), x,
                 full_frames[frame / static_cast<std::size_t>(series_every)]);
  };
  record();
  double seconds = 0;
  RunProgress progress("validate  " + t.name);
  for (int k = 0; k < run.steps; ++k) {
    const auto start = Clock::now();
    const StepStatus status = sim.step();
    seconds += std::chrono::duration<double>(Clock::now() - start).count();
    if (status != StepStatus::kOk)
      throw NumericalError(t.name + ": step " + std::to_string(k + 1) + ": " + to_string(status));
    record();
    progress(k + 1, run.steps);
  }
  t.seconds_per_step = seconds / run.steps;
  return t;
}

// Each method's frequency (from A's motion along its initial velocity, the "x-dof" of the
// paper's plot), largest bend, deviation from the full FEM and cost, as a table and the summary.
void report_methods(const std::vector<Trajectory>& runs, const Inputs& in, const RunSetup& run,
                    LumpingExperimentSummary& summary) {
  const Tracked& tracked = run.tracked;
  Eigen::Vector3d direction = run.velocity.segment<3>(3 * tracked.a_vertex);
  direction /= std::max(1e-300, direction.norm());
  const Eigen::Vector3d a_rest = in.rest.row(tracked.a_vertex).transpose();
  const Eigen::Vector3d top_rest = in.rest.row(tracked.stem_top).transpose();
  std::printf("\n%-22s %10s %9s %14s %16s %14s\n", "method", "f1 (Hz)", "f1 / G", "max bend (deg)",
              "max |A - A_G| (m)", "per step");
  double ground_truth_frequency = 0;
  bool unmeasured = false;
  for (const Trajectory& t : runs) {
    std::vector<double> s;
    double bend = 0, deviation = 0;
    for (std::size_t k = 0; k < t.a.size(); ++k) {
      s.push_back(direction.dot(t.a[k] - a_rest));
      bend = std::max(bend, bend_angle_degrees(tracked.base, top_rest, t.stem_top[k]));
      deviation = std::max(deviation, (t.a[k] - runs[0].a[k]).norm());
    }
    const double f = zero_crossing_frequency(s, run.h);
    if (&t == &runs[0]) ground_truth_frequency = f;
    const double ratio = f / ground_truth_frequency;  // (NaN where either is not measurable)
    std::printf("%-22s %10s %9s %14.3g %16.3g %11.4g ms\n", t.name.c_str(),
                std::isfinite(f) ? format_number(f, "%.4g").c_str() : "n/a",
                std::isfinite(ratio) ? format_number(ratio, "%.3g").c_str() : "n/a", bend,
                deviation, 1e3 * t.seconds_per_step);
    summary.methods.push_back({t.name, f, ratio, bend, deviation, 1e3 * t.seconds_per_step});
    unmeasured |= !std::isfinite(f);
  }
  if (unmeasured)
    std::printf(
        "f1 n/a: the run holds fewer than 3 zero crossings (a whole period) of the "
        "tracked vertex; run longer (--periods 2 or more)\n");
}

// CSV: time, then A and B (x y z) per method.
void write_trajectories(const std::string& path, const std::vector<Trajectory>& runs, double h) {
  write_stream_atomically(path, [&](std::ostream& out) {
    out << "time";
    for (const char* tag : {"full", "L1", "L2", "L3"})
      for (const char* point : {"A", "B"})
        for (const char* c : {"x", "y", "z"}) out << ',' << point << '_' << c << '_' << tag;
    out << '\n';
    out.precision(10);
    for (std::size_t k = 0; k < runs[0].a.size(); ++k) {
      out << h * static_cast<double>(k);
      for (const Trajectory& t : runs)
        for (const Eigen::Vector3d& p : {t.a[k], t.b[k]})
          out << ',' << p(0) << ',' << p(1) << ',' << p(2);
      out << '\n';
    }
  });
}

void run(const Args& args) {
  const Inputs in = load_inputs(args);
  const ModelSpec& spec = in.spec;
  const TetMesh& mesh = in.mesh;

  // Ground-truth model and the first eigenmode of the whole mesh.
  const StvkFemModel fem(mesh, assign_materials(mesh, spec.material, spec.materials_by_label));
  const DofMap dofs(mesh.num_vertices(), in.fixed);
  const LinearModes modes = compute_linear_modes(fem, dofs, 1);
  const double omega1 = std::sqrt(modes.eigenvalues(0));
  RunSetup run;
  run.h = given_setting(*args.command, args.settings, "time_step")
              .value_or(SettingValue{{spec.simulation.settings.time_step, 0, 0}})
              .v[0];
  run.steps = static_cast<int>(std::ceil(args.periods * 2 * M_PI / omega1 / run.h));
  run.tracked = tracked_points(in, modes);
  const Tracked& tracked = run.tracked;

  // Velocity along the first mode: the linear amplitude (v / omega1) moves the stem top by the
  // chord of the requested bend.
  const double height = (in.rest.row(tracked.stem_top).transpose() - tracked.base).norm();
  const double chord = 2 * height * std::sin(0.5 * args.bend_degrees * M_PI / 180.0);
  const double top_mode = modes.modes.middleRows<3>(3 * tracked.stem_top).norm();
  run.velocity = modes.modes.col(0) * (omega1 * chord / top_mode);
  std::printf(
      "experiment  %s: %d vertices, %d tets; first eigenmode %.4g Hz; h = %g s, %d steps "
      "(%.3g periods)%s\n",
      spec.mesh_path.c_str(), mesh.num_vertices(), mesh.num_tets(), omega1 / (2 * M_PI), run.h,
      run.steps, args.periods, args.gravity ? ", gravity" : ", no gravity");
  std::printf(
      "            initial velocity along the mode, stem top %.4g m/s (linear bend %.3g "
      "deg); tracking A = vertex %ld (highest), B = vertex %ld (farthest out)\n",
      run.velocity.middleRows<3>(3 * tracked.stem_top).norm(), args.bend_degrees,
      static_cast<long>(tracked.a_vertex), static_cast<long>(tracked.b_vertex));
  std::fflush(stdout);
  if (args.gravity) run.gravity = spec.simulation.settings.gravity;

  // The runs: the full FEM, then L1, L2 and L3; --series: each method's frames for ParaView.
  Series series(args.series, args.series_every, mesh, *in.model);
  std::vector<Eigen::MatrixX3d> full_frames;
  std::vector<Trajectory> runs;
  runs.push_back(run_full_fem(in, fem, dofs, run, series, full_frames));
  for (InterfaceLumping lumping : {InterfaceLumping::kInterface, InterfaceLumping::kCenterOfMass,
                                   InterfaceLumping::kRigidSubtree})
    runs.push_back(run_lumping(in, lumping, run, static_cast<int>(runs.size()), args.series_every,
                               series, full_frames));

  // The figures, the trajectories, the series, the summary.
  LumpingExperimentSummary summary{
      args.spec, args.model, run.h, run.steps, omega1 / (2 * M_PI), in.model->num_domains(), {}};
  report_methods(runs, in, run, summary);
  write_trajectories(args.output, runs, run.h);
  std::printf("\ntrajectories %s\n", args.output.c_str());
  series.finish();
  if (!args.summary.empty()) {
    write_stream_atomically(args.summary,
                            [&](std::ostream& out) { out << summary_json(summary) << '\n'; });
    std::printf("summary      %s\n", args.summary.c_str());
  }
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "validate",
      "The substructuring paper's accuracy experiment (Fig. 7): full FEM vs L1, L2 and L3 lumping "
      "from a velocity along the first eigenmode; frequencies, bend, trajectories (CSV)");
  command->add_option("spec", args->spec, "Model spec (JSON) the model was made from")->required();
  command->add_option("model", args->model, "Model file (.h5) from ramus precompute")->required();
  add_trust_options(command, args->trust);
  command->add_option("-o,--output", args->output, "Trajectories (.csv)")->required();
  command->add_option("--summary", args->summary, "Also write the numbers as JSON");
  command->add_option("--series", args->series,
                      "Also write each method for ParaView: PREFIX_full.pvd, PREFIX_L1.pvd, "
                      "_L2.pvd, _L3.pvd (displacement, difference from the full FEM, domains)");
  command->add_option("--series-every", args->series_every, "Write every n-th step's frame")
      ->check(CLI::Range(1, 1000000) & finite_number())
      ->capture_default_str();
  command->add_option("--bend", args->bend_degrees, "Stem bend of the initial velocity (deg)")
      ->check(CLI::Range(-90.0, 90.0) & finite_number())
      ->capture_default_str();
  command->add_option("--periods", args->periods, "Duration in periods of the first mode")
      ->check(CLI::Range(0.5, 1000.0) & finite_number())
      ->capture_default_str();
  add_setting_option(command, args->settings, "time_step", "the spec's");
  args->command = command;
  command->add_flag("--gravity", args->gravity, "Apply the spec's gravity (default: none)");
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
