// `ramus check <mesh>`: report everything wrong with a mesh; exit status 1 if anything is.
#include <iostream>

#include "commands.h"
#include "ramus/error.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/mesh/mesh_io.h"

namespace ramus::cli {

void add_check_command(CLI::App& app) {
  struct Args {
    std::string input;
    bool allow_disconnected = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* check = app.add_subcommand(
      "check",
      "Read a mesh and report inverted/degenerate tets, bad indices, unused vertices, "
      "duplicates and disconnected components (exit 1 if any)");
  check->add_option("input", args->input, "Mesh file")->required();
  check->add_flag("--allow-disconnected", args->allow_disconnected,
                  "Several connected components are not a problem");
  check->callback([args] {
    const TetMesh mesh = read_tet_mesh(args->input);
    const MeshReport report = check_tet_mesh(mesh);
    std::cout << args->input << ":\n" << summarize(report);
    if (!report.ok(args->allow_disconnected)) {
      validate_tet_mesh(mesh, args->input, args->allow_disconnected);  // throws the first problem
      throw MeshError(args->input + ": mesh has problems (see above)");
    }
    std::cout << "ok\n";
  });
}

}  // namespace ramus::cli
