// `ramus generate beam|plant`: the procedural example meshes.
#include <iostream>

#include "commands.h"
#include "mesh_files.h"
#include "ramus/precompute/mesh/mesh_generators.h"

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
}

}  // namespace ramus::cli
