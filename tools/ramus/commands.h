// Sub-commands of the `ramus` command-line tool. Each registers itself on the app and runs when
// selected; errors are reported by main() as one line and a non-zero exit.
#pragma once

#include <CLI/CLI.hpp>
#include <exception>
#include <string>

#include "ramus/error.h"
#include "ramus/precompute/model/model_spec.h"

namespace ramus::cli {

/// A run that finished and wrote its report, whose verdict is "fail" (audit's energy gain,
/// compare's error bound): exit 3, so that a script tells a failed check (report kept) from an
/// error (exit 1, nothing written).
class CheckFailed : public Error {
 public:
  using Error::Error;
};

/// A failure another process reports (a process other than rank 0 of `mpirun`): exit 1, silent.
class QuietFailure : public std::exception {};

void add_generate_command(CLI::App& app);
void add_author_command(CLI::App& app);
void add_convert_commands(CLI::App& app);
void add_check_command(CLI::App& app);
void add_simulate_full_command(CLI::App& app);
void add_precompute_command(CLI::App& app);
void add_inspect_command(CLI::App& app);
void add_keygen_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_audit_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_damping_curves_command(CLI::App& app);
void add_energy_experiment_command(CLI::App& app);
void add_stability_experiment_command(CLI::App& app);
void add_soak_command(CLI::App& app);
void add_view_command(CLI::App& app);
void add_settings_command(CLI::App& app);

/// load_model_spec, printing the spec's warnings ("ramus: warning: file: key: ...") to stderr.
ModelSpec load_spec(const std::string& path);

}  // namespace ramus::cli
