#include "plot_script.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "ramus/error.h"

extern char** environ;

namespace ramus::cli {

void add_plot_options(CLI::App& command, PlotOptions& options) {
  command.add_option("--png", options.png, "Plot (.png; default: the CSV's name with .png)");
  command.add_flag("!--no-png", options.plot, "Write the CSV only");
}

namespace {

std::string png_path(const PlotOptions& options, const std::string& csv) {
  return options.png.empty() ? std::filesystem::path(csv).replace_extension(".png").string()
                             : options.png;
}

}  // namespace

void check_plot_target(const PlotOptions& options, const std::string& csv) {
  if (!options.plot) return;
  const std::filesystem::path png(png_path(options, csv));
  std::error_code ec;
  if (std::filesystem::is_directory(png, ec))
    throw OptionError("--png: '" + png.string() + "' is a folder, not a .png file");
  if (!png.parent_path().empty() && !std::filesystem::is_directory(png.parent_path(), ec))
    throw OptionError("--png: folder '" + png.parent_path().string() + "' does not exist");
  if (png == std::filesystem::path(csv))
    throw OptionError("--png: '" + png.string() + "' is the CSV itself");
}

void write_plot(const PlotOptions& options, const std::string& script, const std::string& csv) {
  if (!options.plot) return;
  const std::string png = png_path(options, csv);
  try {
    plot_with_script(script, csv, png);
  } catch (const Error&) {
    std::error_code ec;
    std::filesystem::remove(csv, ec);  // a failed command leaves nothing
    throw;
  }
  std::printf("plot %s\n", png.c_str());
}

void plot_with_script(const std::string& script, const std::string& csv, const std::string& png) {
  const char* folder = std::getenv("RAMUS_SCRIPTS_DIR");
  const std::string script_path =
      (std::filesystem::path(folder ? folder : RAMUS_SCRIPTS_DIR) / script).string();
  if (!std::filesystem::is_regular_file(script_path))
    throw Error(png + ": cannot plot: " + script_path +
                " not found (set RAMUS_SCRIPTS_DIR to Ramus's scripts/ folder)");
  const std::string python = "/usr/bin/python3";
  std::vector<std::string> args = {python, script_path, csv, png};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (const int e = ::posix_spawn(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ);
      e != 0)
    throw Error(png + ": cannot plot: " + python + ": " + std::strerror(e) +
                " (Debian: apt-get install python3-matplotlib)");
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error(png + ": cannot plot: waiting for " + script + " failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw Error(png + ": not written: " + script + " failed (its message is above)");
}

}  // namespace ramus::cli
