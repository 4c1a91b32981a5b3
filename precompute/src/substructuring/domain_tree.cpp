#include "ramus/precompute/substructuring/domain_tree.h"

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

namespace ramus {
namespace {

using Face = std::array<int, 3>;
using Pair = std::pair<int, int>;

constexpr std::array<std::array<int, 3>, 4> kTetFaces = {
    {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}}};

std::size_t sz(int i) {
  return static_cast<std::size_t>(i);
}

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

// Union-find over group ids.
struct UnionFind {
  std::vector<int> up;
  explicit UnionFind(int n) : up(sz(n)) { std::iota(up.begin(), up.end(), 0); }
  int find(int x) {
    while (up[sz(x)] != x) x = up[sz(x)] = up[sz(up[sz(x)])];
    return x;
  }
  void merge(int child, int into) { up[sz(find(child))] = find(into); }
};

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

}  // namespace

DomainTree build_domain_tree(const TetMesh& mesh, const Eigen::VectorXi& tet_domain,
                             const std::vector<int>& anchored_vertices,
                             const std::map<int, std::string>& names) {
  const char* where = "build_domain_tree";
  const int nt = mesh.num_tets();
  const int nv = mesh.num_vertices();
  if (nt == 0) throw MeshError("build_domain_tree: the mesh has no tets");
  if (tet_domain.size() != nt)
    throw MeshError("build_domain_tree: tet_domain has " + std::to_string(tet_domain.size()) +
                    " entries, the mesh has " + std::to_string(nt) + " tets");
  check_vertex_indices(mesh, where);
  check_anchors(mesh, anchored_vertices, where);
  for (int t = 0; t < nt; ++t)
    if (tet_domain(t) < 0)
      throw MeshError("build_domain_tree: tet " + std::to_string(t) + " has domain " +
                          std::to_string(tet_domain(t)) + " (domains are 0..d-1)",
                      t);

  DomainTree tree;
  const int d = tet_domain.maxCoeff() + 1;
  tree.num_domains = d;
  tree.tet_domain = tet_domain;
  tree.names.resize(sz(d));
  for (int i = 0; i < d; ++i) {
    const auto it = names.find(i);
    tree.names[sz(i)] = it != names.end() ? it->second : "domain_" + std::to_string(i);
  }
  const auto& name = tree.names;

  tree.domain_tets.assign(sz(d), {});
  for (int t = 0; t < nt; ++t) tree.domain_tets[sz(tet_domain(t))].push_back(t);
  for (int i = 0; i < d; ++i)
    if (tree.domain_tets[sz(i)].empty())
      throw MeshError("build_domain_tree: domain " + std::to_string(i) +
                      (names.count(i) ? " (" + quoted(name[sz(i)]) + ")" : std::string()) +
                      " has no tets");

  std::vector<int> group(tet_domain.data(), tet_domain.data() + nt);
  const std::vector<Pair> face_pairs = face_neighbors(mesh.tets);
  // Each domain one piece: its tets connected through shared faces (a domain of several pieces
  // would have one frame for parts that move apart). The anchored domain may have several (feet
  // anchored apart): its frame is the world's.
  if (d > 1) {
    std::vector<char> anchored(sz(d), 0);
    const std::vector<char> anchored_tet = anchored_tets(mesh, anchored_vertices);
    for (int t = 0; t < nt; ++t)
      if (anchored_tet[sz(t)]) anchored[sz(group[sz(t)])] = 1;
    int num_pieces = 0;
    const std::vector<int> piece = face_connected_pieces(face_pairs, group, &num_pieces);
    std::vector<int> pieces_of_domain(sz(d), 0);
    std::vector<char> counted(sz(num_pieces), 0);
    for (int t = 0; t < nt; ++t)
      if (!counted[sz(piece[sz(t)])]) {
        counted[sz(piece[sz(t)])] = 1;
        ++pieces_of_domain[sz(group[sz(t)])];
      }
    for (int i = 0; i < d; ++i)
      if (pieces_of_domain[sz(i)] > 1 && !anchored[sz(i)]) {
        const int a = tree.domain_tets[sz(i)].front();
        int b = -1;  // the first tet of another piece
        for (const int t : tree.domain_tets[sz(i)])
          if (piece[sz(t)] != piece[sz(a)]) {
            b = t;
            break;
          }
        throw MeshError("build_domain_tree: domain " + quoted(name[sz(i)]) + " falls into " +
                            std::to_string(pieces_of_domain[sz(i)]) +
                            " pieces that share no triangle face (tets " + std::to_string(a) +
                            " and " + std::to_string(b) +
                            " are in different pieces); a domain must be one piece: give each "
                            "piece its own label",
                        b);
      }
  }
  const std::vector<std::vector<int>> vdomains = vertex_groups(mesh.tets, nv, group);
  tree.domain_vertices.assign(sz(d), {});
  for (int v = 0; v < nv; ++v)
    for (const int i : vdomains[sz(v)]) tree.domain_vertices[sz(i)].push_back(v);

  // Domain graph: shared faces; shared vertices without a shared face are an error.
  const std::map<Pair, int> faces = group_face_counts(face_pairs, group);
  for (const auto& [pair, count] : group_vertex_counts(vdomains))
    if (!faces.count(pair))
      throw MeshError("build_domain_tree: domains " + quoted(name[sz(pair.first)]) + " and " +
                      quoted(name[sz(pair.second)]) + " share " + std::to_string(count) +
                      (count == 1 ? " vertex" : " vertices") +
                      " but no triangle face (they touch only at an edge or a vertex); an "
                      "interface must contain a face to transmit a frame");
  const std::vector<std::vector<int>> adj = adjacency(d, faces);

  // Connected, then a tree.
  int largest = 0;
  for (int i = 1; i < d; ++i)
    if (tree.domain_tets[sz(i)].size() > tree.domain_tets[sz(largest)].size()) largest = i;
  const std::vector<int> reach = bfs_distances(adj, largest);
  for (int i = 0; i < d; ++i)
    if (reach[sz(i)] < 0)
      throw MeshError("build_domain_tree: domain " + quoted(name[sz(i)]) +
                      (adj[sz(i)].empty()
                           ? " shares no interface with any other domain"
                           : " is not connected to domain " + quoted(name[sz(largest)])) +
                      ": the domain graph must be connected");
  if (faces.size() != sz(d - 1)) {
    const std::vector<int> cycle = find_cycle(adj);
    std::string text;
    for (const int i : cycle) text += name[sz(i)] + " -> ";
    text += cycle.empty() ? std::string("?") : name[sz(cycle.front())];
    throw MeshError("build_domain_tree: domains form a loop: " + text +
                    "; the domain graph must be a tree");
  }

  // Root: the anchored domain, or the center of the tree.
  if (!anchored_vertices.empty()) {
    std::vector<int> count(sz(d), 0);
    for (const int v : anchored_vertices)
      for (const int i : vdomains[sz(v)]) ++count[sz(i)];
    tree.root = static_cast<int>(std::max_element(count.begin(), count.end()) - count.begin());
    std::set<int> others;
    for (const int v : anchored_vertices) {
      const auto& vd = vdomains[sz(v)];
      if (vd.empty())
        throw MeshError(
            "build_domain_tree: anchored vertex " + std::to_string(v) + " belongs to no tet", -1,
            v);
      if (!std::binary_search(vd.begin(), vd.end(), tree.root)) others.insert(vd.front());
    }
    if (!others.empty()) {
      std::string list;
      for (const int i : others)
        list += ", " + quoted(name[sz(i)]) + " (" + std::to_string(count[sz(i)]) + ")";
      throw MeshError("build_domain_tree: anchored vertices lie in more than one domain: " +
                      quoted(name[sz(tree.root)]) + " (" + std::to_string(count[sz(tree.root)]) +
                      ")" + list + "; anchor one domain only (it becomes the root)");
    }
  } else {
    int best_ecc = std::numeric_limits<int>::max();
    for (int i = 0; i < d; ++i) {
      const std::vector<int> dist = bfs_distances(adj, i);
      const int ecc = *std::max_element(dist.begin(), dist.end());
      if (ecc < best_ecc || (ecc == best_ecc && tree.domain_tets[sz(i)].size() >
                                                    tree.domain_tets[sz(tree.root)].size())) {
        best_ecc = ecc;
        tree.root = i;
      }
    }
  }

  // Orient parent -> child from the root.
  tree.parent.assign(sz(d), -1);
  tree.children.assign(sz(d), {});
  tree.depth = bfs_distances(adj, tree.root);
  for (int i = 0; i < d; ++i)
    for (const int j : adj[sz(i)])
      if (tree.depth[sz(j)] == tree.depth[sz(i)] - 1) tree.parent[sz(i)] = j;
  tree.interface_vertices.assign(sz(d), {});
  for (int i = 0; i < d; ++i) {
    const int p = tree.parent[sz(i)];
    if (p < 0) continue;
    tree.children[sz(p)].push_back(i);
    const auto& a = tree.domain_vertices[sz(i)];
    const auto& b = tree.domain_vertices[sz(p)];
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(),
                          std::back_inserter(tree.interface_vertices[sz(i)]));
  }
  return tree;
}

DomainTree domain_tree_from_labels(const TetMesh& mesh, const std::vector<int>& anchored_vertices) {
  if (!mesh.has_labels())
    throw MeshError("domain_tree_from_labels: the mesh has no labels (" +
                    std::to_string(mesh.labels.size()) + " labels for " +
                    std::to_string(mesh.num_tets()) + " tets)");
  std::vector<int> distinct(mesh.labels.data(), mesh.labels.data() + mesh.labels.size());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::map<int, std::string> names;
  for (std::size_t i = 0; i < distinct.size(); ++i) {
    const auto it = mesh.label_names.find(distinct[i]);
    names[static_cast<int>(i)] =
        it != mesh.label_names.end() ? it->second : "label_" + std::to_string(distinct[i]);
  }
  Eigen::VectorXi tet_domain(mesh.num_tets());
  for (int t = 0; t < mesh.num_tets(); ++t)
    tet_domain(t) = static_cast<int>(
        std::lower_bound(distinct.begin(), distinct.end(), mesh.labels(t)) - distinct.begin());
  return build_domain_tree(mesh, tet_domain, anchored_vertices, names);
}

DomainTree partition_branching_mesh(const TetMesh& mesh, const std::vector<int>& anchored_vertices,
                                    const AutomaticPartitionOptions& options) {
  const char* where = "partition_branching_mesh";
  const int nt = mesh.num_tets();
  const int nv = mesh.num_vertices();
  if (nt == 0) throw MeshError("partition_branching_mesh: the mesh has no tets");
  if (!(options.band_width >= 0.0) || !std::isfinite(options.band_width))
    throw OptionError("partition_branching_mesh: band_width must be finite and >= 0");
  if (options.band_width == 0.0 && options.num_bands < 1)
    throw OptionError("partition_branching_mesh: num_bands must be >= 1");
  if (options.min_domain_tets < 0)
    throw OptionError("partition_branching_mesh: min_domain_tets must be >= 0");
  check_vertex_indices(mesh, where);
  check_anchors(mesh, anchored_vertices, where);

  // Weighted vertex graph over the tet edges.
  std::vector<Pair> edges;
  edges.reserve(sz(nt) * 6);
  for (int t = 0; t < nt; ++t)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b)
        edges.emplace_back(std::min(mesh.tets(t, a), mesh.tets(t, b)),
                           std::max(mesh.tets(t, a), mesh.tets(t, b)));
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<std::vector<std::pair<int, double>>> graph(sz(nv));
  for (const auto& [a, b] : edges) {
    const double w = (mesh.rest_positions.row(a) - mesh.rest_positions.row(b)).norm();
    graph[sz(a)].emplace_back(b, w);
    graph[sz(b)].emplace_back(a, w);
  }

  // Distance from the anchors, or from a central vertex (double sweep) for a free body.
  std::vector<int> sources = anchored_vertices;
  if (sources.empty()) {
    const auto farthest = [&](const std::vector<double>& dist) {
      int best = mesh.tets(0, 0);
      for (int v = 0; v < nv; ++v)
        if (std::isfinite(dist[sz(v)]) && dist[sz(v)] > dist[sz(best)]) best = v;
      return best;
    };
    const int a = farthest(dijkstra(graph, {mesh.tets(0, 0)}));
    const std::vector<double> da = dijkstra(graph, {a});
    const std::vector<double> db = dijkstra(graph, {farthest(da)});
    int center = a;
    for (int v = 0; v < nv; ++v)
      if (std::max(da[sz(v)], db[sz(v)]) < std::max(da[sz(center)], db[sz(center)])) center = v;
    sources = {center};
  }
  const std::vector<double> dist = dijkstra(graph, sources);
  std::vector<double> tet_dist(sz(nt));
  for (int t = 0; t < nt; ++t) {
    double sum = 0.0;
    for (int c = 0; c < 4; ++c) {
      const double dv = dist[sz(mesh.tets(t, c))];
      if (!std::isfinite(dv))
        throw MeshError("partition_branching_mesh: vertex " + std::to_string(mesh.tets(t, c)) +
                            " (tet " + std::to_string(t) +
                            ") is not connected to the anchored region",
                        t, mesh.tets(t, c));
      sum += dv;
    }
    tet_dist[sz(t)] = 0.25 * sum;
  }
  const double max_dist = *std::max_element(tet_dist.begin(), tet_dist.end());
  const bool by_count = options.band_width == 0.0;
  double width = by_count ? max_dist / options.num_bands : options.band_width;
  if (!(width > 0.0)) width = 1.0;
  std::vector<int> band(sz(nt));
  for (int t = 0; t < nt; ++t) {
    int b = static_cast<int>(std::floor(tet_dist[sz(t)] / width));
    if (by_count) b = std::min(b, options.num_bands - 1);
    band[sz(t)] = b;
  }

  // Face-connected components within each band.
  const std::vector<Pair> face_pairs = face_neighbors(mesh.tets);
  int num_comps = 0;
  std::vector<int> comp = face_connected_pieces(face_pairs, band, &num_comps);

  // Junctions: a component with several farther neighbours (children) hands each child the tets
  // nearer to it than to the nearer neighbours (Voronoi over face-adjacent tets), so that two
  // branches leaving one band do not end up in one domain. Nearest components first.
  {
    std::vector<Eigen::Vector3d> centers(sz(nt));
    for (int t = 0; t < nt; ++t) {
      centers[sz(t)].setZero();
      for (int c = 0; c < 4; ++c)
        centers[sz(t)] += mesh.rest_positions.row(mesh.tets(t, c)).transpose() / 4.0;
    }
    std::vector<std::vector<int>> dual(sz(nt));
    for (const auto& [s, t] : face_pairs) {
      dual[sz(s)].push_back(t);
      dual[sz(t)].push_back(s);
    }
    std::vector<int> comp_band(sz(num_comps));
    std::vector<std::vector<int>> members(sz(num_comps));
    for (int t = 0; t < nt; ++t) {
      comp_band[sz(comp[sz(t)])] = band[sz(t)];
      members[sz(comp[sz(t)])].push_back(t);
    }
    std::vector<int> order(sz(num_comps));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return comp_band[sz(a)] < comp_band[sz(b)]; });
    std::vector<double> tdist(sz(nt), std::numeric_limits<double>::infinity());
    std::vector<int> owner(sz(nt), -1);
    for (const int c : order) {
      std::set<int> up;
      bool has_down = false;
      for (const int t : members[sz(c)])
        for (const int n : dual[sz(t)]) {
          const int other = comp[sz(n)];
          if (other == c) continue;
          if (comp_band[sz(other)] > comp_band[sz(c)]) up.insert(other);
          if (comp_band[sz(other)] < comp_band[sz(c)]) has_down = true;
        }
      if (up.size() < 2 || !has_down) continue;
      using Item = std::pair<double, int>;
      std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
      for (const int t : members[sz(c)]) {
        tdist[sz(t)] = std::numeric_limits<double>::infinity();
        owner[sz(t)] = -2;
        for (const int n : dual[sz(t)]) {
          const int other = comp[sz(n)];
          if (other == c) continue;
          // Sources: next to a nearer neighbour (stay, owner c) or to a child (owner: the child).
          const int o = comp_band[sz(other)] < comp_band[sz(c)] ? c : other;
          if (owner[sz(t)] != c) owner[sz(t)] = o;
          tdist[sz(t)] = 0.0;
        }
        if (tdist[sz(t)] == 0.0) heap.emplace(0.0, t);
      }
      while (!heap.empty()) {
        const auto [d, u] = heap.top();
        heap.pop();
        if (d > tdist[sz(u)]) continue;
        for (const int n : dual[sz(u)]) {
          if (comp[sz(n)] != c) continue;
          const double nd = d + (centers[sz(u)] - centers[sz(n)]).norm();
          if (nd < tdist[sz(n)]) {
            tdist[sz(n)] = nd;
            owner[sz(n)] = owner[sz(u)];
            heap.emplace(nd, n);
          }
        }
      }
      // A handed tet may touch only its child and what stays (no new contact between siblings,
      // or with the nearer neighbours), and must reach its child through handed tets.
      const auto owner_of = [&](int n) { return comp[sz(n)] == c ? owner[sz(n)] : comp[sz(n)]; };
      // A handed tet touching a nearer component pulls that tet into c instead (a joint that
      // straddles the band boundary then lies in c).
      std::vector<int> revert;
      std::set<int> pull;
      for (const int t : members[sz(c)]) {
        if (owner[sz(t)] == c || owner[sz(t)] < 0) continue;
        for (const int n : dual[sz(t)]) {
          const int o = owner_of(n);
          if (o == owner[sz(t)] || o == c) continue;
          if (comp[sz(n)] != c && comp_band[sz(o)] < comp_band[sz(c)]) {
            pull.insert(n);
          } else {
            revert.push_back(t);
            break;
          }
        }
      }
      for (const int t : revert) owner[sz(t)] = c;
      for (const int n : pull) {
        auto& from = members[sz(comp[sz(n)])];
        from.erase(std::find(from.begin(), from.end(), n));
        comp[sz(n)] = c;
        owner[sz(n)] = c;
        members[sz(c)].push_back(n);
      }
      std::vector<char> reached(sz(nt), 0);
      std::vector<int> stack;
      for (const int t : members[sz(c)]) {
        if (owner[sz(t)] == c || owner[sz(t)] < 0) continue;
        for (const int n : dual[sz(t)])
          if (comp[sz(n)] == owner[sz(t)]) {
            reached[sz(t)] = 1;
            stack.push_back(t);
            break;
          }
      }
      while (!stack.empty()) {
        const int u = stack.back();
        stack.pop_back();
        for (const int n : dual[sz(u)])
          if (comp[sz(n)] == c && !reached[sz(n)] && owner[sz(n)] == owner[sz(u)]) {
            reached[sz(n)] = 1;
            stack.push_back(n);
          }
      }
      std::vector<int> stay;
      for (const int t : members[sz(c)]) {
        if (!reached[sz(t)]) owner[sz(t)] = c;
        const int o = owner[sz(t)];
        if (o == c || o < 0) {
          stay.push_back(t);
        } else {
          comp[sz(t)] = o;
          members[sz(o)].push_back(t);
        }
      }
      members[sz(c)] = stay;
    }
  }

  // The hand-off can cut a component (or the nearer one a joint was pulled from) into pieces:
  // every face-connected piece becomes a component of its own, so that merging (always along
  // shared faces below) keeps every domain in one piece.
  comp = face_connected_pieces(face_pairs, comp, &num_comps);

  UnionFind groups(num_comps);
  std::vector<int> group(sz(nt));
  const auto refresh = [&]() {
    for (int t = 0; t < nt; ++t) group[sz(t)] = groups.find(comp[sz(t)]);
  };
  // The anchored region is one domain.
  {
    const std::vector<char> anchored_tet = anchored_tets(mesh, anchored_vertices);
    int first = -1;
    for (int t = 0; t < nt; ++t)
      if (anchored_tet[sz(t)]) {
        if (first < 0) first = comp[sz(t)];
        groups.merge(comp[sz(t)], first);
      }
  }
  refresh();

  // Merge small components into the neighbour they share most faces with, smallest first.
  for (;;) {
    std::vector<int> size(sz(num_comps), 0);
    for (int t = 0; t < nt; ++t) ++size[sz(group[sz(t)])];
    const std::map<Pair, int> faces = group_face_counts(face_pairs, group);
    int smallest = -1;
    for (const auto& [pair, count] : faces)
      for (const int g : {pair.first, pair.second})
        if (size[sz(g)] < options.min_domain_tets &&
            (smallest < 0 || size[sz(g)] < size[sz(smallest)]))
          smallest = g;
    if (smallest < 0) break;
    int target = -1;
    int best = 0;
    for (const auto& [pair, count] : faces)
      if ((pair.first == smallest || pair.second == smallest) && count > best) {
        best = count;
        target = pair.first == smallest ? pair.second : pair.first;
      }
    groups.merge(smallest, target);
    refresh();
  }

  // Keep the graph a tree: a component touching another only at an edge / vertex, or closing a
  // loop, merges into its parent (the face neighbour nearest the anchors).
  for (;;) {
    std::vector<double> mean(sz(num_comps), 0.0);
    std::vector<int> size(sz(num_comps), 0);
    for (int t = 0; t < nt; ++t) {
      mean[sz(group[sz(t)])] += tet_dist[sz(t)];
      ++size[sz(group[sz(t)])];
    }
    for (int g = 0; g < num_comps; ++g)
      if (size[sz(g)] > 0) mean[sz(g)] /= size[sz(g)];
    const std::map<Pair, int> faces = group_face_counts(face_pairs, group);
    const std::vector<std::vector<int>> adj = adjacency(num_comps, faces);
    // The face neighbour nearest the anchors (merging along a face keeps domains in one
    // piece); the fallback only when g has no face neighbour.
    const auto parent_of = [&](int g, int fallback) {
      int p = -1;
      for (const int n : adj[sz(g)])
        if (p < 0 || mean[sz(n)] < mean[sz(p)]) p = n;
      return p < 0 ? fallback : p;
    };
    int child = -1;
    int into = -1;
    for (const auto& [pair, count] : group_vertex_counts(vertex_groups(mesh.tets, nv, group)))
      if (!faces.count(pair)) {
        const bool second_farther = mean[sz(pair.second)] >= mean[sz(pair.first)];
        child = second_farther ? pair.second : pair.first;
        into = parent_of(child, second_farther ? pair.first : pair.second);
        break;
      }
    if (child < 0) {
      const std::vector<int> cycle = find_cycle(adj);
      if (cycle.empty()) break;
      const std::size_t n = cycle.size();
      std::size_t k = 0;
      for (std::size_t i = 1; i < n; ++i)
        if (mean[sz(cycle[i])] > mean[sz(cycle[k])]) k = i;
      const int prev = cycle[(k + n - 1) % n];
      const int next = cycle[(k + 1) % n];
      child = cycle[k];
      into = mean[sz(prev)] <= mean[sz(next)] ? prev : next;
    }
    groups.merge(child, into);
    refresh();
  }

  // Number the domains by distance from the anchors (the root region first).
  std::vector<int> order;
  std::vector<double> min_dist(sz(num_comps), std::numeric_limits<double>::infinity());
  for (int t = 0; t < nt; ++t)
    min_dist[sz(group[sz(t)])] = std::min(min_dist[sz(group[sz(t)])], tet_dist[sz(t)]);
  for (int g = 0; g < num_comps; ++g)
    if (std::isfinite(min_dist[sz(g)])) order.push_back(g);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return min_dist[sz(a)] < min_dist[sz(b)]; });
  std::vector<int> domain_of_group(sz(num_comps), -1);
  for (std::size_t i = 0; i < order.size(); ++i)
    domain_of_group[sz(order[i])] = static_cast<int>(i);
  Eigen::VectorXi tet_domain(nt);
  for (int t = 0; t < nt; ++t) tet_domain(t) = domain_of_group[sz(group[sz(t)])];
  return build_domain_tree(mesh, tet_domain, anchored_vertices);
}

TetMesh extract_domain_mesh(const TetMesh& mesh, const DomainTree& tree, int domain,
                            std::vector<int>* local_to_global) {
  if (domain < 0 || domain >= tree.num_domains)
    throw OptionError("extract_domain_mesh: domain " + std::to_string(domain) +
                      " does not exist (" + std::to_string(tree.num_domains) + " domains)");
  const std::vector<int>& vertices = tree.domain_vertices[sz(domain)];
  const std::vector<int>& tets = tree.domain_tets[sz(domain)];
  std::vector<int> local(sz(mesh.num_vertices()), -1);
  TetMesh out;
  out.rest_positions.resize(static_cast<Eigen::Index>(vertices.size()), 3);
  for (std::size_t i = 0; i < vertices.size(); ++i) {
    local[sz(vertices[i])] = static_cast<int>(i);
    out.rest_positions.row(static_cast<Eigen::Index>(i)) = mesh.rest_positions.row(vertices[i]);
  }
  out.tets.resize(static_cast<Eigen::Index>(tets.size()), 4);
  for (std::size_t i = 0; i < tets.size(); ++i)
    for (int c = 0; c < 4; ++c)
      out.tets(static_cast<Eigen::Index>(i), c) = local[sz(mesh.tets(tets[i], c))];
  if (mesh.has_labels()) {
    out.labels.resize(static_cast<Eigen::Index>(tets.size()));
    for (std::size_t i = 0; i < tets.size(); ++i)
      out.labels(static_cast<Eigen::Index>(i)) = mesh.labels(tets[i]);
  }
  if (mesh.vertex_flags.size() == mesh.num_vertices() && mesh.num_vertices() > 0) {
    out.vertex_flags.resize(static_cast<Eigen::Index>(vertices.size()));
    for (std::size_t i = 0; i < vertices.size(); ++i)
      out.vertex_flags(static_cast<Eigen::Index>(i)) = mesh.vertex_flags(vertices[i]);
  }
  out.label_names = mesh.label_names;
  if (local_to_global) *local_to_global = vertices;
  return out;
}

}  // namespace ramus
