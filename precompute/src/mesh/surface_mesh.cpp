#include "ramus/precompute/mesh/surface_mesh.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <unordered_map>

#include "../formats/text_io.h"
#include "ramus/error.h"

namespace ramus {

void check_closed_surface(const SurfaceMesh& surface, const std::string& file_for_messages,
                          bool allow_internal_faces) {
  const auto fail = [&](const std::string& message) {
    throw InputError(file_for_messages, 0, message);
  };
  const int nv = surface.num_vertices();
  const int nf = surface.num_triangles();
  if (nf == 0) fail("the surface has no triangles");
  for (int i = 0; i < nv; ++i)
    if (!surface.vertices.row(i).allFinite())
      fail("vertex " + std::to_string(i) + " has a non-finite coordinate");
  for (int f = 0; f < nf; ++f)
    for (int c = 0; c < 3; ++c)
      if (surface.triangles(f, c) < 0 || surface.triangles(f, c) >= nv)
        fail("triangle " + std::to_string(f) + " references vertex " +
             std::to_string(surface.triangles(f, c)) + " but the surface has " +
             std::to_string(nv) + " vertices");
  const double diagonal =
      nv > 0
          ? (surface.vertices.colwise().maxCoeff() - surface.vertices.colwise().minCoeff()).norm()
          : 0.0;
  const auto corners = [&](int f) {
    return "(" + std::to_string(surface.triangles(f, 0)) + ", " +
           std::to_string(surface.triangles(f, 1)) + ", " +
           std::to_string(surface.triangles(f, 2)) + ")";
  };
  std::map<std::array<int, 3>, int> seen;
  for (int f = 0; f < nf; ++f) {
    const Eigen::Vector3d a = surface.vertices.row(surface.triangles(f, 0));
    const Eigen::Vector3d b = surface.vertices.row(surface.triangles(f, 1));
    const Eigen::Vector3d c = surface.vertices.row(surface.triangles(f, 2));
    const double twice_area = (b - a).cross(c - a).norm();
    if (!(twice_area > 1e-12 * diagonal * diagonal))
      fail("triangle " + std::to_string(f) + " " + corners(f) + " is degenerate (area " +
           detail::format_double(0.5 * twice_area) + ")");
    std::array<int, 3> key = {surface.triangles(f, 0), surface.triangles(f, 1),
                              surface.triangles(f, 2)};
    std::sort(key.begin(), key.end());
    auto [it, inserted] = seen.emplace(key, f);
    if (!inserted)
      fail("triangles " + std::to_string(it->second) + " and " + std::to_string(f) +
           " are duplicates " + corners(f));
  }
  std::unordered_map<long long, int> edge_count;
  const auto edge_key = [](int a, int b) {
    if (a > b) std::swap(a, b);
    return (static_cast<long long>(a) << 32) | static_cast<unsigned>(b);
  };
  for (int f = 0; f < nf; ++f)
    for (int k = 0; k < 3; ++k)
      ++edge_count[edge_key(surface.triangles(f, k), surface.triangles(f, (k + 1) % 3))];
  for (int f = 0; f < nf; ++f)
    for (int k = 0; k < 3; ++k) {
      int a = surface.triangles(f, k);
      int b = surface.triangles(f, (k + 1) % 3);
      const int count = edge_count[edge_key(a, b)];
      if (count == 2 || (allow_internal_faces && count > 2)) continue;
      if (a > b) std::swap(a, b);
      const std::string edge = "edge (" + std::to_string(a) + ", " + std::to_string(b) +
                               ") belongs to " + std::to_string(count) +
                               (count == 1 ? " triangle" : " triangles") + " (triangle " +
                               std::to_string(f) + ")";
      if (count == 1) fail("open surface: " + edge + "; only a closed surface bounds a volume");
      fail("non-manifold surface: " + edge + "; each edge must be shared by exactly 2");
    }
}

}  // namespace ramus
