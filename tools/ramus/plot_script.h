// The PNG plots of the experiment commands (damping-curves, energy-experiment): drawn by the
// matplotlib scripts in scripts/, run as a child process (/usr/bin/python3, Debian's
// python3-matplotlib) once the command's CSV is written.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace ramus::cli {

/// --png FILE (default: the CSV's name with `.png`) and --no-png.
struct PlotOptions {
  std::string png;
  bool plot = true;
};
void add_plot_options(CLI::App& command, PlotOptions& options);

/// Before any work: OptionError when the PNG's path is a folder, in a missing folder or the CSV.
void check_plot_target(const PlotOptions& options, const std::string& csv);
/// After the command wrote `csv`: the PNG of `script` (see plot_with_script), unless --no-png.
/// Prints where it went; when the plot fails, the CSV is removed too (nothing is left).
void write_plot(const PlotOptions& options, const std::string& script, const std::string& csv);

/// Runs `python3 <scripts>/<script> csv png` and waits. The scripts folder is the source tree's
/// scripts/ (compiled in) unless RAMUS_SCRIPTS_DIR names another. Throws Error naming the PNG
/// and the reason (no python3, no matplotlib, the script failed) when no PNG was written; the
/// script writes it atomically, so a failure leaves none at the target.
void plot_with_script(const std::string& script, const std::string& csv, const std::string& png);

}  // namespace ramus::cli
