#include "reduced_run_options.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "ramus/error.h"

namespace ramus::cli {

namespace {

std::vector<double> parse_numbers(const std::string& text, const std::string& what) {
  std::vector<double> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      size_t used = 0;
      values.push_back(std::stod(item, &used));
      if (used != item.size() || !std::isfinite(values.back())) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw OptionError(what + ": \"" + text +
                        "\" is not a comma-separated list of finite numbers");
    }
  }
  return values;
}

}  // namespace

// Help text of a setting's option: its doc, unit and bounds, then where its default comes from.
std::string option_help(const SettingInfo& info, const std::string& default_note) {
  std::string help = info.doc;
  if (info.unit[0]) help += std::string(" (") + info.unit + ")";
  return help + "; " + bounds_text(info) + " [default: " + default_note + "]";
}
// The note of an option whose default is the model's (its stored settings and scenario), and the
// list's default only with --ignore-spec.
std::string model_default(const SettingInfo& info) {
  return "the model's; " + format_setting(info, info.default_value) + " with --ignore-spec";
}

// The value of the option of `info` given on the line (OptionError naming it when malformed or out
// of bounds), or nullopt.
std::optional<SettingValue> given_value(const CLI::App& command, const ReducedRunArgs& args,
                                        const SettingInfo& info) {
  if (command.get_option(info.cli_flag)->count() == 0) return std::nullopt;
  const std::string& text = args.values.at(info.name);
  std::string problem;
  const std::optional<SettingValue> value = parse_setting_text(info, text, problem);
  if (!value) throw OptionError(std::string(info.cli_flag) + ": " + problem);
  if (problem = setting_value_problem(info, *value); !problem.empty())
    throw OptionError(std::string(info.cli_flag) + ": " + problem);
  return value;
}

void add_reduced_run_options(CLI::App* command, ReducedRunArgs& args,
                             std::initializer_list<const char*> scenario) {
  for (const SettingInfo& info : settings_table()) {
    // (simulate-full's: a cloth's, the full-space solvers')
    if (info.scope == SettingScope::kCloth || info.scope == SettingScope::kFullSpace) continue;
    if (info.scope == SettingScope::kScenario &&
        std::none_of(scenario.begin(), scenario.end(),
                     [&](const char* name) { return std::string_view(name) == info.name; }))
      continue;
    command->add_option(info.cli_flag, args.values[info.name],
                        option_help(info, model_default(info)));
  }
  command->add_option("--force", args.forces,
                      "Vertex force vertex,fx,fy,fz[,start,end] in N and s (repeatable; replaces "
                      "the spec's forces)");
}

void apply_run_options(const CLI::App& command, const ReducedRunArgs& args, bool all,
                       RuntimeSettings& settings) {
  for (const SettingInfo& info : settings_table()) {
    if (info.scope == SettingScope::kScenario || info.scope == SettingScope::kCloth ||
        info.scope == SettingScope::kFullSpace)
      continue;
    if (const std::optional<SettingValue> value = given_value(command, args, info))
      set_setting(settings, info, *value);
    else if (all)
      set_setting(settings, info, info.default_value);
  }
  if (const std::string problem =
          find_settings_problem(settings, static_cast<int>(settings.domains.size()));
      !problem.empty())
    throw OptionError(problem);
}

void add_setting_option(CLI::App* command, ReducedRunArgs& args, const char* name,
                        const std::string& default_note) {
  const SettingInfo& info = *find_setting(name);
  command->add_option(info.cli_flag, args.values[info.name], option_help(info, default_note));
}

std::optional<SettingValue> given_setting(const CLI::App& command, const ReducedRunArgs& args,
                                          const char* name) {
  const SettingInfo* info = find_setting(name);
  if (!info || !command.get_option_no_throw(info->cli_flag)) return std::nullopt;
  return given_value(command, args, *info);
}

std::vector<PointForce> point_forces(const ReducedRunArgs& args) {
  std::vector<PointForce> forces;
  for (const std::string& text : args.forces) {
    const std::vector<double> v = parse_numbers(text, "--force");
    if (v.size() != 4 && v.size() != 6)
      throw OptionError("--force \"" + text + "\": expected vertex,fx,fy,fz[,start,end]");
    PointForce f;
    // (Range first: casting 1e300 to int is undefined.)
    if (!(v[0] >= 0 && v[0] <= std::numeric_limits<int>::max()) || v[0] != std::floor(v[0]))
      throw OptionError("--force \"" + text + "\": the vertex must be a non-negative integer");
    f.vertex = static_cast<int>(v[0]);
    f.force = {v[1], v[2], v[3]};
    if (v.size() == 6) {
      f.start = v[4];
      f.end = v[5];
      if (!(f.start <= f.end))
        throw OptionError("--force \"" + text + "\": the window's start " +
                          std::to_string(f.start) + " s is after its end " + std::to_string(f.end) +
                          " s (it would never act)");
    }
    forces.push_back(f);
  }
  return forces;
}

// The point forces of a stored scenario.
std::vector<PointForce> scenario_point_forces(const ScenarioSettings& scenario) {
  std::vector<PointForce> forces;
  for (Eigen::Index k = 0; k < scenario.force_vertices.size(); ++k) {
    PointForce f;
    f.vertex = scenario.force_vertices(k);
    f.force = scenario.forces.row(k).transpose();
    f.start = scenario.force_windows(k, 0);
    f.end = scenario.force_windows(k, 1);
    forces.push_back(f);
  }
  return forces;
}

RunScenario model_scenario(const CLI::App& command, const ReducedRunArgs& args,
                           const ReducedModel& model, bool ignore_spec) {
  RunScenario run;
  run.settings = model.settings;
  run.settings.domains.resize(model.domains.size());
  apply_run_options(command, args, ignore_spec, run.settings);
  // The scenario: the list's defaults, the model's stored one, then the command line's.
  ScenarioSettings scenario;
  if (!ignore_spec) {
    scenario = model.scenario;
    run.forces = scenario_point_forces(model.scenario);
    run.colliders = scenario_colliders(model.scenario);
  }
  for (const char* name : {"steps", "output_every"})
    if (const std::optional<SettingValue> value = given_setting(command, args, name))
      set_setting(scenario, *find_setting(name), *value);
  run.steps = scenario.steps;
  run.output_every = scenario.output_every;
  if (!args.forces.empty()) run.forces = point_forces(args);
  return run;
}

}  // namespace ramus::cli
