#include "ramus/precompute/formats/mesh_io.h"

#include <filesystem>

#include "ramus/error.h"
#include "ramus/precompute/formats/gmsh_io.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "ramus/precompute/formats/tetgen_io.h"
#include "ramus/precompute/formats/vega_io.h"
#include "ramus/precompute/formats/vtk_legacy_io.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "text_io.h"

namespace ramus {

TetMesh read_tet_mesh(const std::string& path, const TetrahedralizeOptions& options) {
  const std::string ext = detail::lowercase_extension(path);
  if (ext == ".node" || ext == ".ele") return read_tetgen(path);
  if (ext == ".msh") return read_gmsh(path);
  if (ext == ".veg") return read_vega(path);
  if (ext == ".vtu") return read_vtu(path);
  if (ext == ".vtk") return read_vtk_legacy(path);
  if (ext == ".obj" || ext == ".off" || ext == ".ply" || ext == ".stl")
    return tetrahedralize(read_surface_mesh(path), options, path);
  std::error_code ec;
  if (std::filesystem::exists(path + ".node", ec)) return read_tetgen(path);
  throw InputError(path, 0,
                   "unsupported mesh format '" + ext +
                       "'; supported: .node/.ele (TetGen), .msh (Gmsh 2.2/4.1, ASCII or binary), "
                       ".veg (Vega), .vtu (VTK XML), .vtk (legacy VTK), .obj/.off/.ply/.stl "
                       "(closed surfaces, tetrahedralized)");
}

}  // namespace ramus
