// `ramus damping-curves -o curves.csv`: every integrator's artificial damping d/ω against ω h on
// the test equation q̈ + ω² q = 0 (stiff-and-soft-integrators-survey.txt §3.2, Fig. 3), from its
// amplification matrix, each value checked against a simulated decay. docs/INTEGRATORS.md.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "plot_script.h"
#include "ramus/error.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/runtime/analysis/damping_curves.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string output;
  int points = 61;
  double min_omega_h = 0.01, max_omega_h = 100;
  int steps = 400;
  PlotOptions plot;
};

void run(const Args& args) {
  check_plot_target(args.plot, args.output);
  if (args.points < 2 || args.points > 100000)
    throw OptionError("--points must be between 2 and 100000");
  if (!(args.min_omega_h > 0) || !(args.max_omega_h > args.min_omega_h) ||
      !std::isfinite(args.max_omega_h))
    throw OptionError("--min and --max must satisfy 0 < min < max < inf");
  if (args.steps < 8 || args.steps > 1000000)
    throw OptionError("--steps must be between 8 and 1000000");
  std::vector<Integrator> integrators;
  for (int i = 1; i <= kNumIntegrators; ++i) integrators.push_back(static_cast<Integrator>(i));

  // d/ω from T at log-spaced ω h; the simulated decay beside it (over fewer steps where T decays
  // fast, so the amplitude stays far above underflow).
  const std::size_t n = integrators.size();
  std::vector<std::vector<double>> exact(static_cast<std::size_t>(args.points),
                                         std::vector<double>(n)),
      simulated = exact;
  std::vector<double> omega_h(static_cast<std::size_t>(args.points)), worst(n, 0.0);
  for (int k = 0; k < args.points; ++k) {
    const std::size_t row = static_cast<std::size_t>(k);
    omega_h[row] = args.min_omega_h * std::pow(args.max_omega_h / args.min_omega_h,
                                               k / static_cast<double>(args.points - 1));
    for (std::size_t m = 0; m < n; ++m) {
      const double d = numerical_damping(integrators[m], omega_h[row]);
      const double decay_per_step = std::abs(d) * omega_h[row] / 2;  // |ln ρ|
      const int steps = static_cast<int>(
          std::max(8.0, std::min<double>(args.steps, 200.0 / std::max(decay_per_step, 1e-12))));
      exact[row][m] = d;
      simulated[row][m] = simulated_damping(integrators[m], omega_h[row], steps);
      worst[m] = std::max(worst[m], std::abs(simulated[row][m] - d));
    }
  }

  write_stream_atomically(args.output, [&](std::ostream& out) {
    out << "omega_h";
    for (Integrator m : integrators) out << ',' << to_string(m);
    for (Integrator m : integrators) out << ',' << to_string(m) << "_simulated";
    out << '\n';
    out.precision(12);
    for (std::size_t row = 0; row < omega_h.size(); ++row) {
      out << omega_h[row];
      for (double d : exact[row]) out << ',' << d;
      for (double d : simulated[row]) out << ',' << d;
      out << '\n';
    }
  });
  std::printf("d/omega of every integrator on q'' + omega^2 q = 0, omega h from %g to %g\n",
              args.min_omega_h, args.max_omega_h);
  std::printf("%-14s %12s %12s %12s   %s\n", "integrator", "at 0.1", "at 1", "at 10",
              "|simulated - T| (worst)");
  for (std::size_t m = 0; m < n; ++m)
    std::printf("%-14s %12.4g %12.4g %12.4g   %.2g\n", to_string(integrators[m]),
                numerical_damping(integrators[m], 0.1), numerical_damping(integrators[m], 1.0),
                numerical_damping(integrators[m], 10.0), worst[m]);
  std::printf(
      "curves %s (split methods with every mode split, s = r; with s = 0 they are "
      "their semi-implicit parents)\n",
      args.output.c_str());
  write_plot(args.plot, "plot_damping_curves.py", args.output);
}

}  // namespace

void add_damping_curves_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "damping-curves",
      "Artificial damping d/omega against omega h of every integrator on q'' + omega^2 q = 0, "
      "from its amplification matrix and checked against a simulated decay (CSV and PNG)");
  command->add_option("-o,--output", args->output, "Curves (.csv)")->required();
  command->add_option("--points", args->points, "Values of omega h (log-spaced)")
      ->capture_default_str();
  command->add_option("--min", args->min_omega_h, "Smallest omega h")->capture_default_str();
  command->add_option("--max", args->max_omega_h, "Largest omega h")->capture_default_str();
  command->add_option("--steps", args->steps, "Steps of each simulated decay at most")
      ->capture_default_str();
  add_plot_options(*command, args->plot);
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
