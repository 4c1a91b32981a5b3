#include "ramus/precompute/formats/vtk_legacy_io.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "ramus/error.h"
#include "text_io.h"
#include "volume_elements.h"

namespace ramus {

namespace {

// Bytes of one value of a legacy VTK data type in a BINARY file; 0 for an unknown type.
int type_bytes(std::string_view type) {
  if (type == "bit") return -1;  // packed bits: refused
  if (type == "unsigned_char" || type == "char") return 1;
  if (type == "unsigned_short" || type == "short") return 2;
  if (type == "unsigned_int" || type == "int" || type == "float") return 4;
  if (type == "unsigned_long" || type == "long" || type == "double" || type == "vtktypeint64" ||
      type == "vtktypeuint64" || type == "vtkidtype")
    return 8;
  return 0;
}

bool is_integer_type(std::string_view type) {
  return type != "float" && type != "double";
}

// A value of `type` from big-endian bytes.
double big_endian_value(const unsigned char* p, std::string_view type) {
  const int n = type_bytes(type);
  std::uint64_t bits = 0;
  for (int k = 0; k < n; ++k) bits = (bits << 8) | p[k];
  const bool is_signed = type == "char" || type == "short" || type == "int" || type == "long" ||
                         type == "vtktypeint64" || type == "vtkidtype";
  if (type == "float") return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  if (type == "double") return std::bit_cast<double>(bits);
  if (is_signed && n < 8 && (bits >> (8 * n - 1)) != 0) bits |= ~std::uint64_t{0} << (8 * n);
  return is_signed ? static_cast<double>(static_cast<std::int64_t>(bits))
                   : static_cast<double>(bits);
}

// A cursor over the file: whitespace-separated tokens with line numbers, and the binary blocks
// of a BINARY file.
class LegacyVtkReader {
 public:
  LegacyVtkReader(std::string path, std::string_view text) : path_(std::move(path)), text_(text) {}

  TetMesh read() {
    read_header();
    std::string_view word;
    while (!(word = token()).empty()) {
      const std::string key = upper(word);
      if (key == "POINTS") {
        read_points();
      } else if (key == "CELLS") {
        read_cells();
      } else if (key == "CELL_TYPES") {
        const long long n = count("the number of cell types");
        read_values("int", n, cell_types_, "CELL_TYPES");
      } else if (key == "CELL_DATA" || key == "POINT_DATA") {
        attribute_on_points_ = key == "POINT_DATA";
        const long long n = count("the number of " + key + " values");
        (attribute_on_points_ ? point_data_rows_ : cell_data_rows_) = n;
      } else if (key == "SCALARS") {
        read_scalars();
      } else if (key == "FIELD") {
        read_field();
      } else if (key == "VECTORS" || key == "NORMALS" || key == "TENSORS") {
        token();  // name
        const std::string type(token());
        std::vector<double> skipped;
        read_values(type, attribute_rows() * (key == "TENSORS" ? 9 : 3), skipped, key);
      } else if (key == "LOOKUP_TABLE") {
        token();
        std::vector<double> skipped;
        read_values(binary_ ? "unsigned_char" : "float", 4 * count("the table size"), skipped,
                    "LOOKUP_TABLE");
      } else if (key == "COLOR_SCALARS") {
        token();
        const long long components = count("the number of color components");
        std::vector<double> skipped;
        read_values(binary_ ? "unsigned_char" : "float", attribute_rows() * components, skipped,
                    "COLOR_SCALARS");
      } else if (key == "TEXTURE_COORDINATES") {
        token();
        const long long dim = count("the texture dimension");
        const std::string type(token());
        std::vector<double> skipped;
        read_values(type, attribute_rows() * dim, skipped, "TEXTURE_COORDINATES");
      } else if (key == "METADATA") {
        skip_metadata();
      } else {
        fail("unexpected keyword '" + std::string(word.substr(0, 40)) +
             "' (expected POINTS, CELLS, CELL_TYPES, CELL_DATA, POINT_DATA, SCALARS, FIELD, ...)");
      }
    }
    return assemble();
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(path_, line_, message);
  }

  static std::string upper(std::string_view s) {
    std::string u(s);
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
  }

  // The next whitespace-separated token ("" at end of file).
  std::string_view token() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  // The rest of the current line (without its newline), moving past it.
  std::string_view rest_of_line() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    std::string_view line = text_.substr(start, pos_ - start);
    if (pos_ < text_.size()) {
      ++pos_;
      ++line_;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  }

  long long count(const std::string& what) {
    const std::string_view t = token();
    long long n = 0;
    if (!detail::parse_int(t, n) || n < 0 || n > std::numeric_limits<int>::max() / 16)
      fail("expected " + what + " (a count), found '" + std::string(t.substr(0, 40)) + "'");
    return n;
  }

  void read_header() {
    const std::string_view first = rest_of_line();
    if (first.rfind("# vtk DataFile Version", 0) != 0)
      fail("not a legacy VTK file: the first line must be '# vtk DataFile Version x.x'");
    rest_of_line();  // title
    const std::string format = upper(rest_of_line());
    const std::string trimmed(format.substr(0, format.find_last_not_of(" \t") + 1));
    if (trimmed == "BINARY") {
      binary_ = true;
    } else if (trimmed != "ASCII") {
      fail("the third line must be ASCII or BINARY, found '" + trimmed.substr(0, 40) + "'");
    }
    if (upper(token()) != "DATASET") fail("expected 'DATASET UNSTRUCTURED_GRID'");
    const std::string dataset = upper(token());
    if (dataset != "UNSTRUCTURED_GRID")
      fail("DATASET " + dataset.substr(0, 40) +
           " holds no tetrahedra: only UNSTRUCTURED_GRID is a volume mesh Ramus reads");
  }

  // count values of `type` (ASCII tokens or big-endian binary) appended to out.
  void read_values(const std::string& type_in, long long n, std::vector<double>& out,
                   const std::string& section) {
    const std::string type = [&] {
      std::string t(type_in);
      for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return t;
    }();
    const int bytes = type_bytes(type);
    if (bytes == 0) fail("unknown data type '" + type.substr(0, 40) + "' in " + section);
    if (bytes < 0) fail("data type 'bit' in " + section + " is not supported");
    if (!binary_) {
      if (static_cast<std::size_t>(n) > (text_.size() - pos_) / 2 + 1)
        fail(section + " announces " + std::to_string(n) + " values but the file is too short");
      out.reserve(out.size() + static_cast<std::size_t>(n));
      for (long long i = 0; i < n; ++i) {
        const std::string_view t = token();
        double v = 0;
        if (t.empty())
          fail("unexpected end of file in " + section + ": expected " + std::to_string(n) +
               " values, found " + std::to_string(i));
        if (!detail::parse_double(t, v))
          fail("'" + std::string(t.substr(0, 40)) + "' in " + section + " is not a number");
        out.push_back(v);
      }
      return;
    }
    // BINARY: the values start after the header line's newline, big-endian, back to back.
    rest_of_line();
    const std::size_t size = static_cast<std::size_t>(n) * static_cast<std::size_t>(bytes);
    if (size > text_.size() - pos_)
      fail(section + " announces " + std::to_string(n) + " " + type + " values (" +
           std::to_string(size) + " bytes) but only " + std::to_string(text_.size() - pos_) +
           " bytes are left");
    const auto* p = reinterpret_cast<const unsigned char*>(text_.data() + pos_);
    out.reserve(out.size() + static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i)
      out.push_back(big_endian_value(p + static_cast<std::size_t>(i * bytes), type));
    pos_ += size;
  }

  void read_points() {
    num_points_ = count("the number of points");
    const std::string type(token());
    read_values(type, 3 * num_points_, points_, "POINTS");
  }

  // Classic "CELLS n size" + n records "k i0 .. ik-1", or 5.1 "CELLS offsets connectivity" +
  // OFFSETS and CONNECTIVITY arrays.
  void read_cells() {
    const long long first = count("the number of cells");
    const long long second = count("the size of the cell list");
    const std::size_t mark = pos_;
    const long saved_line = line_;
    if (upper(token()) == "OFFSETS") {
      std::vector<double> offsets;
      read_values(std::string(token()), first, offsets, "OFFSETS");
      if (upper(token()) != "CONNECTIVITY") fail("expected CONNECTIVITY after OFFSETS");
      read_values(std::string(token()), second, connectivity_, "CONNECTIVITY");
      if (offsets.empty() || offsets.front() != 0)
        fail("OFFSETS must start with 0 (one more offset than cells)");
      end_offsets_.assign(offsets.begin() + 1, offsets.end());
      return;
    }
    pos_ = mark;
    line_ = saved_line;
    std::vector<double> list;
    read_values("int", second, list, "CELLS");
    std::size_t at = 0;
    for (long long c = 0; c < first; ++c) {
      if (at >= list.size())
        fail("CELLS announces " + std::to_string(first) + " cells but its list holds " +
             std::to_string(c));
      const double k = list[at++];
      if (!(k >= 0 && k <= static_cast<double>(list.size() - at)))
        fail("cell " + std::to_string(c) + " announces " + std::to_string(k) +
             " points, more than the list holds");
      connectivity_.insert(
          connectivity_.end(), list.begin() + static_cast<std::ptrdiff_t>(at),
          list.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(k)));
      at += static_cast<std::size_t>(k);
      end_offsets_.push_back(static_cast<double>(connectivity_.size()));
    }
    if (at != list.size())
      fail("CELLS size is " + std::to_string(second) + " but its " + std::to_string(first) +
           " cells use " + std::to_string(at));
  }

  long long attribute_rows() const {
    const long long rows = attribute_on_points_ ? point_data_rows_ : cell_data_rows_;
    if (rows < 0) throw InputError(path_, line_, "attribute data before CELL_DATA or POINT_DATA");
    return rows;
  }

  // Keeps an integer array the mesh uses (labels, vertex flags).
  void keep_array(const std::string& name, const std::string& type, long long components,
                  std::vector<double>&& values) {
    if (components != 1 || !is_integer_type(type)) return;
    static constexpr std::string_view kLabelNames[] = {"label", "gmsh:physical", "CellEntityIds",
                                                       "cell_scalars"};
    if (!attribute_on_points_) {
      for (int rank = 0; rank < 4; ++rank)
        if (name == kLabelNames[rank] && rank < label_rank_) {
          label_rank_ = rank;
          labels_ = std::move(values);
          return;
        }
    } else if (name == "vertex_flag") {
      vertex_flags_ = std::move(values);
    }
  }

  void read_scalars() {
    const std::string name(token());
    const std::string type(token());
    // An optional component count, then the LOOKUP_TABLE line.
    long long components = 1;
    std::string_view next = token();
    long long n = 0;
    if (detail::parse_int(next, n)) {
      if (n < 1 || n > 4) fail("SCALARS " + name + " has " + std::string(next) + " components");
      components = n;
      next = token();
    }
    if (upper(next) != "LOOKUP_TABLE") fail("expected LOOKUP_TABLE after SCALARS " + name);
    token();  // the table's name
    std::vector<double> values;
    read_values(type, attribute_rows() * components, values, "SCALARS " + name);
    keep_array(name, type, components, std::move(values));
  }

  void read_field() {
    token();  // the field's name
    const long long arrays = count("the number of arrays in FIELD");
    for (long long a = 0; a < arrays; ++a) {
      std::string_view name = token();
      if (upper(name) == "METADATA") {  // 5.1 writes metadata between arrays
        skip_metadata();
        name = token();
      }
      const std::string array_name(name);
      const long long components = count("the component count of FIELD array " + array_name);
      const long long tuples = count("the tuple count of FIELD array " + array_name);
      const std::string type(token());
      std::vector<double> values;
      read_values(type, components * tuples, values, "FIELD array " + array_name);
      if (tuples == (attribute_on_points_ ? point_data_rows_ : cell_data_rows_))
        keep_array(array_name, type, components, std::move(values));
    }
  }

  // METADATA blocks (5.1) run to the next blank line.
  void skip_metadata() {
    rest_of_line();
    while (pos_ < text_.size()) {
      const std::string_view line = rest_of_line();
      if (line.find_first_not_of(" \t") == std::string_view::npos) return;
    }
  }

  TetMesh assemble() {
    if (num_points_ < 0) fail("no POINTS section");
    if (end_offsets_.empty() && cell_types_.empty()) fail("no CELLS section");
    if (cell_types_.size() != end_offsets_.size())
      fail("CELL_TYPES has " + std::to_string(cell_types_.size()) + " entries but CELLS has " +
           std::to_string(end_offsets_.size()) + " cells");
    TetMesh mesh;
    const int nv = static_cast<int>(num_points_);
    mesh.rest_positions.resize(nv, 3);
    for (int i = 0; i < nv; ++i)
      for (int c = 0; c < 3; ++c) {
        const double x = points_[static_cast<std::size_t>(3 * i + c)];
        if (!std::isfinite(x)) fail("point " + std::to_string(i) + " has a non-finite coordinate");
        mesh.rest_positions(i, c) = x;
      }
    detail::VtkCellTets cells =
        detail::vtk_cells_to_tets(connectivity_, end_offsets_, cell_types_, mesh.rest_positions,
                                  [&](const std::string& array, const std::string& message) {
                                    throw InputError(path_, 0, "CELLS " + array + ": " + message);
                                  });
    if (cells.tets.rows() == 0)
      throw InputError(path_, 0,
                       "no volume cells: the " + std::to_string(cell_types_.size()) +
                           " cells are points, lines or surfaces (a surface goes in as "
                           ".obj/.off/.ply/.stl to tetrahedralize)");
    mesh.tets = std::move(cells.tets);
    mesh.read_notes = std::move(cells.notes);
    if (!labels_.empty() && static_cast<long long>(labels_.size()) == cell_data_rows_ &&
        cell_data_rows_ == static_cast<long long>(cell_types_.size())) {
      for (const double v : labels_)
        if (!(std::abs(v) <= std::numeric_limits<int>::max()))
          throw InputError(path_, 0, "a cell label does not fit in an int");
      mesh.labels.resize(mesh.num_tets());
      for (int t = 0; t < mesh.num_tets(); ++t)
        mesh.labels(t) = static_cast<int>(
            labels_[static_cast<std::size_t>(cells.source_cell[static_cast<std::size_t>(t)])]);
    }
    if (!vertex_flags_.empty() && static_cast<long long>(vertex_flags_.size()) == num_points_) {
      for (const double v : vertex_flags_)
        if (!(std::abs(v) <= std::numeric_limits<int>::max()))
          throw InputError(path_, 0, "a vertex_flag does not fit in an int");
      mesh.vertex_flags.resize(nv);
      for (int v = 0; v < nv; ++v)
        mesh.vertex_flags(v) = static_cast<int>(vertex_flags_[static_cast<std::size_t>(v)]);
    }
    detail::drop_unused_vertices(mesh);
    return mesh;
  }

  std::string path_;
  std::string_view text_;
  std::size_t pos_ = 0;
  long line_ = 1;
  bool binary_ = false;
  long long num_points_ = -1;
  std::vector<double> points_, connectivity_, end_offsets_, cell_types_;
  bool attribute_on_points_ = false;
  long long point_data_rows_ = -1, cell_data_rows_ = -1;
  std::vector<double> labels_, vertex_flags_;
  int label_rank_ = 4;  // which of the label array names labels_ holds (lower wins)
};

}  // namespace

TetMesh read_vtk_legacy(const std::string& path) {
  const std::string text = detail::read_file_to_string(path);
  return LegacyVtkReader(path, text).read();
}

}  // namespace ramus
