#include "reduced_run_options.h"

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

// Help text of an option whose default is the model's (its stored settings and spec scenario),
// and `value` only with --ignore-spec (or for a model that stores none).
template <typename T>
std::string model_default(const std::string& help, const T& value) {
  std::ostringstream text;
  text << help << " [default: the model's; " << value << " with --ignore-spec]";
  return text.str();
}

void add_reduced_run_options(CLI::App* command, ReducedRunArgs& args) {
  command->add_option("--steps", args.steps, model_default("Number of time steps", args.steps));
  command->add_option("--dt", args.time_step, model_default("Time step (s)", args.time_step));
  command->add_option("--gravity", args.gravity,
                      model_default("Gravity gx,gy,gz (m/s^2)", args.gravity));
  command->add_option("--damping-mass", args.rayleigh_mass,
                      model_default("Rayleigh alpha (1/s)", args.rayleigh_mass));
  command->add_option("--damping-stiffness", args.rayleigh_stiffness,
                      model_default("Rayleigh beta (s)", args.rayleigh_stiffness));
  command->add_option("--newton", args.newton_iterations,
                      model_default("Newmark's Newton iterations per step (1: semi-implicit)",
                                    args.newton_iterations));
  command->add_option(
      "--integrator", args.integrator,
      model_default("Integrator of every domain: " + integrator_names() + " (docs/INTEGRATORS.md)",
                    args.integrator));
  command->add_option(
      "--modes", args.split_modes,
      model_default("siere, sbdf2ere, str-sbdf2ere: s, the lowest modes treated exponentially",
                    args.split_modes));
  command->add_option(
      "--modes-refresh", args.split_refresh_steps,
      model_default("... recompute those modes every k steps (1: exact; tracked in between)",
                    args.split_refresh_steps));
  command->add_option(
      "--modes-drift", args.split_drift_tolerance,
      model_default("... and when a tracking step moves them more than this (0: never)",
                    args.split_drift_tolerance));
  command->add_option(
      "--implicit-iterations", args.implicit_iterations,
      model_default("be, bdf2, tr-bdf2, sdirk, im-blend: Newton iterations per stage at most",
                    args.implicit_iterations));
  command->add_option("--energy-tolerance", args.energy_tolerance,
                      model_default("im-blend: relative energy error the blend aims within",
                                    args.energy_tolerance));
  command->add_option(
      "--momentum-damping", args.momentum_damping,
      model_default("im-blend: share k of the non-rigid velocity removed per step, in [0, 1]",
                    args.momentum_damping));
  command->add_option(
      "--lumping", args.lumping,
      model_default("Subtree inertia: L1 (mass at the interface), L2 (mass at the subtree's "
                    "centre of mass) or L3 (the subtree as a rigid body)",
                    args.lumping));
  command->add_option("--force", args.forces,
                      "Vertex force vertex,fx,fy,fz[,start,end] in N and s (repeatable; replaces "
                      "the spec's forces)");
}

void apply_run_options(const CLI::App& command, const ReducedRunArgs& args, bool all,
                       RuntimeSettings& settings) {
  const auto given = [&](const char* option) {
    return all || command.get_option(option)->count() > 0;
  };
  if (args.steps < 0) throw OptionError("--steps must not be negative");
  if (given("--dt")) settings.time_step = args.time_step;
  if (given("--gravity")) {
    const std::vector<double> g = parse_numbers(args.gravity, "--gravity");
    if (g.size() != 3) throw OptionError("--gravity needs 3 numbers, got \"" + args.gravity + "\"");
    settings.gravity = {g[0], g[1], g[2]};
  }
  if (given("--newton")) settings.newton_iterations = args.newton_iterations;
  if (given("--implicit-iterations")) settings.implicit_iterations = args.implicit_iterations;
  if (given("--energy-tolerance")) settings.energy_tolerance = args.energy_tolerance;
  if (given("--lumping")) {
    const std::optional<InterfaceLumping> lumping = lumping_from_string(args.lumping);
    if (!lumping)
      throw OptionError(
          "--lumping: expected L1 (interface), L2 (center_of_mass) or L3 "
          "(rigid_subtree), got \"" +
          args.lumping + "\"");
    settings.lumping = *lumping;
  }
  std::optional<Integrator> integrator;
  if (given("--integrator")) {
    integrator = integrator_from_string(args.integrator);
    if (!integrator)
      throw OptionError("--integrator: unknown integrator \"" + args.integrator +
                        "\" (known: " + integrator_names() + ")");
  }
  for (NodeSettings& node : settings.nodes) {
    if (given("--damping-mass")) node.rayleigh_mass = args.rayleigh_mass;
    if (given("--damping-stiffness")) node.rayleigh_stiffness = args.rayleigh_stiffness;
    if (integrator) node.integrator = *integrator;
    if (given("--modes")) node.split_modes = args.split_modes;
    if (given("--modes-refresh")) node.split_refresh_steps = args.split_refresh_steps;
    if (given("--modes-drift")) node.split_drift_tolerance = args.split_drift_tolerance;
    if (given("--momentum-damping")) node.momentum_damping = args.momentum_damping;
  }
  if (const std::string problem =
          find_settings_problem(settings, static_cast<int>(settings.nodes.size()));
      !problem.empty())
    throw OptionError(problem);
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

std::optional<ModelSpec> stored_spec(const ReducedModel& model, const std::string& model_path) {
  if (model.provenance.spec_json.empty()) return std::nullopt;
  try {
    return parse_model_spec(model.provenance.spec_json, model.provenance.spec_path);
  } catch (const Error& e) {
    throw Error(model_path + ": the spec stored in the model does not parse (" + e.what() +
                "); re-run precompute, or pass --ignore-spec to run without its scenario");
  }
}

RunScenario model_scenario(const CLI::App& command, const ReducedRunArgs& args,
                           const ReducedModel& model, const std::string& model_path,
                           bool ignore_spec) {
  const std::optional<ModelSpec> spec = ignore_spec ? std::nullopt : stored_spec(model, model_path);
  RunScenario run;
  run.settings = model.settings;
  run.settings.nodes.resize(model.domains.size());
  apply_run_options(command, args, ignore_spec, run.settings);
  run.steps = args.steps;
  if (spec) {
    if (command.get_option("--steps")->count() == 0) run.steps = spec->simulation.steps;
    run.output_every = spec->simulation.output_every;
    run.forces = spec->forces;
  }
  if (!args.forces.empty()) run.forces = point_forces(args);
  if (run.steps < 0) throw OptionError("--steps must not be negative");
  return run;
}

}  // namespace ramus::cli
