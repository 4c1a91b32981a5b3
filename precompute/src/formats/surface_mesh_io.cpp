#include "ramus/precompute/formats/surface_mesh_io.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <unordered_map>

#include "ramus/error.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/precompute/formats/scene_io.h"

#include "surface_builder.h"
#include "text_io.h"

namespace ramus {

using detail::add_vertex;
using detail::load_little_endian;
using detail::SurfaceBuilder;

SurfaceMesh read_obj(const std::string& path) {
  const std::string text = detail::read_file_to_string(path);
  detail::LineReader in(path, text);
  SurfaceBuilder b;
  std::vector<std::string> group_names;
  int group = -1;
  std::vector<int> polygon;
  while (in.next()) {
    const auto& tok = in.tokens();
    if (tok[0] == "v") {
      if (tok.size() < 4)
        in.fail("expected 'v x y z', found " + std::to_string(tok.size() - 1) + " values");
      add_vertex(in, b, 1);
    } else if (tok[0] == "f") {
      if (tok.size() < 4)
        in.fail("a face needs at least 3 vertices, found " + std::to_string(tok.size() - 1));
      polygon.clear();
      for (std::size_t k = 1; k < tok.size(); ++k) {
        const std::string_view index_text = tok[k].substr(0, tok[k].find('/'));
        long long i = 0;
        if (!detail::parse_int(index_text, i))
          in.fail("expected a vertex index, found '" + std::string(tok[k].substr(0, 40)) + "'");
        const long long nv = b.num_vertices();
        if (i == 0) in.fail("vertex index 0 is invalid (OBJ indices start at 1)");
        const long long v = i > 0 ? i - 1 : nv + i;
        if (v < 0)
          in.fail("relative vertex index " + std::to_string(i) + " but only " + std::to_string(nv) +
                  " vertices are defined so far");
        if (v > std::numeric_limits<int>::max() / 2)
          in.fail("vertex index " + std::to_string(i) + " is out of range");
        polygon.push_back(static_cast<int>(v));
      }
      if (group < 0) {
        group_names.push_back("default");
        group = 0;
      }
      b.add_polygon(polygon, group, in.line_number());
    } else if (tok[0] == "g" || tok[0] == "o") {
      std::string name = tok.size() > 1
                             ? std::string(in.line().substr(tok[1].data() - in.line().data()))
                             : std::string("default");
      auto it = std::find(group_names.begin(), group_names.end(), name);
      group = static_cast<int>(it - group_names.begin());
      if (it == group_names.end()) group_names.push_back(name);
    }
    // vt, vn, usemtl, mtllib, s, l, p, ... are ignored.
  }
  const bool has_groups = !(group_names.size() == 1 && group_names[0] == "default");
  SurfaceMesh mesh = b.build(path, has_groups);
  if (has_groups) mesh.group_names = group_names;
  return mesh;
}

SurfaceMesh read_off(const std::string& path) {
  const std::string text = detail::read_file_to_string(path);
  detail::LineReader in(path, text);
  if (!in.next()) in.fail("empty file: expected 'OFF'");
  std::string_view magic = in.tokens()[0];
  if (magic.size() < 3 || magic.substr(magic.size() - 3) != "OFF")
    in.fail("not an OFF file: expected 'OFF', found '" + std::string(magic.substr(0, 40)) + "'");
  if (magic.find('4') != std::string_view::npos || magic.find('n') != std::string_view::npos)
    in.fail("'" + std::string(magic) + "' files are not supported, only 3D OFF");
  std::size_t first = 1;
  if (in.tokens().size() == 1) {
    in.next_or_fail("the OFF header");
    first = 0;
  }
  if (in.tokens().size() < first + 2) in.fail("expected '<#vertices> <#faces> <#edges>'");
  const int nv = in.checked_count(in.int_at(first, "the number of vertices"), "number of vertices");
  const int nf = in.checked_count(in.int_at(first + 1, "the number of faces"), "number of faces");
  SurfaceBuilder b;
  for (int i = 0; i < nv; ++i) {
    if (!in.next())
      in.fail("unexpected end of file: expected " + std::to_string(nv) + " vertices, found " +
              std::to_string(i));
    if (in.tokens().size() < 3)
      in.fail("expected 'x y z' for vertex " + std::to_string(i) + ", found " +
              std::to_string(in.tokens().size()) + " values");
    add_vertex(in, b, 0);
  }
  std::vector<int> polygon;
  for (int f = 0; f < nf; ++f) {
    if (!in.next())
      in.fail("unexpected end of file: expected " + std::to_string(nf) + " faces, found " +
              std::to_string(f));
    const long long n = in.int_at(0, "the vertex count of face " + std::to_string(f));
    if (n < 3) in.fail("face " + std::to_string(f) + " has " + std::to_string(n) + " vertices");
    if (static_cast<std::size_t>(n) + 1 > in.tokens().size())
      in.fail("face " + std::to_string(f) + " announces " + std::to_string(n) +
              " vertices but lists " + std::to_string(in.tokens().size() - 1));
    polygon.clear();
    for (long long k = 0; k < n; ++k) {
      const long long v = in.int_at(1 + k, "a vertex index of face " + std::to_string(f));
      if (v < 0 || v >= nv)
        in.fail("face " + std::to_string(f) + " references vertex " + std::to_string(v) +
                " but the file defines " + std::to_string(nv) + " vertices");
      polygon.push_back(static_cast<int>(v));
    }
    b.add_polygon(polygon, 0, in.line_number());
  }
  return b.build(path, false);
}

namespace {

// STL stores each triangle's corners by value: corners with the same coordinates (to the bit)
// become one vertex.
class VertexWelder {
 public:
  explicit VertexWelder(SurfaceBuilder& b) : b_(b) {}
  int add(const std::array<double, 3>& x) {
    const auto [it, inserted] = index_.try_emplace(x, b_.num_vertices());
    if (inserted) b_.xyz.insert(b_.xyz.end(), x.begin(), x.end());
    return it->second;
  }

 private:
  SurfaceBuilder& b_;
  std::map<std::array<double, 3>, int> index_;
};

SurfaceMesh read_binary_stl(const std::string& path, std::string_view bytes) {
  const std::uint32_t count = load_little_endian<std::uint32_t>(bytes.data() + 80);
  SurfaceBuilder b;
  VertexWelder weld(b);
  std::vector<int> polygon(3);
  for (std::uint32_t f = 0; f < count; ++f) {
    const char* record = bytes.data() + 84 + 50 * static_cast<std::size_t>(f);
    for (int c = 0; c < 3; ++c) {  // (after the 12-byte normal: three corners of 3 floats)
      std::array<double, 3> x;
      for (int k = 0; k < 3; ++k) {
        x[k] = load_little_endian<float>(record + 12 + 12 * c + 4 * k);
        if (!std::isfinite(x[k]))
          throw InputError(path, 0,
                           "triangle " + std::to_string(f) + " has a non-finite coordinate");
      }
      polygon[c] = weld.add(x);
    }
    b.add_polygon(polygon, 0, 0);
  }
  return b.build(path, false);
}

SurfaceMesh read_ascii_stl(const std::string& path, std::string_view text) {
  detail::LineReader in(path, text);
  SurfaceBuilder b;
  VertexWelder weld(b);
  std::vector<int> polygon;
  while (in.next()) {
    const std::string_view head = in.tokens()[0];
    if (head == "facet") {
      polygon.clear();
    } else if (head == "vertex") {
      if (in.tokens().size() != 4) in.fail("expected 'vertex x y z'");
      std::array<double, 3> x;
      for (int k = 0; k < 3; ++k) x[k] = in.finite_double_at(1 + k, "a vertex coordinate");
      polygon.push_back(weld.add(x));
    } else if (head == "endloop") {
      if (polygon.size() < 3)
        in.fail("a facet with " + std::to_string(polygon.size()) + " vertices");
      b.add_polygon(polygon, 0, in.line_number());
    } else if (head != "solid" && head != "outer" && head != "endfacet" && head != "endsolid") {
      in.fail(
          "expected an STL keyword (solid, facet, outer loop, vertex, endloop, endfacet, "
          "endsolid), found '" +
          std::string(head.substr(0, 40)) + "'");
    }
  }
  return b.build(path, false);
}

}  // namespace

SurfaceMesh read_stl(const std::string& path) {
  const std::string bytes = detail::read_file_to_string(path);
  // Binary when the size is exactly 84 + 50 n for the count it declares (a binary header may
  // itself begin with "solid"); ASCII otherwise.
  if (bytes.size() >= 84) {
    const std::uint32_t count = load_little_endian<std::uint32_t>(bytes.data() + 80);
    if (bytes.size() == 84 + 50 * static_cast<std::uint64_t>(count))
      return read_binary_stl(path, bytes);
  }
  if (bytes.compare(0, 5, "solid") != 0)
    throw InputError(path, 0,
                     "not an STL file: neither ASCII (starting with 'solid') nor binary (84 + 50 "
                     "bytes per triangle; this file has " +
                         std::to_string(bytes.size()) + " bytes)");
  return read_ascii_stl(path, bytes);
}

SurfaceMesh read_surface_mesh(const std::string& path) {
  const std::string ext = detail::lowercase_extension(path);
  if (ext == ".obj") return read_obj(path);
  if (ext == ".off") return read_off(path);
  if (ext == ".ply") return read_ply(path);
  if (ext == ".stl") return read_stl(path);
  if (is_scene_file(path)) return read_scene(path);
  throw InputError(path, 0,
                   "unsupported surface format '" + ext +
                       "'; supported: .obj, .off, .ply, .stl, and scenes .gltf, .glb, .fbx, .dae");
}

void write_obj(const SurfaceMesh& surface, const std::string& path) {
  const bool grouped =
      surface.groups.size() == surface.num_triangles() && surface.num_triangles() > 0;
  write_stream_atomically(path, [&](std::ostream& out) {
    out << "# Ramus surface: " << surface.num_vertices() << " vertices, " << surface.num_triangles()
        << " triangles\n";
    for (int v = 0; v < surface.num_vertices(); ++v)
      out << "v " << detail::format_double(surface.vertices(v, 0)) << ' '
          << detail::format_double(surface.vertices(v, 1)) << ' '
          << detail::format_double(surface.vertices(v, 2)) << '\n';
    int current_group = -1;
    for (int f = 0; f < surface.num_triangles(); ++f) {
      if (grouped && surface.groups(f) != current_group) {
        current_group = surface.groups(f);
        const auto g = static_cast<size_t>(current_group);
        out << "g "
            << (g < surface.group_names.size() ? surface.group_names[g]
                                               : "group_" + std::to_string(g))
            << '\n';
      }
      out << "f " << surface.triangles(f, 0) + 1 << ' ' << surface.triangles(f, 1) + 1 << ' '
          << surface.triangles(f, 2) + 1 << '\n';
    }
  });
}

}  // namespace ramus
