// Command-line options shared by `ramus simulate` and `ramus compare`: time stepping, gravity,
// damping and vertex forces.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ramus/precompute/model/model_spec.h"
#include "ramus/runtime/model/reduced_model.h"
#include "ramus/runtime/model/runtime_settings.h"

namespace ramus::cli {

/// The --ignore-spec flag's help, the same for every command that runs a model's scenario.
inline constexpr const char* kIgnoreSpecHelp =
    "Do not take the scenario (steps, forces) from the spec stored in the model nor its runtime "
    "settings: the command line's defaults instead";

struct ReducedRunArgs {
  int steps = 100;
  double time_step = 1.0 / 60.0;
  std::string gravity = "0,0,-9.81";
  double rayleigh_mass = 0, rayleigh_stiffness = 0;
  int newton_iterations = 1;
  std::string integrator = to_string(NodeSettings{}.integrator);
  int split_modes = NodeSettings{}.split_modes;
  int split_refresh_steps = NodeSettings{}.split_refresh_steps;
  double split_drift_tolerance = NodeSettings{}.split_drift_tolerance;
  int implicit_iterations = RuntimeSettings{}.implicit_iterations;
  double energy_tolerance = RuntimeSettings{}.energy_tolerance;
  double momentum_damping = NodeSettings{}.momentum_damping;
  std::vector<std::string> forces;  ///< "vertex,fx,fy,fz[,start,end]"
  std::string lumping = to_string(RuntimeSettings{}.lumping);
};

/// Registers --steps, --dt, --gravity, --damping-mass, --damping-stiffness, --newton,
/// --integrator, --modes, --modes-refresh, --modes-drift, --implicit-iterations,
/// --energy-tolerance, --momentum-damping, --force, --lumping.
void add_reduced_run_options(CLI::App* command, ReducedRunArgs& args);
/// Overrides `settings` (whose nodes must be sized) with the options given on `command`'s line,
/// or with every option (defaults included) when `all`; throws OptionError for malformed values.
void apply_run_options(const CLI::App& command, const ReducedRunArgs& args, bool all,
                       RuntimeSettings& settings);
/// Point forces from the --force values (throws OptionError naming the malformed one).
std::vector<PointForce> point_forces(const ReducedRunArgs& args);

/// The spec the model was made from, when one is stored; one that no longer parses is an Error
/// naming the model (its time step, forces and cadence would silently be lost).
std::optional<ModelSpec> stored_spec(const ReducedModel& model, const std::string& model_path);

/// What a run of a model does: its stored runtime settings and the scenario of its stored spec
/// (steps, forces, output cadence; neither with `ignore_spec`, the options' defaults instead),
/// then the options given on `command`'s line.
struct RunScenario {
  RuntimeSettings settings;
  int steps = 0;
  int output_every = 1;
  std::vector<PointForce> forces;
};
RunScenario model_scenario(const CLI::App& command, const ReducedRunArgs& args,
                           const ReducedModel& model, const std::string& model_path,
                           bool ignore_spec);

}  // namespace ramus::cli
