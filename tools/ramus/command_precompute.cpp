// `ramus precompute spec.json -o model.h5`: the spec's reduced model (precompute_model.h), its
// report printed as it goes, written as an HDF5 model file.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "commands.h"
#include "finite_number.h"
#include "mpi_processes.h"
#include "output_paths.h"
#include "printing_listener.h"
#include "ramus/error.h"
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/precompute/model/model_signing.h"
#include "ramus/precompute/pipeline/precompute_model.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string spec, output;
  std::string signing_key;  ///< secret key file (`ramus keygen`), or "" for an unsigned model
  ReductionOverrides overrides;
  double progress_every = 5;  ///< seconds between progress lines (0: none)
};

// The model's folder must exist before any work is done (else it all ends in a write error).
void check_output_folder(const std::string& output) {
  const std::filesystem::path folder = std::filesystem::path(output).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
    throw OptionError("cannot write model file '" + output + "': folder '" + folder.string() +
                      "' does not exist");
}

// The last lines: a one-mesh model's lowest frequencies, damping and rigid modes, what was
// written.
void report_written(const ReducedModel& model, const std::string& output, double seconds,
                    bool assembly, bool default_damping) {
  int total_r = 0;
  for (const ReducedDomain& d : model.domains)
    total_r += model.parts[static_cast<std::size_t>(d.part)].polynomial.r;
  if (assembly) {
    std::printf("wrote        %s (%zu parts, %zu domains, total r = %d) in %.2f s\n",
                output.c_str(), model.parts.size(), model.domains.size(), total_r, seconds);
    return;
  }
  const ReducedPart& d = part_of(model, 0);
  std::printf("frequencies  (Hz%s)", model.domains.size() > 1 ? ", root domain" : "");
  for (Eigen::Index k = 0; k < std::min<Eigen::Index>(6, d.linear_mode_eigenvalues.size()); ++k)
    std::printf(" %.4g", std::sqrt(std::max(0.0, d.linear_mode_eigenvalues(k))) / (2 * M_PI));
  std::printf("%s\n", d.linear_mode_eigenvalues.size() > 6 ? " ..." : "");
  if (d.num_rigid_modes) std::printf("rigid modes  %d removed\n", d.num_rigid_modes);
  // The root's Rayleigh damping as damping ratios at its lowest and sixth frequencies,
  // zeta = alpha / (2 omega) + beta omega / 2, and where beta came from (the default: 2 % at the
  // object's lowest frequency, which a tree's root alone exceeds).
  if (!model.settings.domains.empty() && d.linear_mode_eigenvalues.size() > 0) {
    const DomainSettings& root = model.settings.domains.front();
    const auto ratio = [&](Eigen::Index k) {
      const double omega = std::sqrt(std::max(0.0, d.linear_mode_eigenvalues(k)));
      return omega > 0 ? root.rayleigh_mass / (2 * omega) + root.rayleigh_stiffness * omega / 2
                       : 0.0;
    };
    const Eigen::Index last = std::min<Eigen::Index>(6, d.linear_mode_eigenvalues.size()) - 1;
    char rule[200] = "";
    const double omega1 = damping_reference_omega(model);
    const double zeta1 = root.rayleigh_stiffness * omega1 / 2;
    if (default_damping)
      std::snprintf(
          rule, sizeof rule,
          " (the default, the spec sets none: %g %% of critical at the object's lowest "
          "frequency, %.4g Hz%s)",
          100 * kDefaultDampingRatio, omega1 / (2 * M_PI),
          zeta1 > 1.001 * kDefaultDampingRatio ? ", raised till no energy is gained" : "");
    std::printf(
        "damping      rayleigh_mass %g 1/s, rayleigh_stiffness %.3g s%s: %.3g %% of critical "
        "at the root's first frequency, %.3g %% at the %s\n",
        root.rayleigh_mass, root.rayleigh_stiffness, rule, 100 * ratio(0), 100 * ratio(last),
        last == 0 ? "first" : "last above");
  }
  if (model.domains.size() == 1)
    std::printf("wrote        %s (r = %d) in %.2f s\n", output.c_str(), d.polynomial.r, seconds);
  else
    std::printf("wrote        %s (%zu domains, total r = %d) in %.2f s\n", output.c_str(),
                model.domains.size(), total_r, seconds);
}

// The precompute on this process: under mpirun, every process reduces its share; rank 0 alone
// reports and writes.
void run_on(const Args& args, ProcessGroup* processes) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const bool lead = processes == nullptr || processes->rank() == 0;
  const ModelSpec spec = load_spec(args.spec);
  std::vector<std::string> inputs = spec_input_files(spec);
  if (!args.signing_key.empty()) inputs.push_back(args.signing_key);
  refuse_outputs_over_inputs(inputs, {{"--output", args.output}});
  check_output_folder(args.output);
  std::optional<ModelSecretKey> signer;
  if (!args.signing_key.empty()) signer = read_secret_key_file(args.signing_key);
  if (processes != nullptr && lead)
    std::printf("processes    %d (mpirun): the parts and domains spread over them\n",
                processes->size());
  const ReducedModel model = precompute_model(
      spec, args.overrides, lead ? printing_listener(args.progress_every) : PrecomputeListener{},
      processes);
  if (!lead) return;
  // The write, timed: an assembly's stage column is wider.
  const auto write_start = Clock::now();
  write_model_file(model, args.output, signer ? &*signer : nullptr);
  std::printf("  %-*s %8.3f s\n", spec.assembly ? 22 : 19, "write",
              std::chrono::duration<double>(Clock::now() - write_start).count());
  report_written(model, args.output, std::chrono::duration<double>(Clock::now() - start).count(),
                 spec.assembly.has_value(), !spec.simulation.rayleigh_stiffness_given);
}

void run(const Args& args) {
  const std::unique_ptr<ProcessGroup> processes = mpi_processes();
  try {
    run_on(args, processes.get());
  } catch (...) {
    // Every process meets the same error; rank 0 says it.
    if (processes != nullptr && processes->rank() != 0) throw QuietFailure();
    throw;
  }
}

}  // namespace

void add_precompute_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "precompute",
      "Reduce a model spec to a tree of domains (one without a \"domains\" key): linear "
      "modes, modal derivatives, mass-orthonormal basis, exact cubic StVK polynomial, "
      "interface data, system-force integrals; writes an HDF5 model");
  command->add_option("spec", args->spec, "Model spec (JSON, see docs/SPEC.md)")->required();
  command->add_option("-o,--output", args->output, "Model file (.h5)")->required();
  command->add_option("--sign", args->signing_key,
                      "Secret key file (`ramus keygen`): the model's seal carries its Ed25519 "
                      "signature, which a game that trusts the public key checks at load");
  command->add_option("--linear-modes", args->overrides.linear_modes,
                      "Override reduction.linear_modes");
  command->add_option("-r", args->overrides.r, "Override reduction.r");
  command->add_flag("--no-modal-derivatives", args->overrides.no_modal_derivatives,
                    "Use the r lowest linear modes only");
  command
      ->add_option("--progress", args->progress_every,
                   "Seconds between progress lines (share done, time left); 0: none")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6) & finite_number());
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
