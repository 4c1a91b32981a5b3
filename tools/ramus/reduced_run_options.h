// Command-line options shared by `ramus simulate` and `ramus compare`: time stepping, gravity,
// damping and vertex forces.
#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ramus/precompute/model/model_spec.h"
#include "ramus/runtime/contact/collider_set.h"
#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/data/settings_table.h"

namespace ramus::cli {

/// The --ignore-spec flag's help, the same for every command that runs a model's scenario.
inline constexpr const char* kIgnoreSpecHelp =
    "Do not take the model's stored scenario (steps, forces, output cadence) nor its runtime "
    "settings: the command line's defaults instead";

/// The run options: one per setting of the list (settings_list.h) as the text given, and the
/// vertex forces.
struct ReducedRunArgs {
  std::map<std::string, std::string> values;  ///< by setting name
  std::vector<std::string> forces;            ///< "vertex,fx,fy,fz[,start,end]"
};

/// Registers an option for every setting of the list (their flags: --dt, --gravity, --integrator,
/// --modes, ...; `docs/SPEC.md` "Settings") but the scenario settings not in `scenario` (e.g.
/// {"steps"}), and --force.
void add_reduced_run_options(CLI::App* command, ReducedRunArgs& args,
                             std::initializer_list<const char*> scenario);
/// Overrides `settings` (whose domains must be sized) with the options given on `command`'s line,
/// or with every setting's default where none is given when `all`; throws OptionError naming the
/// option for a malformed or out-of-range value.
void apply_run_options(const CLI::App& command, const ReducedRunArgs& args, bool all,
                       RuntimeSettings& settings);
/// Registers the option of setting `name` alone (its flag, doc, bounds and `default_note`).
void add_setting_option(CLI::App* command, ReducedRunArgs& args, const char* name,
                        const std::string& default_note);
/// The value of setting `name` as given on `command`'s line (OptionError naming the option when
/// malformed or out of bounds), or nullopt when the option was not given or not registered.
std::optional<SettingValue> given_setting(const CLI::App& command, const ReducedRunArgs& args,
                                          const char* name);
/// Point forces from the --force values (throws OptionError naming the malformed one).
std::vector<PointForce> point_forces(const ReducedRunArgs& args);

/// The point forces of a stored scenario (/runtime/scenario), each at its global vertex.
std::vector<PointForce> scenario_point_forces(const ScenarioSettings& scenario);

/// What a run of a model does: its stored runtime settings and its stored scenario
/// (steps, forces, colliders, output cadence; neither with `ignore_spec`, the options' defaults
/// instead), then the options given on `command`'s line.
struct RunScenario {
  RuntimeSettings settings;
  int steps = 0;
  int output_every = 1;
  std::vector<PointForce> forces;
  std::vector<Collider> colliders;  ///< at t = 0, each moving at its constant velocities
};
RunScenario model_scenario(const CLI::App& command, const ReducedRunArgs& args,
                           const ReducedModel& model, bool ignore_spec);

}  // namespace ramus::cli
