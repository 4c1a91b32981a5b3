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

/// Options of partition_branching_mesh.
struct AutomaticPartitionOptions {
  int num_bands = 12;        ///< distance bands when band_width <= 0 (width = max distance / n)
  double band_width = 0.0;   ///< band width in metres of graph distance; <= 0: use num_bands
  int min_domain_tets = 48;  ///< smaller components merge into their most face-sharing neighbour
};

/// Automatic partition of a branching shape without labels: Dijkstra distance over mesh edges
/// from the anchored vertices (free body: from a central vertex), tets cut into distance bands
/// (by the mean distance of their vertices), each band split into face-connected components; a
/// junction component hands its children the tets nearer to them (so branches leaving one band
/// stay apart); small components and components breaking the tree property are merged; then
/// build_domain_tree. Throws OptionError for bad options, MeshError for an unconnected mesh.
DomainTree partition_branching_mesh(const TetMesh& mesh, const std::vector<int>& anchored_vertices,
                                    const AutomaticPartitionOptions& options = {});

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
