// `ramus simulate model.h5 -o out.pvd`: the runtime (Algorithm 1 over the model's domain tree,
// implicit Newmark per domain) on a model file. The scenario (time step, steps, gravity,
// damping, forces, lumping, per-domain tuning) comes from the spec stored in the model; command
// line options override it.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "ramus/error.h"
#include "ramus/precompute/model_spec.h"
#include "ramus/precompute/vtu_io.h"
#include "ramus/runtime/model_file.h"
#include "ramus/runtime/model_geometry.h"
#include "ramus/runtime/substructured_simulator.h"
#include "reduced_run_options.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string model, output, lumping;
  ReducedRunArgs run;
  int output_every = 0;
  bool ignore_spec = false;
  CLI::App* command = nullptr;
};

InterfaceLumping lumping_from_name(const std::string& name) {
  if (name == "L1" || name == "interface") return InterfaceLumping::kInterface;
  if (name == "L2" || name == "center_of_mass") return InterfaceLumping::kCenterOfMass;
  if (name == "L3" || name == "rigid_subtree") return InterfaceLumping::kRigidSubtree;
  throw OptionError(
      "--lumping: expected L1 (interface), L2 (center_of_mass) or L3 "
      "(rigid_subtree), got \"" +
      name + "\"");
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

bool given(const Args& args, const char* option) {
  return args.command->get_option(option)->count() > 0;
}

// The scenario of the spec the model was made from, when it is stored and still parses.
std::optional<ModelSpec> stored_spec(const ReducedModel& model) {
  if (model.provenance.spec_json.empty()) return std::nullopt;
  try {
    return parse_model_spec(model.provenance.spec_json, model.provenance.spec_path);
  } catch (const Error&) {
    return std::nullopt;
  }
}

void run(const Args& args) {
  auto model = std::make_shared<const ReducedModel>(read_model_file(args.model));
  const std::optional<ModelSpec> spec = args.ignore_spec ? std::nullopt : stored_spec(*model);
  const int num_domains = static_cast<int>(model->domains.size());

  // Scenario: the stored spec, then the command line.
  SubstructuredOptions options;
  int steps = args.run.steps;
  int output_every = 1;
  std::vector<PointForce> forces;
  const NewmarkOptions newmark = newmark_options(args.run);
  options.time_step = newmark.time_step;
  options.gravity = newmark.gravity;
  options.newton_iterations = newmark.newton_iterations;
  options.all_domains.rayleigh_mass = newmark.rayleigh_mass;
  options.all_domains.rayleigh_stiffness = newmark.rayleigh_stiffness;
  if (spec) {
    const SimulationSpec& s = spec->simulation;
    if (!given(args, "--dt")) options.time_step = s.time_step;
    if (!given(args, "--steps")) steps = s.steps;
    if (!given(args, "--gravity")) options.gravity = s.gravity;
    if (!given(args, "--damping-mass")) options.all_domains.rayleigh_mass = s.rayleigh_mass;
    if (!given(args, "--damping-stiffness"))
      options.all_domains.rayleigh_stiffness = s.rayleigh_stiffness;
    output_every = s.output_every;
    if (args.run.forces.empty()) forces = spec->forces;
    if (spec->domains) {
      options.lumping = lumping_from_name(spec->domains->lumping);
      options.domains.assign(static_cast<size_t>(num_domains), options.all_domains);
      for (int d = 0; d < num_domains; ++d) {
        const auto it = spec->domains->per_domain.find(model->domains[static_cast<size_t>(d)].name);
        if (it == spec->domains->per_domain.end()) continue;
        DomainRuntimeOptions& o = options.domains[static_cast<size_t>(d)];
        if (it->second.rayleigh_mass) o.rayleigh_mass = *it->second.rayleigh_mass;
        if (it->second.rayleigh_stiffness) o.rayleigh_stiffness = *it->second.rayleigh_stiffness;
        if (it->second.stiffness_scale) o.stiffness_scale = *it->second.stiffness_scale;
      }
    }
  }
  if (!args.run.forces.empty()) forces = point_forces(args.run);
  if (args.output_every > 0) output_every = args.output_every;
  if (given(args, "--output-every") && args.output_every < 1)
    throw OptionError("--output-every must be at least 1");
  if (!args.lumping.empty()) options.lumping = lumping_from_name(args.lumping);
  if (steps < 0) throw OptionError("--steps must not be negative");
  options.profile = true;

  // Forces: global vertex indices or rest positions, applied to the first domain holding the
  // vertex.
  const Eigen::MatrixX3d rest = global_rest_positions(*model);
  const int num_global = static_cast<int>(rest.rows());
  struct ResolvedForce {
    PointForce force;
    int domain, vertex;
  };
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
    const auto [d, v] = vertex_copy(*model, f.vertex);
    resolved.push_back({f, d, v});
  }

  SubstructuredSimulator simulator(model, options);
  simulator.reserve_vertex_forces(static_cast<int>(resolved.size()));
  int total_r = 0;
  for (int d = 0; d < num_domains; ++d) total_r += simulator.domain_state(d).q.size();
  std::printf(
      "model     %s: %d vertices, %d domain%s, total r = %d%s, h = %g s, %d steps, "
      "%s%s\n",
      args.model.c_str(), num_global, num_domains, num_domains == 1 ? "" : "s", total_r,
      simulator.free_root() ? " (free-flying)" : "", options.time_step, steps,
      options.newton_iterations == 1 ? "semi-implicit Newmark" : "implicit Newmark (Newton)",
      num_domains == 1 ? "" : lumping_name(options.lumping));
  for (const ResolvedForce& f : resolved)
    std::printf("force     (%g, %g, %g) N at vertex %d (domain '%s'), t in [%g, %g) s\n",
                f.force.force(0), f.force.force(1), f.force.force(2), f.force.vertex,
                model->domains[static_cast<size_t>(f.domain)].name.c_str(), f.force.start,
                std::min(f.force.end, 1e300));

  std::unique_ptr<PvdSeriesWriter> writer, surface_writer;  // surface: <stem>_surface.pvd
  if (!args.output.empty()) writer = std::make_unique<PvdSeriesWriter>(args.output);
  const std::filesystem::path out_path(args.output);
  const std::string surface_output =
      (out_path.parent_path() / (out_path.stem().string() + "_surface.pvd")).string();
  const EmbeddedSurface& surface = model->embedded_surface;
  if (writer && surface.rest_positions.rows() > 0)
    surface_writer = std::make_unique<PvdSeriesWriter>(surface_output);
  Eigen::MatrixX3d surface_positions;
  VtuFields surface_fields;
  Eigen::VectorXi tet_domain;
  const Eigen::MatrixX4i tets = global_tets(*model, &tet_domain);
  Eigen::MatrixX3d positions;
  VtuFields fields;
  auto write_frame = [&] {
    if (!writer) return;
    simulator.global_positions(positions);
    fields.point_data = {{"displacement", positions - rest}};
    fields.cell_ints = {{"domain", tet_domain}};
    writer->add_frame(simulator.time(), positions, tets, fields);
    if (!surface_writer) return;
    simulator.embedded_surface_positions(surface_positions);
    surface_fields.point_data = {{"displacement", surface_positions - surface.rest_positions}};
    surface_writer->add_surface_frame(simulator.time(), surface_positions, surface.triangles,
                                      surface_fields);
  };
  auto apply_forces = [&](double t) {
    simulator.clear_vertex_forces();
    for (const ResolvedForce& f : resolved)
      if (f.force.start <= t && t < f.force.end)
        simulator.add_vertex_force(f.domain, f.vertex, f.force.force);
  };
  apply_forces(0.0);
  simulator.initialize();
  simulator.reset_profile();
  write_frame();

  std::vector<double> step_us;
  step_us.reserve(static_cast<size_t>(steps));
  double max_displacement = 0;
  for (int step = 1; step <= steps; ++step) {
    apply_forces(simulator.time() + options.time_step);
    const auto start = std::chrono::steady_clock::now();
    const StepStatus status = simulator.step();
    step_us.push_back(
        1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (status != StepStatus::kOk)
      throw NumericalError("step " + std::to_string(step) + ": " + to_string(status));
    if (step % output_every == 0) {
      simulator.global_positions(positions);
      max_displacement = std::max(max_displacement, (positions - rest).rowwise().norm().maxCoeff());
      write_frame();
    }
  }
  if (writer) writer->finish();
  if (surface_writer) surface_writer->finish();
  if (!step_us.empty()) {
    std::vector<double> sorted = step_us;
    std::sort(sorted.begin(), sorted.end());
    double total = 0;
    for (double us : step_us) total += us;
    const SubstructuredProfile& p = simulator.profile();
    const double split = p.core_seconds + p.domain_seconds;
    std::printf(
        "per step  mean %.2f us, median %.2f us, max %.2f us (%zu steps); "
        "frames/coupling %.0f %%, domain steps %.0f %%\n",
        total / static_cast<double>(step_us.size()), sorted[sorted.size() / 2], sorted.back(),
        step_us.size(), split > 0 ? 100 * p.core_seconds / split : 0.0,
        split > 0 ? 100 * p.domain_seconds / split : 0.0);
  }
  std::printf("final     t = %.4f s, max |u| = %.4g m, elastic %.4g J\n", simulator.time(),
              max_displacement, simulator.elastic_energy());
  if (writer) std::printf("output    %s (%d frames)\n", args.output.c_str(), writer->num_frames());
  if (surface_writer)
    std::printf("output    %s (embedded surface: %d vertices, %d triangles)\n",
                surface_output.c_str(), static_cast<int>(surface.rest_positions.rows()),
                static_cast<int>(surface.triangles.rows()));
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "simulate",
      "Run the real-time reduced simulation of a model file (the domain tree of Algorithm 1, "
      "implicit Newmark per domain) with the scenario of its spec; prints the per-step cost "
      "and writes a .pvd series");
  args->command = command;
  command->add_option("model", args->model, "Model file (.h5)")->required();
  command->add_option("-o,--output", args->output,
                      "Output series (.pvd; a model's embedded surface: <stem>_surface.pvd); "
                      "none: timing only");
  command->add_option("--output-every", args->output_every, "Write every n-th frame");
  command->add_option("--lumping", args->lumping,
                      "Subtree inertia: L1 (mass at the interface), L2 (mass at the subtree's "
                      "centre of mass) or L3 (the subtree as a rigid body)");
  command->add_flag("--ignore-spec", args->ignore_spec,
                    "Do not take the scenario from the spec stored in the model");
  add_reduced_run_options(command, args->run);
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
