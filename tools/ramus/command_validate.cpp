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
    for (const Node& node : model.nodes) domain_names_.push_back(node.name);
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
    std::printf("series       %s_full.pvd, _L1.pvd, _L2.pvd, _L3.pvd (%d frames each)\n",
                prefix_.c_str(), writers_.front()->num_frames());
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

void run(const Args& args) {
  const ModelSpec spec = load_spec(args.spec);
  if (spec.assembly)
    throw InputError(spec.spec_path, 0,
                     "an assembly (parts and instances) has no one-mesh full-space model yet: "
                     "`ramus validate` takes a one-mesh spec");
  const auto model = load_model(args.model);
  const TetMesh mesh = read_spec_tet_mesh(spec.mesh_path, spec.tetrahedralize, spec.length_unit,
                                          printing_listener());
  std::vector<int> fixed;
  try {
    fixed = select_vertices(mesh, spec.fixed);
  } catch (const MeshError& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  if (fixed.empty())
    throw OptionError(spec.spec_path +
                      ": the experiment needs an anchored object (no fixed vertex)");
  const Eigen::MatrixX3d rest = global_rest_positions(*model);
  if (rest.rows() != mesh.num_vertices() ||
      (rest - mesh.rest_positions).cwiseAbs().maxCoeff() > 1e-9 * (1 + rest.cwiseAbs().maxCoeff()))
    throw OptionError(
        args.model + ": was not made from " + spec.spec_path +
        " (its undivided mesh differs from the spec's mesh); re-run ramus precompute");

  // Ground-truth model and the first eigenmode of the whole mesh.
  const StvkFemModel fem(mesh, assign_materials(mesh, spec.material, spec.materials_by_label));
  const DofMap dofs(mesh.num_vertices(), fixed);
  const LinearModes modes = compute_linear_modes(fem, dofs, 1);
  const double omega1 = std::sqrt(modes.eigenvalues(0));
  const double h = given_setting(*args.command, args.settings, "time_step")
                       .value_or(SettingValue{{spec.simulation.settings.time_step, 0, 0}})
                       .v[0];
  const int steps = static_cast<int>(std::ceil(args.periods * 2 * M_PI / omega1 / h));

  // Stem: its base is the centre of the fixed vertices, its top the highest vertex within twice
  // the anchor's radius of the vertical axis through the base (whatever the partition).
  Eigen::Vector3d base = Eigen::Vector3d::Zero();
  for (int v : fixed) base += rest.row(v).transpose() / static_cast<double>(fixed.size());
  double anchor_radius = 0;
  for (int v : fixed)
    anchor_radius =
        std::max(anchor_radius, (rest.row(v).head<2>() - base.head<2>().transpose()).norm());
  int stem_top = fixed.front();
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if ((rest.row(v).head<2>() - base.head<2>().transpose()).norm() <= 2 * anchor_radius &&
        rest(v, 2) > rest(stem_top, 2))
      stem_top = v;
  // Tracked: A = the highest vertex, B = the vertex farthest from the stem's axis.
  Eigen::Index a_vertex = 0, b_vertex = 0;
  rest.col(2).maxCoeff(&a_vertex);
  (rest.leftCols<2>().rowwise() - base.head<2>().transpose())
      .rowwise()
      .squaredNorm()
      .maxCoeff(&b_vertex);

  // An object that is no upright stem (a beam held at one end): its "stem top" is the vertex the
  // first mode moves most, as far from the anchors as the mode reaches.
  const Eigen::VectorXd mode_motion =
      modes.modes.col(0).reshaped(3, mesh.num_vertices()).colwise().norm().transpose();
  if (mode_motion(stem_top) < 1e-3 * mode_motion.maxCoeff()) {
    Eigen::Index most = 0;
    mode_motion.maxCoeff(&most);
    stem_top = static_cast<int>(most);
  }
  if (mode_motion(a_vertex) < 1e-3 * mode_motion.maxCoeff()) a_vertex = stem_top;

  // Velocity along the first mode: the linear amplitude (v / omega1) moves the stem top by the
  // chord of the requested bend.
  const double height = (rest.row(stem_top).transpose() - base).norm();
  const double chord = 2 * height * std::sin(0.5 * args.bend_degrees * M_PI / 180.0);
  const double top_mode = modes.modes.middleRows<3>(3 * stem_top).norm();
  const Eigen::VectorXd velocity = modes.modes.col(0) * (omega1 * chord / top_mode);
  std::printf(
      "experiment  %s: %d vertices, %d tets; first eigenmode %.4g Hz; h = %g s, %d steps "
      "(%.3g periods)%s\n",
      spec.mesh_path.c_str(), mesh.num_vertices(), mesh.num_tets(), omega1 / (2 * M_PI), h, steps,
      args.periods, args.gravity ? ", gravity" : ", no gravity");
  std::printf(
      "            initial velocity along the mode, stem top %.4g m/s (linear bend %.3g "
      "deg); tracking A = vertex %ld (highest), B = vertex %ld (farthest out)\n",
      velocity.middleRows<3>(3 * stem_top).norm(), args.bend_degrees, static_cast<long>(a_vertex),
      static_cast<long>(b_vertex));
  std::fflush(stdout);
  const Eigen::Vector3d gravity =
      args.gravity ? spec.simulation.settings.gravity : Eigen::Vector3d::Zero().eval();

  // --series: each method's frames for ParaView, with the difference from the full FEM's.
  Series series(args.series, args.series_every, mesh, *model);
  std::vector<Eigen::MatrixX3d> full_frames;  // the full FEM's positions at the series' frames
  std::vector<Trajectory> runs;
  {  // Ground truth: full-space implicit Newmark (trapezoidal rule), solved to tolerance.
    Trajectory t{"full FEM", {}, {}, {}, 0};
    FullSpaceOptions options;
    options.time_step = h;
    options.gravity = gravity;
    options.rayleigh_mass = spec.simulation.node.rayleigh_mass;
    options.rayleigh_stiffness = spec.simulation.node.rayleigh_stiffness;
    FullSpaceSimulator full(fem, dofs, options);
    FullSpaceState state = full.rest_state();
    state.velocities = velocity;
    full.initialize_acceleration(state);
    const auto record = [&] {
      const auto x = [&](Eigen::Index v) {
        return Eigen::Vector3d(state.positions.segment<3>(3 * v));
      };
      t.a.push_back(x(a_vertex));
      t.b.push_back(x(b_vertex));
      t.stem_top.push_back(x(stem_top));
      if (series.on(t.a.size() - 1)) {
        const Eigen::MatrixX3d positions = state.positions.reshaped(3, rest.rows()).transpose();
        full_frames.push_back(positions);
        series.add(0, h * static_cast<double>(t.a.size() - 1), positions, positions);
      }
    };
    record();
    RunProgress progress("validate  full FEM");
    const auto start = Clock::now();
    for (int k = 0; k < steps; ++k) {
      const NewtonReport report = full.step_newmark(state);
      if (!report.converged)
        std::fprintf(stderr, "ramus: warning: full FEM step %d did not converge\n", k + 1);
      record();
      progress(k + 1, steps);
    }
    t.seconds_per_step = std::chrono::duration<double>(Clock::now() - start).count() / steps;
    runs.push_back(std::move(t));
  }
  for (InterfaceLumping lumping : {InterfaceLumping::kInterface, InterfaceLumping::kCenterOfMass,
                                   InterfaceLumping::kRigidSubtree}) {
    Trajectory t{lumping == InterfaceLumping::kInterface      ? "L1 (interface)"
                 : lumping == InterfaceLumping::kCenterOfMass ? "L2 (centre of mass)"
                                                              : "L3 (rigid subtree)",
                 {},
                 {},
                 {},
                 0};
    RuntimeSettings settings = model->settings;
    settings.time_step = h;
    settings.gravity = gravity;
    settings.lumping = lumping;
    settings.newton_iterations = 1;
    for (NodeSettings& node : settings.nodes) {
      node.integrator = Integrator::kNewmark;  // the paper's semi-implicit Newmark
      node.rayleigh_mass = spec.simulation.node.rayleigh_mass;
      node.rayleigh_stiffness = spec.simulation.node.rayleigh_stiffness;
      node.stiffness_scale = 1;
    }
    Simulator sim(model, settings);
    Eigen::MatrixX3d v(mesh.num_vertices(), 3), x;
    for (int i = 0; i < mesh.num_vertices(); ++i) v.row(i) = velocity.segment<3>(3 * i).transpose();
    if (sim.set_velocity_field(v) != StepStatus::kOk)
      throw NumericalError(t.name + ": the initial state is not finite");
    const int method = static_cast<int>(runs.size());
    const auto record = [&] {
      sim.global_positions(x);
      t.a.push_back(x.row(a_vertex).transpose());
      t.b.push_back(x.row(b_vertex).transpose());
      t.stem_top.push_back(x.row(stem_top).transpose());
      const std::size_t frame = t.a.size() - 1;
      if (series.on(frame))
        series.add(method, h * static_cast<double>(frame), x,
                   full_frames[frame / static_cast<std::size_t>(args.series_every)]);
    };
    record();
    double seconds = 0;
    RunProgress progress("validate  " + t.name);
    for (int k = 0; k < steps; ++k) {
      const auto start = Clock::now();
      const StepStatus status = sim.step();
      seconds += std::chrono::duration<double>(Clock::now() - start).count();
      if (status != StepStatus::kOk)
        throw NumericalError(t.name + ": step " + std::to_string(k + 1) + ": " + to_string(status));
      record();
      progress(k + 1, steps);
    }
    t.seconds_per_step = seconds / steps;
    runs.push_back(std::move(t));
  }

  // The direction A moves in most (the "x-dof" of the paper's plot): A's initial velocity.
  Eigen::Vector3d direction = velocity.segment<3>(3 * a_vertex);
  direction /= std::max(1e-300, direction.norm());
  const Eigen::Vector3d a_rest = rest.row(a_vertex).transpose();
  LumpingExperimentSummary summary{args.spec,           args.model,         h, steps,
                                   omega1 / (2 * M_PI), model->num_nodes(), {}};
  std::printf("\n%-22s %10s %9s %14s %16s %14s\n", "method", "f1 (Hz)", "f1 / G", "max bend (deg)",
              "max |A - A_G| (m)", "per step");
  double ground_truth_frequency = 0;
  bool unmeasured = false;
  for (const Trajectory& t : runs) {
    std::vector<double> s;
    double bend = 0, deviation = 0;
    for (std::size_t k = 0; k < t.a.size(); ++k) {
      s.push_back(direction.dot(t.a[k] - a_rest));
      bend =
          std::max(bend, bend_angle_degrees(base, rest.row(stem_top).transpose(), t.stem_top[k]));
      deviation = std::max(deviation, (t.a[k] - runs[0].a[k]).norm());
    }
    const double f = zero_crossing_frequency(s, h);
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

  // CSV: time, then A and B (x y z) per method.
  write_stream_atomically(args.output, [&](std::ostream& out) {
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
  command->add_option("-o,--output", args->output, "Trajectories (.csv)")->required();
  command->add_option("--summary", args->summary, "Also write the numbers as JSON");
  command->add_option("--series", args->series,
                      "Also write each method for ParaView: PREFIX_full.pvd, PREFIX_L1.pvd, "
                      "_L2.pvd, _L3.pvd (displacement, difference from the full FEM, domains)");
  command->add_option("--series-every", args->series_every, "Write every n-th step's frame")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  command->add_option("--bend", args->bend_degrees, "Stem bend of the initial velocity (deg)")
      ->capture_default_str();
  command->add_option("--periods", args->periods, "Duration in periods of the first mode")
      ->check(CLI::Range(0.5, 1000.0))
      ->capture_default_str();
  add_setting_option(command, args->settings, "time_step", "the spec's");
  args->command = command;
  command->add_flag("--gravity", args->gravity, "Apply the spec's gravity (default: none)");
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
