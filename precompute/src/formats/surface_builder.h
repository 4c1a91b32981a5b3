// What the surface readers share (formats/, precompute internals): a builder of vertices and
// fan-triangulated polygons, and little-endian loads.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/mesh/surface_mesh.h"
#include "text_io.h"

namespace ramus::detail {

// Accumulates vertices and fan-triangulated polygons while a file is parsed.
struct SurfaceBuilder {
  std::vector<double> xyz;
  std::vector<int> tris;
  std::vector<int> groups;
  std::vector<long> face_lines;  // line of each triangle (for late index checks)

  int num_vertices() const { return static_cast<int>(xyz.size() / 3); }

  void add_polygon(const std::vector<int>& polygon, int group, long line) {
    for (std::size_t k = 1; k + 1 < polygon.size(); ++k) {
      tris.insert(tris.end(), {polygon[0], polygon[k], polygon[k + 1]});
      groups.push_back(group);
      face_lines.push_back(line);
    }
  }

  SurfaceMesh build(const std::string& file, bool keep_groups) const {
    const int nv = num_vertices();
    const int nf = static_cast<int>(tris.size() / 3);
    if (nf == 0) throw InputError(file, 0, "the file contains no faces");
    SurfaceMesh mesh;
    mesh.vertices.resize(nv, 3);
    for (int i = 0; i < nv; ++i)
      for (int c = 0; c < 3; ++c) mesh.vertices(i, c) = xyz[3 * i + c];
    mesh.triangles.resize(nf, 3);
    for (int f = 0; f < nf; ++f)
      for (int c = 0; c < 3; ++c) {
        const int v = tris[3 * f + c];
        if (v < 0 || v >= nv)
          throw InputError(file, face_lines[f],
                           "face references vertex " + std::to_string(v) +
                               " but the file defines " + std::to_string(nv) + " vertices");
        mesh.triangles(f, c) = v;
      }
    if (keep_groups) mesh.groups = Eigen::Map<const Eigen::VectorXi>(groups.data(), nf);
    return mesh;
  }
};

inline void add_vertex(LineReader& in, SurfaceBuilder& b, std::size_t first_token) {
  const int index = b.num_vertices();
  for (std::size_t c = 0; c < 3; ++c) {
    const double x =
        in.double_at(first_token + c, "a coordinate of vertex " + std::to_string(index));
    if (!std::isfinite(x))
      in.fail("vertex " + std::to_string(index) + " has a non-finite coordinate (" +
              std::string(in.tokens()[first_token + c]) + ")");
    b.xyz.push_back(x);
  }
}

template <typename T>
inline T load_little_endian(const char* p) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(bytes, bytes + sizeof(T));
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

}  // namespace ramus::detail
