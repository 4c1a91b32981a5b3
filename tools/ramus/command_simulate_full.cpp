// `ramus simulate-full spec.json -o out.pvd`: the full-space reference simulation (backward
// Euler as minimization) of a model spec, written as a ParaView series.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "output_paths.h"
#include "printing_listener.h"
#include "ramus/error.h"
#include "ramus/precompute/contact/collider_surface.h"
#include "ramus/precompute/fem/full_space_siere.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/spec_mesh.h"
#include "reduced_run_options.h"
#include "series_budget.h"
#include "simulate_cloth.h"
#include "simulate_local_global.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string spec, output;
  ReducedRunArgs settings;  ///< --steps, --dt, --modes, --modes-refresh (the settings list's)
  CLI::App* command = nullptr;
  bool quiet = false;
  bool ascii = false;  ///< ASCII frames instead of binary, zlib-compressed ones
  std::string integrator = "be";
};

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A number as %.3g prints it (std::to_string prints 1e-9 as 0.000000).
std::string shown_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", value);
  return text;
}

// "<stem>_colliders.pvd" beside the run's series.
std::string collider_series_path(const std::string& output) {
  const std::string::size_type dot = output.rfind(".pvd");
  return (dot == std::string::npos ? output : output.substr(0, dot)) + "_colliders.pvd";
}

// The colliders' surfaces as a ParaView series beside the run's, frame by frame (moving
// colliders move in it); nothing without colliders.
class ColliderSeries {
 public:
  ColliderSeries(const std::string& output, const ContactOptions& contact,
                 const Eigen::MatrixX3d& rest_positions, VtuEncoding encoding)
      : contact_(contact) {
    if (contact.colliders.empty()) return;
    const double size =
        (rest_positions.colwise().maxCoeff() - rest_positions.colwise().minCoeff()).norm();
    for (const ColliderContact& c : contact.colliders)
      surfaces_.push_back(collider_surface(c.collider, 4 * size));
    writer_ = std::make_unique<PvdSeriesWriter>(collider_series_path(output), encoding);
    std::printf("contact   %zu collider%s, friction smoothing %g m/s, series %s\n",
                contact.colliders.size(), contact.colliders.size() == 1 ? "" : "s",
                contact.friction_speed, collider_series_path(output).c_str());
  }
  void add_frame(double time) {
    if (!writer_) return;
    // All colliders in one surface, each triangle tagged with its collider's index.
    Eigen::Index points = 0, triangles = 0;
    for (const ColliderSurface& s : surfaces_) {
      points += s.positions.rows();
      triangles += s.triangles.rows();
    }
    Eigen::MatrixX3d positions(points, 3);
    Eigen::MatrixX3i faces(triangles, 3);
    Eigen::VectorXi index(triangles);
    points = triangles = 0;
    for (std::size_t k = 0; k < surfaces_.size(); ++k) {
      const ColliderSurface& s = surfaces_[k];
      positions.middleRows(points, s.positions.rows()) =
          placed_surface(s, contact_.colliders[k].collider, time);
      faces.middleRows(triangles, s.triangles.rows()) =
          s.triangles.array() + static_cast<int>(points);
      index.segment(triangles, s.triangles.rows()).setConstant(static_cast<int>(k));
      points += s.positions.rows();
      triangles += s.triangles.rows();
    }
    VtuFields fields;
    fields.cell_ints = {{"collider", index}};
    writer_->add_surface_frame(time, positions, faces, fields);
  }
  void finish() {
    if (writer_) writer_->finish();
  }

 private:
  const ContactOptions& contact_;
  std::vector<ColliderSurface> surfaces_;
  std::unique_ptr<PvdSeriesWriter> writer_;
};

// H = T + V_elastic + V_gravity + V_contact of the run's states (J): each step's, the first and
// the last (point forces' work and friction's dissipation are outside it).
class EnergyMeter {
 public:
  EnergyMeter(const StvkFemModel& model, const Eigen::Vector3d& gravity,
              const FullSpaceState& start)
      : model_(model),
        mass_(model.consistent_mass_matrix()),
        weight_(model.gravity_forces(gravity)) {
    (*this)(start, 0);
  }
  double operator()(const FullSpaceState& s, double contact_energy) {
    last_ = 0.5 * s.velocities.dot(mass_ * s.velocities) + model_.elastic_energy(s.positions) -
            weight_.dot(s.positions - model_.rest_positions()) + contact_energy;
    if (!started_) first_ = last_;
    started_ = true;
    return last_;
  }
  /// H at the last state, then the first and last H.
  void print(const FullSpaceState& last, double contact_energy) {
    (*this)(last, contact_energy);
    std::printf(
        "energy    H = T + V_elastic + V_gravity + V_contact: start %.6g J, end %.6g J (the point "
        "forces' work and friction's dissipation are not in H)\n",
        first_, last_);
  }

 private:
  const StvkFemModel& model_;
  Eigen::SparseMatrix<double> mass_;
  Eigen::VectorXd weight_;
  double first_ = 0, last_ = 0;
  bool started_ = false;
};

// Contact over the run: the per-step text and the summary line.
class ContactSummary {
 public:
  explicit ContactSummary(bool on) : on_(on) {}
  void add(const ContactStatistics& s) {
    if (!on_) return;
    smallest_ = std::min(smallest_, s.smallest_distance);
    largest_force_ = std::max(largest_force_, s.normal_force);
    most_contacts_ = std::max(most_contacts_, s.active_contacts);
    most_self_contacts_ = std::max(most_self_contacts_, s.self_contacts);
    deepest_self_ = std::max(deepest_self_, s.deepest_self_contact);
    friction_work_ += s.friction_work;
    last_energy_ = s.contact_energy;
  }
  std::string step_text(const ContactStatistics& s) const {
    if (!on_) return "";
    char text[200];
    std::snprintf(text, sizeof text,
                  "  contacts %d, min dist %.3g m, self %d (deepest %.3g m), normal %.3g N, "
                  "friction %.3g N",
                  s.active_contacts, s.smallest_distance, s.self_contacts, s.deepest_self_contact,
                  s.normal_force, s.friction_force);
    return text;
  }
  void print() const {
    if (!on_) return;
    std::printf(
        "contact   smallest distance %.4g m, largest normal force %.4g N, at most %d contacts; "
        "self-contacts at most %d, deepest %.4g m; friction dissipated %.4g J; contact energy "
        "at the end %.4g J\n",
        smallest_, largest_force_, most_contacts_, most_self_contacts_, deepest_self_,
        friction_work_, last_energy_);
  }

 private:
  bool on_;
  double smallest_ = INFINITY, largest_force_ = 0, friction_work_ = 0, last_energy_ = 0;
  double deepest_self_ = 0;
  int most_contacts_ = 0, most_self_contacts_ = 0;
};

// The centre of mass's height against gravity over the run: at the start, its lowest, and its
// highest after the lowest (a dropped object's rebound); and how far it moved. Nothing without
// gravity.
class HeightTrack {
 public:
  HeightTrack(const StvkFemModel& model, const Eigen::Vector3d& gravity)
      : masses_(model.lumped_vertex_masses()),
        up_(gravity.norm() > 0 ? Eigen::Vector3d(-gravity.normalized()) : Eigen::Vector3d::Zero()) {
  }
  Eigen::Vector3d centre(const FullSpaceState& s) const {
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    for (Eigen::Index v = 0; v < masses_.size(); ++v)
      c += masses_(v) * s.positions.segment<3>(3 * v);
    return c / masses_.sum();
  }
  void add(const FullSpaceState& s) {
    if (up_.isZero()) return;
    double height = 0;
    for (Eigen::Index v = 0; v < masses_.size(); ++v)
      height += masses_(v) * up_.dot(s.positions.segment<3>(3 * v));
    height /= masses_.sum();
    if (!started_) {
      start_ = lowest_ = highest_ = height;
      first_centre_ = centre(s);
    }
    last_centre_ = centre(s);
    started_ = true;
    if (height < lowest_) {
      lowest_ = highest_ = height;
      lowest_time_ = highest_time_ = s.time;
    }
    if (height > highest_) {
      highest_ = height;
      highest_time_ = s.time;
    }
  }
  void print() const {
    if (!started_) return;
    std::printf(
        "height    centre of mass against gravity: start %.5g m, lowest %.5g m at t = %.4g s, "
        "highest after it %.5g m at t = %.4g s (%.1f %% of the fall regained)\n",
        start_, lowest_, lowest_time_, highest_, highest_time_,
        start_ > lowest_ ? 100 * (highest_ - lowest_) / (start_ - lowest_) : 0.0);
    const Eigen::Vector3d moved = last_centre_ - first_centre_;
    std::printf("          moved by [%.4g, %.4g, %.4g] m over the run\n", moved.x(), moved.y(),
                moved.z());
  }

 private:
  Eigen::VectorXd masses_;
  Eigen::Vector3d up_;
  bool started_ = false;
  double start_ = 0, lowest_ = 0, highest_ = 0, lowest_time_ = 0, highest_time_ = 0;
  Eigen::Vector3d first_centre_ = Eigen::Vector3d::Zero(), last_centre_ = Eigen::Vector3d::Zero();
};

// The run's cost and convergence in one line.
void print_summary(int steps, double seconds, int iterations, int unconverged,
                   double max_displacement) {
  const int divisor = std::max(1, steps);
  std::printf(
      "summary   %d steps in %.3f s: %.2f ms/step, %.2f Newton iterations/step, %d "
      "unconverged; max |u| = %.4g m\n",
      steps, seconds, 1e3 * seconds / divisor, static_cast<double>(iterations) / divisor,
      unconverged, max_displacement);
}

// The run's options from the spec: time step, gravity, damping, and the colliders with their
// defaults resolved against the mesh (a barrier overlapping it is refused, before any output).
FullSpaceOptions run_options(const ModelSpec& spec, const TetMesh& mesh, const StvkFemModel& model,
                             const std::string& integrator) {
  FullSpaceOptions options;
  options.time_step = spec.simulation.settings.time_step;
  options.gravity = spec.simulation.settings.gravity;
  options.rayleigh_mass = spec.simulation.domain.rayleigh_mass;
  options.rayleigh_stiffness = spec.simulation.domain.rayleigh_stiffness;
  std::vector<std::string> contact_warnings;
  options.contact = resolve_contact_options(spec.contact, spec.spec_path, mesh.rest_positions,
                                            model.lumped_vertex_masses(), contact_warnings);
  // Copies (or folds of the mesh) that start inside each other are pushed apart at once.
  if (options.contact.self_collision.enabled)
    if (const auto overlaps =
            SelfCollisionPenalty(mesh.tets, mesh.num_vertices(), options.contact.self_collision)
                .find_contacts(flatten_positions(mesh.rest_positions), false);
        !overlaps.empty())
      contact_warnings.push_back(
          "contact.self_collision: " + std::to_string(overlaps.size()) +
          " surface vertices start inside another part of the mesh (vertex " +
          std::to_string(overlaps.front().vertex) +
          "): the penalty pushes them apart in the first steps");
  for (const std::string& warning : contact_warnings)
    std::fprintf(stderr, "ramus: warning: %s: %s\n", spec.spec_path.c_str(), warning.c_str());
  // Friction after the solve changes v_{n+1} alone, which BDF2 and Newmark carry on twice.
  const bool velocity_friction = integrator == "be" || integrator == "im-blend";
  if (options.contact.friction_model == FrictionModel::kAfterSolve && !velocity_friction)
    throw OptionError("--integrator " + integrator +
                      ": friction after the solve (contact.friction_model) works with backward "
                      "Euler and im-blend only");
  if ((!options.contact.colliders.empty() || options.contact.self_collision.enabled) &&
      integrator == "siere")
    throw OptionError(
        "--integrator siere: contact needs an integrator written as a minimization (be, bdf2, "
        "newmark or im-blend)");
  for (const ColliderContact& c : options.contact.colliders)
    if (c.model == ContactModel::kConstraint && integrator == "im-blend")
      throw OptionError(
          "--integrator im-blend: constraint colliders (\"contact\": \"constraint\") need an "
          "integrator whose end is a minimizer (be, bdf2 or newmark)");
  if (options.contact.self_collision.friction > 0 && !velocity_friction)
    throw OptionError("--integrator " + integrator +
                      ": self-collision friction (contact.self_friction) acts after the solve, "
                      "which works with backward Euler and im-blend only");
  return options;
}

void run(const Args& args) {
  // Everything that can be wrong with the input is checked before the output is created.
  ModelSpec spec = load_spec(args.spec);
  refuse_outputs_over_inputs(
      spec_input_files(spec),
      {{"--output", args.output}, {"--output (its colliders)", collider_series_path(args.output)}});
  if (spec.assembly)
    throw InputError(spec.spec_path, 0,
                     "an assembly (parts and instances) has no one-mesh full-space model yet: "
                     "`ramus simulate-full` takes a one-mesh spec");
  if (const std::optional<SettingValue> steps =
          given_setting(*args.command, args.settings, "steps"))
    set_setting(spec.simulation.scenario, *find_setting("steps"), *steps);
  if (const std::optional<SettingValue> h =
          given_setting(*args.command, args.settings, "time_step"))
    set_setting(spec.simulation.settings, *find_setting("time_step"), *h);
  // The cloth's and the full-space solvers' settings, and the damping, from the command line.
  for (const SettingInfo& info : settings_table())
    if (info.scope == SettingScope::kCloth || info.scope == SettingScope::kFullSpace ||
        std::string_view(info.name) == "momentum_damping")
      if (const std::optional<SettingValue> value =
              given_setting(*args.command, args.settings, info.name)) {
        if (info.scope == SettingScope::kCloth) set_setting(spec.cloth, info, *value);
        if (info.scope == SettingScope::kFullSpace)
          set_setting(spec.simulation.full_space, info, *value);
        if (info.scope == SettingScope::kDomain) set_setting(spec.simulation.domain, info, *value);
      }
  const std::optional<SettingValue> given_tolerance =
      given_setting(*args.command, args.settings, "energy_tolerance");
  const double energy_tolerance =
      given_tolerance ? given_tolerance->v[0] : spec.simulation.settings.energy_tolerance;
  const LocalGlobalRun local_global{
      args.integrator, energy_tolerance, {args.output, args.ascii, args.quiet}};
  if (spec.simulation.full_space.substeps > 1 && !is_local_global_integrator(args.integrator))
    throw OptionError("--integrator " + args.integrator +
                      ": substeps (simulation.substeps) are the local/global integrators' (lg-be, "
                      "lg-im, lg-im-blend)");
  if (spec.model == BodyModel::kMassSpring) {
    // A cloth: the mass-spring paper's implicit Euler, or the local/global solver.
    if (is_local_global_integrator(args.integrator))
      return simulate_local_global_cloth(spec, local_global);
    if (args.integrator != "be")
      throw OptionError("--integrator " + args.integrator +
                        ": a mass_spring cloth steps by the mass-spring paper's implicit Euler "
                        "(be) or the local/global solver (lg-be, lg-im, lg-im-blend)");
    return simulate_cloth(spec, {args.output, args.ascii, args.quiet});
  }
  const auto t_mesh = Clock::now();
  TetMesh mesh = read_spec_tet_mesh(spec.mesh_path, spec.tetrahedralize, spec.length_unit,
                                    printing_listener());
  const int copies = std::max<int>(1, static_cast<int>(spec.copies.size()));
  if (!spec.copies.empty()) mesh = placed_copies(mesh, spec.copies);
  const double mesh_seconds = seconds_since(t_mesh);
  std::vector<int> fixed;
  try {
    fixed = select_vertices(mesh, spec.fixed);
    resolve_point_forces(mesh, spec.forces);
  } catch (const MeshError& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  const StvkFemModel model(mesh, assign_materials(mesh, spec.material, spec.materials_by_label));
  const FullSpaceOptions options = run_options(spec, mesh, model, args.integrator);
  if (is_local_global_integrator(args.integrator))
    return simulate_local_global_tets(spec, mesh, model, fixed, options.contact, local_global);
  // SIERE's split: the spec's number of modes, refreshed every step (the survey's exact method:
  // the full space is the reference) unless the options say otherwise.
  const auto given_int = [&](const char* name, int otherwise) {
    const std::optional<SettingValue> value = given_setting(*args.command, args.settings, name);
    return value ? static_cast<int>(value->v[0]) : otherwise;
  };
  const int modes = given_int("split_modes", spec.simulation.domain.split_modes);
  const int modes_refresh = given_int("split_refresh_steps", 1);
  if (args.integrator != "be" && args.integrator != "bdf2" && args.integrator != "newmark" &&
      args.integrator != "im-blend" && args.integrator != "siere")
    throw OptionError("--integrator: \"" + args.integrator +
                      "\" is not one of the full-space integrators be, bdf2, newmark, im-blend, "
                      "siere, lg-be, lg-im, lg-im-blend");
  FullSpaceSimulator simulator(model, DofMap(mesh.num_vertices(), fixed), options);
  std::unique_ptr<FullSpaceSiere> siere;
  if (args.integrator == "siere")
    siere = std::make_unique<FullSpaceSiere>(model, DofMap(mesh.num_vertices(), fixed), options,
                                             FullSpaceSiereOptions{modes, modes_refresh});

  std::printf("mesh      %s: %d vertices, %d tets, %zu fixed vertices (read in %.2f s)%s\n",
              spec.mesh_path.c_str(), mesh.num_vertices(), mesh.num_tets(), fixed.size(),
              mesh_seconds, copies > 1 ? (", " + std::to_string(copies) + " copies").c_str() : "");
  if (options.contact.self_collision.enabled)
    std::printf(
        "contact   self-collision: k = %.4g J/m^3, friction %g after the solve, %d surface "
        "triangles\n",
        options.contact.self_collision.stiffness, options.contact.self_collision.friction,
        simulator.self_collision().num_surface_triangles());
  std::printf("model     mass %.4g kg, %d free DOFs, h = %g s, %d steps, %s\n", model.total_mass(),
              simulator.dofs().num_free_dofs(), options.time_step, spec.simulation.scenario.steps,
              siere ? ("SIERE, s = " + std::to_string(modes) + " modes refreshed every " +
                       std::to_string(modes_refresh) + " steps")
                          .c_str()
                    : (args.integrator + ", Newton tol " +
                       shown_number(simulator.gradient_tolerance()) + " N")
                          .c_str());

  PvdSeriesWriter writer(args.output, args.ascii ? VtuEncoding::kAscii : VtuEncoding::kCompressed);
  ColliderSeries colliders(args.output, options.contact, mesh.rest_positions,
                           args.ascii ? VtuEncoding::kAscii : VtuEncoding::kCompressed);
  VtuFields fields;
  // Which copy each tet belongs to (copies are laid out one after another).
  Eigen::VectorXi copy_of_tet(mesh.num_tets());
  for (int t = 0; t < mesh.num_tets(); ++t) copy_of_tet(t) = t / (mesh.num_tets() / copies);
  auto write_frame = [&](const FullSpaceState& state) {
    const Eigen::MatrixX3d positions = unflatten_positions(state.positions);
    fields.point_data = {{"displacement", positions - mesh.rest_positions},
                         {"velocity", unflatten_positions(state.velocities)}};
    fields.cell_ints.clear();
    if (mesh.has_labels()) fields.cell_ints.push_back({"label", mesh.labels});
    if (copies > 1) fields.cell_ints.push_back({"copy", copy_of_tet});
    writer.add_frame(state.time, positions, mesh.tets, fields);
    colliders.add_frame(state.time);
  };
  FullSpaceState state = simulator.rest_state();
  if (spec.initial_velocity)
    for (int v = 0; v < mesh.num_vertices(); ++v)
      state.velocities.segment<3>(3 * v) = *spec.initial_velocity;
  for (int v : simulator.dofs().fixed_vertices()) state.velocities.segment<3>(3 * v).setZero();
  if (args.integrator == "newmark") simulator.initialize_acceleration(state);
  write_frame(state);
  // The spec's cadence, or one that keeps the series under 50 MB.
  SeriesBudget budget(spec.simulation.scenario.output_every, spec.simulation.scenario.steps,
                      spec.simulation.output_every_given);
  const auto latest_frame_bytes = [&] {
    return files_bytes({writer.frame_path(writer.num_frames() - 1)});
  };
  int output_every = budget.after_frame(0, latest_frame_bytes());
  EnergyMeter energy(model, options.gravity, state);
  HeightTrack height(model, options.gravity);
  height.add(state);

  ContactSummary contact(!options.contact.colliders.empty() ||
                         options.contact.self_collision.enabled);
  int total_iterations = 0, unconverged = 0;
  double total_seconds = 0, max_displacement = 0;
  const auto print_every = std::max(1, spec.simulation.scenario.steps / 10);
  for (int step = 1; step <= spec.simulation.scenario.steps; ++step) {
    const Eigen::VectorXd forces = point_forces_at(spec.forces, mesh.num_vertices(), state.time);
    const auto t_step = Clock::now();
    NewtonReport report;
    report.converged = true;
    if (siere)
      siere->step(state, forces);
    else if (args.integrator == "newmark")
      report = simulator.step_newmark(state, forces);
    else if (args.integrator == "bdf2")
      report = simulator.step_bdf2(state, forces);
    else if (args.integrator == "im-blend")
      report = simulator.step_energy_tracking_midpoint(state, forces, energy_tolerance);
    else
      report = simulator.step_backward_euler(state, forces);
    const double step_seconds = seconds_since(t_step);
    total_seconds += step_seconds;
    total_iterations += report.iterations;
    if (!report.converged) ++unconverged;
    if (!state.positions.allFinite())
      throw NumericalError("simulation diverged at step " + std::to_string(step));
    const double displacement =
        unflatten_positions(state.positions - model.rest_positions()).rowwise().norm().maxCoeff();
    max_displacement = std::max(max_displacement, displacement);
    if (step % output_every == 0) {
      write_frame(state);
      output_every = budget.after_frame(step, latest_frame_bytes());
    }
    contact.add(simulator.contact_statistics());
    height.add(state);
    if (!args.quiet && (step % print_every == 0 || step == 1))
      std::printf(
          "step %5d  t = %7.4f s  Newton %2d it  %8.2f ms  max |u| = %.4g m  H = %.5g J%s%s\n",
          step, state.time, report.iterations, 1e3 * step_seconds, displacement,
          energy(state, simulator.contact_statistics().contact_energy),
          contact.step_text(simulator.contact_statistics()).c_str(),
          report.converged ? "" : "  (not converged)");
  }
  writer.finish();
  colliders.finish();
  print_summary(spec.simulation.scenario.steps, total_seconds, total_iterations, unconverged,
                max_displacement);
  energy.print(state, simulator.contact_statistics().contact_energy);
  height.print();
  contact.print();
  budget.report("the spec's simulation.output_every");
  std::printf("output    %s (%d frames; %s)\n", args.output.c_str(), writer.num_frames(),
              kFrameConvention);
}

}  // namespace

void add_simulate_full_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "simulate-full",
      "Full-space reference simulation (StVK or fixed corotated; backward Euler or BDF2 as "
      "minimization with Newton and line search, implicit Newmark, the energy-tracking midpoint, "
      "or SIERE with Eq. 25 by "
      "Sherman-Morrison-Woodbury) of a model spec, or a mass-spring cloth (\"model\": "
      "\"mass_spring\": implicit Euler with conjugate gradients), or either by the local/global "
      "solver; writes a .pvd series");
  command->add_option("spec", args->spec, "Model spec (JSON, see docs/SPEC.md)")->required();
  command->add_option("-o,--output", args->output, "Output series (.pvd)")->required();
  add_setting_option(command, args->settings, "steps", "the spec's");
  add_setting_option(command, args->settings, "time_step", "the spec's");
  command->add_flag("--quiet", args->quiet, "Print only the summary");
  command->add_flag("--ascii", args->ascii,
                    "Write ASCII frames (default: binary, zlib-compressed; ParaView reads both)");
  command
      ->add_option("--integrator", args->integrator,
                   "be, bdf2, newmark, im-blend (the energy-tracking midpoint), siere; the "
                   "local/global solver: lg-be, lg-im, lg-im-blend (docs/LOCAL_GLOBAL.md)")
      ->capture_default_str();
  add_setting_option(command, args->settings, "energy_tolerance", "the spec's");
  add_setting_option(command, args->settings, "split_modes", "the spec's");
  add_setting_option(command, args->settings, "split_refresh_steps",
                     "1: every step, the survey's exact method (the full space is the reference)");
  add_setting_option(command, args->settings, "momentum_damping", "the spec's (lg-*)");
  for (const SettingInfo& info : settings_table())
    if (info.scope == SettingScope::kCloth)
      add_setting_option(command, args->settings, info.name, "the spec's (a mass_spring cloth)");
    else if (info.scope == SettingScope::kFullSpace)
      add_setting_option(command, args->settings, info.name, "the spec's");
  args->command = command;
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
