// Partition of a tet mesh into domains connected as a tree (substructuring, Barbič & Zhao 2011,
// §3): domains meet at interfaces made of shared vertices (each domain later gets its own copy);
// the root is the anchored domain (or the tree's center for a free body); edges point
// parent -> child.
#pragma once

#include <Eigen/Core>
#include <map>
#include <string>
#include <vector>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// Domains of a tet mesh and their tree. Vertex indices are global (into the mesh), sorted.
struct DomainTree {
  Eigen::VectorXi tet_domain;  ///< #T: domain of each tet, 0..num_domains-1
  int num_domains = 0;
  int root = -1;
  std::vector<int> parent;                           ///< d: parent domain, -1 for the root
  std::vector<std::vector<int>> children;            ///< d: child domains, ascending
  std::vector<std::string> names;                    ///< d: label name or "domain_<i>"
  std::vector<std::vector<int>> domain_tets;         ///< d: tets of each domain, ascending
  std::vector<std::vector<int>> domain_vertices;     ///< d: vertices used by the domain's tets
  std::vector<std::vector<int>> interface_vertices;  ///< d: shared with the parent (root: empty)
  std::vector<int> depth;                            ///< d: edges from the root (root: 0)
};

/// Tree from a per-tet domain assignment tet_domain (#T, ids 0..d-1). Two domains are adjacent
/// when they share a triangle face. Throws MeshError (naming the domains) for an empty domain, two
/// domains touching only at an edge / vertex, a disconnected domain graph, a loop, or anchored
/// vertices in more than one domain. Root: the domain holding the anchored vertices; with none,
/// the tree's center (minimum eccentricity, ties: most tets). names: optional names by domain id.
DomainTree build_domain_tree(const TetMesh& mesh, const Eigen::VectorXi& tet_domain,
                             const std::vector<int>& anchored_vertices,
                             const std::map<int, std::string>& names = {});

/// Labels become domains (distinct labels in ascending order -> 0..d-1), named after
/// mesh.label_names (else "label_<L>"). Throws MeshError when the mesh has no labels.
DomainTree domain_tree_from_labels(const TetMesh& mesh, const std::vector<int>& anchored_vertices);

/// Options of partition_branching_mesh (docs/PARTITION.md).
struct AutomaticPartitionOptions {
  /// kShape: limbs of the level-set skeleton, cut at junctions and necks (default); kBands: every
  /// distance band a domain (thin discs along a rod: kept to show what substructuring does not
  /// suit).
  enum class Method { kShape, kBands };
  Method method = Method::kShape;
  int num_bands = 0;        ///< distance bands (0: 12 for kBands, slices ~2 edges thick for kShape)
  double band_width = 0.0;  ///< band width in metres of graph distance; <= 0: use num_bands
  int min_domain_tets = 48;  ///< smaller components merge into their most face-sharing neighbour
  double dominance =
      2.0;  ///< kShape: a child this much thicker than its siblings continues its parent
  double neck_contrast = 3.0;  ///< kShape: cross-section ratio at which a limb is cut
  int max_depth = 5;           ///< kShape: deepest domain tree (the paper's examples: <= 5)
  bool from_labels = false;    ///< kShape: domains never span two tet labels; named after them
  /// kShape: a domain whose interface exceeds this share of its surface merges into its parent
  /// (the "large" limit of interface_diagnostics)
  double max_interface_share = 0.2;
};

/// Automatic partition of a shape into a tree of domains. Dijkstra distance over mesh edges from
/// the anchored vertices (free body: from a central vertex); tets cut into distance bands (by the
/// mean distance of their vertices), each band split into face-connected components; a junction
/// component hands its children the tets nearer to them; small components and components
/// breaking the tree property are merged. kBands stops there. kShape treats the components as a
/// skeleton of slices and merges them into limbs: a thick part stays whole, thin appendages are
/// domains, necks and abrupt changes of cross-section are cut, depth <= max_depth (docs/
/// PARTITION.md). notes (optional) receives what a user should know (one domain: no natural
/// decomposition; depth capped). Throws OptionError for bad options, MeshError for an unconnected
/// mesh or, with from_labels, a mesh without labels.
DomainTree partition_branching_mesh(const TetMesh& mesh, const std::vector<int>& anchored_vertices,
                                    const AutomaticPartitionOptions& options = {},
                                    std::vector<std::string>* notes = nullptr);

/// Per tree domain: the interface area (m²) belonging to each mesh vertex of its interface with
/// its parent, one third of every triangle shared by a tet of the domain and a tet of its parent
/// (the root: empty). These weight the interface centroid and fit of Eq. 1-4.
std::vector<std::map<int, double>> interface_vertex_areas(const TetMesh& mesh,
                                                          const DomainTree& tree);

/// The domain's own mesh (#V_d by 3, #T_d by 4), vertices numbered in the order of
/// tree.domain_vertices[domain]; labels, vertex flags and label names kept. local_to_global
/// (optional) receives #V_d global vertex indices. Throws OptionError for a bad domain index.
TetMesh extract_domain_mesh(const TetMesh& mesh, const DomainTree& tree, int domain,
                            std::vector<int>* local_to_global = nullptr);

}  // namespace ramus
