// `ramus compare model.h5`: the reduced run against the full-space ground truth (same mesh,
// materials, anchors, loads; implicit Newmark solved to tolerance), frame by frame.
#include <cstdio>
#include <fstream>
#include <memory>

#include "commands.h"
#include "ramus/error.h"
#include "ramus/precompute/reduction/reduced_vs_full.h"
#include "ramus/runtime/io/model_file.h"
#include "reduced_run_options.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string model, csv;
  ReducedRunArgs run;
  CLI::App* command = nullptr;
};

void run(const Args& args) {
  auto model = std::make_shared<const ReducedModel>(read_model_file(args.model));
  ComparisonOptions options;
  options.settings.nodes.resize(1);
  apply_run_options(*args.command, args.run, true, options.settings);
  options.node = options.settings.nodes[0];
  options.steps = args.run.steps;
  options.forces = point_forces(args.run);
  const Comparison c = compare_reduced_to_full(model, options);
  const int every = std::max(1, options.steps / 10);
  std::printf("%10s %14s %14s %14s\n", "t (s)", "full max|u|", "reduced max|u|", "max |diff|");
  for (size_t k = 0; k < c.frames.size(); k += static_cast<size_t>(every))
    std::printf("%10.4f %14.6g %14.6g %14.6g\n", c.frames[k].time,
                c.frames[k].full_max_displacement, c.frames[k].reduced_max_displacement,
                c.frames[k].max_difference);
  std::printf("relative error %.4g (max difference %.4g m / max full displacement %.4g m)\n",
              c.relative_error, c.max_difference, c.max_full_displacement);
  const double steps = std::max(1, options.steps);
  std::printf("time           full %.2f ms/step, reduced %.2f us/step (x%.0f)\n",
              1e3 * c.full_seconds / steps, 1e6 * c.reduced_seconds / steps,
              c.reduced_seconds > 0 ? c.full_seconds / c.reduced_seconds : 0.0);
  if (!args.csv.empty()) {
    std::ofstream out(args.csv);
    if (!out) throw Error(args.csv + ": cannot write");
    out << "time,full_max_displacement,reduced_max_displacement,max_difference\n";
    for (const ComparisonFrame& f : c.frames)
      out << f.time << ',' << f.full_max_displacement << ',' << f.reduced_max_displacement << ','
          << f.max_difference << '\n';
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "compare",
      "Run a model file's reduced simulation and the full-space ground truth with the "
      "same loads and report the error frame by frame");
  args->command = command;
  command->add_option("model", args->model, "Model file (.h5)")->required();
  command->add_option("--csv", args->csv, "Write the per-frame table as CSV");
  add_reduced_run_options(command, args->run);
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
