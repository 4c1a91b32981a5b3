// Linear tetrahedral mesh: the input of every offline stage.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <map>
#include <string>
#include <vector>

namespace ramus {

/// A tetrahedral mesh with rest positions and optional per-element labels / per-vertex flags.
struct TetMesh {
  Eigen::MatrixX3d rest_positions;         ///< #V by 3, metres
  Eigen::MatrixX4i tets;                   ///< #T by 4, 0-based vertex indices
  Eigen::VectorXi labels;                  ///< #T (or empty): part / region / physical-group id
  Eigen::VectorXi vertex_flags;            ///< #V (or empty): boundary markers or user flags
  std::map<int, std::string> label_names;  ///< optional names of labels (Gmsh physical names)
  /// What a reader changed on the way in, for the tool to say (e.g. "1204 second-order tets
  /// (Gmsh type 11): their mid-edge nodes were dropped"); empty when read as stored.
  std::vector<std::string> read_notes;

  int num_vertices() const { return static_cast<int>(rest_positions.rows()); }
  int num_tets() const { return static_cast<int>(tets.rows()); }
  bool has_labels() const { return labels.size() == tets.rows() && tets.rows() > 0; }
};

/// Signed volume of tet t at positions X (#V by 3): positive for the standard orientation.
double signed_tet_volume(const Eigen::MatrixX3d& X, const Eigen::MatrixX4i& tets, int t);

/// One mesh holding a copy of `mesh` at each pose (rigid: rotation then translation, m), copy k's
/// vertices and tets after copy k-1's; labels, flags and names are copied along. The copies
/// share nothing: separate bodies that meet only by contact.
TetMesh placed_copies(const TetMesh& mesh, const std::vector<Eigen::Isometry3d>& poses);

}  // namespace ramus
