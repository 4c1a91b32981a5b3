// `ramus author tree.obj -o folder`: a tree mesh from a 3D package (one polygon soup) made into
// an instanced assembly spec and its part surfaces (precompute/authoring/tree_authoring.h).
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "finite_number.h"
#include "folder_staging.h"
#include "output_paths.h"
#include "ramus/error.h"
#include "ramus/precompute/authoring/tree_authoring.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/precompute/formats/surface_mesh_io.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string input, folder, name = "tree.json";
  AuthoringOptions options;
};

void run(const Args& args) {
  const std::filesystem::path folder(args.folder);
  std::error_code ec;
  if (std::filesystem::exists(folder, ec) && !std::filesystem::is_directory(folder, ec))
    throw OptionError("--output: '" + args.folder + "' exists and is not a folder");
  refuse_outputs_over_inputs({args.input}, {{"--output", (folder / args.name).string()}});
  const SurfaceMesh soup = read_surface_mesh(args.input);
  const AuthoredTree tree = author_tree(soup, args.input, "", args.options);
  // Every file into a staging folder, moved into place only when all are written.
  FolderStaging staging(folder);
  for (const auto& [name, surface] : tree.part_surfaces)
    write_obj(surface, staging.path(name + ".obj"));
  write_stream_atomically(staging.path(args.name),
                          [&](std::ostream& out) { out << tree.spec_json << "\n"; });
  staging.commit();
  for (const std::string& note : tree.notes) std::cerr << "ramus: note: " << note << "\n";
  std::cout << "wrote " << (folder / args.name).string() << ": " << tree.num_pieces << " pieces of "
            << tree.part_surfaces.size() << " distinct shapes, " << tree.num_instances
            << " instances\n";
}

}  // namespace

void add_author_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "author",
      "Make a tree mesh from a 3D package (one polygon soup: .obj, .off, .ply, .stl) into an "
      "assembly spec: its connected pieces, the shapes they repeat (up to rotation, translation "
      "and uniform scale: meshed and reduced once), which piece hangs from which");
  command->add_option("input", args->input, "The tree's surface mesh")->required();
  command
      ->add_option("-o,--output", args->folder,
                   "Output folder (created): the spec and one "
                   "<part>.obj per distinct shape")
      ->required();
  command->add_option("--spec-name", args->name, "File name of the spec in the folder")
      ->capture_default_str()
      ->check(plain_file_name());
  command
      ->add_option("--gap", args->options.gap,
                   "m: how far a piece may float from the piece it hangs from (default 1e-3 of "
                   "the tree's size)")
      ->check(CLI::NonNegativeNumber & finite_number());
  command
      ->add_option("--weld", args->options.weld_distance,
                   "m: vertices this close are one (default 1e-9 of the tree's size)")
      ->check(CLI::NonNegativeNumber & finite_number());
  command
      ->add_option("--similarity", args->options.similarity,
                   "A repeat's vertices lie within this fraction of its size of its shape's")
      ->capture_default_str()
      ->check(CLI::PositiveNumber & finite_number());
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
