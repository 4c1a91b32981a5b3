// The automatic partition's interface stages: interfaces too large for the rigid-interface
// assumption merged away, and each child's interface pulled back to where its limb leaves its
// parent.
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

namespace ramus::partition {

using namespace tet_graph;

namespace {

// Area of face f (kTetFaces) of tet t (m²).
double face_area(const TetMesh& mesh, int t, int f) {
  const auto& c = kTetFaces[sz(f)];
  const Eigen::Vector3d a = mesh.rest_positions.row(mesh.tets(t, c[0])).transpose();
  const Eigen::Vector3d b = mesh.rest_positions.row(mesh.tets(t, c[1])).transpose();
  const Eigen::Vector3d d = mesh.rest_positions.row(mesh.tets(t, c[2])).transpose();
  return 0.5 * (b - a).cross(d - a).norm();
}

}  // namespace

// Merges every non-root domain whose interface with its parent exceeds max_share of its surface
// (a stub or a slab, no appendage: interface_diagnostics would call it large) into that parent,
// the largest share first. domain (#T) is updated in place; returns the merges made.
int merge_large_interfaces(const TetMesh& mesh, const std::vector<Pair>& face_pairs,
                           int num_domains, int root, double max_share, std::vector<int>& domain) {
  const int nt = mesh.num_tets();
  // Every shared face's area, once (the face of the first tet that matches the pair).
  std::vector<double> pair_area(face_pairs.size(), 0.0);
  std::vector<double> tet_faces(sz(nt), 0.0);
  for (int t = 0; t < nt; ++t)
    for (int f = 0; f < 4; ++f) tet_faces[sz(t)] += face_area(mesh, t, f);
  for (std::size_t i = 0; i < face_pairs.size(); ++i) {
    const int t = face_pairs[i].first;
    const int u = face_pairs[i].second;
    for (int f = 0; f < 4; ++f) {
      int shared = 0;
      for (const int c : kTetFaces[sz(f)])
        for (int k = 0; k < 4; ++k) shared += mesh.tets(t, c) == mesh.tets(u, k) ? 1 : 0;
      if (shared == 3) pair_area[i] = face_area(mesh, t, f);
    }
  }
  UnionFind merged(num_domains);
  int merges = 0;
  for (;;) {
    std::vector<int> d(sz(nt));
    for (int t = 0; t < nt; ++t) d[sz(t)] = merged.find(domain[sz(t)]);
    // Surface of each domain (its tets' faces less twice its inner faces) and the area between
    // every pair of domains; parents by breadth-first search from the root.
    std::vector<double> surface(sz(num_domains), 0.0);
    for (int t = 0; t < nt; ++t) surface[sz(d[sz(t)])] += tet_faces[sz(t)];
    std::map<Pair, int> touching;
    std::map<Pair, double> between;
    for (std::size_t i = 0; i < face_pairs.size(); ++i) {
      const int a = d[sz(face_pairs[i].first)];
      const int b = d[sz(face_pairs[i].second)];
      if (a == b) {
        surface[sz(a)] -= 2.0 * pair_area[i];
      } else {
        touching[{std::min(a, b), std::max(a, b)}] = 1;
        between[{std::min(a, b), std::max(a, b)}] += pair_area[i];
      }
    }
    const std::vector<std::vector<int>> adj = adjacency(num_domains, touching);
    const int top = merged.find(root);
    const std::vector<int> level = bfs_distances(adj, top);
    int worst = -1;
    int worst_parent = -1;
    double worst_share = max_share;
    for (int g = 0; g < num_domains; ++g) {
      if (merged.find(g) != g || g == top) continue;
      for (const int p : adj[sz(g)])
        if (level[sz(p)] == level[sz(g)] - 1) {
          const double share = between[{std::min(g, p), std::max(g, p)}] / surface[sz(g)];
          if (share > worst_share) {
            worst_share = share;
            worst = g;
            worst_parent = p;
          }
        }
    }
    if (worst < 0) break;
    merged.merge(worst, worst_parent);
    ++merges;
  }
  for (int t = 0; t < nt; ++t) domain[sz(t)] = merged.find(domain[sz(t)]);
  return merges;
}

// Depth of every vertex below the boundary surface: the edge-graph distance to the nearest
// vertex of a boundary face (0 on the surface).
std::vector<double> vertex_depths(const TetMesh& mesh, const WeightedGraph& graph) {
  std::map<std::array<int, 3>, int> face_count;
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (const auto& f : kTetFaces) {
      std::array<int, 3> key{mesh.tets(t, f[0]), mesh.tets(t, f[1]), mesh.tets(t, f[2])};
      std::sort(key.begin(), key.end());
      ++face_count[key];
    }
  std::vector<int> surface;
  for (const auto& [face, count] : face_count)
    if (count == 1) surface.insert(surface.end(), face.begin(), face.end());
  std::sort(surface.begin(), surface.end());
  surface.erase(std::unique(surface.begin(), surface.end()), surface.end());
  return dijkstra(graph, surface);
}

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
                                 std::vector<int>& domain) {
  const int nt = mesh.num_tets();
  std::vector<std::vector<int>> dual(sz(nt));
  for (const auto& [a, b] : face_pairs) {
    dual[sz(a)].push_back(b);
    dual[sz(b)].push_back(a);
  }
  std::vector<std::vector<int>> vertex_tets(sz(mesh.num_vertices()));
  for (int t = 0; t < nt; ++t)
    for (int k = 0; k < 4; ++k) vertex_tets[sz(mesh.tets(t, k))].push_back(t);
  std::map<Pair, int> touching;
  for (const auto& [a, b] : face_pairs)
    if (domain[sz(a)] != domain[sz(b)])
      touching[{std::min(domain[sz(a)], domain[sz(b)]), std::max(domain[sz(a)], domain[sz(b)])}] =
          1;
  const std::vector<std::vector<int>> adj = adjacency(num_domains, touching);
  const std::vector<int> level = bfs_distances(adj, root);
  const auto centroid = [&](int t) {
    Eigen::Vector3d c = Eigen::Vector3d::Zero();
    for (int k = 0; k < 4; ++k) c += mesh.rest_positions.row(mesh.tets(t, k)).transpose() / 4.0;
    return c;
  };
  int moved = 0;
  for (int c = 0; c < num_domains; ++c) {
    if (c == root || level[sz(c)] < 1) continue;
    int p = -1;
    for (const int n : adj[sz(c)])
      if (level[sz(n)] == level[sz(c)] - 1) p = n;
    if (p < 0) continue;
    // The interface: vertices of faces between c and p; its centroid, normal (towards c) and
    // radius; the child's side.
    std::set<int> interface;
    Eigen::Vector3d child_center = Eigen::Vector3d::Zero();
    int child_tets = 0;
    std::map<int, int> child_labels;
    for (int t = 0; t < nt; ++t)
      if (domain[sz(t)] == c) {
        child_center += centroid(t);
        ++child_tets;
        if (!labels.empty()) ++child_labels[labels[sz(t)]];
        for (const int n : dual[sz(t)])
          if (domain[sz(n)] == p)
            for (int k = 0; k < 4; ++k)
              for (int l = 0; l < 4; ++l)
                if (mesh.tets(t, k) == mesh.tets(n, l)) interface.insert(mesh.tets(t, k));
      }
    if (interface.size() < 3 || child_tets == 0) continue;
    child_center /= child_tets;
    Eigen::Vector3d x0 = Eigen::Vector3d::Zero();
    double deepest = 0;
    for (const int v : interface) {
      x0 += mesh.rest_positions.row(v).transpose() / static_cast<double>(interface.size());
      deepest = std::max(deepest, depth[sz(v)]);
    }
    Eigen::Matrix3d cov = Eigen::Matrix3d::Zero();
    for (const int v : interface) {
      const Eigen::Vector3d d = mesh.rest_positions.row(v).transpose() - x0;
      cov += d * d.transpose();
    }
    Eigen::Vector3d n = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(cov).eigenvectors().col(0);
    if (n.dot(child_center - x0) < 0) n = -n;
    double radius = 0;
    for (const int v : interface) {
      const Eigen::Vector3d d = mesh.rest_positions.row(v).transpose() - x0;
      radius = std::max(radius, (d - d.dot(n) * n).norm());
    }
    // The limb's axis: towards the centre of its first four radii (a level-set cut can be
    // oblique to the limb).
    {
      Eigen::Vector3d near = Eigen::Vector3d::Zero();
      int count = 0;
      for (int t = 0; t < nt; ++t)
        if (domain[sz(t)] == c && (centroid(t) - x0).norm() < 4 * radius) {
          near += centroid(t);
          ++count;
        }
      if (count > 0 && (near / count - x0).norm() > 1e-12 * radius)
        n = (near / count - x0).normalized();
      radius = 0;
      for (const int v : interface) {
        const Eigen::Vector3d d = mesh.rest_positions.row(v).transpose() - x0;
        radius = std::max(radius, (d - d.dot(n) * n).norm());
      }
    }
    // Grow the stub from the parent's tets that touch the child. (A coarse limb has no vertex
    // inside: half its radius stands in for its depth.)
    const double max_depth = 1.0001 * std::max(deepest, 0.5 * radius);
    int child_label = 0;
    for (const auto& [label, count] : child_labels)
      if (count > child_labels[child_label]) child_label = label;
    const auto in_stub = [&](int t) {
      if (domain[sz(t)] != p || anchored_tet[sz(t)]) return false;
      if (!labels.empty() && labels[sz(t)] != child_label) return false;  // labels bound domains
      const Eigen::Vector3d d = centroid(t) - x0;
      const double axial = -d.dot(n);
      if (axial < -1e-12 * radius || axial > 4 * radius) return false;
      if ((d + axial * n).norm() > radius) return false;
      for (int k = 0; k < 4; ++k)
        if (depth[sz(mesh.tets(t, k))] > max_depth) return false;
      // (No vertex of a third domain: domains meet only across faces.)
      for (int k = 0; k < 4; ++k)
        for (const int m : vertex_tets[sz(mesh.tets(t, k))])
          if (domain[sz(m)] != p && domain[sz(m)] != c) return false;
      return true;
    };
    std::vector<int> stack;
    std::vector<int> stub;
    std::vector<char> seen(sz(nt), 0);
    for (int t = 0; t < nt; ++t)
      if (domain[sz(t)] == c)
        for (const int m : dual[sz(t)])
          if (!seen[sz(m)] && in_stub(m)) {
            seen[sz(m)] = 1;
            stack.push_back(m);
          }
    while (!stack.empty()) {
      const int t = stack.back();
      stack.pop_back();
      stub.push_back(t);
      for (const int m : dual[sz(t)])
        if (!seen[sz(m)] && in_stub(m)) {
          seen[sz(m)] = 1;
          stack.push_back(m);
        }
    }
    // The parent must stay one face-connected piece: its largest piece stays, smaller pieces cut
    // off by the stub join the child (they touch it), else the stub is not moved.
    for (const int t : stub) domain[sz(t)] = c;
    std::vector<int> piece(sz(nt), -1);
    std::vector<int> piece_size;
    for (int t = 0; t < nt; ++t) {
      if (domain[sz(t)] != p || piece[sz(t)] >= 0) continue;
      const int id = static_cast<int>(piece_size.size());
      piece_size.push_back(0);
      std::vector<int> todo{t};
      piece[sz(t)] = id;
      while (!todo.empty()) {
        const int u = todo.back();
        todo.pop_back();
        ++piece_size[sz(id)];
        for (const int m : dual[sz(u)])
          if (piece[sz(m)] < 0 && domain[sz(m)] == p) {
            piece[sz(m)] = id;
            todo.push_back(m);
          }
      }
    }
    const int main_piece = static_cast<int>(std::max_element(piece_size.begin(), piece_size.end()) -
                                            piece_size.begin());
    bool ok = true;
    std::vector<int> cut_off;
    for (int t = 0; t < nt; ++t)
      if (domain[sz(t)] == p && piece[sz(t)] != main_piece) {
        if (anchored_tet[sz(t)] || (!labels.empty() && labels[sz(t)] != child_label)) ok = false;
        for (int k = 0; k < 4; ++k)
          for (const int m : vertex_tets[sz(mesh.tets(t, k))])
            if (domain[sz(m)] != p && domain[sz(m)] != c) ok = false;
        cut_off.push_back(t);
      }
    if (!ok || cut_off.size() > stub.size()) {
      for (const int t : stub) domain[sz(t)] = p;
    } else {
      for (const int t : cut_off) domain[sz(t)] = c;
      moved += static_cast<int>(stub.size() + cut_off.size());
    }
  }
  return moved;
}

}  // namespace ramus::partition
