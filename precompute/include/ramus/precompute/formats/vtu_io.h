// VTK XML UnstructuredGrid (.vtu) output for ParaView (ASCII, or binary zlib-compressed), .pvd
// time series, and input of tet meshes in any of VTK's XML encodings.
#pragma once

#include <Eigen/Core>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// Named arrays attached to points or cells of a .vtu file.
struct VtuFields {
  std::vector<std::pair<std::string, Eigen::MatrixXd>> point_data;  ///< each #V by c (Float64)
  std::vector<std::pair<std::string, Eigen::MatrixXd>> cell_data;   ///< each #T by c (Float64)
  std::vector<std::pair<std::string, Eigen::VectorXi>> point_ints;  ///< each #V (Int32)
  std::vector<std::pair<std::string, Eigen::VectorXi>> cell_ints;   ///< each #T (Int32): labels
  /// Field data: named lists of strings, the whole dataset's (VTK String arrays), e.g.
  /// "domain_names" (row i: the name of domain i) or "label_names" ("<label>: <name>")
  std::vector<std::pair<std::string, std::vector<std::string>>> strings;
};

/// How a .vtu stores its arrays: ASCII text (exact doubles, readable), or binary, compressed
/// with zlib into one raw appended block (VTK's vtkZLibDataCompressor, UInt64 headers,
/// ParaView's own layout): the doubles bit for bit in a quarter to a tenth of the bytes.
/// ParaView reads both.
enum class VtuEncoding { kAscii, kCompressed };

/// Writes tets (#T by 4) at positions (#V by 3) with fields as a .vtu, atomically (path.tmp then
/// rename). Throws Error on size mismatches or an unwritable file.
void write_vtu(const std::string& path, const Eigen::MatrixX3d& positions,
               const Eigen::MatrixX4i& tets, const VtuFields& fields = {},
               VtuEncoding encoding = VtuEncoding::kAscii);

/// Writes triangles (#F by 3) at positions (#V by 3) with fields (cell arrays: #F rows) as a
/// .vtu of VTK triangles (type 5), atomically; for surfaces (e.g. a model's embedded
/// rendering surface). read_vtu does not read it back (tets only). Throws Error like write_vtu.
void write_vtu_triangles(const std::string& path, const Eigen::MatrixX3d& positions,
                         const Eigen::MatrixX3i& triangles, const VtuFields& fields = {},
                         VtuEncoding encoding = VtuEncoding::kAscii);

/// Same for a TetMesh at its rest positions; labels are added as the Int32 cell array "label"
/// and vertex_flags as the Int32 point array "vertex_flag" (when present).
void write_vtu(const std::string& path, const TetMesh& mesh, const VtuFields& fields = {},
               VtuEncoding encoding = VtuEncoding::kAscii);

/// Reads a .vtu of tetrahedra: ASCII, inline binary or appended data (raw or base64), plain or
/// zlib-compressed, UInt32 or UInt64 headers, any VTK integer or float type (ParaView's own
/// files included). Int32 cell array "label" -> labels, Int32 point array "vertex_flag" ->
/// vertex_flags; every other array goes to *fields when given (integer arrays with one component
/// to point_ints / cell_ints). Throws InputError naming the file, line and array.
TetMesh read_vtu(const std::string& path, VtuFields* fields = nullptr);

/// Writes a ParaView time series: out.pvd plus frames out/out_00000.vtu, out/out_00001.vtu, ...
/// (paths in the .pvd are relative). Everything is written into a staging folder
/// ".<stem>.staging-<pid>" beside the .pvd and moved into place by finish() (a previous series of
/// the same name replaced); a writer destroyed unfinished (a failed run) leaves nothing. A frame
/// folder holding anything but this series' frames is refused, never replaced.
class PvdSeriesWriter {
 public:
  /// Creates the staging folder next to pvd_path; throws Error if it can't, or when pvd_path is
  /// a folder or does not end in ".pvd". Frames are written compressed unless `encoding` says
  /// otherwise.
  explicit PvdSeriesWriter(std::string pvd_path, VtuEncoding encoding = VtuEncoding::kCompressed);
  ~PvdSeriesWriter();
  PvdSeriesWriter(const PvdSeriesWriter&) = delete;
  PvdSeriesWriter& operator=(const PvdSeriesWriter&) = delete;

  /// Writes frame num_frames() at time `time` (positions #V by 3, tets #T by 4).
  void add_frame(double time, const Eigen::MatrixX3d& positions, const Eigen::MatrixX4i& tets,
                 const VtuFields& fields = {});
  /// Same with a triangle surface (#F by 3) as the frame (write_vtu_triangles).
  void add_surface_frame(double time, const Eigen::MatrixX3d& positions,
                         const Eigen::MatrixX3i& triangles, const VtuFields& fields = {});
  /// Writes the .pvd and moves the series into place; add_frame afterwards is an error.
  void finish();

  int num_frames() const { return static_cast<int>(times_.size()); }
  /// Path of frame i's .vtu file (in the staging folder until finish()).
  std::string frame_path(int i) const;

 private:
  void check_can_add(double time) const;
  void frame_added(double time);
  void write_pvd(const std::string& path) const;

  std::string pvd_path_;
  VtuEncoding encoding_;
  std::string folder_;                      // relative to the .pvd's folder
  std::filesystem::path parent_, staging_;  // the .pvd's folder; where the series is written
  std::string stem_;
  std::vector<double> times_;
  bool finished_ = false;
};

}  // namespace ramus
