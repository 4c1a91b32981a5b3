// read_vtu: a VTK XML UnstructuredGrid (ASCII, inline base64 or appended raw / base64, zlib or
// not) as a tet mesh with its fields.
#include "ramus/precompute/formats/vtu_io.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <type_traits>

#include "ramus/error.h"
#include "text_io.h"
#include "volume_elements.h"
#include "vtk_binary.h"

namespace ramus {

namespace {

constexpr int kVtkTetra = 10;
constexpr int kVtkTriangle = 5;

std::string xml_unescape(std::string_view s) {
  static const std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    bool replaced = false;
    if (s[i] == '&')
      for (const auto& [entity, c] : kEntities)
        if (s.substr(i, entity.size()) == entity) {
          out += c;
          i += entity.size();
          replaced = true;
          break;
        }
    if (!replaced) out += s[i++];
  }
  return out;
}

struct XmlTag {
  std::string name;
  std::map<std::string, std::string> attributes;
  bool closing = false;
  bool self_closing = false;
  std::size_t begin = 0;  // position of '<'
  std::size_t end = 0;    // one past '>'
};

class VtuParser {
 public:
  VtuParser(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {}

  [[noreturn]] void fail(std::size_t pos, const std::string& message) const {
    const long line = 1 + static_cast<long>(std::count(
                              text_.begin(), text_.begin() + std::min(pos, text_.size()), '\n'));
    throw InputError(path_, line, message);
  }

  // Next tag at or after pos (skipping declarations and comments); nullopt at end of text.
  std::optional<XmlTag> next_tag(std::size_t& pos) const {
    while (true) {
      const std::size_t open = text_.find('<', pos);
      if (open == std::string::npos) return std::nullopt;
      if (text_.compare(open, 4, "<!--") == 0) {
        const std::size_t close = text_.find("-->", open);
        if (close == std::string::npos) fail(open, "unterminated XML comment");
        pos = close + 3;
        continue;
      }
      const std::size_t close = text_.find('>', open);
      if (close == std::string::npos) fail(open, "unterminated XML tag");
      if (text_[open + 1] == '?' || text_[open + 1] == '!') {
        pos = close + 1;
        continue;
      }
      XmlTag tag;
      tag.begin = open;
      tag.end = close + 1;
      std::string_view body(text_.data() + open + 1, close - open - 1);
      if (!body.empty() && body.front() == '/') {
        tag.closing = true;
        body.remove_prefix(1);
      }
      if (!body.empty() && body.back() == '/') {
        tag.self_closing = true;
        body.remove_suffix(1);
      }
      std::size_t i = 0;
      const auto skip_space = [&] {
        while (i < body.size() && std::isspace(static_cast<unsigned char>(body[i]))) ++i;
      };
      const auto read_name = [&] {
        const std::size_t start = i;
        while (i < body.size() && !std::isspace(static_cast<unsigned char>(body[i])) &&
               body[i] != '=')
          ++i;
        return std::string(body.substr(start, i - start));
      };
      tag.name = read_name();
      if (tag.name.empty()) fail(open, "malformed XML tag");
      while (true) {
        skip_space();
        if (i >= body.size()) break;
        const std::string key = read_name();
        skip_space();
        if (key.empty() || i >= body.size() || body[i] != '=')
          fail(open, "malformed attribute in <" + tag.name + ">");
        ++i;
        skip_space();
        if (i >= body.size() || (body[i] != '"' && body[i] != '\''))
          fail(open, "attribute '" + key + "' of <" + tag.name + "> is not quoted");
        const char quote = body[i++];
        const std::size_t end = body.find(quote, i);
        if (end == std::string_view::npos) fail(open, "unterminated attribute '" + key + "'");
        tag.attributes[key] = xml_unescape(body.substr(i, end - i));
        i = end + 1;
      }
      pos = tag.end;
      return tag;
    }
  }

  long long int_attribute(const XmlTag& tag, const std::string& key, std::size_t pos,
                          long long fallback = -1) const {
    auto it = tag.attributes.find(key);
    if (it == tag.attributes.end()) {
      if (fallback >= 0) return fallback;
      fail(pos, "<" + tag.name + "> has no " + key + " attribute");
    }
    long long value = 0;
    if (!detail::parse_int(it->second, value) || value < 0 ||
        value > std::numeric_limits<int>::max() / 4)
      fail(pos, "invalid " + key + "=\"" + it->second.substr(0, 40) + "\" in <" + tag.name + ">");
    return value;
  }

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }

 private:
  std::string path_;
  std::string text_;
};

struct RawArray {
  std::string name;
  std::string parent;
  std::string type;  // VTK's: Int8 ... UInt64, Float32, Float64
  bool integer = false;
  int components = 1;
  std::vector<double> values;
  std::size_t pos = 0;
  long long appended_offset = -1;  // format="appended": where its data begins
};

// How the file stores binary data (the <VTKFile> attributes).
struct BinaryLayout {
  int header_bytes = 4;  // header_type UInt32 (VTK's default) or UInt64
  bool compressed = false;
  bool swap = false;  // byte_order differs from this machine's
};

std::size_t vtk_type_size(const std::string& type) {
  if (type == "Int8" || type == "UInt8") return 1;
  if (type == "Int16" || type == "UInt16") return 2;
  if (type == "Int32" || type == "UInt32" || type == "Float32") return 4;
  if (type == "Int64" || type == "UInt64" || type == "Float64") return 8;
  return 0;
}

template <typename T>
void append_values(const std::vector<std::uint8_t>& bytes, bool swap, std::vector<double>& out) {
  for (std::size_t at = 0; at + sizeof(T) <= bytes.size(); at += sizeof(T)) {
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, bytes.data() + at, sizeof(T));
    if (swap) std::reverse(raw, raw + sizeof(T));
    T value;
    std::memcpy(&value, raw, sizeof(T));
    out.push_back(static_cast<double>(value));
  }
}

// The values of a binary array's bytes of VTK type `type`.
std::vector<double> binary_values(const std::vector<std::uint8_t>& bytes, const std::string& type,
                                  bool swap) {
  std::vector<double> out;
  out.reserve(bytes.size() / std::max<std::size_t>(1, vtk_type_size(type)));
  if (type == "Int8") append_values<std::int8_t>(bytes, swap, out);
  if (type == "UInt8") append_values<std::uint8_t>(bytes, swap, out);
  if (type == "Int16") append_values<std::int16_t>(bytes, swap, out);
  if (type == "UInt16") append_values<std::uint16_t>(bytes, swap, out);
  if (type == "Int32") append_values<std::int32_t>(bytes, swap, out);
  if (type == "UInt32") append_values<std::uint32_t>(bytes, swap, out);
  if (type == "Int64") append_values<std::int64_t>(bytes, swap, out);
  if (type == "UInt64") append_values<std::uint64_t>(bytes, swap, out);
  if (type == "Float32") append_values<float>(bytes, swap, out);
  if (type == "Float64") append_values<double>(bytes, swap, out);
  return out;
}

// A binary array's values from its stored form (inline base64, or appended raw or base64).
std::vector<double> decode_array(const VtuParser& xml, const RawArray& a, std::string_view stored,
                                 bool raw, const BinaryLayout& layout) {
  detail::BinaryArraySource source;
  source.stored = stored;
  source.base64 = !raw;
  source.header_bytes = layout.header_bytes;
  source.compressed = layout.compressed;
  // (zlib inflates at most ~1032 times; a header claiming more is corrupt)
  source.max_bytes = std::min<std::size_t>(1100 * stored.size() + 4096, std::size_t{1} << 34);
  try {
    const std::vector<std::uint8_t> bytes = detail::decode_binary_array(source);
    if (bytes.size() % vtk_type_size(a.type) != 0)
      xml.fail(a.pos, "DataArray '" + a.name + "' holds " + std::to_string(bytes.size()) +
                          " bytes, not a whole number of " + a.type + " values");
    return binary_values(bytes, a.type, layout.swap);
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const InputError*>(&e) != nullptr) throw;
    xml.fail(a.pos, "DataArray '" + a.name + "': " + e.what());
  }
}

// The tags of a .vtu read: its arrays (appended ones decoded), field strings and sizes.
struct VtuContent {
  std::vector<RawArray> arrays;
  std::vector<std::pair<std::string, std::vector<std::string>>> field_strings;
  long long num_points = -1;
  long long num_cells = -1;
};

// <VTKFile>: an UnstructuredGrid, and how its binary data are stored.
void read_vtkfile_tag(VtuParser& xml, const XmlTag* tag, BinaryLayout& layout) {
  const std::size_t tag_pos = tag->begin;
  const auto type = tag->attributes.find("type");
  if (type == tag->attributes.end() || type->second != "UnstructuredGrid")
    xml.fail(tag_pos, "not a VTK UnstructuredGrid file (.vtu)");
  const auto attribute = [&](const char* key) {
    const auto found = tag->attributes.find(key);
    return found == tag->attributes.end() ? std::string() : found->second;
  };
  const std::string compressor = attribute("compressor"), header = attribute("header_type"),
                    order = attribute("byte_order");
  if (!compressor.empty() && compressor != "vtkZLibDataCompressor")
    xml.fail(tag_pos, "compressor \"" + compressor.substr(0, 40) +
                          "\" is not supported (save with zlib compression or none)");
  layout.compressed = !compressor.empty();
  if (!header.empty() && header != "UInt32" && header != "UInt64")
    xml.fail(tag_pos, "header_type \"" + header.substr(0, 40) + "\" must be UInt32 or UInt64");
  layout.header_bytes = header == "UInt64" ? 8 : 4;
  if (!order.empty() && order != "LittleEndian" && order != "BigEndian")
    xml.fail(tag_pos,
             "byte_order \"" + order.substr(0, 40) + "\" is not LittleEndian or BigEndian");
  layout.swap = (order == "BigEndian") != (std::endian::native == std::endian::big);
}

// A FieldData String array (characters as numbers, each string ended by a 0) into `out`
// (binary field data, e.g. ParaView's TimeValue, skipped); returns the position after it.
std::size_t read_field_strings(
    VtuParser& xml, const XmlTag* tag, std::size_t pos,
    std::vector<std::pair<std::string, std::vector<std::string>>>& field_strings) {
  const std::string& text = xml.text();
  const std::size_t tag_pos = tag->begin;
  const std::string name = tag->attributes.count("Name") ? tag->attributes.at("Name") : "";
  const std::string type = tag->attributes.count("type") ? tag->attributes.at("type") : "";
  const std::size_t close = tag->self_closing ? pos : text.find("</Array>", pos);
  if (close == std::string::npos) xml.fail(tag_pos, "Array '" + name + "' is not closed");
  const bool ascii = !tag->attributes.count("format") || tag->attributes.at("format") == "ascii";
  if (type == "String" && ascii) {  // (binary field data, e.g. ParaView's TimeValue: skipped)
    std::vector<std::string> strings(1);
    for (std::string_view token :
         detail::split_whitespace(std::string_view(text).substr(pos, close - pos))) {
      long long code = 0;
      if (!detail::parse_int(token, code) || code < 0 || code > 255)
        xml.fail(static_cast<std::size_t>(token.data() - text.data()),
                 "String array '" + name + "' holds '" + std::string(token.substr(0, 40)) +
                     "', not a character code");
      if (code == 0)
        strings.emplace_back();
      else
        strings.back().push_back(static_cast<char>(code));
    }
    strings.pop_back();  // (what follows the last 0)
    field_strings.emplace_back(name, std::move(strings));
  }
  if (!tag->self_closing) pos = close + std::string_view("</Array>").size();
  return pos;
}

// A DataArray: its values now (ASCII, inline binary) or its offset into the appended data,
// into `arrays`; returns the position after it.
std::size_t read_data_array(VtuParser& xml, const XmlTag* tag, std::size_t pos,
                            const std::vector<std::string>& stack, const BinaryLayout& layout,
                            std::vector<RawArray>& arrays) {
  const std::string& text = xml.text();
  const std::size_t tag_pos = tag->begin;
  RawArray a;
  a.pos = tag_pos;
  a.name = tag->attributes.count("Name") ? tag->attributes.at("Name") : "";
  a.parent = stack.empty() ? "" : stack.back();
  const std::string format =
      tag->attributes.count("format") ? tag->attributes.at("format") : "ascii";
  if (format != "ascii" && format != "binary" && format != "appended")
    xml.fail(tag_pos, "DataArray '" + a.name + "' has format=\"" + format.substr(0, 40) +
                          "\" (expected ascii, binary or appended)");
  a.type = tag->attributes.count("type") ? tag->attributes.at("type") : "";
  a.integer = a.type.find("Int") != std::string::npos;
  if (vtk_type_size(a.type) == 0)
    xml.fail(tag_pos,
             "DataArray '" + a.name + "' has unsupported type \"" + a.type.substr(0, 40) + "\"");
  a.components = static_cast<int>(xml.int_attribute(*tag, "NumberOfComponents", tag_pos, 1));
  if (a.components < 1) xml.fail(tag_pos, "NumberOfComponents must be positive");
  const std::size_t close = tag->self_closing ? pos : text.find("</DataArray>", pos);
  if (close == std::string::npos) xml.fail(tag_pos, "DataArray '" + a.name + "' is not closed");
  if (format == "appended") {
    a.appended_offset = xml.int_attribute(*tag, "offset", tag_pos);
  } else if (format == "binary") {
    a.values = decode_array(xml, a, std::string_view(text).substr(pos, close - pos), false, layout);
  }
  if (format != "ascii") {
    if (!tag->self_closing) pos = close + std::string_view("</DataArray>").size();
    arrays.push_back(std::move(a));
    return pos;
  }
  for (std::string_view token :
       detail::split_whitespace(std::string_view(text).substr(pos, close - pos))) {
    double value = 0;
    long long integer = 0;
    const bool ok =
        a.integer ? detail::parse_int(token, integer) : detail::parse_double(token, value);
    if (!ok)
      xml.fail(
          static_cast<std::size_t>(token.data() - text.data()),
          "garbage value '" + std::string(token.substr(0, 40)) + "' in DataArray '" + a.name + "'");
    a.values.push_back(a.integer ? static_cast<double>(integer) : value);
  }
  if (!tag->self_closing) pos = close + std::string_view("</DataArray>").size();
  arrays.push_back(std::move(a));
  return pos;
}

VtuContent parse_vtu(VtuParser& xml) {
  const std::string& text = xml.text();
  VtuContent content;
  std::vector<RawArray>& arrays = content.arrays;
  auto& field_strings = content.field_strings;
  long long& num_points = content.num_points;
  long long& num_cells = content.num_cells;
  std::size_t pos = 0;
  std::vector<std::string> stack;
  bool saw_vtkfile = false;
  BinaryLayout layout;
  std::size_t appended_start = std::string::npos;
  bool appended_raw = false;
  while (auto tag = xml.next_tag(pos)) {
    const std::size_t tag_pos = tag->begin;
    if (tag->closing) {
      if (stack.empty() || stack.back() != tag->name)
        xml.fail(tag_pos, "unexpected </" + tag->name + ">");
      stack.pop_back();
      continue;
    }
    if (tag->name == "VTKFile") {
      saw_vtkfile = true;
      read_vtkfile_tag(xml, &*tag, layout);
    } else if (tag->name == "Piece") {
      if (num_points >= 0) xml.fail(tag_pos, "files with several <Piece>s are not supported");
      num_points = xml.int_attribute(*tag, "NumberOfPoints", tag_pos);
      num_cells = xml.int_attribute(*tag, "NumberOfCells", tag_pos);
    } else if (tag->name == "AppendedData") {
      // Appended data: '_' then every appended array's bytes (raw or base64) to the end; no
      // tags are read after it (raw bytes may hold '<').
      const std::string encoding =
          tag->attributes.count("encoding") ? tag->attributes.at("encoding") : "base64";
      if (encoding != "raw" && encoding != "base64")
        xml.fail(tag_pos,
                 "AppendedData encoding \"" + encoding.substr(0, 40) + "\" is not raw or base64");
      appended_raw = encoding == "raw";
      const std::size_t underscore = text.find('_', pos);
      if (underscore == std::string::npos) xml.fail(tag_pos, "AppendedData has no '_' marker");
      appended_start = underscore + 1;
      // Its closing tags follow the data: the file must end with them (else it was cut short).
      const std::size_t last = text.find_last_not_of(" \t\r\n");
      if (last == std::string::npos || last < 9 || text.compare(last - 9, 10, "</VTKFile>") != 0)
        xml.fail(text.size(), "the file ends inside its AppendedData (truncated?)");
      stack.clear();
      break;
    } else if (tag->name == "Array" && !stack.empty() && stack.back() == "FieldData") {
      pos = read_field_strings(xml, &*tag, pos, field_strings);
      continue;
    } else if (tag->name == "DataArray") {
      pos = read_data_array(xml, &*tag, pos, stack, layout, arrays);
      continue;
    }
    if (!tag->self_closing) stack.push_back(tag->name);
  }
  // The appended arrays' values, now that the data's start is known.
  for (RawArray& a : arrays) {
    if (a.appended_offset < 0) continue;
    if (appended_start == std::string::npos)
      xml.fail(a.pos, "DataArray '" + a.name + "' is appended but the file has no AppendedData");
    if (a.appended_offset > static_cast<long long>(text.size() - appended_start))
      xml.fail(a.pos, "DataArray '" + a.name + "' has offset " + std::to_string(a.appended_offset) +
                          " beyond the appended data");
    a.values = decode_array(
        xml, a,
        std::string_view(text).substr(appended_start + static_cast<std::size_t>(a.appended_offset)),
        appended_raw, layout);
  }
  if (!saw_vtkfile) xml.fail(0, "not a VTK XML file (no <VTKFile>)");
  if (num_points < 0) xml.fail(text.size(), "no <Piece> element");
  if (!stack.empty()) xml.fail(text.size(), "<" + stack.back() + "> is not closed");

  return content;
}

// A DataArray holds `expected` values, else an error naming it.
void expect_size(VtuParser& xml, const RawArray& a, long long expected) {
  if (static_cast<long long>(a.values.size()) != expected)
    xml.fail(a.pos, "DataArray '" + a.name + "' has " + std::to_string(a.values.size()) +
                        " values, expected " + std::to_string(expected));
}

// The tet mesh of the points and cells (other volume cells split into `cells`).
TetMesh vtu_tet_mesh(VtuParser& xml, const VtuContent& content, detail::VtkCellTets& cells) {
  const std::string& text = xml.text();
  const std::vector<RawArray>& arrays = content.arrays;
  const long long num_points = content.num_points, num_cells = content.num_cells;
  const RawArray* points = nullptr;
  const RawArray* connectivity = nullptr;
  const RawArray* offsets = nullptr;
  const RawArray* types = nullptr;
  for (const RawArray& a : arrays) {
    if (a.parent == "Points") points = &a;
    if (a.parent == "Cells" && a.name == "connectivity") connectivity = &a;
    if (a.parent == "Cells" && a.name == "offsets") offsets = &a;
    if (a.parent == "Cells" && a.name == "types") types = &a;
  }
  if (!points) xml.fail(text.size(), "no <Points> DataArray");
  if (!connectivity || !offsets || !types)
    xml.fail(text.size(), "<Cells> needs connectivity, offsets and types arrays");
  if (points->components != 3) xml.fail(points->pos, "Points must have 3 components");
  expect_size(xml, *points, 3 * num_points);
  expect_size(xml, *offsets, num_cells);
  expect_size(xml, *types, num_cells);
  const int nv = static_cast<int>(num_points);
  TetMesh mesh;
  mesh.rest_positions.resize(nv, 3);
  for (int i = 0; i < nv; ++i)
    for (int c = 0; c < 3; ++c) {
      const double x = points->values[3 * i + c];
      if (!std::isfinite(x))
        xml.fail(points->pos, "vertex " + std::to_string(i) + " has a non-finite coordinate");
      mesh.rest_positions(i, c) = x;
    }
  // Cells to tets: other volume cells split, higher-order nodes dropped, surfaces skipped.
  cells = detail::vtk_cells_to_tets(connectivity->values, offsets->values, types->values,
                                    mesh.rest_positions,
                                    [&](const std::string& array, const std::string& message) {
                                      xml.fail((array == "types"     ? types
                                                : array == "offsets" ? offsets
                                                                     : connectivity)
                                                   ->pos,
                                               message);
                                    });
  if (cells.tets.rows() == 0)
    xml.fail(text.size(), "no volume cells: the " + std::to_string(num_cells) +
                              " cells are points, lines or surfaces (a surface goes in as "
                              ".obj/.off/.ply/.stl to tetrahedralize)");
  mesh.tets = std::move(cells.tets);
  mesh.read_notes = std::move(cells.notes);
  return mesh;
}

// The point and cell arrays and field strings as fields; labels, vertex flags and label names
// into `mesh`.
VtuFields vtu_fields(VtuParser& xml, VtuContent& content, const detail::VtkCellTets& cells,
                     TetMesh& mesh) {
  const std::string& text = xml.text();
  const std::vector<RawArray>& arrays = content.arrays;
  const long long num_points = content.num_points, num_cells = content.num_cells;
  const int nv = static_cast<int>(num_points);
  auto& field_strings = content.field_strings;
  // Point and cell arrays: a tet takes its cell's row, a kept vertex its own.
  const std::vector<int> kept = detail::drop_unused_vertices(mesh);
  std::vector<std::size_t> source_row;
  VtuFields found;
  for (const RawArray& a : arrays) {
    const bool on_points = a.parent == "PointData";
    if (!on_points && a.parent != "CellData") continue;
    expect_size(xml, a, (on_points ? num_points : num_cells) * a.components);
    source_row.clear();
    if (on_points) {
      for (int v = 0; v < nv; ++v)
        if (kept.empty() || kept[static_cast<std::size_t>(v)] >= 0)
          source_row.push_back(static_cast<std::size_t>(v));
    } else {
      for (const int c : cells.source_cell) source_row.push_back(static_cast<std::size_t>(c));
    }
    const int rows = static_cast<int>(source_row.size());
    if (a.integer && a.components == 1) {
      Eigen::VectorXi v(rows);
      for (int i = 0; i < rows; ++i) {
        const double value = a.values[source_row[static_cast<std::size_t>(i)]];
        if (std::abs(value) > std::numeric_limits<int>::max())
          xml.fail(a.pos, "value of '" + a.name + "' does not fit in an int");
        v(i) = static_cast<int>(value);
      }
      if (on_points && a.name == "vertex_flag")
        mesh.vertex_flags = v;
      else if (!on_points && a.name == "label")
        mesh.labels = v;
      else
        (on_points ? found.point_ints : found.cell_ints).emplace_back(a.name, v);
      continue;
    }
    Eigen::MatrixXd m(rows, a.components);
    for (int i = 0; i < rows; ++i)
      for (int c = 0; c < a.components; ++c)
        m(i, c) = a.values[source_row[static_cast<std::size_t>(i)] *
                               static_cast<std::size_t>(a.components) +
                           static_cast<std::size_t>(c)];
    (on_points ? found.point_data : found.cell_data).emplace_back(a.name, std::move(m));
  }
  for (auto& [name, strings] : field_strings) {
    if (name == "label_names") {  // "<label>: <name>", as write_vtu writes them
      for (const std::string& entry : strings) {
        const std::size_t colon = entry.find(": ");
        long long label = 0;
        if (colon == std::string::npos ||
            !detail::parse_int(std::string_view(entry).substr(0, colon), label) ||
            std::abs(label) > std::numeric_limits<int>::max())
          xml.fail(text.size(),
                   "label_names entry '" + entry.substr(0, 40) + "' is not '<label>: <name>'");
        mesh.label_names[static_cast<int>(label)] = entry.substr(colon + 2);
      }
    } else {
      found.strings.emplace_back(name, std::move(strings));
    }
  }
  return found;
}

}  // namespace

TetMesh read_vtu(const std::string& path, VtuFields* fields) {
  VtuParser xml(path, detail::read_file_to_string(path));
  VtuContent content = parse_vtu(xml);
  detail::VtkCellTets cells;
  TetMesh mesh = vtu_tet_mesh(xml, content, cells);
  VtuFields found = vtu_fields(xml, content, cells, mesh);
  if (fields) *fields = std::move(found);
  return mesh;
}

// ---- PvdSeriesWriter ----

}  // namespace ramus
