// write_vtu and PvdSeriesWriter: tet and triangle meshes with their fields as VTK XML
// UnstructuredGrid files, and time series of them for ParaView.
#include "ramus/precompute/formats/vtu_io.h"

#include <unistd.h>

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
#include "ramus/precompute/formats/atomic_file.h"
#include "text_io.h"
#include "volume_elements.h"
#include "vtk_binary.h"

namespace ramus {

namespace {

constexpr int kVtkTetra = 10;
constexpr int kVtkTriangle = 5;

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void check_rows(const std::string& kind, const std::string& name, Eigen::Index rows,
                Eigen::Index expected, const std::string& what) {
  if (rows != expected)
    throw Error("write_vtu: " + kind + " '" + name + "' has " + std::to_string(rows) +
                " rows but there are " + std::to_string(expected) + " " + what);
}

// One DataArray's values (`type` a VTK type of T): as text, or (`appended` given) compressed
// into the appended data, the tag giving its offset. In ASCII `per_line` values a line (0: a
// tuple's components, else 16); `components` 0: one, not written (the Cells arrays).
template <typename T>
void write_data_array(std::ostream& out, const char* type, const std::string& name,
                      Eigen::Index components, const std::vector<T>& values, std::string* appended,
                      std::size_t per_line = 0) {
  out << "        <DataArray type=\"" << type << "\" Name=\"" << xml_escape(name) << '"';
  if (components > 0)  // (0: the Cells arrays, which VTK names without it)
    out << " NumberOfComponents=\"" << components << '"';
  if (appended != nullptr) {
    out << " format=\"appended\" offset=\"" << appended->size() << "\"/>\n";
    detail::append_compressed_array(reinterpret_cast<const std::uint8_t*>(values.data()),
                                    values.size() * sizeof(T), *appended);
    return;
  }
  out << " format=\"ascii\">\n";
  if (per_line == 0) per_line = components > 1 ? static_cast<std::size_t>(components) : 16;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i % per_line == 0) out << "         ";
    if constexpr (std::is_floating_point_v<T>)
      out << ' ' << detail::format_double(values[i]);
    else
      out << ' ' << +values[i];
    if (i % per_line == per_line - 1 || i + 1 == values.size()) out << '\n';
  }
  out << "        </DataArray>\n";
}

void write_float_array(std::ostream& out, const std::string& name, const Eigen::MatrixXd& a,
                       std::string* appended) {
  std::vector<double> values(static_cast<std::size_t>(a.size()));
  for (Eigen::Index i = 0; i < a.rows(); ++i)  // (row by row: the components of a point)
    for (Eigen::Index c = 0; c < a.cols(); ++c)
      values[static_cast<std::size_t>(i * a.cols() + c)] = a(i, c);
  write_data_array(out, "Float64", name, a.cols(), values, appended);
}

void write_int_array(std::ostream& out, const std::string& name, const Eigen::VectorXi& a,
                     std::string* appended) {
  write_data_array(out, "Int32", name, 1, std::vector<std::int32_t>(a.begin(), a.end()), appended);
}

// ---- Minimal XML scanning for the files write_vtu produces (and similar ASCII files). ----

// Field data as VTK String arrays in ASCII: each string's characters as numbers, then a 0.
void write_field_strings(std::ostream& out,
                         const std::vector<std::pair<std::string, std::vector<std::string>>>& all) {
  if (all.empty()) return;
  out << "    <FieldData>\n";
  for (const auto& [name, strings] : all) {
    out << "      <Array type=\"String\" Name=\"" << name << "\" NumberOfTuples=\""
        << strings.size() << "\" format=\"ascii\">\n";
    for (const std::string& text : strings) {
      out << "        ";
      for (const char c : text) out << static_cast<int>(static_cast<unsigned char>(c)) << ' ';
      out << "0\n";
    }
    out << "      </Array>\n";
  }
  out << "    </FieldData>\n";
}

// Cells of `Corners` vertices each (#C by Corners) of VTK type `vtk_type`; `what` names them in
// messages ("tet", "triangle").
template <int Corners>
void write_vtu_cells(const std::string& path, const Eigen::MatrixX3d& positions,
                     const Eigen::Matrix<int, Eigen::Dynamic, Corners>& cells, int vtk_type,
                     const std::string& what, const VtuFields& fields, VtuEncoding encoding) {
  const Eigen::Index nv = positions.rows();
  const Eigen::Index nt = cells.rows();
  for (Eigen::Index t = 0; t < nt; ++t)
    for (int c = 0; c < Corners; ++c)
      if (cells(t, c) < 0 || cells(t, c) >= nv)
        throw Error("write_vtu: " + what + " " + std::to_string(t) + " references vertex " +
                    std::to_string(cells(t, c)) + " but there are " + std::to_string(nv) +
                    " vertices");
  for (const auto& [name, a] : fields.point_data)
    check_rows("point field", name, a.rows(), nv, "points");
  for (const auto& [name, a] : fields.point_ints)
    check_rows("point field", name, a.rows(), nv, "points");
  for (const auto& [name, a] : fields.cell_data)
    check_rows("cell field", name, a.rows(), nt, what + "s");
  for (const auto& [name, a] : fields.cell_ints)
    check_rows("cell field", name, a.rows(), nt, what + "s");
  // (Int32 cells: any vertex index fits, and they take half the bytes of Int64.)
  std::vector<std::int32_t> connectivity(static_cast<std::size_t>(nt * Corners)), offsets;
  for (Eigen::Index t = 0; t < nt; ++t)
    for (int c = 0; c < Corners; ++c)
      connectivity[static_cast<std::size_t>(t * Corners + c)] = cells(t, c);
  for (Eigen::Index t = 0; t < nt; ++t)
    offsets.push_back(static_cast<std::int32_t>(Corners * (t + 1)));
  const std::vector<std::uint8_t> types(static_cast<std::size_t>(nt),
                                        static_cast<std::uint8_t>(vtk_type));
  // Compressed: every array into one appended buffer of raw bytes (ParaView's default layout).
  std::string appended_data;
  std::string* appended = encoding == VtuEncoding::kCompressed ? &appended_data : nullptr;
  write_stream_atomically(path, [&](std::ostream& out) {
    out << "<?xml version=\"1.0\"?>\n"
           "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\""
        << (std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian")
        << "\" header_type=\"UInt64\""
        << (appended != nullptr ? " compressor=\"vtkZLibDataCompressor\"" : "") << ">\n"
        << "  <UnstructuredGrid>\n";
    write_field_strings(out, fields.strings);
    out << "    <Piece NumberOfPoints=\"" << nv << "\" NumberOfCells=\"" << nt << "\">\n";
    out << "      <PointData>\n";
    for (const auto& [name, a] : fields.point_data) write_float_array(out, name, a, appended);
    for (const auto& [name, a] : fields.point_ints) write_int_array(out, name, a, appended);
    out << "      </PointData>\n      <CellData>\n";
    for (const auto& [name, a] : fields.cell_data) write_float_array(out, name, a, appended);
    for (const auto& [name, a] : fields.cell_ints) write_int_array(out, name, a, appended);
    out << "      </CellData>\n      <Points>\n";
    write_float_array(out, "Points", positions, appended);
    out << "      </Points>\n      <Cells>\n";
    write_data_array(out, "Int32", "connectivity", 0, connectivity, appended,
                     static_cast<std::size_t>(Corners));
    write_data_array(out, "Int32", "offsets", 0, offsets, appended);
    write_data_array(out, "UInt8", "types", 0, types, appended);
    out << "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n";
    if (appended != nullptr) {
      out << "  <AppendedData encoding=\"raw\">\n   _";
      out.write(appended_data.data(), static_cast<std::streamsize>(appended_data.size()));
      out << "\n  </AppendedData>\n";
    }
    out << "</VTKFile>\n";
  });
}

}  // namespace

void write_vtu(const std::string& path, const Eigen::MatrixX3d& positions,
               const Eigen::MatrixX4i& tets, const VtuFields& fields, VtuEncoding encoding) {
  write_vtu_cells<4>(path, positions, tets, kVtkTetra, "tet", fields, encoding);
}

void write_vtu_triangles(const std::string& path, const Eigen::MatrixX3d& positions,
                         const Eigen::MatrixX3i& triangles, const VtuFields& fields,
                         VtuEncoding encoding) {
  write_vtu_cells<3>(path, positions, triangles, kVtkTriangle, "triangle", fields, encoding);
}

void write_vtu(const std::string& path, const TetMesh& mesh, const VtuFields& fields,
               VtuEncoding encoding) {
  VtuFields all = fields;
  if (mesh.has_labels()) all.cell_ints.emplace_back("label", mesh.labels);
  if (!mesh.label_names.empty()) {  // (Gmsh physical names, OBJ groups: kept for a round trip)
    std::vector<std::string> names;
    for (const auto& [label, name] : mesh.label_names)
      names.push_back(std::to_string(label) + ": " + name);
    all.strings.emplace_back("label_names", std::move(names));
  }
  if (mesh.vertex_flags.size() == mesh.num_vertices() && mesh.num_vertices() > 0)
    all.point_ints.emplace_back("vertex_flag", mesh.vertex_flags);
  write_vtu(path, mesh.rest_positions, mesh.tets, all, encoding);
}

namespace {

// A frame of series `stem`: "<stem>_NNNNN.vtu".
bool is_frame_name(const std::string& name, const std::string& stem) {
  if (name.size() != stem.size() + 10 || name.compare(0, stem.size() + 1, stem + "_") != 0 ||
      name.compare(name.size() - 4, 4, ".vtu") != 0)
    return false;
  return std::all_of(name.begin() + static_cast<std::ptrdiff_t>(stem.size() + 1), name.end() - 4,
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

PvdSeriesWriter::PvdSeriesWriter(std::string pvd_path, VtuEncoding encoding)
    : pvd_path_(std::move(pvd_path)), encoding_(encoding) {
  namespace fs = std::filesystem;
  const fs::path p(pvd_path_);
  stem_ = p.stem().string();
  if (stem_.empty())
    throw Error("'" + pvd_path_ + "' names a folder, not a series file (give e.g. out/run.pvd)");
  // The frames' folder is named after the stem: a name without ".pvd" would be both.
  if (p.extension() != ".pvd")
    throw Error("'" + pvd_path_ + "': a series is a .pvd file beside a folder of its frames " +
                "named after it (give e.g. " + stem_ + ".pvd)");
  folder_ = stem_;
  parent_ = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  // The targets: the .pvd a file (or nothing), the frames' folder this series' frames only.
  std::error_code ec;
  if (fs::is_directory(p, ec))
    throw Error("'" + pvd_path_ + "' is a folder: a series is written as a .pvd file");
  const fs::path frames = parent_ / folder_;
  if (fs::exists(frames, ec)) {
    if (!fs::is_directory(frames, ec))
      throw Error("cannot write the frames of '" + pvd_path_ + "': '" + frames.string() +
                  "' is a file");
    for (const auto& entry : fs::directory_iterator(frames, ec))
      if (!is_frame_name(entry.path().filename().string(), stem_))
        throw Error("cannot write the frames of '" + pvd_path_ + "': '" + frames.string() +
                    "' holds '" + entry.path().filename().string() +
                    "', which is not a frame of this series (never replaced)");
  }
  // Everything is written into a staging folder beside it and moved into place by finish().
  staging_ = parent_ / ("." + stem_ + ".staging-" + std::to_string(::getpid()));
  fs::remove_all(staging_, ec);
  fs::create_directories(staging_ / folder_, ec);
  if (ec)
    throw Error("cannot create the staging folder '" + staging_.string() + "': " + ec.message());
}

PvdSeriesWriter::~PvdSeriesWriter() {
  // Not finished: the run failed; nothing of it is left.
  if (finished_) return;
  std::error_code ec;
  std::filesystem::remove_all(staging_, ec);
}

std::string PvdSeriesWriter::frame_path(int i) const {
  char name[32];
  std::snprintf(name, sizeof(name), "_%05d.vtu", i);
  return ((finished_ ? parent_ : staging_) / folder_ / (stem_ + name)).string();
}

void PvdSeriesWriter::check_can_add(double time) const {
  if (finished_) throw Error("PvdSeriesWriter: add_frame after finish() ('" + pvd_path_ + "')");
  if (!std::isfinite(time)) throw Error("PvdSeriesWriter: frame time must be finite");
}

void PvdSeriesWriter::frame_added(double time) {
  times_.push_back(time);
}

void PvdSeriesWriter::add_frame(double time, const Eigen::MatrixX3d& positions,
                                const Eigen::MatrixX4i& tets, const VtuFields& fields) {
  check_can_add(time);
  write_vtu(frame_path(num_frames()), positions, tets, fields, encoding_);
  frame_added(time);
}

void PvdSeriesWriter::add_surface_frame(double time, const Eigen::MatrixX3d& positions,
                                        const Eigen::MatrixX3i& triangles,
                                        const VtuFields& fields) {
  check_can_add(time);
  write_vtu_triangles(frame_path(num_frames()), positions, triangles, fields, encoding_);
  frame_added(time);
}

void PvdSeriesWriter::finish() {
  namespace fs = std::filesystem;
  if (finished_) return;
  write_pvd((staging_ / (stem_ + ".pvd")).string());
  // The previous series' frames out, the new frames and the .pvd in, the staging folder gone.
  const fs::path frames = parent_ / folder_;
  std::error_code ec;
  if (fs::is_directory(frames, ec)) {
    for (const auto& entry : fs::directory_iterator(frames, ec))
      if (is_frame_name(entry.path().filename().string(), stem_)) fs::remove(entry.path(), ec);
    fs::remove(frames, ec);
  }
  fs::rename(staging_ / folder_, frames, ec);
  if (!ec) fs::rename(staging_ / (stem_ + ".pvd"), pvd_path_, ec);
  if (ec) throw Error("cannot move the series into place at '" + pvd_path_ + "': " + ec.message());
  fs::remove(staging_, ec);
  finished_ = true;
}

void PvdSeriesWriter::write_pvd(const std::string& path) const {
  write_stream_atomically(path, [&](std::ostream& out) {
    out << "<?xml version=\"1.0\"?>\n"
           "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
           "  <Collection>\n";
    for (int i = 0; i < num_frames(); ++i) {
      char name[32];
      std::snprintf(name, sizeof(name), "_%05d.vtu", i);
      out << "    <DataSet timestep=\"" << detail::format_double(times_[i])
          << "\" group=\"\" part=\"0\" file=\"" << xml_escape(folder_ + "/" + stem_ + name)
          << "\"/>\n";
    }
    out << "  </Collection>\n</VTKFile>\n";
  });
}

}  // namespace ramus
