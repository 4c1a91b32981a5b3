// PLY (ASCII or binary little endian): vertex positions and face index lists.
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

#include "surface_builder.h"
#include "text_io.h"

namespace ramus {

using detail::add_vertex;
using detail::load_little_endian;
using detail::SurfaceBuilder;

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

namespace {

// The PLY header (text[0, end)): its format and its elements with their properties; line is
// set to the header's last line.
struct PlyHeader {
  bool binary = false;
  std::vector<PlyElement> elements;
  long line = 0;
};

PlyHeader read_ply_header(const std::string& path, const std::string& text, std::size_t end) {
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
  return {binary, std::move(elements), header.line_number()};
}

}  // namespace

SurfaceMesh read_ply(const std::string& path) {
  const std::string text = detail::read_file_to_string(path);
  std::size_t end = text.find("end_header");
  if (text.compare(0, 3, "ply") != 0)
    throw InputError(path, 1, "not a PLY file: expected 'ply' on the first line");
  if (end == std::string::npos) throw InputError(path, 0, "PLY header has no end_header");
  end = text.find('\n', end);
  end = end == std::string::npos ? text.size() : end + 1;
  const PlyHeader ply = read_ply_header(path, text, end);
  const bool binary = ply.binary;
  const std::vector<PlyElement>& elements = ply.elements;

  SurfaceBuilder b;
  PlyValueSource source(path, std::string_view(text).substr(end), binary, ply.line);
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

}  // namespace ramus
