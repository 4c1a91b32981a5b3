// `ramus simulate model.h5 -o out.pvd`: the runtime (reduced implicit Newmark) on a model file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "ramus/error.h"
#include "ramus/precompute/vtu_io.h"
#include "ramus/runtime/model_file.h"
#include "reduced_run_options.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string model, output;
  ReducedRunArgs run;
  int output_every = 1;
};

void run(const Args& args) {
  auto model = std::make_shared<const ReducedModel>(read_model_file(args.model));
  const NewmarkOptions options = newmark_options(args.run);
  const std::vector<PointForce> forces = point_forces(args.run);
  ReducedSimulator simulator(model, 0, options);
  const ReducedDomain& domain = simulator.domain();
  for (const PointForce& f : forces)
    if (f.vertex >= domain.rest_positions.rows())
      throw OptionError("--force: vertex " + std::to_string(f.vertex) +
                        " does not exist (the model has " +
                        std::to_string(domain.rest_positions.rows()) + " vertices)");
  if (args.output_every < 1) throw OptionError("--output-every must be at least 1");
  simulator.reserve_vertex_forces(static_cast<int>(forces.size()));
  std::printf("model     %s: %ld vertices, r = %d, h = %g s, %d steps, %d Newton iteration%s\n",
              args.model.c_str(), static_cast<long>(domain.rest_positions.rows()), simulator.r(),
              options.time_step, args.run.steps, options.newton_iterations,
              options.newton_iterations == 1 ? " (semi-implicit)" : "s");

  std::unique_ptr<PvdSeriesWriter> writer;
  if (!args.output.empty()) writer = std::make_unique<PvdSeriesWriter>(args.output);
  Eigen::MatrixX3d positions, displacements;
  VtuFields fields;
  auto write_frame = [&] {
    if (!writer) return;
    simulator.displacements(displacements);
    positions = domain.rest_positions + displacements;
    fields.point_data = {{"displacement", displacements}};
    if (domain.labels.size()) fields.cell_ints = {{"label", domain.labels}};
    writer->add_frame(simulator.state().time, positions, domain.tets, fields);
  };
  auto apply_forces = [&](double t) {
    simulator.clear_vertex_forces();
    for (const PointForce& f : forces)
      if (f.start <= t && t < f.end) simulator.add_vertex_force(f.vertex, f.force);
  };
  apply_forces(0.0);
  simulator.initialize_acceleration();
  write_frame();

  std::vector<double> step_us;
  step_us.reserve(static_cast<size_t>(args.run.steps));
  double max_displacement = 0;
  for (int step = 1; step <= args.run.steps; ++step) {
    apply_forces(simulator.state().time + options.time_step);
    const auto start = std::chrono::steady_clock::now();
    const StepStatus status = simulator.step();
    step_us.push_back(
        1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (status != StepStatus::kOk)
      throw NumericalError("step " + std::to_string(step) + ": " + to_string(status));
    if (step % args.output_every == 0 || writer) {
      simulator.displacements(displacements);
      max_displacement = std::max(max_displacement, displacements.rowwise().norm().maxCoeff());
    }
    if (step % args.output_every == 0) write_frame();
  }
  if (writer) writer->finish();
  if (!step_us.empty()) {
    std::vector<double> sorted = step_us;
    std::sort(sorted.begin(), sorted.end());
    double total = 0;
    for (double us : step_us) total += us;
    std::printf("per step  mean %.2f us, median %.2f us, max %.2f us (%zu steps)\n",
                total / static_cast<double>(step_us.size()), sorted[sorted.size() / 2],
                sorted.back(), step_us.size());
  }
  std::printf("final     t = %.4f s, max |u| = %.4g m, kinetic %.4g J, elastic %.4g J\n",
              simulator.state().time, max_displacement, simulator.kinetic_energy(),
              simulator.elastic_energy());
  if (writer) std::printf("output    %s (%d frames)\n", args.output.c_str(), writer->num_frames());
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command =
      app.add_subcommand("simulate",
                         "Run the real-time reduced simulation (implicit Newmark) of a model file; "
                         "prints the per-step cost and writes a .pvd series");
  command->add_option("model", args->model, "Model file (.h5)")->required();
  command->add_option("-o,--output", args->output, "Output series (.pvd); none: timing only");
  command->add_option("--output-every", args->output_every, "Write every n-th frame");
  add_reduced_run_options(command, args->run);
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
