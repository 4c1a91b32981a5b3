// The automatic partition's stages (precompute internals) beyond automatic_partition.cpp: the
// shape method's domains and names (shape_partition.cpp), where the interfaces between the
// domains lie (interface_placement.cpp).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "limb_segmentation.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "tet_graph.h"

namespace ramus::partition {

using tet_graph::Pair;

/// The vertex graph over the tet edges: each vertex's neighbours and the edges' rest lengths.
using WeightedGraph = std::vector<std::vector<std::pair<int, double>>>;

// Merges every non-root domain whose interface with its parent exceeds max_share of its surface
// (a stub or a slab, no appendage: interface_diagnostics would call it large) into that parent,
// the largest share first. domain (#T) is updated in place; returns the merges made.
int merge_large_interfaces(const TetMesh& mesh, const std::vector<Pair>& face_pairs,
                           int num_domains, int root, double max_share, std::vector<int>& domain);

// Depth of every vertex below the boundary surface: the edge-graph distance to the nearest
// vertex of a boundary face (0 on the surface).
std::vector<double> vertex_depths(const TetMesh& mesh, const WeightedGraph& graph);

// Moves every child domain's interface back to where its limb leaves its parent. The level
// sets part a limb from its parent one or two radii past the junction, so the parent keeps a
// stub of the limb (and the limb's stiffest section is clamped inside the parent's basis).
// The stub: the parent's tets face-connected to the child, inside the limb's cylinder (axis
// towards the child's tets within four radii; radius: the interface's), at most four radii
// behind the interface, and no deeper below the surface than the interface's deepest vertex (or
// half its radius). Anchored tets, tets touching a third domain and (with labels) tets of
// another label than the child's stay. Pieces of the parent the stub cuts off join the child.
// domain (#T) is updated; returns the number of tets moved.
int pull_interfaces_to_junctions(const TetMesh& mesh, const std::vector<Pair>& face_pairs,
                                 const std::vector<double>& depth, const std::vector<int>& labels,
                                 int num_domains, int root, const std::vector<char>& anchored_tet,
                                 std::vector<int>& domain);

// The kShape step: the groups (a tree of slices by face adjacency) become skeleton nodes with
// their volume, extent along the distance and label, and are segmented into limbs
// (limb_segmentation.h). Returns the domain of every group id (-1 for unused ids) and the count.
std::vector<int> shape_domains(const TetMesh& mesh, const std::vector<Pair>& face_pairs,
                               const std::vector<double>& tet_dist, double width,
                               const std::vector<int>& labels, int num_comps,
                               const std::vector<int>& group, const std::vector<char>& anchored_tet,
                               const AutomaticPartitionOptions& options,
                               limb_segmentation::LimbDomains* result);

// Names of a kShape tree: after the labels ("stem", "stem_2" when a label holds several domains,
// in order of distance) with from_labels, else after the tree: "base" (anchored) or "core" (free)
// for the root, "limb_<k>" for its k-th child, "limb_<k>_<j>" for that one's j-th child.
std::vector<std::string> shape_names(const TetMesh& mesh, const DomainTree& tree, bool anchored,
                                     bool from_labels);

}  // namespace ramus::partition
