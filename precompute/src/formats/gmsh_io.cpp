#include "ramus/precompute/formats/gmsh_io.h"

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
#include "text_io.h"
#include "volume_elements.h"

namespace ramus {

namespace {

// A Gmsh volume element type: its shape and node count (corners first, then edge, face and
// interior nodes, which are dropped). Types from the MSH format's element table.
using detail::VolumeType;
std::optional<VolumeType> volume_type(long long type) {
  using S = detail::VolumeShape;
  switch (type) {
    case 4:
      return VolumeType{S::kTet, 4};
    case 11:
      return VolumeType{S::kTet, 10};
    case 29:
      return VolumeType{S::kTet, 20};
    case 30:
      return VolumeType{S::kTet, 35};
    case 31:
      return VolumeType{S::kTet, 56};
    case 7:
      return VolumeType{S::kPyramid, 5};
    case 14:
      return VolumeType{S::kPyramid, 14};
    case 19:
      return VolumeType{S::kPyramid, 13};
    case 6:
      return VolumeType{S::kPrism, 6};
    case 13:
      return VolumeType{S::kPrism, 18};
    case 18:
      return VolumeType{S::kPrism, 15};
    case 5:
      return VolumeType{S::kHex, 8};
    case 12:
      return VolumeType{S::kHex, 27};
    case 17:
      return VolumeType{S::kHex, 20};
    case 92:
      return VolumeType{S::kHex, 64};
    case 93:
      return VolumeType{S::kHex, 125};
    default:
      return std::nullopt;
  }
}

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

  TetMesh read() {
    read_format();
    while (in_.next()) {
      const std::string_view head = in_.tokens()[0];
      if (head.empty() || head[0] != '$')
        in_.fail("expected a section header ($Nodes, $Elements, ...), found '" +
                 std::string(head.substr(0, 40)) + "'");
      const std::string name(head.substr(1));
      if (name == "Nodes") {
        if (saw_nodes_) in_.fail("second $Nodes section");
        saw_nodes_ = true;
        if (binary_)
          version4_ ? read_nodes_41_binary() : read_nodes_22_binary();
        else
          version4_ ? read_nodes_41() : read_nodes_22();
      } else if (name == "Elements") {
        if (saw_elements_) in_.fail("second $Elements section");
        saw_elements_ = true;
        if (binary_)
          version4_ ? read_elements_41_binary() : read_elements_22_binary();
        else
          version4_ ? read_elements_41() : read_elements_22();
      } else if (name == "PhysicalNames") {
        read_physical_names();
      } else if (name == "Entities" && version4_) {
        binary_ ? read_entities_binary() : read_entities();
      } else {
        skip_section(name);
        continue;
      }
      expect_end(name);
    }
    if (!saw_nodes_) in_.fail("no $Nodes section");
    if (!saw_elements_) in_.fail("no $Elements section");
    if (tets_.empty() && skipped_elements_ > 0)
      throw InputError(
          in_.file(), 0,
          "no tetrahedra: the " + std::to_string(skipped_elements_) +
              " elements are surface, curve or point elements (Gmsh exported its "
              "2D/1D groups only); mesh the volume (Mesh > 3D) and add a Physical "
              "Volume, or give the closed surface as .obj/.off/.ply to tetrahedralize");
    return assemble();
  }

 private:
  void read_format() {
    if (!in_.next()) in_.fail("empty file: expected $MeshFormat");
    if (in_.tokens()[0] == "$NOD" || in_.tokens()[0] == "$NOE")
      in_.fail("MSH version 1 is not supported, save as MSH 4.1 or 2.2 (ASCII)");
    if (in_.tokens()[0] != "$MeshFormat")
      in_.fail("not a Gmsh .msh file: expected $MeshFormat, found '" +
               std::string(in_.line().substr(0, 40)) + "'");
    in_.next_or_fail("$MeshFormat");
    if (in_.tokens().size() < 3)
      in_.fail("expected '<version> <file-type> <data-size>' in $MeshFormat");
    const std::string version(in_.tokens()[0]);
    const long long file_type = in_.int_at(1, "the file type");
    if (file_type != 0 && file_type != 1)
      in_.fail("unknown .msh file type " + std::to_string(file_type) + " (0 ASCII, 1 binary)");
    binary_ = file_type == 1;
    if (version == "4.1") {
      version4_ = true;
    } else if (version == "2" || version == "2.0" || version == "2.1" || version == "2.2") {
      version4_ = false;
    } else {
      in_.fail("MSH version " + version + " is not supported, save as MSH 4.1 or 2.2");
    }
    if (binary_) {
      if (in_.int_at(2, "the data size") != 8)
        in_.fail("binary .msh with data size " + std::string(in_.tokens()[2]) +
                 " is not supported (8: 64-bit size_t and double, Gmsh's own)");
      // The integer 1 in the writer's byte order, then a newline.
      bin_ = in_.position();
      if (take<std::int32_t>("the byte-order mark") != 1)
        in_.fail(
            "binary .msh written on a machine of the other byte order (big-endian): "
            "save it as ASCII");
      in_.seek(bin_);
    }
    expect_end("MeshFormat");
  }

  void expect_end(const std::string& name) {
    in_.next_or_fail("$" + name + " (missing $End" + name + ")");
    if (in_.tokens()[0] != "$End" + name)
      in_.fail("expected $End" + name + ", found '" + std::string(in_.line().substr(0, 40)) + "'");
  }

  void skip_section(const std::string& name) {
    const std::string end = "$End" + name;
    while (true) {
      in_.next_or_fail("$" + name + " (missing " + end + ")");
      if (in_.tokens()[0] == end) return;
    }
  }

  // Reads the next line of a section that must hold a record, failing at end of file or at a
  // premature $End... line with "expected N <what>, found k".
  void next_record(const std::string& section, long long expected, long long found,
                   const std::string& what) {
    const std::string counts =
        "expected " + std::to_string(expected) + " " + what + ", found " + std::to_string(found);
    if (!in_.next()) in_.fail("unexpected end of file while reading $" + section + ": " + counts);
    if (in_.tokens()[0] == "$End" + section) in_.fail("unexpected $End" + section + ": " + counts);
  }

  void add_node(long long tag, std::size_t x_token) {
    const std::string what = "node " + std::to_string(tag);
    Eigen::Vector3d x;
    for (int c = 0; c < 3; ++c) x(c) = in_.finite_double_at(x_token + c, "a coordinate of " + what);
    add_node(tag, x);
  }

  void add_node(long long tag, const Eigen::Vector3d& x) {
    if (!x.allFinite()) in_.fail("node " + std::to_string(tag) + " has a non-finite coordinate");
    if (!node_index_.emplace(tag, static_cast<int>(xyz_.size() / 3)).second)
      in_.fail("node tag " + std::to_string(tag) + " is defined twice");
    xyz_.insert(xyz_.end(), x.data(), x.data() + 3);
  }

  void read_nodes_22() {
    in_.next_or_fail("$Nodes");
    const int count = in_.checked_count(in_.int_at(0, "the number of nodes"), "number of nodes");
    for (int i = 0; i < count; ++i) {
      next_record("Nodes", count, i, "nodes");
      if (in_.tokens().size() != 4)
        in_.fail("expected 'tag x y z' for node " + std::to_string(i) + ", found " +
                 std::to_string(in_.tokens().size()) + " values");
      add_node(in_.int_at(0, "a node tag"), 1);
    }
  }

  void read_nodes_41() {
    in_.next_or_fail("$Nodes");
    if (in_.tokens().size() != 4)
      in_.fail("expected '<numEntityBlocks> <numNodes> <minNodeTag> <maxNodeTag>' in $Nodes");
    const int blocks =
        in_.checked_count(in_.int_at(0, "the number of node blocks"), "number of node blocks");
    const int total = in_.checked_count(in_.int_at(1, "the number of nodes"), "number of nodes");
    long long found = 0;
    for (int b = 0; b < blocks; ++b) {
      next_record("Nodes", blocks, b, "node blocks");
      if (in_.tokens().size() != 4)
        in_.fail("expected '<entityDim> <entityTag> <parametric> <numNodesInBlock>'");
      const long long parametric = in_.int_at(2, "the parametric flag");
      if (parametric != 0 && parametric != 1) in_.fail("parametric flag must be 0 or 1");
      const int n = in_.checked_count(in_.int_at(3, "the number of nodes in the block"),
                                      "number of nodes in the block");
      std::vector<long long> tags;
      tags.reserve(std::min<std::size_t>(n, in_.remaining_bytes() / 2 + 1));
      for (int i = 0; i < n; ++i) {
        next_record("Nodes", total, found + i, "nodes");
        if (in_.tokens().size() != 1) in_.fail("expected one node tag per line");
        tags.push_back(in_.int_at(0, "a node tag"));
      }
      for (int i = 0; i < n; ++i) {
        next_record("Nodes", total, found + i, "node coordinates");
        if (in_.tokens().size() < 3)
          in_.fail("expected 'x y z' for node " + std::to_string(tags[i]) + ", found " +
                   std::to_string(in_.tokens().size()) + " values");
        add_node(tags[i], 0);
      }
      found += n;
    }
    if (found != total)
      in_.fail("$Nodes header announces " + std::to_string(total) + " nodes but the blocks hold " +
               std::to_string(found));
  }

  void read_elements_22() {
    in_.next_or_fail("$Elements");
    const int count =
        in_.checked_count(in_.int_at(0, "the number of elements"), "number of elements");
    for (int e = 0; e < count; ++e) {
      next_record("Elements", count, e, "elements");
      const auto& tok = in_.tokens();
      if (tok.size() < 3) in_.fail("expected '<tag> <type> <numTags> ...' for an element");
      const long long tag = in_.int_at(0, "an element tag");
      const long long type = in_.int_at(1, "an element type");
      const long long num_tags = in_.int_at(2, "the number of tags");
      if (num_tags < 0 || static_cast<std::size_t>(num_tags) > tok.size() - 3)
        in_.fail("element " + std::to_string(tag) + " announces " + std::to_string(num_tags) +
                 " tags but the line has only " + std::to_string(tok.size() - 3) + " values");
      const std::optional<VolumeType> kind = volume_type(type);
      if (!kind) {
        ++skipped_elements_;
        continue;
      }
      read_element(tag, *kind, type, 3 + static_cast<std::size_t>(num_tags),
                   num_tags >= 1 ? in_.int_at(3, "the physical tag") : 0);
    }
  }

  // The element on the current line, nodes from token first_node on: its corners (the other
  // nodes counted as dropped), split into tets when it is not one.
  void read_element(long long tag, const VolumeType& kind, long long type, std::size_t first_node,
                    long long group) {
    const std::size_t found = in_.tokens().size() - first_node;
    if (found != static_cast<std::size_t>(kind.nodes))
      in_.fail("expected " + std::to_string(kind.nodes) + " node tags for element " +
               std::to_string(tag) + " (type " + std::to_string(type) + "), found " +
               std::to_string(found));
    const int corners = detail::corner_count(kind.shape);
    long long ids[8];
    for (int c = 0; c < corners; ++c) ids[c] = in_.int_at(first_node + c, "a node tag");
    add_element(tag, kind, type, ids, group);
  }

  // An element's corners (ids: corner_count node tags): its tets, split when it is not one.
  void add_element(long long tag, const VolumeType& kind, long long type, const long long* ids,
                   long long group) {
    const int corners = detail::corner_count(kind.shape);
    if (kind.nodes != corners) ++higher_order_[type];
    if (kind.shape != detail::VolumeShape::kTet) ++split_[kind.shape];
    split_buffer_.clear();
    detail::split_into_tets(kind.shape, std::span<const long long>(ids, corners), split_buffer_);
    for (std::size_t k = 0; k < split_buffer_.size(); ++k) {
      RawTet t;
      t.element_tag = tag;
      t.part = static_cast<int>(k);
      t.split = kind.shape != detail::VolumeShape::kTet;
      t.line = in_.line_number();
      t.group = group;
      std::copy(split_buffer_[k].begin(), split_buffer_[k].end(), t.nodes);
      tets_.push_back(t);
    }
  }

  void read_elements_41() {
    in_.next_or_fail("$Elements");
    if (in_.tokens().size() != 4)
      in_.fail("expected '<numEntityBlocks> <numElements> <minTag> <maxTag>' in $Elements");
    const int blocks = in_.checked_count(in_.int_at(0, "the number of element blocks"),
                                         "number of element blocks");
    const int total =
        in_.checked_count(in_.int_at(1, "the number of elements"), "number of elements");
    long long found = 0;
    for (int b = 0; b < blocks; ++b) {
      next_record("Elements", blocks, b, "element blocks");
      if (in_.tokens().size() != 4)
        in_.fail("expected '<entityDim> <entityTag> <elementType> <numElementsInBlock>'");
      const long long dim = in_.int_at(0, "the entity dimension");
      const long long entity = in_.int_at(1, "the entity tag");
      const long long type = in_.int_at(2, "the element type");
      const int n = in_.checked_count(in_.int_at(3, "the number of elements in the block"),
                                      "number of elements in the block");
      const std::optional<VolumeType> kind = volume_type(type);
      if (!kind && dim == 3)
        in_.fail("element type " + std::to_string(type) +
                 " is not a volume element Ramus knows (tetrahedra, pyramids, prisms and "
                 "hexahedra of any order are)");
      for (int i = 0; i < n; ++i) {
        next_record("Elements", total, found + i, "elements");
        if (!kind) {
          ++skipped_elements_;
          continue;
        }
        read_element(in_.int_at(0, "an element tag"), *kind, type, 1, entity);
      }
      found += n;
    }
    if (found != total)
      in_.fail("$Elements header announces " + std::to_string(total) +
               " elements but the blocks hold " + std::to_string(found));
  }

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
  int take_count(const char* what, std::size_t record_bytes) {
    const std::uint64_t n = take<std::uint64_t>(what);
    if (n > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
        n * record_bytes > text_.size() - bin_)
      in_.fail(std::string(what) + " is " + std::to_string(n) +
               ", more than the rest of the file can hold");
    return static_cast<int>(n);
  }

  // Starts a binary block after the current line; finish_binary resumes line reading.
  void start_binary() { bin_ = in_.position(); }
  void finish_binary() { in_.seek(bin_); }

  void read_nodes_41_binary() {
    start_binary();
    const int blocks = take_count("the number of node blocks", 20);
    const int total = take_count("the number of nodes", 32);
    take<std::uint64_t>("the smallest node tag");
    take<std::uint64_t>("the largest node tag");
    long long found = 0;
    for (int b = 0; b < blocks; ++b) {
      const int dim = take<std::int32_t>("a node block's dimension");
      take<std::int32_t>("a node block's entity");
      const int parametric = take<std::int32_t>("a node block's parametric flag");
      if (parametric != 0 && parametric != 1) in_.fail("parametric flag must be 0 or 1");
      if (dim < 0 || dim > 3) in_.fail("node block of dimension " + std::to_string(dim));
      const std::size_t doubles = 3 + (parametric ? static_cast<std::size_t>(dim) : 0);
      const int n = take_count("the number of nodes in a block", 8 + 8 * doubles);
      std::vector<long long> tags(static_cast<std::size_t>(n));
      for (long long& tag : tags) tag = static_cast<long long>(take<std::uint64_t>("a node tag"));
      for (const long long tag : tags) {
        Eigen::Vector3d x;
        for (std::size_t c = 0; c < doubles; ++c) {
          const double v = take<double>("a node coordinate");
          if (c < 3) x(static_cast<Eigen::Index>(c)) = v;
        }
        add_node(tag, x);
      }
      found += n;
    }
    if (found != total)
      in_.fail("$Nodes header announces " + std::to_string(total) + " nodes but the blocks hold " +
               std::to_string(found));
    finish_binary();
  }

  void read_nodes_22_binary() {
    in_.next_or_fail("$Nodes");
    const int count = in_.checked_count(in_.int_at(0, "the number of nodes"), "number of nodes");
    start_binary();
    if (static_cast<std::size_t>(count) * 28 > text_.size() - bin_)
      in_.fail("$Nodes announces " + std::to_string(count) + " nodes but the file is too short");
    for (int i = 0; i < count; ++i) {
      const long long tag = take<std::int32_t>("a node tag");
      Eigen::Vector3d x;
      for (int c = 0; c < 3; ++c) x(c) = take<double>("a node coordinate");
      add_node(tag, x);
    }
    finish_binary();
  }

  // Node count of a Gmsh element type that is not a volume element (points, lines, triangles,
  // quadrangles up to order 5), needed to step over them in binary data; 0 if unknown.
  static int surface_type_nodes(long long type) {
    switch (type) {
      case 15:
        return 1;
      case 1:
        return 2;
      case 2:
      case 8:
        return 3;
      case 3:
      case 26:
        return 4;
      case 27:
        return 5;
      case 9:
      case 28:
        return 6;
      case 16:
        return 8;
      case 10:
      case 20:
        return 9;
      case 21:
        return 10;
      case 22:
        return 12;
      case 23:
      case 24:
        return 15;
      case 36:
        return 16;
      case 25:
        return 21;
      case 37:
        return 25;
      case 38:
        return 36;
      default:
        return 0;
    }
  }

  // Nodes per element of `type`, failing for a type this reader cannot step over.
  int nodes_of_type(long long type) {
    if (const std::optional<VolumeType> kind = volume_type(type)) return kind->nodes;
    const int n = surface_type_nodes(type);
    if (n == 0)
      in_.fail("element type " + std::to_string(type) +
               " in binary data is not one Ramus knows (save the mesh as ASCII, or with "
               "volume, surface and line elements of order 5 or less)");
    return n;
  }

  void read_elements_41_binary() {
    start_binary();
    const int blocks = take_count("the number of element blocks", 20);
    const int total = take_count("the number of elements", 16);
    take<std::uint64_t>("the smallest element tag");
    take<std::uint64_t>("the largest element tag");
    long long found = 0;
    std::vector<long long> ids;
    for (int b = 0; b < blocks; ++b) {
      const int dim = take<std::int32_t>("an element block's dimension");
      const int entity = take<std::int32_t>("an element block's entity");
      const int type = take<std::int32_t>("an element block's type");
      const std::optional<VolumeType> kind = volume_type(type);
      if (!kind && dim == 3)
        in_.fail("element type " + std::to_string(type) +
                 " is not a volume element Ramus knows (tetrahedra, pyramids, prisms and "
                 "hexahedra of any order are)");
      const int nodes = nodes_of_type(type);
      const int n = take_count("the number of elements in a block",
                               8 * (1 + static_cast<std::size_t>(nodes)));
      ids.resize(static_cast<std::size_t>(nodes));
      for (int i = 0; i < n; ++i) {
        const auto tag = static_cast<long long>(take<std::uint64_t>("an element tag"));
        for (long long& id : ids) id = static_cast<long long>(take<std::uint64_t>("a node tag"));
        if (kind)
          add_element(tag, *kind, type, ids.data(), entity);
        else
          ++skipped_elements_;
      }
      found += n;
    }
    if (found != total)
      in_.fail("$Elements header announces " + std::to_string(total) +
               " elements but the blocks hold " + std::to_string(found));
    finish_binary();
  }

  void read_elements_22_binary() {
    in_.next_or_fail("$Elements");
    const int count =
        in_.checked_count(in_.int_at(0, "the number of elements"), "number of elements");
    start_binary();
    std::vector<long long> ids;
    // Blocks of elements of one type: a header (type, count, number of tags), then each
    // element's tag, tags and nodes, all 4-byte ints.
    for (int read = 0; read < count;) {
      const int type = take<std::int32_t>("an element block's type");
      const int n = take<std::int32_t>("an element block's count");
      const int num_tags = take<std::int32_t>("an element block's number of tags");
      if (n < 1 || n > count - read || num_tags < 0 || num_tags > 64)
        in_.fail("binary element block of " + std::to_string(n) + " elements with " +
                 std::to_string(num_tags) + " tags after " + std::to_string(read) + " of " +
                 std::to_string(count) + " elements");
      const std::optional<VolumeType> kind = volume_type(type);
      const int nodes = nodes_of_type(type);
      ids.resize(static_cast<std::size_t>(nodes));
      for (int i = 0; i < n; ++i) {
        const long long tag = take<std::int32_t>("an element tag");
        long long group = 0;
        for (int k = 0; k < num_tags; ++k) {
          const long long value = take<std::int32_t>("an element's tag");
          if (k == 0) group = value;
        }
        for (long long& id : ids) id = take<std::int32_t>("a node tag");
        if (kind)
          add_element(tag, *kind, type, ids.data(), group);
        else
          ++skipped_elements_;
      }
      read += n;
    }
    finish_binary();
  }

  void read_entities_binary() {
    start_binary();
    std::uint64_t counts[4];
    for (std::uint64_t& c : counts)
      c = static_cast<std::uint64_t>(take_count("an entity count", 28));
    // Points: tag, x y z, physical tags; curves, surfaces and volumes: tag, bounding box,
    // physical tags, bounding entities.
    for (int d = 0; d < 4; ++d)
      for (std::uint64_t e = 0; e < counts[d]; ++e) {
        const int tag = take<std::int32_t>("an entity tag");
        for (int k = 0; k < (d == 0 ? 3 : 6); ++k) take<double>("an entity's box");
        const int num_physical = take_count("an entity's number of physical tags", 4);
        int physical = 0;
        for (int k = 0; k < num_physical; ++k) {
          const int value = take<std::int32_t>("a physical tag");
          if (k == 0) physical = value;
        }
        if (d > 0) {
          const int bounding = take_count("an entity's number of bounding entities", 4);
          for (int k = 0; k < bounding; ++k) take<std::int32_t>("a bounding entity");
        }
        if (d == 3) entity_physical_[tag] = physical;
      }
    finish_binary();
  }

  void read_physical_names() {
    in_.next_or_fail("$PhysicalNames");
    const int count =
        in_.checked_count(in_.int_at(0, "the number of names"), "number of physical names");
    for (int i = 0; i < count; ++i) {
      next_record("PhysicalNames", count, i, "names");
      const long long dim = in_.int_at(0, "the dimension of a physical name");
      const long long tag = in_.int_at(1, "the tag of a physical name");
      const std::string_view line = in_.line();
      const std::size_t open = line.find('"');
      const std::size_t close = line.rfind('"');
      if (open == std::string_view::npos || close == open)
        in_.fail("expected '<dim> <tag> \"name\"' for a physical name");
      if (dim == 3 && tag >= std::numeric_limits<int>::min() &&
          tag <= std::numeric_limits<int>::max())
        names_[static_cast<int>(tag)] = std::string(line.substr(open + 1, close - open - 1));
    }
  }

  void read_entities() {
    in_.next_or_fail("$Entities");
    if (in_.tokens().size() != 4)
      in_.fail("expected '<numPoints> <numCurves> <numSurfaces> <numVolumes>' in $Entities");
    long long lower = 0;
    for (int d = 0; d < 3; ++d)
      lower += in_.checked_count(in_.int_at(d, "an entity count"), "number of entities");
    const int volumes =
        in_.checked_count(in_.int_at(3, "the number of volumes"), "number of volume entities");
    for (long long i = 0; i < lower; ++i) next_record("Entities", lower + volumes, i, "entities");
    for (int v = 0; v < volumes; ++v) {
      next_record("Entities", lower + volumes, lower + v, "entities");
      const long long tag = in_.int_at(0, "a volume tag");
      const long long num_physical = in_.int_at(7, "the number of physical tags");
      if (num_physical < 0 || static_cast<std::size_t>(num_physical) + 8 > in_.tokens().size())
        in_.fail("volume " + std::to_string(tag) + " announces " + std::to_string(num_physical) +
                 " physical tags but the line is too short");
      entity_physical_[tag] = num_physical > 0 ? in_.int_at(8, "a physical tag") : 0;
    }
  }

  TetMesh assemble() {
    std::stable_sort(tets_.begin(), tets_.end(), [](const RawTet& a, const RawTet& b) {
      return a.element_tag != b.element_tag ? a.element_tag < b.element_tag : a.part < b.part;
    });
    const int nt = static_cast<int>(tets_.size());
    std::vector<int> new_index(xyz_.size() / 3, -1);
    Eigen::MatrixX4i tets(nt, 4);
    for (int t = 0; t < nt; ++t) {
      const RawTet& raw = tets_[t];
      if (t > 0 && raw.element_tag == tets_[t - 1].element_tag && raw.part == tets_[t - 1].part)
        throw InputError(in_.file(), raw.line,
                         "element tag " + std::to_string(raw.element_tag) + " is used twice");
      for (int c = 0; c < 4; ++c) {
        auto it = node_index_.find(raw.nodes[c]);
        if (it == node_index_.end())
          throw InputError(in_.file(), raw.line,
                           "tet element " + std::to_string(raw.element_tag) + " references node " +
                               std::to_string(raw.nodes[c]) + " which is not in $Nodes");
        tets(t, c) = it->second;
        new_index[it->second] = 0;
      }
    }
    TetMesh mesh;
    int nv = 0;
    for (int& k : new_index)
      if (k == 0) k = nv++;
    mesh.rest_positions.resize(nv, 3);
    for (std::size_t i = 0; i < new_index.size(); ++i)
      if (new_index[i] >= 0)
        for (int c = 0; c < 3; ++c) mesh.rest_positions(new_index[i], c) = xyz_[3 * i + c];
    for (int t = 0; t < nt; ++t)
      for (int c = 0; c < 4; ++c) tets(t, c) = new_index[tets(t, c)];
    mesh.tets = std::move(tets);

    Eigen::VectorXi labels(nt);
    bool any_label = false;
    for (int t = 0; t < nt; ++t) {
      long long physical = tets_[t].group;
      if (version4_) {
        auto it = entity_physical_.find(tets_[t].group);
        physical = it == entity_physical_.end() ? 0 : it->second;
      }
      if (physical < std::numeric_limits<int>::min() || physical > std::numeric_limits<int>::max())
        throw InputError(in_.file(), tets_[t].line, "physical tag does not fit in an int");
      labels(t) = static_cast<int>(physical);
      any_label = any_label || physical != 0;
    }
    if (any_label) mesh.labels = std::move(labels);
    mesh.label_names = names_;
    for (const auto& [type, count] : higher_order_) {
      const VolumeType kind = *volume_type(type);
      mesh.read_notes.push_back(std::to_string(count) + " higher-order " +
                                detail::shape_name(kind.shape) + " (Gmsh type " +
                                std::to_string(type) + ", " + std::to_string(kind.nodes) +
                                " nodes) read as linear ones: their edge, face and interior "
                                "nodes were dropped");
    }
    for (const auto& [shape, count] : split_)
      mesh.read_notes.push_back(detail::split_note(shape, count, "node tag"));
    // Split tets take the orientation of their volume (a file's own tets are kept as stored).
    std::vector<char> split(static_cast<std::size_t>(nt));
    for (int t = 0; t < nt; ++t) split[static_cast<std::size_t>(t)] = tets_[t].split ? 1 : 0;
    detail::orient_split_tets(mesh.rest_positions, split, mesh.tets);
    return mesh;
  }

  detail::LineReader in_;
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
  std::map<detail::VolumeShape, long long> split_;  // elements split into tets, by shape
  std::vector<std::array<long long, 4>> split_buffer_;
  std::unordered_map<long long, long long> entity_physical_;
  std::map<int, std::string> names_;
};

}  // namespace

TetMesh read_gmsh(const std::string& path) {
  const std::string text = detail::read_file_to_string(path);
  return GmshReader(path, text).read();
}

void write_gmsh(const TetMesh& mesh, const std::string& path, int version) {
  if (version != 22 && version != 41)
    throw Error("write_gmsh: unsupported version " + std::to_string(version) + " (use 22 or 41)");
  const int nv = mesh.num_vertices();
  const int nt = mesh.num_tets();
  const bool has_labels = mesh.has_labels();
  for (int t = 0; has_labels && t < nt; ++t)
    if (mesh.labels(t) < 0)
      throw Error("write_gmsh: tet " + std::to_string(t) + " has negative label " +
                  std::to_string(mesh.labels(t)) + "; Gmsh physical tags must be positive");
  for (int t = 0; t < nt; ++t)
    for (int c = 0; c < 4; ++c)
      if (mesh.tets(t, c) < 0 || mesh.tets(t, c) >= nv)
        throw Error("write_gmsh: tet " + std::to_string(t) + " references vertex " +
                    std::to_string(mesh.tets(t, c)) + " but the mesh has " + std::to_string(nv) +
                    " vertices");
  auto label_of = [&](int t) { return has_labels ? mesh.labels(t) : 0; };
  // One volume entity per distinct label, tagged 1..k in increasing label order.
  std::vector<int> distinct;
  for (int t = 0; t < nt; ++t) distinct.push_back(label_of(t));
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  auto entity_of = [&](int label) {
    return static_cast<int>(std::lower_bound(distinct.begin(), distinct.end(), label) -
                            distinct.begin()) +
           1;
  };
  std::vector<std::pair<int, std::string>> names;
  for (const auto& [label, name] : mesh.label_names)
    if (label > 0 && std::binary_search(distinct.begin(), distinct.end(), label))
      names.emplace_back(label, name);

  detail::write_file_atomically(path, [&](std::ostream& out) {
    const auto fmt = [](double x) { return detail::format_double(x); };
    out << "$MeshFormat\n" << (version == 22 ? "2.2" : "4.1") << " 0 8\n$EndMeshFormat\n";
    if (!names.empty()) {
      out << "$PhysicalNames\n" << names.size() << "\n";
      for (const auto& [label, name] : names) out << "3 " << label << " \"" << name << "\"\n";
      out << "$EndPhysicalNames\n";
    }
    if (version == 22) {
      out << "$Nodes\n" << nv << "\n";
      for (int i = 0; i < nv; ++i)
        out << i + 1 << ' ' << fmt(mesh.rest_positions(i, 0)) << ' '
            << fmt(mesh.rest_positions(i, 1)) << ' ' << fmt(mesh.rest_positions(i, 2)) << '\n';
      out << "$EndNodes\n$Elements\n" << nt << "\n";
      for (int t = 0; t < nt; ++t) {
        out << t + 1 << " 4 2 " << label_of(t) << ' ' << entity_of(label_of(t));
        for (int c = 0; c < 4; ++c) out << ' ' << mesh.tets(t, c) + 1;
        out << '\n';
      }
      out << "$EndElements\n";
      return;
    }
    // MSH 4.1: $Entities (volumes only, with their bounding boxes), one node block, one element
    // block per volume entity. Element tags are the tet indices + 1, so order survives a reread.
    const int k = static_cast<int>(distinct.size());
    Eigen::MatrixXd lo = Eigen::MatrixXd::Constant(k, 3, std::numeric_limits<double>::infinity());
    Eigen::MatrixXd hi = -lo;
    std::vector<std::vector<int>> members(k);
    for (int t = 0; t < nt; ++t) {
      const int e = entity_of(label_of(t)) - 1;
      members[e].push_back(t);
      for (int c = 0; c < 4; ++c) {
        lo.row(e) = lo.row(e).cwiseMin(mesh.rest_positions.row(mesh.tets(t, c)));
        hi.row(e) = hi.row(e).cwiseMax(mesh.rest_positions.row(mesh.tets(t, c)));
      }
    }
    out << "$Entities\n0 0 0 " << k << "\n";
    for (int e = 0; e < k; ++e) {
      out << e + 1;
      for (int c = 0; c < 3; ++c) out << ' ' << fmt(lo(e, c));
      for (int c = 0; c < 3; ++c) out << ' ' << fmt(hi(e, c));
      if (distinct[e] != 0)
        out << " 1 " << distinct[e] << " 0\n";
      else
        out << " 0 0\n";
    }
    out << "$EndEntities\n";
    out << "$Nodes\n"
        << (nv > 0 ? 1 : 0) << ' ' << nv << ' ' << (nv > 0 ? 1 : 0) << ' ' << nv << "\n";
    if (nv > 0) {
      out << "3 1 0 " << nv << "\n";
      for (int i = 0; i < nv; ++i) out << i + 1 << '\n';
      for (int i = 0; i < nv; ++i)
        out << fmt(mesh.rest_positions(i, 0)) << ' ' << fmt(mesh.rest_positions(i, 1)) << ' '
            << fmt(mesh.rest_positions(i, 2)) << '\n';
    }
    out << "$EndNodes\n$Elements\n"
        << k << ' ' << nt << ' ' << (nt > 0 ? 1 : 0) << ' ' << nt << "\n";
    for (int e = 0; e < k; ++e) {
      out << "3 " << e + 1 << " 4 " << members[e].size() << "\n";
      for (int t : members[e]) {
        out << t + 1;
        for (int c = 0; c < 4; ++c) out << ' ' << mesh.tets(t, c) + 1;
        out << '\n';
      }
    }
    out << "$EndElements\n";
  });
}

}  // namespace ramus
