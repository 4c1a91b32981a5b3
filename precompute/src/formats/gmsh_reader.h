// The Gmsh .msh reader (precompute internals): MSH 2.2 and 4.1, ASCII (gmsh_read.cpp) and
// binary (gmsh_read_binary.cpp) sections, into a TetMesh.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "text_io.h"
#include "volume_elements.h"

namespace ramus::detail {

// A Gmsh volume element type: its shape and node count (corners first, then edge, face and
// interior nodes, which are dropped). Types from the MSH format's element table.
std::optional<VolumeType> gmsh_volume_type(long long type);

struct RawTet {
  long long element_tag = 0;
  int part = 0;        // which of the element's tets (split hexahedra, prisms, pyramids)
  bool split = false;  // one of the tets of a hexahedron, prism or pyramid
  long long nodes[4] = {0, 0, 0, 0};
  long long group = 0;  // 2.2: physical tag; 4.1: entity tag
  long line = 0;
};

class GmshReader {
 public:
  GmshReader(const std::string& path, const std::string& text) : in_(path, text, 0), text_(text) {}

  TetMesh read();

 private:
  void read_format();

  void expect_end(const std::string& name);

  void skip_section(const std::string& name);

  // Reads the next line of a section that must hold a record, failing at end of file or at a
  // premature $End... line with "expected N <what>, found k".
  void next_record(const std::string& section, long long expected, long long found,
                   const std::string& what);

  void add_node(long long tag, std::size_t x_token);

  void add_node(long long tag, const Eigen::Vector3d& x);

  void read_nodes_22();

  void read_nodes_41();

  void read_elements_22();

  // The element on the current line, nodes from token first_node on: its corners (the other
  // nodes counted as dropped), split into tets when it is not one.
  void read_element(long long tag, const VolumeType& kind, long long type, std::size_t first_node,
                    long long group);

  // An element's corners (ids: corner_count node tags): its tets, split when it is not one.
  void add_element(long long tag, const VolumeType& kind, long long type, const long long* ids,
                   long long group);

  void read_elements_41();

  // ---- binary sections (file type 1): little-endian, int 4 bytes, size_t and double 8 ----

  template <class T>
  T take(const char* what) {
    if (sizeof(T) > text_.size() - bin_)
      in_.fail(std::string("unexpected end of file in binary data while reading ") + what);
    T value;
    std::memcpy(&value, text_.data() + bin_, sizeof(T));
    bin_ += sizeof(T);
    return value;
  }

  // A count read from binary data, refused when the rest of the file cannot hold `count`
  // records of at least `record_bytes` (a corrupt header must not allocate gigabytes).
  int take_count(const char* what, std::size_t record_bytes);

  // Starts a binary block after the current line; finish_binary resumes line reading.
  void start_binary() { bin_ = in_.position(); }
  void finish_binary() { in_.seek(bin_); }

  void read_nodes_41_binary();

  void read_nodes_22_binary();

  // Node count of a Gmsh element type that is not a volume element (points, lines, triangles,
  // quadrangles up to order 5), needed to step over them in binary data; 0 if unknown.
  static int surface_type_nodes(long long type);

  // Nodes per element of `type`, failing for a type this reader cannot step over.
  int nodes_of_type(long long type);

  void read_elements_41_binary();

  void read_elements_22_binary();

  void read_entities_binary();

  void read_physical_names();

  void read_entities();

  TetMesh assemble();

  LineReader in_;
  bool version4_ = false;
  bool binary_ = false;
  std::string_view text_;
  std::size_t bin_ = 0;  // the read position inside a binary block
  bool saw_nodes_ = false;
  bool saw_elements_ = false;
  std::vector<double> xyz_;
  std::unordered_map<long long, int> node_index_;
  std::vector<RawTet> tets_;
  long long skipped_elements_ = 0;               // lower-dimensional elements (surface groups, ...)
  std::map<long long, long long> higher_order_;  // elements read by their corners, by type
  std::map<VolumeShape, long long> split_;       // elements split into tets, by shape
  std::vector<std::array<long long, 4>> split_buffer_;
  std::unordered_map<long long, long long> entity_physical_;
  std::map<int, std::string> names_;
};

}  // namespace ramus::detail
