// The automatic partition's shape method (docs/PARTITION.md): the slices' tree becomes limbs
// and domains (limb_segmentation.h), named after the labels and their place in the tree.
#include "partition_stages.h"

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>
#include "limb_segmentation.h"
#include "ramus/error.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "tet_graph.h"

namespace ramus::partition {

using namespace tet_graph;

namespace {

// Unsigned volume of tet t (m³).
double tet_volume(const TetMesh& mesh, int t) {
  const Eigen::RowVector3d a = mesh.rest_positions.row(mesh.tets(t, 0));
  Eigen::Matrix3d e;
  for (int c = 0; c < 3; ++c) e.row(c) = mesh.rest_positions.row(mesh.tets(t, c + 1)) - a;
  return std::abs(e.determinant()) / 6.0;
}

}  // namespace

// The kShape step: the groups (a tree of slices by face adjacency) become skeleton nodes with
// their volume, extent along the distance and label, and are segmented into limbs
// (limb_segmentation.h). Returns the domain of every group id (-1 for unused ids) and the count.
std::vector<int> shape_domains(const TetMesh& mesh, const std::vector<Pair>& face_pairs,
                               const std::vector<double>& tet_dist, double width,
                               const std::vector<int>& labels, int num_comps,
                               const std::vector<int>& group, const std::vector<char>& anchored_tet,
                               const AutomaticPartitionOptions& options,
                               limb_segmentation::LimbDomains* result) {
  namespace ls = limb_segmentation;
  const int nt = mesh.num_tets();
  // Compact node ids for the groups in use, with their statistics.
  std::vector<int> node_of_group(sz(num_comps), -1);
  std::vector<int> group_of_node;
  for (int t = 0; t < nt; ++t)
    if (node_of_group[sz(group[sz(t)])] < 0) {
      node_of_group[sz(group[sz(t)])] = static_cast<int>(group_of_node.size());
      group_of_node.push_back(group[sz(t)]);
    }
  const int n = static_cast<int>(group_of_node.size());
  std::vector<ls::SkeletonNode> nodes(sz(n));
  std::vector<double> lo(sz(n), std::numeric_limits<double>::infinity());
  std::vector<double> hi(sz(n), -std::numeric_limits<double>::infinity());
  std::vector<std::map<int, int>> label_count(sz(n));
  int root = -1;
  for (int t = 0; t < nt; ++t) {
    const int k = node_of_group[sz(group[sz(t)])];
    ls::SkeletonNode& node = nodes[sz(k)];
    ++node.tets;
    node.volume += tet_volume(mesh, t);
    lo[sz(k)] = std::min(lo[sz(k)], tet_dist[sz(t)]);
    hi[sz(k)] = std::max(hi[sz(k)], tet_dist[sz(t)]);
    if (!labels.empty()) ++label_count[sz(k)][labels[sz(t)]];
    if (anchored_tet.empty() ? (root < 0 || tet_dist[sz(t)] == 0.0) : anchored_tet[sz(t)] != 0)
      root = k;
  }
  if (anchored_tet.empty()) {
    int nearest = 0;
    for (int t = 0; t < nt; ++t)
      if (tet_dist[sz(t)] < tet_dist[sz(nearest)]) nearest = t;
    root = node_of_group[sz(group[sz(nearest)])];
  }
  for (int k = 0; k < n; ++k) {
    nodes[sz(k)].length = std::max(hi[sz(k)] - lo[sz(k)], width);
    int best = 0;
    for (const auto& [label, count] : label_count[sz(k)])
      if (count > best) {
        best = count;
        nodes[sz(k)].label = label;
      }
  }
  // Parents: breadth first from the root over shared faces (the groups form a tree).
  std::map<Pair, int> node_faces;
  for (const auto& [pair, count] : group_face_counts(face_pairs, group)) {
    const int a = node_of_group[sz(pair.first)];
    const int b = node_of_group[sz(pair.second)];
    node_faces[{std::min(a, b), std::max(a, b)}] = count;
  }
  const std::vector<std::vector<int>> adj = adjacency(n, node_faces);
  const std::vector<int> level = bfs_distances(adj, root);
  for (int k = 0; k < n; ++k)
    for (const int other : adj[sz(k)])
      if (level[sz(other)] == level[sz(k)] - 1) nodes[sz(k)].parent = other;

  ls::LimbOptions limb;
  limb.dominance = options.dominance;
  limb.neck_contrast = options.neck_contrast;
  limb.min_domain_tets = options.min_domain_tets;
  limb.max_depth = options.max_depth;
  *result = ls::segment_limbs(nodes, limb);
  std::vector<int> domain_of_group(sz(num_comps), -1);
  for (int k = 0; k < n; ++k)
    domain_of_group[sz(group_of_node[sz(k)])] = result->domain_of_node[sz(k)];
  return domain_of_group;
}

// Names of a kShape tree: after the labels ("stem", "stem_2" when a label holds several domains,
// in order of distance) with from_labels, else after the tree: "base" (anchored) or "core" (free)
// for the root, "limb_<k>" for its k-th child, "limb_<k>_<j>" for that one's j-th child.
std::vector<std::string> shape_names(const TetMesh& mesh, const DomainTree& tree, bool anchored,
                                     bool from_labels) {
  std::vector<std::string> names(sz(tree.num_domains));
  if (from_labels) {
    std::map<int, std::vector<int>> by_label;
    for (int d = 0; d < tree.num_domains; ++d) {
      std::map<int, int> count;
      for (const int t : tree.domain_tets[sz(d)]) ++count[mesh.labels(t)];
      const auto top =
          std::max_element(count.begin(), count.end(),
                           [](const auto& a, const auto& b) { return a.second < b.second; });
      by_label[top->first].push_back(d);
    }
    for (const auto& [label, domains] : by_label) {
      const auto named = mesh.label_names.find(label);
      const std::string base =
          named != mesh.label_names.end() ? named->second : "label_" + std::to_string(label);
      for (std::size_t i = 0; i < domains.size(); ++i)
        names[sz(domains[i])] = i == 0 ? base : base + "_" + std::to_string(i + 1);
    }
    return names;
  }
  names[sz(tree.root)] = anchored ? "base" : "core";
  std::vector<int> stack{tree.root};
  while (!stack.empty()) {
    const int d = stack.back();
    stack.pop_back();
    const auto& kids = tree.children[sz(d)];
    for (std::size_t k = 0; k < kids.size(); ++k) {
      names[sz(kids[k])] =
          (d == tree.root ? std::string("limb") : names[sz(d)]) + "_" + std::to_string(k + 1);
      stack.push_back(kids[k]);
    }
  }
  return names;
}

}  // namespace ramus::partition
