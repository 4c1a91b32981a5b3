// Graphs over a tet mesh for the domain tree and the automatic partition (precompute internals).
#include "tet_graph.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ramus/error.h"

namespace ramus::tet_graph {

using Face = std::array<int, 3>;

// Pairs of tets sharing a triangle face (a face used k > 2 times pairs its first user with the
// rest).
std::vector<Pair> face_neighbors(const Eigen::MatrixX4i& tets) {
  std::vector<std::pair<Face, int>> faces;
  faces.reserve(static_cast<std::size_t>(tets.rows()) * 4);
  for (int t = 0; t < static_cast<int>(tets.rows()); ++t)
    for (const auto& f : kTetFaces) {
      Face v{tets(t, f[0]), tets(t, f[1]), tets(t, f[2])};
      std::sort(v.begin(), v.end());
      faces.emplace_back(v, t);
    }
  std::sort(faces.begin(), faces.end());
  std::vector<Pair> pairs;
  for (std::size_t i = 0; i < faces.size();) {
    std::size_t j = i + 1;
    while (j < faces.size() && faces[j].first == faces[i].first) ++j;
    for (std::size_t k = i + 1; k < j; ++k) pairs.emplace_back(faces[i].second, faces[k].second);
    i = j;
  }
  return pairs;
}

// Number of shared faces between groups a < b, given the group of every tet.
std::map<Pair, int> group_face_counts(const std::vector<Pair>& face_pairs,
                                      const std::vector<int>& group) {
  std::map<Pair, int> counts;
  for (const auto& [s, t] : face_pairs) {
    const int a = group[sz(s)];
    const int b = group[sz(t)];
    if (a != b) ++counts[{std::min(a, b), std::max(a, b)}];
  }
  return counts;
}

// Groups of each vertex (ascending), given the group of every tet.
std::vector<std::vector<int>> vertex_groups(const Eigen::MatrixX4i& tets, int num_vertices,
                                            const std::vector<int>& group) {
  std::vector<std::vector<int>> groups(sz(num_vertices));
  for (int t = 0; t < static_cast<int>(tets.rows()); ++t)
    for (int c = 0; c < 4; ++c) {
      auto& g = groups[sz(tets(t, c))];
      const int d = group[sz(t)];
      const auto it = std::lower_bound(g.begin(), g.end(), d);
      if (it == g.end() || *it != d) g.insert(it, d);
    }
  return groups;
}

// Pairs a < b of groups sharing at least one vertex, with the number of shared vertices.
std::map<Pair, int> group_vertex_counts(const std::vector<std::vector<int>>& vgroups) {
  std::map<Pair, int> counts;
  for (const auto& g : vgroups)
    for (std::size_t i = 0; i < g.size(); ++i)
      for (std::size_t j = i + 1; j < g.size(); ++j) ++counts[{g[i], g[j]}];
  return counts;
}

std::vector<std::vector<int>> adjacency(int n, const std::map<Pair, int>& edges) {
  std::vector<std::vector<int>> adj(sz(n));
  for (const auto& [e, count] : edges) {
    adj[sz(e.first)].push_back(e.second);
    adj[sz(e.second)].push_back(e.first);
  }
  for (auto& a : adj) std::sort(a.begin(), a.end());
  return adj;
}

// A cycle of an undirected graph (nodes in order, first not repeated), or empty for a forest.
std::vector<int> find_cycle(const std::vector<std::vector<int>>& adj) {
  const int n = static_cast<int>(adj.size());
  std::vector<int> parent(sz(n), -1);
  std::vector<int> depth(sz(n), -1);
  for (int start = 0; start < n; ++start) {
    if (depth[sz(start)] >= 0) continue;
    depth[sz(start)] = 0;
    std::queue<int> queue;
    queue.push(start);
    while (!queue.empty()) {
      const int u = queue.front();
      queue.pop();
      for (const int v : adj[sz(u)]) {
        if (depth[sz(v)] < 0) {
          depth[sz(v)] = depth[sz(u)] + 1;
          parent[sz(v)] = u;
          queue.push(v);
        } else if (v != parent[sz(u)] && u != parent[sz(v)]) {
          // Non-tree edge u - v: climb both to their common ancestor.
          std::vector<int> up_u{u};
          std::vector<int> up_v{v};
          int a = u;
          int b = v;
          while (a != b) {
            if (depth[sz(a)] >= depth[sz(b)]) {
              a = parent[sz(a)];
              up_u.push_back(a);
            } else {
              b = parent[sz(b)];
              up_v.push_back(b);
            }
          }
          // up_u ends at the ancestor, up_v too: ancestor -> ... -> u -> v -> ... (ancestor).
          std::vector<int> cycle(up_u.rbegin(), up_u.rend());
          cycle.insert(cycle.end(), up_v.begin(), up_v.end() - 1);
          return cycle;
        }
      }
    }
  }
  return {};
}

// Breadth-first distances (edges) from source; -1 where unreachable.
std::vector<int> bfs_distances(const std::vector<std::vector<int>>& adj, int source) {
  std::vector<int> dist(adj.size(), -1);
  dist[sz(source)] = 0;
  std::queue<int> queue;
  queue.push(source);
  while (!queue.empty()) {
    const int u = queue.front();
    queue.pop();
    for (const int v : adj[sz(u)])
      if (dist[sz(v)] < 0) {
        dist[sz(v)] = dist[sz(u)] + 1;
        queue.push(v);
      }
  }
  return dist;
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

void check_vertex_indices(const TetMesh& mesh, const char* where) {
  const int nv = mesh.num_vertices();
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (int c = 0; c < 4; ++c)
      if (mesh.tets(t, c) < 0 || mesh.tets(t, c) >= nv)
        throw MeshError(std::string(where) + ": tet " + std::to_string(t) + " has vertex index " +
                            std::to_string(mesh.tets(t, c)) + " outside [0, " + std::to_string(nv) +
                            ")",
                        t);
}

void check_anchors(const TetMesh& mesh, const std::vector<int>& anchored, const char* where) {
  for (const int v : anchored)
    if (v < 0 || v >= mesh.num_vertices())
      throw MeshError(std::string(where) + ": anchored vertex " + std::to_string(v) +
                          " does not exist (mesh has " + std::to_string(mesh.num_vertices()) +
                          " vertices)",
                      -1, v);
}

// Face-connected pieces of the tets that share a label: piece id of every tet (0..count-1,
// numbered in order of first tet) and the number of pieces.
std::vector<int> face_connected_pieces(const std::vector<Pair>& face_pairs,
                                       const std::vector<int>& label, int* count) {
  const int nt = static_cast<int>(label.size());
  UnionFind pieces(nt);
  for (const auto& [s, t] : face_pairs)
    if (label[sz(s)] == label[sz(t)]) pieces.merge(s, t);
  std::vector<int> piece(sz(nt)), id(sz(nt), -1);
  int n = 0;
  for (int t = 0; t < nt; ++t) {
    int& i = id[sz(pieces.find(t))];
    if (i < 0) i = n++;
    piece[sz(t)] = i;
  }
  *count = n;
  return piece;
}

// Whether each tet has an anchored vertex (#T).
std::vector<char> anchored_tets(const TetMesh& mesh, const std::vector<int>& anchored_vertices) {
  std::vector<char> is_anchor(sz(mesh.num_vertices()), 0);
  for (const int v : anchored_vertices) is_anchor[sz(v)] = 1;
  std::vector<char> anchored(sz(mesh.num_tets()), 0);
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (int c = 0; c < 4; ++c) anchored[sz(t)] |= is_anchor[sz(mesh.tets(t, c))];
  return anchored;
}

// Multi-source Dijkstra over the weighted vertex graph.
std::vector<double> dijkstra(const std::vector<std::vector<std::pair<int, double>>>& adj,
                             const std::vector<int>& sources) {
  std::vector<double> dist(adj.size(), std::numeric_limits<double>::infinity());
  using Item = std::pair<double, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  for (const int s : sources) {
    dist[sz(s)] = 0.0;
    heap.emplace(0.0, s);
  }
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d > dist[sz(u)]) continue;
    for (const auto& [v, w] : adj[sz(u)])
      if (d + w < dist[sz(v)]) {
        dist[sz(v)] = d + w;
        heap.emplace(d + w, v);
      }
  }
  return dist;
}

}  // namespace ramus::tet_graph
