#include "ramus/precompute/mesh/surface_mesh.h"

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
#include "text_io.h"

namespace ramus {

namespace {

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

void add_vertex(detail::LineReader& in, SurfaceBuilder& b, std::size_t first_token) {
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

}  // namespace

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

enum class PlyType { kInt8, kUInt8, kInt16, kUInt16, kInt32, kUInt32, kFloat32, kFloat64 };

struct PlyProperty {
  std::string name;
  bool is_list = false;
  PlyType count_type = PlyType::kUInt8;
  PlyType type = PlyType::kFloat32;
};

struct PlyElement {
  std::string name;
  long long count = 0;
  std::vector<PlyProperty> properties;
};

bool parse_ply_type(std::string_view s, PlyType& type) {
  static const std::map<std::string_view, PlyType> kTypes = {
      {"char", PlyType::kInt8},      {"int8", PlyType::kInt8},       {"uchar", PlyType::kUInt8},
      {"uint8", PlyType::kUInt8},    {"short", PlyType::kInt16},     {"int16", PlyType::kInt16},
      {"ushort", PlyType::kUInt16},  {"uint16", PlyType::kUInt16},   {"int", PlyType::kInt32},
      {"int32", PlyType::kInt32},    {"uint", PlyType::kUInt32},     {"uint32", PlyType::kUInt32},
      {"float", PlyType::kFloat32},  {"float32", PlyType::kFloat32}, {"double", PlyType::kFloat64},
      {"float64", PlyType::kFloat64}};
  auto it = kTypes.find(s);
  if (it == kTypes.end()) return false;
  type = it->second;
  return true;
}

std::size_t ply_size(PlyType t) {
  switch (t) {
    case PlyType::kInt8:
    case PlyType::kUInt8:
      return 1;
    case PlyType::kInt16:
    case PlyType::kUInt16:
      return 2;
    case PlyType::kInt32:
    case PlyType::kUInt32:
    case PlyType::kFloat32:
      return 4;
    case PlyType::kFloat64:
      return 8;
  }
  return 1;
}

bool is_integer_type(PlyType t) {
  return t != PlyType::kFloat32 && t != PlyType::kFloat64;
}

template <typename T>
T load_little_endian(const char* p) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(bytes, bytes + sizeof(T));
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

// Reads values from the body of a PLY file: binary (little endian) or ASCII (one record a line).
class PlyValueSource {
 public:
  PlyValueSource(const std::string& file, std::string_view body, bool binary, long header_lines)
      : file_(file), body_(body), binary_(binary), lines_(file, body, 0, header_lines) {}

  void begin_record(const std::string& what) {
    what_ = what;
    if (binary_) return;
    if (!lines_.next()) lines_.fail("unexpected end of file while reading " + what);
    token_ = 0;
  }

  void end_record() {
    if (!binary_ && token_ != lines_.tokens().size())
      lines_.fail("expected " + std::to_string(token_) + " values for " + what_ + ", found " +
                  std::to_string(lines_.tokens().size()));
  }

  double read(PlyType t) {
    if (!binary_) {
      if (token_ >= lines_.tokens().size())
        lines_.fail("too few values for " + what_ + " (found " +
                    std::to_string(lines_.tokens().size()) + ")");
      const std::string what = "a value of " + what_;
      return is_integer_type(t) ? static_cast<double>(lines_.int_at(token_++, what))
                                : lines_.double_at(token_++, what);
    }
    const std::size_t n = ply_size(t);
    if (n > body_.size() - pos_)
      throw InputError(file_, 0, "unexpected end of file while reading " + what_);
    const char* p = body_.data() + pos_;
    pos_ += n;
    switch (t) {
      case PlyType::kInt8:
        return load_little_endian<std::int8_t>(p);
      case PlyType::kUInt8:
        return load_little_endian<std::uint8_t>(p);
      case PlyType::kInt16:
        return load_little_endian<std::int16_t>(p);
      case PlyType::kUInt16:
        return load_little_endian<std::uint16_t>(p);
      case PlyType::kInt32:
        return load_little_endian<std::int32_t>(p);
      case PlyType::kUInt32:
        return load_little_endian<std::uint32_t>(p);
      case PlyType::kFloat32:
        return load_little_endian<float>(p);
      case PlyType::kFloat64:
        return load_little_endian<double>(p);
    }
    return 0;
  }

  [[noreturn]] void fail(const std::string& message) const {
    if (binary_) throw InputError(file_, 0, message);
    lines_.fail(message);
  }

  /// At most how many list items can follow: the bytes left (binary), the tokens left on the
  /// record's line (ASCII: a record is one line, so the file's last line holds its whole list).
  std::size_t list_capacity() const {
    return binary_ ? body_.size() - pos_ : lines_.tokens().size() - token_;
  }
  const char* list_capacity_unit() const { return binary_ ? "bytes left" : "values on its line"; }

 private:
  std::string file_;
  std::string_view body_;
  bool binary_;
  std::size_t pos_ = 0;
  detail::LineReader lines_;
  std::size_t token_ = 0;
  std::string what_;
};

}  // namespace

SurfaceMesh read_ply(const std::string& path) {
  const std::string text = detail::read_file_to_string(path);
  std::size_t end = text.find("end_header");
  if (text.compare(0, 3, "ply") != 0)
    throw InputError(path, 1, "not a PLY file: expected 'ply' on the first line");
  if (end == std::string::npos) throw InputError(path, 0, "PLY header has no end_header");
  end = text.find('\n', end);
  end = end == std::string::npos ? text.size() : end + 1;
  detail::LineReader header(path, std::string_view(text).substr(0, end), 0);
  header.next();  // "ply"
  bool binary = false;
  bool have_format = false;
  std::vector<PlyElement> elements;
  while (header.next()) {
    const auto& tok = header.tokens();
    if (tok[0] == "comment" || tok[0] == "obj_info") continue;
    if (tok[0] == "end_header") break;
    if (tok[0] == "format") {
      if (tok.size() < 2) header.fail("expected 'format <ascii|binary_little_endian> 1.0'");
      if (tok[1] == "ascii") {
        binary = false;
      } else if (tok[1] == "binary_little_endian") {
        binary = true;
      } else if (tok[1] == "binary_big_endian") {
        header.fail("binary_big_endian PLY is not supported; save as ASCII or little endian");
      } else {
        header.fail("unknown PLY format '" + std::string(tok[1].substr(0, 40)) + "'");
      }
      have_format = true;
    } else if (tok[0] == "element") {
      if (tok.size() != 3) header.fail("expected 'element <name> <count>'");
      PlyElement e;
      e.name = std::string(tok[1]);
      e.count = header.int_at(2, "the element count");
      if (e.count < 0 || static_cast<std::size_t>(e.count) > text.size() - end)
        header.fail("implausible count " + std::to_string(e.count) + " for element '" + e.name +
                    "' (the body has " + std::to_string(text.size() - end) + " bytes)");
      elements.push_back(e);
    } else if (tok[0] == "property") {
      if (elements.empty()) header.fail("property before any element");
      PlyProperty p;
      bool ok = false;
      if (tok.size() == 5 && tok[1] == "list") {
        p.is_list = true;
        ok = parse_ply_type(tok[2], p.count_type) && parse_ply_type(tok[3], p.type) &&
             is_integer_type(p.count_type);
        p.name = std::string(tok[4]);
      } else if (tok.size() == 3) {
        ok = parse_ply_type(tok[1], p.type);
        p.name = std::string(tok[2]);
      }
      if (!ok)
        header.fail("unsupported property declaration '" +
                    std::string(header.line().substr(0, 60)) + "'");
      elements.back().properties.push_back(p);
    } else {
      header.fail("unknown PLY header line '" + std::string(header.line().substr(0, 40)) + "'");
    }
  }
  if (!have_format) header.fail("PLY header has no format line");

  SurfaceBuilder b;
  PlyValueSource source(path, std::string_view(text).substr(end), binary, header.line_number());
  bool have_vertices = false;
  int num_vertices = 0;
  std::vector<int> polygon;
  for (const PlyElement& e : elements) {
    const bool is_vertex = e.name == "vertex";
    const bool is_face = e.name == "face";
    int xyz_slot[3] = {-1, -1, -1};
    int index_slot = -1;
    for (std::size_t k = 0; k < e.properties.size(); ++k) {
      const PlyProperty& p = e.properties[k];
      if (is_vertex && !p.is_list && p.name.size() == 1 && p.name[0] >= 'x' && p.name[0] <= 'z')
        xyz_slot[p.name[0] - 'x'] = static_cast<int>(k);
      if (is_face && p.is_list && (p.name == "vertex_indices" || p.name == "vertex_index"))
        index_slot = static_cast<int>(k);
    }
    if (is_vertex) {
      if (xyz_slot[0] < 0 || xyz_slot[1] < 0 || xyz_slot[2] < 0)
        source.fail("PLY vertex element lacks x, y or z");
      have_vertices = true;
      num_vertices =
          static_cast<int>(std::min<long long>(e.count, std::numeric_limits<int>::max()));
    }
    if (is_face && index_slot < 0) source.fail("PLY face element lacks vertex_indices");
    if (is_face && !have_vertices) source.fail("PLY face element before the vertex element");
    for (long long r = 0; r < e.count; ++r) {
      const std::string what = e.name + " " + std::to_string(r);
      source.begin_record(what);
      double x[3] = {0, 0, 0};
      for (std::size_t k = 0; k < e.properties.size(); ++k) {
        const PlyProperty& p = e.properties[k];
        if (!p.is_list) {
          const double value = source.read(p.type);
          for (int c = 0; c < 3; ++c)
            if (static_cast<int>(k) == xyz_slot[c]) x[c] = value;
          continue;
        }
        const double n = source.read(p.count_type);
        if (n < 0 || n > static_cast<double>(source.list_capacity()))
          source.fail(what + ": list length " + std::to_string(static_cast<long long>(n)) +
                      " is more than the " + std::to_string(source.list_capacity()) + " " +
                      source.list_capacity_unit());
        const bool wanted = is_face && static_cast<int>(k) == index_slot;
        if (wanted) {
          if (n < 3)
            source.fail(what + " has " + std::to_string(static_cast<long long>(n)) +
                        " vertices, expected at least 3");
          polygon.clear();
        }
        for (long long j = 0; j < static_cast<long long>(n); ++j) {
          const double v = source.read(p.type);
          if (!wanted) continue;
          if (!is_integer_type(p.type) && v != std::floor(v))
            source.fail(what + " has a non-integer vertex index");
          if (!(v >= 0 && v < num_vertices))
            source.fail(what + " references vertex " + detail::format_double(v) +
                        " but the file defines " + std::to_string(num_vertices) + " vertices");
          polygon.push_back(static_cast<int>(v));
        }
      }
      source.end_record();
      if (is_vertex) {
        for (int c = 0; c < 3; ++c) {
          if (!std::isfinite(x[c]))
            source.fail("vertex " + std::to_string(r) + " has a non-finite coordinate");
          b.xyz.push_back(x[c]);
        }
      } else if (is_face) {
        b.add_polygon(polygon, 0, 0);
      }
    }
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
  throw InputError(path, 0,
                   "unsupported surface format '" + ext + "'; supported: .obj, .off, .ply, .stl");
}

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
      if (count == 1) fail("open surface: " + edge + "; TetGen needs closed surfaces");
      fail("non-manifold surface: " + edge + "; each edge must be shared by exactly 2");
    }
}

void write_obj(const SurfaceMesh& surface, const std::string& path) {
  const bool grouped =
      surface.groups.size() == surface.num_triangles() && surface.num_triangles() > 0;
  detail::write_file_atomically(path, [&](std::ostream& out) {
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
