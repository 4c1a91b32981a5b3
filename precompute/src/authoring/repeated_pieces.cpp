#include "ramus/precompute/authoring/repeated_pieces.h"

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "ramus/error.h"

namespace ramus {

namespace {

// Union-find over n items, with path halving.
class DisjointSets {
 public:
  explicit DisjointSets(int n) : parent_(static_cast<std::size_t>(n)) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int find(int i) {
    while (parent_[static_cast<std::size_t>(i)] != i) {
      int& p = parent_[static_cast<std::size_t>(i)];
      p = parent_[static_cast<std::size_t>(p)];
      i = p;
    }
    return i;
  }
  // The smaller root stays the root: a class is named by its first member.
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

struct CellHash {
  std::size_t operator()(const std::array<long long, 3>& c) const noexcept {
    return static_cast<std::size_t>(c[0] * 73856093LL ^ c[1] * 19349663LL ^ c[2] * 83492791LL);
  }
};

// Each vertex's weld class (the first vertex within `distance` of it, transitively): vertices
// bucketed in cells of that size, each compared with the 27 cells around it.
DisjointSets weld_vertices(const Eigen::MatrixX3d& v, double distance) {
  const int n = static_cast<int>(v.rows());
  DisjointSets welded(n);
  const double cell = distance > 0 ? distance : 1.0;
  std::unordered_map<std::array<long long, 3>, std::vector<int>, CellHash> cells;
  const auto cell_of = [&](int i) {
    return std::array<long long, 3>{static_cast<long long>(std::floor(v(i, 0) / cell)),
                                    static_cast<long long>(std::floor(v(i, 1) / cell)),
                                    static_cast<long long>(std::floor(v(i, 2) / cell))};
  };
  for (int i = 0; i < n; ++i) cells[cell_of(i)].push_back(i);
  for (int i = 0; i < n; ++i) {
    const std::array<long long, 3> c = cell_of(i);
    for (long long dx = -1; dx <= 1; ++dx)
      for (long long dy = -1; dy <= 1; ++dy)
        for (long long dz = -1; dz <= 1; ++dz) {
          const auto found = cells.find({c[0] + dx, c[1] + dy, c[2] + dz});
          if (found == cells.end()) continue;
          for (int j : found->second)
            if (j < i && (v.row(i) - v.row(j)).norm() <= distance) welded.join(i, j);
        }
  }
  return welded;
}

double bounding_diagonal(const Eigen::MatrixX3d& v) {
  return v.rows() ? (v.colwise().maxCoeff() - v.colwise().minCoeff()).norm() : 0.0;
}

// The least-squares similarity taking the columns of a onto those of b (3 by n each).
Similarity umeyama_similarity(const Eigen::Matrix3Xd& a, const Eigen::Matrix3Xd& b) {
  const Eigen::Matrix4d t = Eigen::umeyama(a, b, true);
  Similarity s;
  s.scale = std::cbrt(t.topLeftCorner<3, 3>().determinant());
  s.rotation = t.topLeftCorner<3, 3>() / s.scale;
  s.translation = t.topRightCorner<3, 1>();
  return s;
}

// For each vertex of a mapped by s, the index of a vertex of b within `reach`, or -1 when one
// has none.
std::vector<int> corresponding_vertices(const SurfaceMesh& a, const SurfaceMesh& b,
                                        const Similarity& s, double reach) {
  std::vector<int> match(static_cast<std::size_t>(a.num_vertices()), -1);
  for (int i = 0; i < a.num_vertices(); ++i) {
    const Eigen::Vector3d x = s.apply(a.vertices.row(i).transpose());
    Eigen::Index nearest = 0;
    const double distance = std::sqrt(
        (b.vertices.rowwise() - x.transpose()).rowwise().squaredNorm().minCoeff(&nearest));
    if (!(distance <= reach)) return {};
    match[static_cast<std::size_t>(i)] = static_cast<int>(nearest);
  }
  return match;
}

// The largest distance between a's vertices mapped by s and b's in the same order.
double ordered_residual(const SurfaceMesh& a, const SurfaceMesh& b, const Similarity& s) {
  double worst = 0;
  for (int i = 0; i < a.num_vertices(); ++i)
    worst = std::max(
        worst, (s.apply(a.vertices.row(i).transpose()) - b.vertices.row(i).transpose()).norm());
  return worst;
}

// The principal axes of a vertex cloud about its mean, ascending by variance, and the variances.
struct PrincipalAxes {
  Eigen::Vector3d mean;
  Eigen::Matrix3d axes;
  Eigen::Vector3d variances;
};

PrincipalAxes principal_axes(const Eigen::MatrixX3d& v) {
  PrincipalAxes p;
  p.mean = v.colwise().mean().transpose();
  const Eigen::MatrixX3d centred = v.rowwise() - p.mean.transpose();
  const Eigen::Matrix3d covariance = centred.transpose() * centred / static_cast<double>(v.rows());
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver(covariance);
  p.axes = solver.eigenvectors();
  p.variances = solver.eigenvalues();
  return p;
}

}  // namespace

std::vector<SurfaceMesh> connected_pieces(const SurfaceMesh& soup, double weld_distance) {
  if (!(weld_distance >= 0)) throw OptionError("connected pieces: the weld distance is negative");
  const int n = soup.num_vertices();
  DisjointSets welded = weld_vertices(soup.vertices, weld_distance);
  // Triangles sharing a welded vertex are one piece.
  DisjointSets pieces(n);
  for (int t = 0; t < soup.num_triangles(); ++t)
    for (int c = 1; c < 3; ++c)
      pieces.join(welded.find(soup.triangles(t, 0)), welded.find(soup.triangles(t, c)));
  // Each piece's triangles, in the soup's order, on its own vertices.
  std::vector<SurfaceMesh> result;
  std::unordered_map<int, int> piece_index;       // root -> piece
  std::vector<std::vector<int>> piece_triangles;  // per piece
  for (int t = 0; t < soup.num_triangles(); ++t) {
    const int root = pieces.find(welded.find(soup.triangles(t, 0)));
    const auto [it, added] = piece_index.emplace(root, static_cast<int>(piece_triangles.size()));
    if (added) piece_triangles.emplace_back();
    piece_triangles[static_cast<std::size_t>(it->second)].push_back(t);
  }
  for (const std::vector<int>& triangles : piece_triangles) {
    SurfaceMesh piece;
    std::unordered_map<int, int> local;  // welded vertex -> piece vertex
    std::vector<int> kept;
    piece.triangles.resize(static_cast<Eigen::Index>(triangles.size()), 3);
    for (std::size_t k = 0; k < triangles.size(); ++k)
      for (int c = 0; c < 3; ++c) {
        const int w = welded.find(soup.triangles(triangles[k], c));
        const auto [it, added] = local.emplace(w, static_cast<int>(kept.size()));
        if (added) kept.push_back(w);
        piece.triangles(static_cast<Eigen::Index>(k), c) = it->second;
      }
    piece.vertices.resize(static_cast<Eigen::Index>(kept.size()), 3);
    for (std::size_t i = 0; i < kept.size(); ++i)
      piece.vertices.row(static_cast<Eigen::Index>(i)) = soup.vertices.row(kept[i]);
    result.push_back(std::move(piece));
  }
  return result;
}

std::optional<Similarity> match_similar(const SurfaceMesh& a, const SurfaceMesh& b,
                                        double tolerance) {
  if (a.num_vertices() != b.num_vertices() || a.num_triangles() != b.num_triangles() ||
      a.num_vertices() < 4)
    return std::nullopt;
  const double reach = tolerance * bounding_diagonal(b.vertices);
  const Eigen::Matrix3Xd pa = a.vertices.transpose(), pb = b.vertices.transpose();
  // The same vertex order (an instanced mesh exported as copies): least squares directly.
  const Similarity ordered = umeyama_similarity(pa, pb);
  if (ordered.scale > 0 && ordered_residual(a, b, ordered) <= reach) return ordered;
  // Else the principal axes, each sign choice that keeps the rotation proper; ambiguous where
  // two variances are within 1e-3 of each other.
  const PrincipalAxes xa = principal_axes(a.vertices), xb = principal_axes(b.vertices);
  const Eigen::Vector3d gaps(xa.variances(1) - xa.variances(0), xa.variances(2) - xa.variances(1),
                             xa.variances(2));
  if (!(std::min(gaps(0), gaps(1)) > 1e-3 * gaps(2))) return std::nullopt;
  const double scale = std::sqrt(xb.variances.sum() / xa.variances.sum());
  for (const Eigen::Vector3d& signs : {Eigen::Vector3d(1, 1, 1), Eigen::Vector3d(-1, -1, 1),
                                       Eigen::Vector3d(-1, 1, -1), Eigen::Vector3d(1, -1, -1)}) {
    Similarity s;
    s.rotation = xb.axes * signs.asDiagonal() * xa.axes.transpose();
    if (s.rotation.determinant() < 0) s.rotation = -s.rotation;  // (the axes' own handedness)
    s.scale = scale;
    s.translation = xb.mean - scale * s.rotation * xa.mean;
    const std::vector<int> match = corresponding_vertices(a, b, s, reach);
    if (match.empty()) continue;
    // Refined on the correspondence.
    Eigen::Matrix3Xd matched(3, a.num_vertices());
    for (int i = 0; i < a.num_vertices(); ++i)
      matched.col(i) = pb.col(match[static_cast<std::size_t>(i)]);
    const Similarity refined = umeyama_similarity(pa, matched);
    if (refined.scale > 0) return refined;
  }
  return std::nullopt;
}

RepeatedShapes find_repeated_shapes(const std::vector<SurfaceMesh>& pieces, double tolerance) {
  RepeatedShapes shapes;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    int shape = -1;
    Similarity placement;
    for (std::size_t s = 0; s < shapes.representatives.size() && shape < 0; ++s) {
      const SurfaceMesh& representative =
          pieces[static_cast<std::size_t>(shapes.representatives[s])];
      if (const std::optional<Similarity> m = match_similar(representative, pieces[k], tolerance)) {
        shape = static_cast<int>(s);
        placement = *m;
      }
    }
    if (shape < 0) {  // a new shape, placed as it is
      shape = static_cast<int>(shapes.representatives.size());
      shapes.representatives.push_back(static_cast<int>(k));
    }
    shapes.shape_of.push_back(shape);
    shapes.placement.push_back(placement);
  }
  return shapes;
}

}  // namespace ramus
