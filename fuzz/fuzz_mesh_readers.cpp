// Fuzz target: every mesh reader. The first byte picks the format (modulo 8), the rest is the
// file: tet meshes (.msh Gmsh ASCII or binary, .veg Vega, .vtu VTK XML, .vtk legacy VTK) are read
// and validated; surfaces (.obj, .off, .ply, .stl) are read (not tetrahedralized: TetGen runs in a
// child process of its own, with limits).
#include <cstdio>
#include <string>

#include "fuzz_target.h"
#include "ramus/error.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "ramus/precompute/mesh/mesh_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kExtensions[] = {".msh", ".veg", ".vtu", ".obj",
                                            ".off", ".ply", ".stl", ".vtk"};
  const int format = data[0] % 8;
  const std::string path = ramus::fuzz::scratch_file(std::string("mesh") + kExtensions[format]);
  ramus::fuzz::write_input(path, data + 1, size - 1);
  try {
    if (format < 3 || format == 7) {
      const ramus::TetMesh mesh = ramus::read_tet_mesh(path);
      ramus::validate_tet_mesh(mesh, path);
    } else {
      ramus::read_surface_mesh(path);
    }
  } catch (const ramus::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
