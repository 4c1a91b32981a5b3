// The automatic partition of a branching mesh into a tree of domains (domain_tree.h,
// partition_branching_mesh), as a sequence of named steps: geodesic distance from the anchors,
// distance bands, face-connected components, the hand-off at junctions, merging small
// components, merging into a tree, numbering root first.
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
#include "partition_stages.h"
#include "ramus/error.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "tet_graph.h"

namespace ramus {

using namespace tet_graph;
using namespace partition;

namespace {

// The vertex graph over the tet edges, weighted by rest length.
WeightedGraph edge_graph(const TetMesh& mesh) {
  const int nt = mesh.num_tets();
  const int nv = mesh.num_vertices();
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

  return graph;
}

// Geodesic distance of every tet (mean over its corners) from the anchors, or from a central
// vertex (double sweep) for a free body.
std::vector<double> tet_distances(const TetMesh& mesh, const std::vector<int>& anchored_vertices,
                                  const WeightedGraph& graph) {
  const int nt = mesh.num_tets();
  const int nv = mesh.num_vertices();
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
        throw MeshError("automatic partition: vertex " + std::to_string(mesh.tets(t, c)) +
                            " (tet " + std::to_string(t) +
                            ") is not connected to the anchored region",
                        t, mesh.tets(t, c));
      sum += dv;
    }
    tet_dist[sz(t)] = 0.25 * sum;
  }
  return tet_dist;
}

// Width of the distance bands: band_width, else max distance / num_bands, else (kBands) 12 bands
// or (kShape) slices about two median edges thick (at least 1/200 of the max distance).
double band_width(const std::vector<double>& tet_dist, const WeightedGraph& graph,
                  const AutomaticPartitionOptions& options) {
  const double max_dist = *std::max_element(tet_dist.begin(), tet_dist.end());
  double width = options.band_width;
  if (width == 0.0 && options.num_bands > 0) width = max_dist / options.num_bands;
  if (width == 0.0 && options.method == AutomaticPartitionOptions::Method::kBands)
    width = max_dist / 12;
  if (width == 0.0) {
    std::vector<double> lengths;
    for (const auto& edges : graph)
      for (const auto& [other, length] : edges) lengths.push_back(length);
    std::nth_element(lengths.begin(), lengths.begin() + std::ssize(lengths) / 2, lengths.end());
    width = std::max(2.0 * lengths[lengths.size() / 2], max_dist / 200);
  }
  return width > 0.0 ? width : 1.0;
}

// The distance band of every tet (bands of `width`; with num_bands, the last band is closed).
std::vector<int> distance_bands(const std::vector<double>& tet_dist, double width,
                                const AutomaticPartitionOptions& options) {
  const int nt = static_cast<int>(tet_dist.size());
  const bool by_count = options.band_width == 0.0 && options.num_bands > 0;
  std::vector<int> band(sz(nt));
  for (int t = 0; t < nt; ++t) {
    int b = static_cast<int>(std::floor(tet_dist[sz(t)] / width));
    if (by_count) b = std::min(b, options.num_bands - 1);
    band[sz(t)] = b;
  }

  return band;
}

// Junctions: a component with several farther neighbours (children) hands each child the tets
// nearer to it than to the nearer neighbours (Voronoi over face-adjacent tets), so that two
// branches leaving one band do not end up in one domain. Nearest components first. Updates
// `comp` (the component of every tet).
void hand_off_junctions(const TetMesh& mesh, const std::vector<Pair>& face_pairs,
                        const std::vector<int>& band, int num_comps, std::vector<int>& comp) {
  const int nt = mesh.num_tets();
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

// Merges components smaller than options.min_domain_tets into the neighbour they share most
// faces with (of the same label when labels, #T, are given and such a neighbour exists),
// smallest first.
void merge_small_components(const std::vector<Pair>& face_pairs, int num_comps,
                            const AutomaticPartitionOptions& options,
                            const std::vector<int>& labels, UnionFind& groups,
                            std::vector<int>& group, const std::function<void()>& refresh) {
  const int nt = static_cast<int>(group.size());
  for (;;) {
    std::vector<int> size(sz(num_comps), 0);
    std::vector<int> label(sz(num_comps), 0);
    for (int t = 0; t < nt; ++t) {
      ++size[sz(group[sz(t)])];
      if (!labels.empty()) label[sz(group[sz(t)])] = labels[sz(t)];
    }
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
    bool best_same = false;
    for (const auto& [pair, count] : faces) {
      if (pair.first != smallest && pair.second != smallest) continue;
      const int other = pair.first == smallest ? pair.second : pair.first;
      const bool same = label[sz(other)] == label[sz(smallest)];
      if ((same && !best_same) || (same == best_same && count > best)) {
        best = count;
        best_same = same;
        target = other;
      }
    }
    groups.merge(smallest, target);
    refresh();
  }
}

// Keeps the graph a tree: a component touching another only at an edge / vertex, or closing a
// loop, merges into its parent (the face neighbour nearest the anchors).
void merge_into_tree(const TetMesh& mesh, const std::vector<Pair>& face_pairs, int num_comps,
                     const std::vector<double>& tet_dist, UnionFind& groups,
                     std::vector<int>& group, const std::function<void()>& refresh) {
  const int nt = mesh.num_tets();
  const int nv = mesh.num_vertices();
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
}

// The domain of every tet: groups numbered by distance from the anchors (the root region first).
Eigen::VectorXi number_by_distance(int num_comps, const std::vector<double>& tet_dist,
                                   const std::vector<int>& group) {
  const int nt = static_cast<int>(group.size());
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
  return tet_domain;
}

}  // namespace

DomainTree partition_branching_mesh(const TetMesh& mesh, const std::vector<int>& anchored_vertices,
                                    const AutomaticPartitionOptions& options,
                                    std::vector<std::string>* notes) {
  using Method = AutomaticPartitionOptions::Method;
  const char* where = "automatic partition";
  const int nt = mesh.num_tets();
  if (nt == 0) throw MeshError("automatic partition: the mesh has no tets");
  if (!(options.band_width >= 0.0) || !std::isfinite(options.band_width))
    throw OptionError("automatic partition: band_width must be finite and >= 0");
  if (options.num_bands < 0) throw OptionError("automatic partition: num_bands must be >= 0");
  if (options.min_domain_tets < 0)
    throw OptionError("automatic partition: min_domain_tets must be >= 0");
  if (!(options.dominance >= 1.0) || !std::isfinite(options.dominance))
    throw OptionError("automatic partition: dominance must be finite and >= 1");
  if (!(options.neck_contrast > 1.0) || !std::isfinite(options.neck_contrast))
    throw OptionError("automatic partition: neck_contrast must be finite and > 1");
  if (options.max_depth < 0) throw OptionError("automatic partition: max_depth must be >= 0");
  if (!(options.max_interface_share > 0.0) || !std::isfinite(options.max_interface_share))
    throw OptionError("automatic partition: max_interface_share must be finite and > 0");
  const bool shape = options.method == Method::kShape;
  if (options.from_labels && (!shape || mesh.labels.size() != nt))
    throw MeshError(shape ? "automatic partition: from_labels needs a label per tet (the mesh has "
                            "none: a Gmsh physical volume, TetGen region or label_file)"
                          : "automatic partition: from_labels needs the \"shape\" method");
  check_vertex_indices(mesh, where);
  check_anchors(mesh, anchored_vertices, where);

  const WeightedGraph graph = edge_graph(mesh);
  const std::vector<double> tet_dist = tet_distances(mesh, anchored_vertices, graph);
  const double width = band_width(tet_dist, graph, options);
  std::vector<int> band = distance_bands(tet_dist, width, options);
  std::vector<int> labels;
  if (options.from_labels) labels.assign(mesh.labels.data(), mesh.labels.data() + nt);

  // Face-connected components within each band (and label), then the hand-off at junctions.
  const std::vector<Pair> face_pairs = face_neighbors(mesh.tets);
  int num_comps = 0;
  std::vector<int> comp;
  if (options.from_labels) {
    std::vector<int> band_label(sz(nt));
    const int num_labels = static_cast<int>(std::set<int>(labels.begin(), labels.end()).size());
    std::map<int, int> index;
    for (const int l : labels) index.emplace(l, static_cast<int>(index.size()));
    for (int t = 0; t < nt; ++t)
      band_label[sz(t)] = band[sz(t)] * num_labels + index[labels[sz(t)]];
    comp = face_connected_pieces(face_pairs, band_label, &num_comps);
  } else {
    comp = face_connected_pieces(face_pairs, band, &num_comps);
  }
  hand_off_junctions(mesh, face_pairs, band, num_comps, comp);

  // The hand-off can cut a component (or the nearer one a joint was pulled from) into pieces:
  // every face-connected piece becomes a component of its own, so that merging (always along
  // shared faces below) keeps every domain in one piece.
  comp = face_connected_pieces(face_pairs, comp, &num_comps);

  UnionFind groups(num_comps);
  std::vector<int> group(sz(nt));
  const std::function<void()> refresh = [&]() {
    for (int t = 0; t < nt; ++t) group[sz(t)] = groups.find(comp[sz(t)]);
  };
  // The anchored region is one domain.
  const std::vector<char> anchored_tet = anchored_tets(mesh, anchored_vertices);
  {
    int first = -1;
    for (int t = 0; t < nt; ++t)
      if (anchored_tet[sz(t)]) {
        if (first < 0) first = comp[sz(t)];
        groups.merge(comp[sz(t)], first);
      }
  }
  refresh();
  // kShape merges only banding noise here (slices stay fine); pieces too small to be domains
  // are merged by the limb segmentation.
  AutomaticPartitionOptions slice_options = options;
  if (shape) slice_options.min_domain_tets = std::max(1, options.min_domain_tets / 4);
  merge_small_components(face_pairs, num_comps, slice_options, labels, groups, group, refresh);
  merge_into_tree(mesh, face_pairs, num_comps, tet_dist, groups, group, refresh);
  if (!shape)
    return build_domain_tree(mesh, number_by_distance(num_comps, tet_dist, group),
                             anchored_vertices);

  limb_segmentation::LimbDomains limbs;
  const std::vector<int> domain_of_group = shape_domains(
      mesh, face_pairs, tet_dist, width, labels, num_comps, group,
      anchored_vertices.empty() ? std::vector<char>{} : anchored_tet, options, &limbs);
  std::vector<int> domain(sz(nt));
  for (int t = 0; t < nt; ++t) domain[sz(t)] = domain_of_group[sz(group[sz(t)])];
  merge_large_interfaces(mesh, face_pairs, limbs.num_domains, 0, options.max_interface_share,
                         domain);
  pull_interfaces_to_junctions(mesh, face_pairs, vertex_depths(mesh, graph), labels,
                               limbs.num_domains, 0, anchored_tet, domain);
  DomainTree tree = build_domain_tree(mesh, number_by_distance(limbs.num_domains, tet_dist, domain),
                                      anchored_vertices);
  tree.names = shape_names(mesh, tree, !anchored_vertices.empty(), options.from_labels);
  if (notes) {
    if (tree.num_domains == 1 && limbs.depth_merges == 0)
      notes->push_back(
          "automatic partition: the shape has no thin part, junction or neck to cut "
          "at, so it is one domain (" +
          std::to_string(nt) +
          " tets); to cut it anyway, give the mesh labels and use \"partition\": "
          "\"labels\"");
    if (limbs.depth_merges > 0)
      notes->push_back("automatic partition: " + std::to_string(limbs.depth_merges) +
                       " pieces merged into their parents to keep the tree within max_depth " +
                       std::to_string(options.max_depth));
  }
  return tree;
}

}  // namespace ramus
