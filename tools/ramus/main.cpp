// `ramus <command>`: the command-line front end of Ramus.
#include <CLI/CLI.hpp>
#include <csignal>
#include <exception>
#include <iostream>
#include <new>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "commands.h"
#include "ramus/error.h"
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/runtime/version.h"

namespace {

// SIGINT, SIGTERM, SIGHUP: remove a model file's temporary being written, then end the process as
// the signal would have (the target file is only ever replaced by a complete one).
extern "C" void end_on_signal(int signal_number) {
  ramus::remove_model_file_in_progress();
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // Precompute allocates and frees matrices of hundreds of MB stage after stage; glibc would map
  // each afresh (and the kernel zero it page by page): a quarter of a 400k-tet precompute's time.
  // Kept in the heap instead (a tool's process: the memory is returned when it ends).
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP})
    std::signal(signal_number, end_on_signal);
  CLI::App app{
      "Ramus: real-time simulation of large deformable objects by model reduction and "
      "substructuring"};
  app.set_version_flag("--version", std::string("ramus ") + ramus::version_string());
  app.require_subcommand(1);
  ramus::cli::add_generate_command(app);
  ramus::cli::add_author_command(app);
  ramus::cli::add_convert_commands(app);
  ramus::cli::add_check_command(app);
  ramus::cli::add_simulate_full_command(app);
  ramus::cli::add_precompute_command(app);
  ramus::cli::add_inspect_command(app);
  ramus::cli::add_keygen_command(app);
  ramus::cli::add_simulate_command(app);
  ramus::cli::add_compare_command(app);
  ramus::cli::add_audit_command(app);
  ramus::cli::add_validate_command(app);
  ramus::cli::add_damping_curves_command(app);
  ramus::cli::add_energy_experiment_command(app);
  ramus::cli::add_stability_experiment_command(app);
  ramus::cli::add_soak_command(app);
  ramus::cli::add_view_command(app);
  ramus::cli::add_settings_command(app);
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (const CLI::App* command : app.get_subcommands({})) known |= command->get_name() == argv[1];
    if (!known) {
      std::cerr << "ramus: error: unknown command '" << argv[1] << "' (see ramus --help)\n";
      return 1;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const ramus::cli::QuietFailure&) {
    return 1;
  } catch (const ramus::cli::CheckFailed& e) {
    std::cerr << "ramus: check failed: " << e.what() << "\n";
    return 3;
  } catch (const ramus::Error& e) {
    std::cerr << "ramus: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "ramus: error: out of memory: the inputs ask for more than this machine has\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "ramus: unexpected error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
