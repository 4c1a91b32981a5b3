// `ramus compare model.h5`: the reduced run (the whole domain tree) against the full-space ground
// truth of the undivided mesh (same materials, anchors, scenario; implicit Newmark solved to
// tolerance), frame by frame.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "finite_number.h"
#include "model_trust_options.h"
#include "output_paths.h"
#include "ramus/error.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/reduction/reduced_vs_full.h"
#include "ramus/precompute/reduction/static_modal_check.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model_geometry.h"
#include "reduced_run_options.h"
#include "run_progress.h"

namespace ramus::cli {

namespace {

struct Args {
  TrustArgs trust;  ///< which signatures the model must carry
  std::string model, csv, output;
  bool ignore_spec = false;
  double max_error = 0, max_final_error = 0;
  int frequencies = 3;  ///< lowest frequencies compared (0: no static or modal check)
  ReducedRunArgs run;
  CLI::App* command = nullptr;
};

// Both runs as ParaView series over the undivided mesh: PREFIX_full.pvd and PREFIX_reduced.pvd,
// each with its displacement and the difference to the other.
void write_series(const std::string& prefix, const ReducedModel& model, const Comparison& c) {
  Eigen::VectorXi tet_domain;
  const Eigen::MatrixX4i tets = global_tets(model, &tet_domain);
  const Eigen::MatrixX3d rest = global_rest_positions(model);
  const Eigen::Index V = rest.rows();
  std::vector<std::string> domain_names;
  for (const ReducedDomain& d : model.domains) domain_names.push_back(d.name);
  for (const bool full : {true, false}) {
    PvdSeriesWriter writer(prefix + (full ? "_full.pvd" : "_reduced.pvd"));
    const Eigen::MatrixXd& own = full ? c.full_trajectory : c.reduced_trajectory;
    const Eigen::MatrixXd& other = full ? c.reduced_trajectory : c.full_trajectory;
    for (std::size_t k = 0; k < c.frames.size(); ++k) {
      const auto column = static_cast<Eigen::Index>(k);
      const Eigen::MatrixX3d u = own.col(column).reshaped(3, V).transpose();
      const Eigen::MatrixX3d difference =
          (own.col(column) - other.col(column)).reshaped(3, V).transpose();
      VtuFields fields;
      fields.point_data = {{"displacement", u}, {"difference", difference}};
      fields.cell_ints = {{"domain", tet_domain}};
      fields.strings = {{"domain_names", domain_names}};
      writer.add_frame(c.frames[k].time, rest + u, tets, fields);
    }
    writer.finish();
  }
  std::printf("output    %s_full.pvd, %s_reduced.pvd (%zu frames; %s)\n", prefix.c_str(),
              prefix.c_str(), c.frames.size(), kFrameConvention);
}

// The colliders' force in both runs: its impulse, its peak and how close each run came.
void print_contact(const Comparison& c, const RuntimeSettings& settings) {
  Eigen::Vector3d full_impulse = Eigen::Vector3d::Zero(), reduced_impulse = full_impulse;
  double full_peak = 0, reduced_peak = 0, full_closest = INFINITY, reduced_closest = INFINITY;
  for (const ComparisonFrame& f : c.frames) {
    full_impulse += settings.time_step * f.full_contact_force;
    reduced_impulse += settings.time_step * f.reduced_contact_force;
    full_peak = std::max(full_peak, f.full_contact_force.norm());
    reduced_peak = std::max(reduced_peak, f.reduced_contact_force.norm());
    full_closest = std::min(full_closest, f.full_smallest_distance);
    reduced_closest = std::min(reduced_closest, f.reduced_smallest_distance);
  }
  std::printf(
      "contact        impulse full %.4g N s, reduced %.4g N s (%.3g apart); peak force "
      "full %.4g N, reduced %.4g N; closest full %.3g m, reduced %.3g m (delta %g m)\n",
      full_impulse.norm(), reduced_impulse.norm(), (full_impulse - reduced_impulse).norm(),
      full_peak, reduced_peak, full_closest, reduced_closest, settings.contact_distance);
}

// The static deflection and lowest frequencies, model error apart from phase drift.
void print_static_and_modal(const std::shared_ptr<const ReducedModel>& model,
                            const RunScenario& scenario, int frequencies) {
  StaticModalOptions options;
  options.settings = scenario.settings;
  options.num_frequencies = frequencies;
  RunProgress progress("compare   static and modal check");
  options.progress = [&progress](int run, int runs) { progress(run, runs); };
  const StaticModalCheck c = check_static_and_modal(*model, options);
  if (!c.anchored) {
    std::printf("static, modal  not checked: a free body has no static deflection\n");
    return;
  }
  const StaticCheck& s = c.static_deflection;
  std::printf(
      "static         under gravity (%g, %g, %g) m/s^2: full max|u| %.4g m, reduced %.4g m, "
      "max |diff| %.4g m: %.4g of the full (reduced settled in %d steps%s)\n",
      s.gravity.x(), s.gravity.y(), s.gravity.z(), s.full_max_displacement,
      s.reduced_max_displacement, s.max_difference, s.relative_error, s.settle_steps,
      s.settled ? "" : ", NOT at rest");
  for (Eigen::Index j = 0; j < c.full_hz.size(); ++j) {
    const double full = c.full_hz(j), reduced = c.reduced_hz(j);
    if (std::isfinite(reduced))
      std::printf("frequency %-4td full %.4g Hz, reduced %.4g Hz (%+.3g %%)\n", j + 1, full,
                  reduced, 100 * (reduced / full - 1));
    else
      std::printf("frequency %-4td full %.4g Hz, reduced n/a (no period seen)\n", j + 1, full);
  }
}

void run(const Args& args) {
  refuse_outputs_over_inputs({args.model}, {{"--csv", args.csv}, {"--output", args.output}});
  if (!args.output.empty()) {  // (its folder checked before the run, not after)
    const std::filesystem::path folder = std::filesystem::path(args.output).parent_path();
    if (!folder.empty() && !std::filesystem::is_directory(folder))
      throw OptionError("--output: folder '" + folder.string() + "' does not exist");
  }
  auto model =
      std::make_shared<const ReducedModel>(read_model_file(args.model, model_trust(args.trust)));
  // The model's settings and its stored scenario, then the command line's options.
  const RunScenario scenario = model_scenario(*args.command, args.run, *model, args.ignore_spec);
  const int num_domains = static_cast<int>(model->domains.size());
  std::printf("compare   %s: %d domain%s, %d steps of %g s%s\n", args.model.c_str(), num_domains,
              num_domains == 1 ? "" : "s", scenario.steps, scenario.settings.time_step,
              args.ignore_spec ? " (--ignore-spec: the command line's scenario)" : "");
  RunProgress progress("compare  ");
  Comparison c;
  // One anchored domain, at its placed scale; a free one (its root a rigid body) and every tree
  // against the undivided mesh.
  const bool free_body = part_of(*model, 0).fixed_vertices.size() == 0;
  if (num_domains == 1 && !free_body) {
    ComparisonOptions options;
    options.settings = scenario.settings;
    options.domain = scenario.settings.domains.front();
    options.steps = scenario.steps;
    options.forces = scenario.forces;
    options.colliders = scenario.colliders;
    c = compare_reduced_to_full(model, options);
  } else {  // the whole tree against the undivided mesh
    TreeComparisonOptions options;
    options.settings = scenario.settings;
    options.steps = scenario.steps;
    options.forces = scenario.forces;
    options.colliders = scenario.colliders;
    options.progress = [&progress](int step, int steps) { progress(step, steps); };
    c = compare_tree_to_full(model, options);
  }
  const int every = std::max(1, scenario.steps / 10);
  std::printf("%10s %14s %14s %14s\n", "t (s)", "full max|u|", "reduced max|u|", "max |diff|");
  for (size_t k = 0; k < c.frames.size(); k += static_cast<size_t>(every))
    std::printf("%10.4f %14.6g %14.6g %14.6g\n", c.frames[k].time,
                c.frames[k].full_max_displacement, c.frames[k].reduced_max_displacement,
                c.frames[k].max_difference);
  std::printf("relative error %.4g (max difference %.4g m / max full displacement %.4g m)\n",
              c.relative_error, c.max_difference, c.max_full_displacement);
  const ComparisonFrame& last = c.frames.back();
  const double final_error =
      last.full_max_displacement > 0 ? last.max_difference / last.full_max_displacement : 0.0;
  // The final frame is a static deflection only if the full run has come to rest: its largest
  // displacement varies by under 1 % over its last tenth (three frames at least).
  const std::size_t tail = std::max<std::size_t>(3, c.frames.size() / 10);
  double low = INFINITY, high = 0;
  for (std::size_t k = c.frames.size() > tail ? c.frames.size() - tail : 0; k < c.frames.size();
       ++k) {
    low = std::min(low, c.frames[k].full_max_displacement);
    high = std::max(high, c.frames[k].full_max_displacement);
  }
  const double variation = high > 0 ? (high - low) / high : 0.0;
  std::printf(
      "final frame    full max|u| %.4g m, reduced %.4g m, max |diff| %.4g m: %.4g of the "
      "full",
      last.full_max_displacement, last.reduced_max_displacement, last.max_difference, final_error);
  if (c.frames.size() >= 3 && variation < 0.01)
    std::printf(" (at rest: the static deflection)\n");
  else
    std::printf(
        " (still moving: the full max|u| varies by %.3g %% over the last %zu frames, so "
        "this is not a static deflection)\n",
        100 * variation, std::min(tail, c.frames.size()));
  if (!scenario.colliders.empty()) print_contact(c, scenario.settings);
  const double steps = std::max(1, scenario.steps);
  std::printf("time           full %.2f ms/step, reduced %.2f us/step (x%.0f)\n",
              1e3 * c.full_seconds / steps, 1e6 * c.reduced_seconds / steps,
              c.reduced_seconds > 0 ? c.full_seconds / c.reduced_seconds : 0.0);
  if (args.frequencies > 0) print_static_and_modal(model, scenario, args.frequencies);
  if (!args.csv.empty()) {
    write_stream_atomically(args.csv, [&](std::ostream& out) {
      out << "time,full_max_displacement,reduced_max_displacement,max_difference\n";
      for (const ComparisonFrame& f : c.frames)
        out << f.time << ',' << f.full_max_displacement << ',' << f.reduced_max_displacement << ','
            << f.max_difference << '\n';
    });
  }
  if (!args.output.empty()) write_series(args.output, *model, c);
  if (args.max_error > 0 && !(c.relative_error <= args.max_error))
    throw CheckFailed("compare: relative error " + std::to_string(c.relative_error) +
                      " exceeds --max-error " + std::to_string(args.max_error));
  if (args.max_final_error > 0 && !(final_error <= args.max_final_error))
    throw CheckFailed("compare: final-frame error " + std::to_string(final_error) +
                      " exceeds --max-final-error " + std::to_string(args.max_final_error));
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "compare",
      "Run a model file's reduced simulation (the whole domain tree) and the full-space ground "
      "truth of its undivided mesh with the same scenario (the model's, or the options') and "
      "report the error frame by frame");
  args->command = command;
  command->add_option("model", args->model, "Model file (.h5)")->required();
  add_trust_options(command, args->trust);
  command->add_option("--csv", args->csv, "Write the per-frame table as CSV");
  command->add_option("-o,--output", args->output,
                      "Write both runs for ParaView: PREFIX_full.pvd and PREFIX_reduced.pvd (each "
                      "with its displacement and the difference to the other)");
  command
      ->add_option("--max-error", args->max_error,
                   "Fail (exit 3) when the relative error over the run exceeds this")
      ->check(CLI::PositiveNumber & finite_number());
  command
      ->add_option("--max-final-error", args->max_final_error,
                   "Fail (exit 3) when the last frame's error, relative to its full "
                   "displacement, exceeds this")
      ->check(CLI::PositiveNumber & finite_number());
  command
      ->add_option("--frequencies", args->frequencies,
                   "Also compare the static deflection under gravity and this many lowest natural "
                   "frequencies (the tree settled, and ringing along each full mode; 0: neither)")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  command->add_flag("--ignore-spec", args->ignore_spec, kIgnoreSpecHelp);
  add_reduced_run_options(command, args->run, {"steps"});
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
