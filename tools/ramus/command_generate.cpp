// `ramus generate beam|plant|tree|cloth`: the procedural example meshes (a tree: part meshes and
// its assembly spec; a cloth: a square triangle surface).
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "folder_staging.h"
#include "mesh_files.h"
#include "ramus/error.h"
#include "ramus/precompute/cloth/mass_spring_cloth.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/generators/tree_generator.h"

namespace ramus::cli {

void add_generate_command(CLI::App& app) {
  CLI::App* generate = app.add_subcommand("generate", "Write a procedural example mesh");
  generate->require_subcommand(1);

  CLI::App* beam = generate->add_subcommand(
      "beam", "Cantilever beam of 6-tet hexes, clamped at x = 0 (vertex flag 1)");
  struct BeamArgs {
    int nx = 30, ny = 6, nz = 6;
    double length = 1.0, width = 0.2;
    std::string output;
  };
  auto beam_args = std::make_shared<BeamArgs>();
  beam->add_option("--nx", beam_args->nx, "Cells along the length")->capture_default_str();
  beam->add_option("--ny", beam_args->ny, "Cells across (y)")->capture_default_str();
  beam->add_option("--nz", beam_args->nz, "Cells across (z)")->capture_default_str();
  beam->add_option("--length", beam_args->length, "Length in metres")->capture_default_str();
  beam->add_option("--width", beam_args->width, "Width and height in metres")
      ->capture_default_str();
  beam->add_option("-o,--output", beam_args->output, "Output mesh (.node, .msh, .msh22, .vtu)")
      ->required();
  beam->callback([beam_args] {
    const TetMesh mesh = make_cantilever_beam(beam_args->nx, beam_args->ny, beam_args->nz,
                                              beam_args->length, beam_args->width);
    write_tet_mesh_by_extension(mesh, beam_args->output);
    std::cout << "wrote " << beam_args->output << ": " << mesh.num_vertices() << " vertices, "
              << mesh.num_tets() << " tets\n";
  });

  CLI::App* cloth = generate->add_subcommand(
      "cloth",
      "Square cloth for a mass_spring spec: n by n particles in the z = 0 plane, centred on the "
      "origin, cells cut along alternating diagonals (OBJ)");
  struct ClothArgs {
    int particles = 20;
    double side = 1.0;
    std::string output;
  };
  auto cloth_args = std::make_shared<ClothArgs>();
  cloth->add_option("--particles", cloth_args->particles, "Particles along each side")
      ->capture_default_str()
      ->check(CLI::Range(2, 4000));
  cloth->add_option("--side", cloth_args->side, "Side in metres")
      ->capture_default_str()
      ->check(CLI::Range(1e-6, 1e6));
  cloth->add_option("-o,--output", cloth_args->output, "Output surface (.obj)")->required();
  cloth->callback([cloth_args] {
    const SurfaceMesh surface = make_square_cloth(cloth_args->particles, cloth_args->side);
    write_obj(surface, cloth_args->output);
    std::cout << "wrote " << cloth_args->output << ": " << surface.num_vertices() << " particles, "
              << surface.num_triangles() << " triangles\n";
  });

  CLI::App* plant = generate->add_subcommand(
      "plant", "Branching plant: stem, branches, leaves, bloom (one label each)");
  struct PlantArgs {
    PlantOptions options;
    std::string output;
  };
  auto plant_args = std::make_shared<PlantArgs>();
  plant->add_option("--voxel-size", plant_args->options.voxel_size, "Design voxel edge (m)")
      ->capture_default_str();
  plant->add_option("--refinement", plant_args->options.refinement, "Lattice cells per voxel edge")
      ->capture_default_str();
  plant->add_option("--branches", plant_args->options.num_branches, "Number of branches")
      ->capture_default_str();
  plant->add_option("-o,--output", plant_args->output, "Output mesh (.node, .msh, .msh22, .vtu)")
      ->required();
  plant->callback([plant_args] {
    const TetMesh mesh = make_branching_plant(plant_args->options);
    write_tet_mesh_by_extension(mesh, plant_args->output);
    std::cout << "wrote " << plant_args->output << ": " << mesh.num_vertices() << " vertices, "
              << mesh.num_tets() << " tets, " << mesh.label_names.size() << " parts\n";
  });

  CLI::App* tree = generate->add_subcommand(
      "tree",
      "Procedural tree as an assembly (the paper's oak: trunk, 41 branches of 5 limb meshes at "
      "scales 0.6-1.4, 1,394 leaves of one leaf mesh): writes <part>.msh and the spec");
  struct TreeArgs {
    TreeOptions options;
    std::string folder, name = "oak.json", soup;
  };
  auto tree_args = std::make_shared<TreeArgs>();
  // Counts bounded before anything is made (2^31 leaves ran without end).
  tree->add_option("--leaves", tree_args->options.leaves, "Number of leaves")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  tree->add_option("--main-branches", tree_args->options.main_branches, "Branches on the trunk")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  tree->add_option("--sub-branches", tree_args->options.sub_branches,
                   "Branches on the main branches")
      ->capture_default_str()
      ->check(CLI::Range(0, 10000));
  tree->add_option("--seed", tree_args->options.seed, "Random seed")->capture_default_str();
  tree->add_flag("--small", tree_args->options.small,
                 "Coarse meshes (fewer cells) for tests; combine with the counts");
  tree->add_option("--branch-r", tree_args->options.branch_r, "r of every branch part")
      ->capture_default_str()
      ->check(CLI::Range(1, 300));
  tree->add_option("--trunk-r", tree_args->options.trunk_r, "r of the trunk")
      ->capture_default_str()
      ->check(CLI::Range(1, 300));
  tree->add_option("--leaf-r", tree_args->options.leaf_r, "r of the leaf")
      ->capture_default_str()
      ->check(CLI::Range(1, 300));
  tree->add_option("--spec-name", tree_args->name, "File name of the spec in the folder")
      ->capture_default_str()
      ->check(plain_file_name());
  tree->add_option("--soup", tree_args->soup,
                   "Also write the whole tree as one polygon soup, every placed part's boundary "
                   "surface in one OBJ file of this name in the folder (what a 3D package "
                   "exports; `ramus author` takes it back apart)")
      ->check(plain_file_name());
  tree->add_option("-o,--output", tree_args->folder, "Output folder (created)")->required();
  tree->callback([tree_args] {
    const std::filesystem::path folder(tree_args->folder);
    std::error_code ec;
    if (std::filesystem::exists(folder, ec) && !std::filesystem::is_directory(folder, ec))
      throw OptionError("--output: '" + tree_args->folder + "' exists and is not a folder");
    const Tree made = make_tree(tree_args->options);
    // Every file into a staging folder, moved into place only when all are written.
    FolderStaging staging(folder);
    for (const Tree::Part& part : made.parts) {
      write_tet_mesh_by_extension(part.mesh, staging.path(part.name + ".msh"));
      if (part.render_surface.num_vertices() > 0)
        write_obj(part.render_surface, staging.path(part.name + "_surface.obj"));
    }
    write_stream_atomically(staging.path(tree_args->name), [&](std::ostream& out) {
      out << tree_spec_json(made, tree_args->options) << "\n";
    });
    if (!tree_args->soup.empty()) write_obj(tree_surface_soup(made), staging.path(tree_args->soup));
    staging.commit();
    const std::string spec_path = (folder / tree_args->name).string();
    int leaves = 0, branches = 0;
    for (const TreePlacement& p : made.placements) (p.part == "leaf" ? leaves : branches) += 1;
    std::cout << "wrote " << spec_path << ": " << made.parts.size() << " part meshes, "
              << branches - 1 << " branches and " << leaves << " leaves on a trunk ("
              << made.placements.size() << " domains)\n";
  });
}

}  // namespace ramus::cli
