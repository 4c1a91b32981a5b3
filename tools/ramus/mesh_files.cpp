#include "mesh_files.h"

#include <algorithm>
#include <filesystem>

#include "ramus/error.h"
#include "ramus/precompute/formats/gmsh_io.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "ramus/precompute/formats/tetgen_io.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/mesh/boundary_surface.h"

namespace ramus::cli {

void write_tet_mesh_by_extension(const TetMesh& mesh, const std::string& path) {
  const std::filesystem::path p(path);
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (ext == ".node" || ext == ".ele") {
    write_tetgen(mesh, (p.parent_path() / p.stem()).string());
  } else if (ext == ".msh") {
    write_gmsh(mesh, path, 41);
  } else if (ext == ".msh22") {
    write_gmsh(mesh, path, 22);
  } else if (ext == ".vtu") {
    write_vtu(path, mesh);
  } else if (ext == ".obj") {
    write_obj(extract_boundary_surface(mesh, true), path);
  } else {
    throw OptionError(path + ": unknown output format \"" + ext +
                      "\" (use .node, .msh, .msh22, .vtu, or .obj for the boundary surface)");
  }
}

}  // namespace ramus::cli
