#include "ramus/precompute/substructuring/surface_embedding.h"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "ramus/error.h"

namespace ramus {

namespace {

// One tet of the model in world coordinates.
struct WorldTet {
  std::array<Eigen::Vector3d, 4> x;  // corners
  Eigen::Matrix3d inverse;           // [x1 - x0, x2 - x0, x3 - x0]^-1
  Eigen::Vector3d lo, hi;            // bounding box
  int domain = 0;
  int local = 0;  // index within the domain
};

Eigen::Vector4d barycentric(const WorldTet& t, const Eigen::Vector3d& p) {
  const Eigen::Vector3d b = t.inverse * (p - t.x[0]);
  return {1 - b.sum(), b(0), b(1), b(2)};
}

// Closest point to p on triangle abc (Ericson, Real-Time Collision Detection, §5.1.5).
Eigen::Vector3d closest_on_triangle(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                                    const Eigen::Vector3d& b, const Eigen::Vector3d& c) {
  const Eigen::Vector3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Eigen::Vector3d bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
  const Eigen::Vector3d cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
  const double denominator = 1 / (va + vb + vc);
  return a + ab * (vb * denominator) + ac * (vc * denominator);
}

// Closest point to p (outside the tet) on the tet's boundary.
Eigen::Vector3d closest_on_tet(const WorldTet& t, const Eigen::Vector3d& p) {
  static constexpr int kFaces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  Eigen::Vector3d best = t.x[0];
  double best_distance = std::numeric_limits<double>::infinity();
  for (const auto& f : kFaces) {
    const Eigen::Vector3d q = closest_on_triangle(p, t.x[f[0]], t.x[f[1]], t.x[f[2]]);
    const double d = (q - p).squaredNorm();
    if (d < best_distance) {
      best_distance = d;
      best = q;
    }
  }
  return best;
}

double box_distance(const WorldTet& t, const Eigen::Vector3d& p) {
  return (t.lo - p).cwiseMax(p - t.hi).cwiseMax(0.0).norm();
}

std::string format_point(const Eigen::Vector3d& p) {
  std::ostringstream s;
  s.precision(6);
  s << '(' << p(0) << ", " << p(1) << ", " << p(2) << ')';
  return s.str();
}

// Uniform grid over the tets' bounding box; each cell lists the tets whose box overlaps it.
class TetGrid {
 public:
  explicit TetGrid(const std::vector<WorldTet>& tets) {
    lo_ = tets.front().lo;
    Eigen::Vector3d hi = tets.front().hi;
    double mean_size = 0;
    for (const WorldTet& t : tets) {
      lo_ = lo_.cwiseMin(t.lo);
      hi = hi.cwiseMax(t.hi);
      mean_size += (t.hi - t.lo).maxCoeff();
    }
    extent_ = hi - lo_;
    const auto count = static_cast<double>(tets.size());
    mean_size /= count;
    // Cells about the size of a tet, but never many more cells than tets.
    cell_ = std::max(mean_size, 1e-12 * std::max(extent_.maxCoeff(), 1e-300));
    const double max_cells = 8 * count + 64;
    for (int attempt = 0; attempt < 64; ++attempt) {
      double cells = 1;
      for (int a = 0; a < 3; ++a) cells *= std::max(1.0, std::ceil(extent_(a) / cell_));
      if (cells <= max_cells) break;
      cell_ *= std::cbrt(cells / max_cells) * 1.01;
    }
    for (int a = 0; a < 3; ++a)
      n_[a] = std::max(1, static_cast<int>(std::ceil(extent_(a) / cell_)));
    const std::size_t num_cells =
        static_cast<std::size_t>(n_[0]) * static_cast<std::size_t>(n_[1]) * n_[2];
    start_.assign(num_cells + 1, 0);
    for (int pass = 0; pass < 2; ++pass) {
      std::vector<std::int64_t> fill;
      if (pass == 1) {
        for (std::size_t c = 0; c < num_cells; ++c) start_[c + 1] += start_[c];
        entries_.resize(static_cast<std::size_t>(start_[num_cells]));
        fill.assign(start_.begin(), start_.end() - 1);
      }
      for (std::size_t k = 0; k < tets.size(); ++k) {
        const std::array<int, 3> a = cell_of(tets[k].lo), b = cell_of(tets[k].hi);
        for (int z = a[2]; z <= b[2]; ++z)
          for (int y = a[1]; y <= b[1]; ++y)
            for (int x = a[0]; x <= b[0]; ++x) {
              const std::size_t c = index({x, y, z});
              if (pass == 0)
                ++start_[c + 1];
              else
                entries_[static_cast<std::size_t>(fill[c]++)] = static_cast<int>(k);
            }
      }
    }
  }

  std::array<int, 3> cell_of(const Eigen::Vector3d& p) const {
    std::array<int, 3> c{};
    for (int a = 0; a < 3; ++a) {
      const double x = std::floor((p(a) - lo_(a)) / cell_);
      c[a] = static_cast<int>(std::clamp(x, 0.0, static_cast<double>(n_[a] - 1)));
    }
    return c;
  }
  std::size_t index(const std::array<int, 3>& c) const {
    return static_cast<std::size_t>(c[0]) +
           static_cast<std::size_t>(n_[0]) *
               (static_cast<std::size_t>(c[1]) + static_cast<std::size_t>(n_[1]) * c[2]);
  }
  // The tets listed in a cell.
  struct Span {
    const int* first;
    const int* last;
    const int* begin() const { return first; }
    const int* end() const { return last; }
  };
  Span cell(std::size_t c) const {
    return {entries_.data() + start_[c], entries_.data() + start_[c + 1]};
  }
  int cells(int axis) const { return n_[axis]; }
  // Distance from p to the nearest cell outside the block of cells within `ring` of `center`
  // (cells beyond the grid hold no tets: those sides do not count); infinity once the block
  // covers the whole grid.
  double unsearched_distance(const Eigen::Vector3d& p, const std::array<int, 3>& center,
                             int ring) const {
    double d = std::numeric_limits<double>::infinity();
    for (int a = 0; a < 3; ++a) {
      if (center[a] - ring > 0)
        d = std::min(d, std::max(0.0, p(a) - (lo_(a) + (center[a] - ring) * cell_)));
      if (center[a] + ring < n_[a] - 1)
        d = std::min(d, std::max(0.0, lo_(a) + (center[a] + ring + 1) * cell_ - p(a)));
    }
    return d;
  }

 private:
  Eigen::Vector3d lo_, extent_;
  double cell_ = 1;
  std::array<int, 3> n_{1, 1, 1};
  std::vector<std::int64_t> start_;
  std::vector<int> entries_;
};

}  // namespace

EmbeddedSurface embed_surface(const ReducedModel& model, const Eigen::MatrixX3d& surface_vertices,
                              const Eigen::MatrixX3i& triangles,
                              const SurfaceEmbeddingOptions& options,
                              SurfaceEmbeddingStats* stats) {
  const Eigen::Index num_vertices = surface_vertices.rows();
  for (Eigen::Index v = 0; v < num_vertices; ++v)
    if (!surface_vertices.row(v).allFinite())
      throw MeshError("render surface vertex " + std::to_string(v) + " is not finite", -1, v);
  for (Eigen::Index f = 0; f < triangles.rows(); ++f)
    for (int c = 0; c < 3; ++c)
      if (triangles(f, c) < 0 || triangles(f, c) >= num_vertices)
        throw MeshError("render surface triangle " + std::to_string(f) + " references vertex " +
                            std::to_string(triangles(f, c)) + " but the surface has " +
                            std::to_string(num_vertices) + " vertices",
                        f);

  // Every domain's tets in the world.
  std::vector<WorldTet> tets;
  for (std::size_t d = 0; d < model.domains.size(); ++d) {
    const ReducedDomain& domain = model.domains[d];
    const ReducedPart& part = part_of(model, static_cast<int>(d));
    const Eigen::MatrixX3d world =
        (domain.scale * part.rest_positions * domain.frame_rotation.transpose()).rowwise() +
        domain.frame_origin.transpose();
    for (Eigen::Index t = 0; t < part.tets.rows(); ++t) {
      WorldTet w;
      for (int c = 0; c < 4; ++c) {
        const int v = part.tets(t, c);
        if (v < 0 || v >= world.rows())
          throw MeshError("domain '" + domain.name + "': tet " + std::to_string(t) +
                              " references vertex " + std::to_string(v) + " of " +
                              std::to_string(world.rows()),
                          t);
        w.x[static_cast<std::size_t>(c)] = world.row(v).transpose();
        if (!w.x[static_cast<std::size_t>(c)].allFinite())
          throw MeshError(
              "domain '" + domain.name + "': vertex " + std::to_string(v) + " is not finite", -1,
              v);
      }
      Eigen::Matrix3d edges;
      for (int c = 0; c < 3; ++c) edges.col(c) = w.x[static_cast<std::size_t>(c) + 1] - w.x[0];
      // A degenerate tet (none in a validated mesh) can contain nothing: skip it.
      if (!(std::abs(edges.determinant()) > 0)) continue;
      w.inverse = edges.inverse();
      w.lo = w.x[0].cwiseMin(w.x[1]).cwiseMin(w.x[2]).cwiseMin(w.x[3]);
      w.hi = w.x[0].cwiseMax(w.x[1]).cwiseMax(w.x[2]).cwiseMax(w.x[3]);
      w.domain = static_cast<int>(d);
      w.local = static_cast<int>(t);
      tets.push_back(w);
    }
  }
  if (tets.empty()) throw MeshError("cannot embed a surface in a model without tets");

  Eigen::Vector3d lo = tets.front().lo, hi = tets.front().hi;
  for (const WorldTet& t : tets) {
    lo = lo.cwiseMin(t.lo);
    hi = hi.cwiseMax(t.hi);
  }
  const double diagonal = (hi - lo).norm();
  const double clamp_distance = options.clamp_tolerance * diagonal;
  const double max_distance = options.max_distance * diagonal;
  const TetGrid grid(tets);

  EmbeddedSurface surface;
  surface.rest_positions = surface_vertices;
  surface.triangles = triangles;
  surface.domain.resize(num_vertices);
  surface.tet.resize(num_vertices);
  surface.barycentric.resize(num_vertices, 4);
  SurfaceEmbeddingStats found;
  found.bounding_box_diagonal = diagonal;
  std::vector<Eigen::Index> visited(tets.size(), -1);
  for (Eigen::Index v = 0; v < num_vertices; ++v) {
    const Eigen::Vector3d p = surface_vertices.row(v).transpose();
    const std::array<int, 3> center = grid.cell_of(p);
    // Fast path: every tet containing p has p in its box, so it is listed in p's cell; of those,
    // the one where p is deepest inside (largest minimum weight).
    int inside = -1;
    Eigen::Vector4d inside_weights = Eigen::Vector4d::Zero();
    double inside_min = 0;
    for (const int k : grid.cell(grid.index(center))) {
      const Eigen::Vector4d b = barycentric(tets[static_cast<std::size_t>(k)], p);
      const double min = b.minCoeff();
      if (min >= inside_min) {
        inside = k;
        inside_min = min;
        inside_weights = b;
        if (min > 0) break;  // strictly inside: no other tet contains p
      }
    }
    if (inside >= 0) {
      surface.domain(v) = tets[static_cast<std::size_t>(inside)].domain;
      surface.tet(v) = tets[static_cast<std::size_t>(inside)].local;
      surface.barycentric.row(v) = inside_weights.transpose();
      continue;
    }
    // Outside every tet: the nearest one, searched in growing rings of cells.
    // Best tet so far: smallest distance, where distances within clamp_distance count as equal
    // and then the largest minimum barycentric coordinate wins.
    int best = -1;
    double best_distance = std::numeric_limits<double>::infinity();
    double best_min = -std::numeric_limits<double>::infinity();
    Eigen::Vector4d best_weights = Eigen::Vector4d::Zero();
    const auto effective = [&](double distance) { return std::max(distance, clamp_distance); };
    const auto consider = [&](int k) {
      if (visited[static_cast<std::size_t>(k)] == v) return;
      visited[static_cast<std::size_t>(k)] = v;
      const WorldTet& t = tets[static_cast<std::size_t>(k)];
      if (box_distance(t, p) > effective(best_distance)) return;
      const Eigen::Vector4d b = barycentric(t, p);
      const double min = b.minCoeff();
      const double distance = min >= 0 ? 0.0 : (closest_on_tet(t, p) - p).norm();
      if (effective(distance) > effective(best_distance) ||
          (effective(distance) == effective(best_distance) && min <= best_min))
        return;
      best = k;
      best_distance = distance;
      best_min = min;
      best_weights = b;
    };
    for (int ring = 0;; ++ring) {
      std::array<int, 3> a{}, b{};
      for (int ax = 0; ax < 3; ++ax) {
        a[static_cast<std::size_t>(ax)] = std::max(0, center[static_cast<std::size_t>(ax)] - ring);
        b[static_cast<std::size_t>(ax)] =
            std::min(grid.cells(ax) - 1, center[static_cast<std::size_t>(ax)] + ring);
      }
      for (int z = a[2]; z <= b[2]; ++z)
        for (int y = a[1]; y <= b[1]; ++y)
          for (int x = a[0]; x <= b[0]; ++x) {
            const int chebyshev = std::max(
                {std::abs(x - center[0]), std::abs(y - center[1]), std::abs(z - center[2])});
            if (chebyshev != ring) continue;  // searched in an earlier ring
            for (const int k : grid.cell(grid.index({x, y, z}))) consider(k);
          }
      const double unsearched = grid.unsearched_distance(p, center, ring);
      // Tets not searched yet are at least `unsearched` away.
      if (best >= 0 && effective(best_distance) < unsearched) break;
      if (unsearched > max_distance || std::isinf(unsearched)) break;
    }
    if (best < 0 || best_distance > max_distance) {
      std::ostringstream message;
      message.precision(6);
      message << "render surface vertex " << v << " at " << format_point(p) << " is ";
      if (best < 0)
        message << "farther than " << max_distance << " m from every tet";
      else
        message << best_distance << " m from the nearest tet";
      message << ", more than " << 100 * options.max_distance
              << " % of the mesh's bounding-box diagonal (" << diagonal
              << " m): the surface does not fit the volume";
      throw MeshError(message.str(), -1, v);
    }
    const WorldTet& t = tets[static_cast<std::size_t>(best)];
    if (best_distance > 0) {
      ++found.outside;
      if (best_distance > found.max_distance) {
        found.max_distance = best_distance;
        found.max_distance_vertex = static_cast<int>(v);
      }
    }
    if (best_distance > clamp_distance) {
      // Clamp: the weights of the tet's closest point, rounding below 0 removed.
      ++found.clamped;
      best_weights = barycentric(t, closest_on_tet(t, p)).cwiseMax(0.0);
      best_weights /= best_weights.sum();
    }
    surface.domain(v) = t.domain;
    surface.tet(v) = t.local;
    surface.barycentric.row(v) = best_weights.transpose();
  }
  if (stats) *stats = found;
  return surface;
}

}  // namespace ramus
