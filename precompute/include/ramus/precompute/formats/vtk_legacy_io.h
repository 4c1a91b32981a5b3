// Legacy VTK files (.vtk, "# vtk DataFile Version 2.0 - 5.1"), unstructured grids, ASCII or
// BINARY (https://vtk.org/wp-content/uploads/2015/04/file-formats.pdf).
#pragma once

#include <string>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// Reads the volume cells of a legacy .vtk UNSTRUCTURED_GRID (the classic "CELLS n size" and the
/// 5.1 OFFSETS/CONNECTIVITY layouts, ASCII or big-endian BINARY) as tets: pyramids, wedges,
/// hexahedra and voxels are split (conforming), higher-order cells keep their corners (the other
/// nodes dropped, unused points removed), points, lines and surfaces are skipped; each is said
/// in read_notes. labels (#T) come from an integer cell array named label, gmsh:physical,
/// CellEntityIds or cell_scalars (TetGen's regions); vertex_flags from a point array
/// vertex_flag. Throws InputError naming the file, line and what is wrong.
TetMesh read_vtk_legacy(const std::string& path);

}  // namespace ramus
