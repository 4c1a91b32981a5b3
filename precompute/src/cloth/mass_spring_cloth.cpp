#include "ramus/precompute/cloth/mass_spring_cloth.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "ramus/error.h"
#include "ramus/runtime/data/settings_table.h"

namespace ramus {

namespace {

// Where triangle t (its corners, 0-based, as in the file) is, for messages.
std::string triangle_text(const SurfaceMesh& s, int t) {
  return "triangle " + std::to_string(t) + " (vertices " + std::to_string(s.triangles(t, 0)) +
         ", " + std::to_string(s.triangles(t, 1)) + ", " + std::to_string(s.triangles(t, 2)) + ")";
}

// Finite coordinates, corners in range and distinct, triangles not degenerate in shape: area at
// most 1e-10 of the longest edge squared (a sliver of any size, not a small triangle).
void check_triangles(const SurfaceMesh& s, const std::string& file) {
  for (int v = 0; v < s.num_vertices(); ++v)
    if (!s.vertices.row(v).allFinite())
      throw InputError(file, 0, "vertex " + std::to_string(v) + " has a non-finite coordinate");
  if (s.num_triangles() == 0) throw InputError(file, 0, "the surface has no triangles");
  for (int t = 0; t < s.num_triangles(); ++t) {
    for (int c = 0; c < 3; ++c)
      if (s.triangles(t, c) < 0 || s.triangles(t, c) >= s.num_vertices())
        throw InputError(file, 0,
                         triangle_text(s, t) + " names a vertex outside 0.." +
                             std::to_string(s.num_vertices() - 1));
    const Eigen::Vector3d a = s.vertices.row(s.triangles(t, 0)),
                          b = s.vertices.row(s.triangles(t, 1)),
                          c = s.vertices.row(s.triangles(t, 2));
    const double area = 0.5 * (b - a).cross(c - a).norm();
    const double longest = std::max({(b - a).norm(), (c - b).norm(), (a - c).norm()});
    if (!(area > 1e-10 * longest * longest))
      throw InputError(
          file, 0, triangle_text(s, t) + " is degenerate: its corners coincide or lie on a line");
  }
}

// The triangles on each edge (the smaller vertex first), in triangle order.
std::map<std::pair<int, int>, std::vector<int>> edge_triangles(const SurfaceMesh& s) {
  std::map<std::pair<int, int>, std::vector<int>> edges;
  for (int t = 0; t < s.num_triangles(); ++t)
    for (int c = 0; c < 3; ++c) {
      const int a = s.triangles(t, c), b = s.triangles(t, (c + 1) % 3);
      edges[{std::min(a, b), std::max(a, b)}].push_back(t);
    }
  return edges;
}

// The corner of triangle t off the edge (a, b).
int opposite_corner(const SurfaceMesh& s, int t, int a, int b) {
  for (int c = 0; c < 3; ++c)
    if (s.triangles(t, c) != a && s.triangles(t, c) != b) return s.triangles(t, c);
  return -1;
}

}  // namespace

MassSpringCloth build_mass_spring_cloth(const SurfaceMesh& surface, const ClothSettings& settings,
                                        const std::vector<int>& pinned,
                                        const std::string& file_for_messages) {
  const std::string& file = file_for_messages;
  if (const std::string problem = find_cloth_problem(settings); !problem.empty())
    throw InputError(file, 0, "cloth." + problem);
  check_triangles(surface, file);
  MassSpringCloth cloth;
  cloth.rest_positions = surface.vertices;
  cloth.triangles = surface.triangles;
  // Every vertex a particle of a triangle; the paper's equal masses.
  std::vector<char> used(static_cast<std::size_t>(surface.num_vertices()), 0);
  for (int t = 0; t < surface.num_triangles(); ++t) {
    for (int c = 0; c < 3; ++c) used[static_cast<std::size_t>(surface.triangles(t, c))] = 1;
    const Eigen::Vector3d a = surface.vertices.row(surface.triangles(t, 0)),
                          b = surface.vertices.row(surface.triangles(t, 1)),
                          c = surface.vertices.row(surface.triangles(t, 2));
    cloth.area += 0.5 * (b - a).cross(c - a).norm();
  }
  for (int v = 0; v < surface.num_vertices(); ++v)
    if (!used[static_cast<std::size_t>(v)])
      throw InputError(file, 0,
                       "vertex " + std::to_string(v) +
                           " is in no triangle: a particle without springs would fall alone");
  cloth.particle_mass = settings.areal_density * cloth.area / surface.num_vertices();
  // A stretch spring per edge, then a bending spring across each edge two triangles share.
  const auto edges = edge_triangles(surface);
  const auto add = [&](int i, int j, double k, const std::string& what) {
    const double length = (surface.vertices.row(i) - surface.vertices.row(j)).norm();
    if (!(length > 0))
      throw InputError(file, 0,
                       what + ": a spring between vertices " + std::to_string(i) + " and " +
                           std::to_string(j) + " at one point (zero length)");
    cloth.springs.push_back({i, j, length, k, settings.spring_damping});
  };
  for (const auto& [edge, triangles] : edges) {
    if (triangles.size() > 2)
      throw InputError(file, 0,
                       "edge (" + std::to_string(edge.first) + ", " + std::to_string(edge.second) +
                           ") is shared by " + std::to_string(triangles.size()) + " triangles (" +
                           triangle_text(surface, triangles[0]) + ", " +
                           triangle_text(surface, triangles[1]) +
                           ", ...): a cloth is a "
                           "manifold surface, its bending springs cross edges of two triangles");
    add(edge.first, edge.second, settings.stretch_stiffness,
        "edge (" + std::to_string(edge.first) + ", " + std::to_string(edge.second) + ")");
  }
  cloth.num_stretch = cloth.num_springs();
  if (settings.bend_stiffness > 0)
    for (const auto& [edge, triangles] : edges) {
      if (triangles.size() != 2) continue;
      const int p = opposite_corner(surface, triangles[0], edge.first, edge.second);
      const int q = opposite_corner(surface, triangles[1], edge.first, edge.second);
      add(p, q, settings.bend_stiffness,
          "the bending spring across edge (" + std::to_string(edge.first) + ", " +
              std::to_string(edge.second) + ") between " + triangle_text(surface, triangles[0]) +
              " and " + triangle_text(surface, triangles[1]));
    }
  cloth.pinned = pinned;
  std::sort(cloth.pinned.begin(), cloth.pinned.end());
  cloth.pinned.erase(std::unique(cloth.pinned.begin(), cloth.pinned.end()), cloth.pinned.end());
  for (int v : cloth.pinned)
    if (v < 0 || v >= cloth.num_particles())
      throw InputError(file, 0, "pinned vertex " + std::to_string(v) + " does not exist");
  return cloth;
}

SurfaceMesh make_square_cloth(int n, double side) {
  SurfaceMesh s;
  n = std::max(n, 2);
  s.vertices.resize(static_cast<Eigen::Index>(n) * n, 3);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x)
      s.vertices.row(y * n + x) << side * (static_cast<double>(x) / (n - 1) - 0.5),
          side * (static_cast<double>(y) / (n - 1) - 0.5), 0;
  s.triangles.resize(2 * static_cast<Eigen::Index>(n - 1) * (n - 1), 3);
  int t = 0;
  for (int y = 0; y + 1 < n; ++y)
    for (int x = 0; x + 1 < n; ++x) {
      const int a = y * n + x, b = a + 1, c = a + n, d = c + 1;
      // Alternating diagonals, so the cloth has no preferred shear direction.
      if ((x + y) % 2 == 0) {
        s.triangles.row(t++) << a, b, d;
        s.triangles.row(t++) << a, d, c;
      } else {
        s.triangles.row(t++) << a, b, c;
        s.triangles.row(t++) << b, d, c;
      }
    }
  return s;
}

}  // namespace ramus
