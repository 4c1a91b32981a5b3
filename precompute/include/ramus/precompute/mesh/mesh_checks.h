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
  double bbox_diagonal = 0;      ///< of all finite vertices
  double quality_threshold = 0;  ///< shape quality at or below which a tet is degenerate
  double min_quality = 0;        ///< smallest shape quality of the valid tets (tet_quality)
  double total_volume = 0;       ///< sum of signed volumes of the valid tets
  double min_volume = 0;         ///< smallest / largest signed tet volume (valid tets)
  double max_volume = 0;
  Eigen::VectorXd volumes;  ///< #T signed volumes (NaN for tets with bad indices / coordinates)

  std::vector<BadTetIndex> bad_indices;             ///< out-of-range tet entries
  std::vector<int> non_finite_vertices;             ///< vertices with a NaN / inf coordinate
  std::vector<int> inverted_tets;                   ///< volume < 0, not degenerate
  std::vector<int> degenerate_tets;                 ///< quality <= quality_threshold
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

/// The default shape quality at or below which a tet is degenerate: flat to round-off (a
/// well-shaped tet has a quality near 1 at any size; a sliver's Ds Dm⁻¹ loses about -log10 of it
/// in digits).
inline constexpr double kDegenerateTetQuality = 1e-8;

/// A tet's shape quality 6√2 |V| / l³ (l its longest edge): 1 for the regular tet, 0 for a flat
/// one, independent of its size.
double tet_quality(double signed_volume, double longest_edge);

/// Checks indices, coordinates, tets (inverted: negative volume; degenerate: shape quality at or
/// below `min_quality`), unreferenced vertices, duplicate tets and connectivity (tets sharing a
/// vertex are connected). Never throws on a bad mesh.
MeshReport check_tet_mesh(const TetMesh& mesh, double min_quality = kDegenerateTetQuality);

/// Throws MeshError ("<source_name>: ...") naming the first problem check_tet_mesh finds, in
/// this order: no tets, bad index, non-finite vertex, label / flag sizes, inverted or
/// degenerate tet, duplicate tet, unreferenced vertex, disconnected components (unless
/// allow_disconnected).
void validate_tet_mesh(const TetMesh& mesh, const std::string& source_name,
                       bool allow_disconnected = false, double min_quality = kDegenerateTetQuality);

/// Human-readable multi-line summary of a report (counts, volumes, first offenders).
std::string summarize(const MeshReport& report);

}  // namespace ramus
