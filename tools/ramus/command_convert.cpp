// `ramus convert` (any supported mesh to .node/.msh/.vtu) and `ramus tetrahedralize` (a closed
// surface through TetGen). Both validate the tet mesh before writing anything.
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "mesh_files.h"
#include "output_paths.h"
#include "printing_listener.h"
#include "ramus/error.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/pipeline/spec_mesh.h"

namespace ramus::cli {

namespace {

struct ConvertArgs {
  std::string input, output;
  TetrahedralizeOptions tetgen;
  bool allow_disconnected = false;
};

void add_tetgen_options(CLI::App* command, ConvertArgs& args) {
  command
      ->add_option("-q,--quality", args.tetgen.max_radius_edge_ratio,
                   "TetGen radius-edge ratio bound (0: no quality refinement)")
      ->capture_default_str();
  command
      ->add_option("-a,--max-volume", args.tetgen.max_volume,
                   "TetGen bound on every tet's volume in m^3 (0: none)")
      ->capture_default_str();
}

void run_convert(const ConvertArgs& args, bool surface_only) {
  refuse_outputs_over_inputs({args.input}, {{"--output", args.output}});
  if (surface_only) {
    std::string ext = std::filesystem::path(args.input).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext != ".obj" && ext != ".off" && ext != ".ply" && ext != ".stl")
      throw InputError(args.input, 0,
                       "tetrahedralize needs a closed surface (.obj, .off, .ply, .stl)");
  }
  const TetMesh mesh = read_tet_mesh(args.input, args.tetgen);
  report_read_notes(mesh, args.input, printing_listener());
  validate_tet_mesh(mesh, args.input, args.allow_disconnected);
  write_tet_mesh_by_extension(mesh, args.output);
  const MeshReport report = check_tet_mesh(mesh);
  std::cout << "wrote " << args.output << ": " << mesh.num_vertices() << " vertices, "
            << mesh.num_tets() << " tets, volume " << report.total_volume << " m^3";
  if (mesh.has_labels()) std::cout << ", " << mesh.labels.maxCoeff() << " max label";
  std::cout << "\n";
}

}  // namespace

void add_convert_commands(CLI::App& app) {
  auto convert_args = std::make_shared<ConvertArgs>();
  CLI::App* convert = app.add_subcommand(
      "convert",
      "Read a mesh (.node/.ele, .msh, .veg, .vtu, .vtk; hexahedra, prisms and pyramids are "
      "split into tets; or a surface .obj/.off/.ply/.stl that is tetrahedralized), check it, "
      "and write it as .node, .msh, .msh22 or .vtu");
  convert->add_option("input", convert_args->input, "Input mesh")->required();
  convert->add_option("-o,--output", convert_args->output, "Output mesh")->required();
  convert->add_flag("--allow-disconnected", convert_args->allow_disconnected,
                    "Accept meshes with several connected components");
  add_tetgen_options(convert, *convert_args);
  convert->callback([convert_args] { run_convert(*convert_args, false); });

  auto tet_args = std::make_shared<ConvertArgs>();
  CLI::App* tetrahedralize =
      app.add_subcommand("tetrahedralize",
                         "Tetrahedralize a closed surface (.obj/.off/.ply) with TetGen; several "
                         "closed surfaces or OBJ groups become labelled regions");
  tetrahedralize->add_option("input", tet_args->input, "Closed surface")->required();
  tetrahedralize->add_option("-o,--output", tet_args->output, "Output mesh (.node, .msh, .vtu)")
      ->required();
  tetrahedralize->add_flag("--allow-disconnected", tet_args->allow_disconnected,
                           "Accept several separate bodies");
  add_tetgen_options(tetrahedralize, *tet_args);
  tetrahedralize->callback([tet_args] { run_convert(*tet_args, true); });
}

}  // namespace ramus::cli
