// Sanity checks of a tet mesh before it is simulated.
#pragma once

#include <Eigen/Core>
#include <string>
#include <utility>
#include <vector>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// A tet corner holding a vertex index outside [0, #V).
struct BadTetIndex {
  int tet = 0;
  int slot = 0;  ///< 0..3
  int value = 0;
};

/// Everything check_tet_mesh finds; vertex / tet indices are 0-based.
struct MeshReport {
  int num_vertices = 0;
  int num_tets = 0;
  double bbox_diagonal = 0;     ///< of all finite vertices
  double volume_threshold = 0;  ///< min_volume_ratio * bbox_diagonal^3
  double total_volume = 0;      ///< sum of signed volumes of the valid tets
  double min_volume = 0;        ///< smallest / largest signed tet volume (valid tets)
  double max_volume = 0;
  Eigen::VectorXd volumes;  ///< #T signed volumes (NaN for tets with bad indices / coordinates)

  std::vector<BadTetIndex> bad_indices;             ///< out-of-range tet entries
  std::vector<int> non_finite_vertices;             ///< vertices with a NaN / inf coordinate
  std::vector<int> inverted_tets;                   ///< volume < -volume_threshold
  std::vector<int> degenerate_tets;                 ///< |volume| <= volume_threshold
  std::vector<int> unreferenced_vertices;           ///< used by no tet
  std::vector<std::pair<int, int>> duplicate_tets;  ///< (first, later) with equal vertex sets
  bool labels_size_mismatch = false;                ///< labels neither empty nor #T
  bool vertex_flags_size_mismatch = false;          ///< vertex_flags neither empty nor #V
  Eigen::VectorXi tet_component;     ///< #T: component (0 = largest), -1 for tets with bad indices
  std::vector<int> component_sizes;  ///< tets per component, largest first

  int num_components() const { return static_cast<int>(component_sizes.size()); }
  /// True when nothing is wrong (several components count as wrong unless allowed).
  bool ok(bool allow_disconnected = false) const;
};

/// Checks indices, coordinates, tet volumes (inverted, or |volume| < min_volume_ratio *
/// bbox_diagonal^3), unreferenced vertices, duplicate tets and connectivity (tets sharing a
/// vertex are connected). Never throws on a bad mesh.
MeshReport check_tet_mesh(const TetMesh& mesh, double min_volume_ratio = 1e-12);

/// Throws MeshError ("<source_name>: ...") naming the first problem check_tet_mesh finds, in
/// this order: no tets, bad index, non-finite vertex, label / flag sizes, inverted or
/// degenerate tet, duplicate tet, unreferenced vertex, disconnected components (unless
/// allow_disconnected).
void validate_tet_mesh(const TetMesh& mesh, const std::string& source_name,
                       bool allow_disconnected = false, double min_volume_ratio = 1e-12);

/// Human-readable multi-line summary of a report (counts, volumes, first offenders).
std::string summarize(const MeshReport& report);

}  // namespace ramus
