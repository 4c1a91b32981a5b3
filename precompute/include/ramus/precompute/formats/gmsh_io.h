// Gmsh .msh files, MSH 2.2 and MSH 4.1, ASCII or binary
// (https://gmsh.info/doc/texinfo/gmsh.html#MSH-file-format).
#pragma once

#include <string>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// Reads the volume elements of a .msh (MSH 2.2 / 4.1, ASCII or little-endian binary) as tets:
/// tetrahedra as they are; pyramids, prisms and hexahedra split into 2, 3 and 6 tets,
/// conforming (each quad face cut along the diagonal through its smallest node tag); elements
/// of higher order by their corners (the other nodes dropped); each change said in read_notes.
/// Points, lines and surfaces are ignored. Only nodes used by tets are kept, renumbered
/// compactly in file order; tets are sorted by element tag. labels (#T) = physical group (2.2:
/// first tag; 4.1: first physical tag of the volume entity in $Entities); tets without one get
/// 0, and labels stay empty if no tet has one. 3D $PhysicalNames become label_names.
/// vertex_flags are not stored in .msh. Throws InputError naming the file and line (in binary
/// files the line of the section's header).
TetMesh read_gmsh(const std::string& path);

/// Writes an ASCII .msh, version 22 (MSH 2.2) or 41 (MSH 4.1). Each distinct label becomes a
/// volume entity and a physical group (label 0: no physical group); label_names become
/// $PhysicalNames. Throws Error on negative labels, a bad version or an unwritable file.
void write_gmsh(const TetMesh& mesh, const std::string& path, int version = 41);

}  // namespace ramus
