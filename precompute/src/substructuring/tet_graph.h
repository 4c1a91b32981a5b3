// Graphs over a tet mesh shared by the domain tree and its automatic partition (precompute
// internals): face adjacency of tets, group adjacency and cycles, union-find, geodesic distances
// over the edge graph, and the mesh checks both entry points start with.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstddef>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus::tet_graph {

using Pair = std::pair<int, int>;

/// The faces of a tet as corner triples, outward for a positive tet.
inline constexpr std::array<std::array<int, 3>, 4> kTetFaces = {
    {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}}};

inline std::size_t sz(int i) {
  return static_cast<std::size_t>(i);
}

/// Union-find over group ids.
struct UnionFind {
  std::vector<int> up;
  explicit UnionFind(int n) : up(sz(n)) { std::iota(up.begin(), up.end(), 0); }
  int find(int x) {
    while (up[sz(x)] != x) x = up[sz(x)] = up[sz(up[sz(x)])];
    return x;
  }
  void merge(int child, int into) { up[sz(find(child))] = find(into); }
};

/// Pairs of tets sharing a triangle face (a face used k > 2 times pairs its first user with the
/// rest).
std::vector<Pair> face_neighbors(const Eigen::MatrixX4i& tets);
/// Number of shared faces between groups a < b, given the group of every tet.
std::map<Pair, int> group_face_counts(const std::vector<Pair>& face_pairs,
                                      const std::vector<int>& group);
/// Groups of each vertex (ascending), given the group of every tet.
std::vector<std::vector<int>> vertex_groups(const Eigen::MatrixX4i& tets, int num_vertices,
                                            const std::vector<int>& group);
/// Pairs a < b of groups sharing at least one vertex, with the number of shared vertices.
std::map<Pair, int> group_vertex_counts(const std::vector<std::vector<int>>& vgroups);
/// Sorted adjacency lists of n nodes from an edge map.
std::vector<std::vector<int>> adjacency(int n, const std::map<Pair, int>& edges);
/// A cycle of an undirected graph (nodes in order, first not repeated), or empty for a forest.
std::vector<int> find_cycle(const std::vector<std::vector<int>>& adj);
/// Breadth-first distances (edges) from source; -1 where unreachable.
std::vector<int> bfs_distances(const std::vector<std::vector<int>>& adj, int source);
/// 's' in quotes, for messages.
std::string quoted(const std::string& s);
/// MeshError naming `where` and the tet when a tet's vertex index is out of range.
void check_vertex_indices(const TetMesh& mesh, const char* where);
/// MeshError when an anchored vertex index is out of range.
void check_anchors(const TetMesh& mesh, const std::vector<int>& anchored, const char* where);
/// Face-connected pieces of the tets that share a label: piece id of every tet (0..count-1,
/// numbered in order of first tet) and the number of pieces.
std::vector<int> face_connected_pieces(const std::vector<Pair>& face_pairs,
                                       const std::vector<int>& label, int* count);
/// Whether each tet has an anchored vertex (#T).
std::vector<char> anchored_tets(const TetMesh& mesh, const std::vector<int>& anchored_vertices);
/// Multi-source Dijkstra over a weighted vertex graph (adjacency lists of (vertex, length)).
std::vector<double> dijkstra(const std::vector<std::vector<std::pair<int, double>>>& adj,
                             const std::vector<int>& sources);

}  // namespace ramus::tet_graph
