#include "ramus/precompute/substructuring/domain_tree.h"

#include <Eigen/Geometry>
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

#include "ramus/error.h"
#include "tet_graph.h"

namespace ramus {

using namespace tet_graph;

DomainTree build_domain_tree(const TetMesh& mesh, const Eigen::VectorXi& tet_domain,
                             const std::vector<int>& anchored_vertices,
                             const std::map<int, std::string>& names) {
  const char* where = "domains";
  const int nt = mesh.num_tets();
  const int nv = mesh.num_vertices();
  if (nt == 0) throw MeshError("domains: the mesh has no tets");
  if (tet_domain.size() != nt)
    throw MeshError("domains: tet_domain has " + std::to_string(tet_domain.size()) +
                    " entries, the mesh has " + std::to_string(nt) + " tets");
  check_vertex_indices(mesh, where);
  check_anchors(mesh, anchored_vertices, where);
  for (int t = 0; t < nt; ++t)
    if (tet_domain(t) < 0)
      throw MeshError("domains: tet " + std::to_string(t) + " has domain " +
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
      throw MeshError("domains: domain " + std::to_string(i) +
                      (names.count(i) ? " (" + quoted(name[sz(i)]) + ")" : std::string()) +
                      " has no tets");

  std::vector<int> group(tet_domain.data(), tet_domain.data() + nt);
  const std::vector<Pair> face_pairs = face_neighbors(mesh.tets);
  // Each domain one piece: its tets connected through shared faces (a domain of several pieces
  // would have one frame for parts that move apart). The anchored domain may have several (feet
  // anchored apart, each piece anchored): its frame is the world's.
  {
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
    // An anchored domain of several pieces: every piece must be anchored itself (one that is
    // not floats: no frame holds it, and its modes would not exist).
    std::vector<char> piece_anchored(sz(num_pieces), 0);
    for (int t = 0; t < nt; ++t)
      if (anchored_tet[sz(t)]) piece_anchored[sz(piece[sz(t)])] = 1;
    for (int i = 0; i < d; ++i) {
      if (pieces_of_domain[sz(i)] < 2 || !anchored[sz(i)]) continue;
      for (const int t : tree.domain_tets[sz(i)])
        if (!piece_anchored[sz(piece[sz(t)])])
          throw MeshError("domains: domain " + quoted(name[sz(i)]) + " falls into " +
                              std::to_string(pieces_of_domain[sz(i)]) +
                              " pieces that share no triangle face, and the piece of tet " +
                              std::to_string(t) +
                              " touches no fixed vertex (it would float); a domain must be one "
                              "piece, or every piece anchored: give it its own label",
                          t);
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
        throw MeshError("domains: domain " + quoted(name[sz(i)]) + " falls into " +
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
      throw MeshError("domains: domains " + quoted(name[sz(pair.first)]) + " and " +
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
      throw MeshError("domains: domain " + quoted(name[sz(i)]) +
                      (adj[sz(i)].empty()
                           ? " shares no interface with any other domain"
                           : " is not connected to domain " + quoted(name[sz(largest)])) +
                      ": the domain graph must be connected");
  if (faces.size() != sz(d - 1)) {
    const std::vector<int> cycle = find_cycle(adj);
    std::string text;
    for (const int i : cycle) text += name[sz(i)] + " -> ";
    text += cycle.empty() ? std::string("?") : name[sz(cycle.front())];
    throw MeshError("domains: domains form a loop: " + text + "; the domain graph must be a tree");
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
      throw MeshError("domains: anchored vertices lie in more than one domain: " +
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
    throw MeshError("domains: the \"labels\" partition needs a label per tet, but the mesh has " +
                    std::to_string(mesh.labels.size()) + " labels for " +
                    std::to_string(mesh.num_tets()) +
                    " tets; label the mesh (Gmsh physical volumes, OBJ groups, TetGen region "
                    "attributes), give domains.label_file, or use \"partition\": \"automatic\"");
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

std::vector<std::map<int, double>> interface_vertex_areas(const TetMesh& mesh,
                                                          const DomainTree& tree) {
  std::vector<std::pair<std::array<int, 3>, int>> faces;
  faces.reserve(sz(mesh.num_tets()) * 4);
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (const auto& f : kTetFaces) {
      std::array<int, 3> v{mesh.tets(t, f[0]), mesh.tets(t, f[1]), mesh.tets(t, f[2])};
      std::sort(v.begin(), v.end());
      faces.emplace_back(v, t);
    }
  std::sort(faces.begin(), faces.end());
  std::vector<std::map<int, double>> areas(sz(tree.num_domains));
  for (std::size_t i = 0; i + 1 < faces.size(); ++i) {
    if (faces[i].first != faces[i + 1].first) continue;
    const int a = tree.tet_domain(faces[i].second);
    const int b = tree.tet_domain(faces[i + 1].second);
    int child = -1;
    if (a != b && tree.parent[sz(a)] == b) child = a;
    if (a != b && tree.parent[sz(b)] == a) child = b;
    if (child < 0) continue;
    const std::array<int, 3>& f = faces[i].first;
    const Eigen::Vector3d p0 = mesh.rest_positions.row(f[0]).transpose();
    const Eigen::Vector3d p1 = mesh.rest_positions.row(f[1]).transpose();
    const Eigen::Vector3d p2 = mesh.rest_positions.row(f[2]).transpose();
    const double third = 0.5 * (p1 - p0).cross(p2 - p0).norm() / 3.0;
    for (const int v : f) areas[sz(child)][v] += third;
  }
  return areas;
}

}  // namespace ramus
