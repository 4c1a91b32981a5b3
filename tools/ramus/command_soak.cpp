// `ramus soak model.h5`: a long run with a periodic pull, watching what a game would suffer from
// over hours (issue 13): the process's memory, non-finite or diverged states, energy growth.
// docs/RELIABILITY.md.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "commands.h"
#include "model_trust_options.h"
#include "ramus/error.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"

namespace ramus::cli {

namespace {

struct Args {
  TrustArgs trust;  ///< which signatures the model must carry
  std::string model;
  long long steps = 1000000;
  double pull_period = 2.0;  // s: pulled for the first half of each period
  double pull_force = 2.0;   // N
  int reports = 10;
};

// Resident memory of this process (bytes), from /proc/self/statm.
double resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0, resident = 0;
  statm >> pages >> resident;
  return static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE));
}

void run(const Args& args) {
  if (args.steps < 1 || args.steps > 1000000000LL)
    throw OptionError("--steps must be between 1 and 1e9");
  if (!(args.pull_period > 0) || !std::isfinite(args.pull_period) ||
      !std::isfinite(args.pull_force))
    throw OptionError("--pull-period must be positive and --pull-force finite");
  if (args.reports < 1 || args.reports > 1000) throw OptionError("--reports must be in [1, 1000]");
  const auto model = compile_model(read_model_file(args.model, model_trust(args.trust)));
  Simulator simulator(model, model->settings);
  // The pull: on the vertex farthest from the root's rest origin, upward and sideways.
  const Eigen::MatrixX3d rest = global_rest_positions(*model);
  Eigen::Index far = 0;
  (rest.rowwise() - model->domains.front().rest_origin.transpose())
      .rowwise()
      .squaredNorm()
      .maxCoeff(&far);
  const auto [domain, vertex] = vertex_copy(*model, static_cast<int>(far));
  if (domain < 0) throw InputError(args.model, 0, "the pulled vertex belongs to no domain");
  const Eigen::Vector3d pull = args.pull_force * Eigen::Vector3d(0.6, 0, 0.8);
  simulator.reserve_vertex_forces(1);
  if (simulator.initialize() != StepStatus::kOk) throw NumericalError("initial state: not finite");

  std::printf(
      "soak      %s: %lld steps of %g s, pull %g N at vertex %d (domain '%s') for %g s "
      "of every %g s\n",
      args.model.c_str(), args.steps, simulator.settings().time_step, args.pull_force,
      static_cast<int>(far), model->domains[static_cast<std::size_t>(domain)].name.c_str(),
      0.5 * args.pull_period, args.pull_period);
  const double start_memory = resident_bytes();
  double max_energy = 0, peak_memory = start_memory;
  const auto start = std::chrono::steady_clock::now();
  const long long every = std::max(1LL, args.steps / args.reports);
  bool pulled = false;
  for (long long k = 1; k <= args.steps; ++k) {
    const bool pulling = std::fmod(simulator.time(), args.pull_period) < 0.5 * args.pull_period;
    if (pulling != pulled) {
      simulator.clear_vertex_forces();
      if (pulling) simulator.add_vertex_force(domain, vertex, pull);
      pulled = pulling;
    }
    if (const StepStatus status = simulator.step(); status != StepStatus::kOk)
      throw NumericalError("step " + std::to_string(k) + ": " + to_string(status));
    const double energy = simulator.kinetic_energy() + simulator.elastic_energy();
    if (!std::isfinite(energy))
      throw NumericalError("step " + std::to_string(k) + ": energy not finite");
    max_energy = std::max(max_energy, energy);
    if (k % every == 0 || k == args.steps) {
      const double memory = resident_bytes();
      peak_memory = std::max(peak_memory, memory);
      std::printf(
          "  step %10lld  t = %9.1f s  energy %10.4g J (max %.4g)  resident %.1f MB  "
          "%.1f us/step\n",
          k, simulator.time(), energy, max_energy, memory / 1e6,
          1e6 * std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
              static_cast<double>(k));
      std::fflush(stdout);
    }
  }
  std::printf(
      "final     %lld steps, all finite and ok; max energy %.4g J; resident %.1f MB at "
      "the start, %.1f MB at most\n",
      args.steps, max_energy, start_memory / 1e6, peak_memory / 1e6);
}

}  // namespace

void add_soak_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "soak",
      "A long run of a model with a periodic pull: memory, finiteness and energy over time");
  command->add_option("model", args->model, "Model file (.h5)")->required();
  add_trust_options(command, args->trust);
  command->add_option("--steps", args->steps, "Steps")->capture_default_str();
  command->add_option("--pull-period", args->pull_period, "Pull period (s), pulled half of it")
      ->capture_default_str();
  command->add_option("--pull-force", args->pull_force, "Pull force (N)")->capture_default_str();
  command->add_option("--reports", args->reports, "Progress lines")->capture_default_str();
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
