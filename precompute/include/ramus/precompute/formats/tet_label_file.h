// Label files: one integer label per tet, in the mesh's tet order, for meshes whose format holds
// no labels (or to cut a mesh into domains other than its own labels; substructuring issue 1a).
#pragma once

#include <Eigen/Core>
#include <map>
#include <string>

namespace ramus {

/// Per-tet labels read from a label file.
struct TetLabels {
  Eigen::VectorXi labels;                  ///< #T
  std::map<int, std::string> label_names;  ///< from "name <label> <text>" lines (may be empty)
};

/// Reads a label file: after '#' a line is a comment; blank lines are skipped; a line
/// "name <label> <text>" names a label; every other line holds one integer, the label of the
/// next tet. Throws InputError (file:line) for a malformed line, a name given twice or naming a
/// label no tet has, and for a count other than num_tets.
TetLabels read_tet_label_file(const std::string& path, int num_tets);

}  // namespace ramus
