#include "ramus/precompute/authoring/piece_tree.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <string>

#include "ramus/error.h"
#include "ramus/precompute/contact/point_triangle_distance.h"

namespace ramus {

namespace {

struct Box {
  Eigen::Vector3d lo, hi;
  bool near(const Box& other, double margin) const {
    return (lo.array() <= other.hi.array() + margin).all() &&
           (other.lo.array() <= hi.array() + margin).all();
  }
  bool holds(const Eigen::Vector3d& x, double margin) const {
    return (x.array() >= lo.array() - margin).all() && (x.array() <= hi.array() + margin).all();
  }
};

Box bounding_box(const SurfaceMesh& piece) {
  return {piece.vertices.colwise().minCoeff().transpose(),
          piece.vertices.colwise().maxCoeff().transpose()};
}

// The distance from x to the surface of `piece` (m), its triangles one by one.
double surface_distance(const Eigen::Vector3d& x, const SurfaceMesh& piece) {
  double best = std::numeric_limits<double>::infinity();
  for (int t = 0; t < piece.num_triangles(); ++t) {
    const Eigen::Vector3d a = piece.vertices.row(piece.triangles(t, 0)).transpose();
    const Eigen::Vector3d b = piece.vertices.row(piece.triangles(t, 1)).transpose();
    const Eigen::Vector3d c = piece.vertices.row(piece.triangles(t, 2)).transpose();
    const Eigen::Vector3d w = closest_point_weights(x, a, b, c);
    best = std::min(best, (x - (w(0) * a + w(1) * b + w(2) * c)).norm());
  }
  return best;
}

// Whether x is inside `piece` (its generalized winding number over 1/2: the solid angles of
// its triangles, Van Oosterom and Strackee's formula, summed over 4 pi).
bool inside(const Eigen::Vector3d& x, const SurfaceMesh& piece) {
  double angle = 0;
  for (int t = 0; t < piece.num_triangles(); ++t) {
    const Eigen::Vector3d a = piece.vertices.row(piece.triangles(t, 0)).transpose() - x;
    const Eigen::Vector3d b = piece.vertices.row(piece.triangles(t, 1)).transpose() - x;
    const Eigen::Vector3d c = piece.vertices.row(piece.triangles(t, 2)).transpose() - x;
    const double la = a.norm(), lb = b.norm(), lc = c.norm();
    angle += 2 * std::atan2(a.dot(b.cross(c)),
                            la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb);
  }
  return std::abs(angle) > 2 * M_PI;
}

// Each vertex of `child`'s distance to `parent` (0 inside it: a stem set into a branch),
// infinite beyond `reach` of its box.
std::vector<double> vertex_distances(const SurfaceMesh& child, const SurfaceMesh& parent,
                                     const Box& parent_box, double reach) {
  std::vector<double> d(static_cast<std::size_t>(child.num_vertices()),
                        std::numeric_limits<double>::infinity());
  for (int k = 0; k < child.num_vertices(); ++k) {
    const Eigen::Vector3d x = child.vertices.row(k).transpose();
    if (parent_box.holds(x, reach))
      d[static_cast<std::size_t>(k)] = inside(x, parent) ? 0.0 : surface_distance(x, parent);
  }
  return d;
}

// The pieces left unattached, for the error: the first few with their distance to the nearest
// attached piece.
std::string unattached_message(const std::vector<SurfaceMesh>& pieces, const PieceTree& tree,
                               double gap) {
  std::string text;
  int listed = 0, count = 0;
  for (std::size_t q = 0; q < pieces.size(); ++q) {
    if (tree.parent[q] != -2) continue;
    ++count;
    if (listed == 5) continue;
    double nearest = std::numeric_limits<double>::infinity();
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      if (tree.parent[p] == -2) continue;
      for (int k = 0; k < pieces[q].num_vertices(); ++k)
        nearest =
            std::min(nearest, surface_distance(pieces[q].vertices.row(k).transpose(), pieces[p]));
    }
    text += (listed++ ? ", " : "") + std::string("piece ") + std::to_string(q) + " (" +
            std::to_string(pieces[q].num_vertices()) + " vertices, " + std::to_string(nearest) +
            " m from the nearest attached piece)";
  }
  return std::to_string(count) + " piece" + (count == 1 ? "" : "s") +
         (count == 1 ? " touches" : " touch") +
         std::string(" nothing attached to the largest piece within ") + std::to_string(gap) +
         " m: " + text + (count > listed ? ", ..." : "") + "; join them, or give a larger gap";
}

}  // namespace

PieceTree attach_pieces(const std::vector<SurfaceMesh>& pieces, double gap, double band,
                        const std::string& source) {
  if (pieces.empty()) throw InputError(source, 0, "no pieces to attach");
  if (!(gap >= 0) || !(band >= 0)) throw OptionError("attach pieces: gap and band must be >= 0");
  const std::size_t n = pieces.size();
  std::vector<Box> boxes;
  for (const SurfaceMesh& p : pieces) boxes.push_back(bounding_box(p));
  PieceTree tree;
  tree.parent.assign(n, -2);  // -2: not attached yet
  tree.base.resize(n);
  tree.gap.assign(n, 0.0);
  // The root: the largest piece, anchored at its lowest vertices.
  for (std::size_t k = 1; k < n; ++k)
    if ((boxes[k].hi - boxes[k].lo).norm() > (boxes[static_cast<std::size_t>(tree.root)].hi -
                                              boxes[static_cast<std::size_t>(tree.root)].lo)
                                                 .norm())
      tree.root = static_cast<int>(k);
  const SurfaceMesh& root = pieces[static_cast<std::size_t>(tree.root)];
  tree.parent[static_cast<std::size_t>(tree.root)] = -1;
  const double lowest = root.vertices.col(2).minCoeff();
  for (int k = 0; k < root.num_vertices(); ++k)
    if (root.vertices(k, 2) <= lowest + band)
      tree.base[static_cast<std::size_t>(tree.root)].push_back(k);
  // Breadth first: each attached piece takes the unattached ones that reach it.
  std::deque<int> queue{tree.root};
  while (!queue.empty()) {
    const auto p = static_cast<std::size_t>(queue.front());
    queue.pop_front();
    for (std::size_t q = 0; q < n; ++q) {
      if (tree.parent[q] != -2 || !boxes[q].near(boxes[p], gap)) continue;
      const std::vector<double> d = vertex_distances(pieces[q], pieces[p], boxes[p], gap + band);
      const double nearest = *std::min_element(d.begin(), d.end());
      if (!(nearest <= gap)) continue;
      tree.parent[q] = static_cast<int>(p);
      tree.gap[q] = nearest;
      for (std::size_t k = 0; k < d.size(); ++k)
        if (d[k] <= nearest + band) tree.base[q].push_back(static_cast<int>(k));
      queue.push_back(static_cast<int>(q));
    }
  }
  if (std::find(tree.parent.begin(), tree.parent.end(), -2) != tree.parent.end())
    throw InputError(source, 0, unattached_message(pieces, tree, gap));
  return tree;
}

}  // namespace ramus
