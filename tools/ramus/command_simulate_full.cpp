// `ramus simulate-full spec.json -o out.pvd`: the full-space reference simulation (backward
// Euler as minimization) of a model spec, written as a ParaView series.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "commands.h"
#include "output_paths.h"
#include "printing_listener.h"
#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_siere.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/spec_mesh.h"
#include "reduced_run_options.h"

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

void run(const Args& args) {
  // Everything that can be wrong with the input is checked before the output is created.
  ModelSpec spec = load_spec(args.spec);
  refuse_outputs_over_inputs(spec_input_files(spec), {{"--output", args.output}});
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
  const auto t_mesh = Clock::now();
  TetMesh mesh = read_spec_tet_mesh(spec.mesh_path, spec.tetrahedralize, spec.length_unit,
                                    printing_listener());
  const double mesh_seconds = seconds_since(t_mesh);
  std::vector<int> fixed;
  try {
    fixed = select_vertices(mesh, spec.fixed);
    resolve_point_forces(mesh, spec.forces);
  } catch (const MeshError& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  const StvkFemModel model(mesh, assign_materials(mesh, spec.material, spec.materials_by_label));
  FullSpaceOptions options;
  options.time_step = spec.simulation.settings.time_step;
  options.gravity = spec.simulation.settings.gravity;
  options.rayleigh_mass = spec.simulation.domain.rayleigh_mass;
  options.rayleigh_stiffness = spec.simulation.domain.rayleigh_stiffness;
  // SIERE's split: the spec's number of modes, refreshed every step (the survey's exact method:
  // the full space is the reference) unless the options say otherwise.
  const auto given_int = [&](const char* name, int otherwise) {
    const std::optional<SettingValue> value = given_setting(*args.command, args.settings, name);
    return value ? static_cast<int>(value->v[0]) : otherwise;
  };
  const int modes = given_int("split_modes", spec.simulation.domain.split_modes);
  const int modes_refresh = given_int("split_refresh_steps", 1);
  if (args.integrator != "be" && args.integrator != "newmark" && args.integrator != "siere")
    throw OptionError("--integrator: \"" + args.integrator +
                      "\" is not one of the full-space integrators be, newmark, siere");
  FullSpaceSimulator simulator(model, DofMap(mesh.num_vertices(), fixed), options);
  std::unique_ptr<FullSpaceSiere> siere;
  if (args.integrator == "siere")
    siere = std::make_unique<FullSpaceSiere>(model, DofMap(mesh.num_vertices(), fixed), options,
                                             FullSpaceSiereOptions{modes, modes_refresh});

  std::printf("mesh      %s: %d vertices, %d tets, %zu fixed vertices (read in %.2f s)\n",
              spec.mesh_path.c_str(), mesh.num_vertices(), mesh.num_tets(), fixed.size(),
              mesh_seconds);
  std::printf("model     mass %.4g kg, %d free DOFs, h = %g s, %d steps, %s\n", model.total_mass(),
              simulator.dofs().num_free_dofs(), options.time_step, spec.simulation.scenario.steps,
              siere ? ("SIERE, s = " + std::to_string(modes) + " modes refreshed every " +
                       std::to_string(modes_refresh) + " steps")
                          .c_str()
                    : (args.integrator + ", Newton tol " +
                       std::to_string(simulator.gradient_tolerance()) + " N")
                          .c_str());

  PvdSeriesWriter writer(args.output, args.ascii ? VtuEncoding::kAscii : VtuEncoding::kCompressed);
  VtuFields fields;
  auto write_frame = [&](const FullSpaceState& state) {
    const Eigen::MatrixX3d positions = unflatten_positions(state.positions);
    fields.point_data = {{"displacement", positions - mesh.rest_positions},
                         {"velocity", unflatten_positions(state.velocities)}};
    if (mesh.has_labels()) fields.cell_ints = {{"label", mesh.labels}};
    writer.add_frame(state.time, positions, mesh.tets, fields);
  };
  FullSpaceState state = simulator.rest_state();
  if (args.integrator == "newmark") simulator.initialize_acceleration(state);
  write_frame(state);

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
    if (step % spec.simulation.scenario.output_every == 0) write_frame(state);
    if (!args.quiet && (step % print_every == 0 || step == 1))
      std::printf("step %5d  t = %7.4f s  Newton %2d it  %8.2f ms  max |u| = %.4g m%s\n", step,
                  state.time, report.iterations, 1e3 * step_seconds, displacement,
                  report.converged ? "" : "  (not converged)");
  }
  writer.finish();
  const int steps = std::max(1, spec.simulation.scenario.steps);
  std::printf(
      "summary   %d steps in %.3f s: %.2f ms/step, %.2f Newton iterations/step, %d "
      "unconverged; max |u| = %.4g m\n",
      spec.simulation.scenario.steps, total_seconds, 1e3 * total_seconds / steps,
      static_cast<double>(total_iterations) / steps, unconverged, max_displacement);
  std::printf("output    %s (%d frames)\n", args.output.c_str(), writer.num_frames());
}

}  // namespace

void add_simulate_full_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command =
      app.add_subcommand("simulate-full",
                         "Full-space reference simulation (StVK; backward Euler as minimization "
                         "with Newton and line search, implicit Newmark, or SIERE with Eq. 25 by "
                         "Sherman-Morrison-Woodbury) of a model spec; writes a .pvd series");
  command->add_option("spec", args->spec, "Model spec (JSON, see docs/SPEC.md)")->required();
  command->add_option("-o,--output", args->output, "Output series (.pvd)")->required();
  add_setting_option(command, args->settings, "steps", "the spec's");
  add_setting_option(command, args->settings, "time_step", "the spec's");
  command->add_flag("--quiet", args->quiet, "Print only the summary");
  command->add_flag("--ascii", args->ascii,
                    "Write ASCII frames (default: binary, zlib-compressed; ParaView reads both)");
  command->add_option("--integrator", args->integrator, "be, newmark or siere")
      ->capture_default_str();
  add_setting_option(command, args->settings, "split_modes", "the spec's");
  add_setting_option(command, args->settings, "split_refresh_steps",
                     "1: every step, the survey's exact method (the full space is the reference)");
  args->command = command;
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
