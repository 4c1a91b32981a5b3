// The Gmsh reader's binary sections (file type 1): little-endian, int 4 bytes, size_t and
// double 8.
#include "gmsh_reader.h"

namespace ramus::detail {

// A count read from binary data, refused when the rest of the file cannot hold `count`
// records of at least `record_bytes` (a corrupt header must not allocate gigabytes).
int GmshReader::take_count(const char* what, std::size_t record_bytes) {
  const std::uint64_t n = take<std::uint64_t>(what);
  if (n > static_cast<std::uint64_t>(std::numeric_limits<int>::max()) ||
      n * record_bytes > text_.size() - bin_)
    in_.fail(std::string(what) + " is " + std::to_string(n) +
             ", more than the rest of the file can hold");
  return static_cast<int>(n);
}

void GmshReader::read_nodes_41_binary() {
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

void GmshReader::read_nodes_22_binary() {
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
int GmshReader::surface_type_nodes(long long type) {
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
int GmshReader::nodes_of_type(long long type) {
  if (const std::optional<VolumeType> kind = gmsh_volume_type(type)) return kind->nodes;
  const int n = surface_type_nodes(type);
  if (n == 0)
    in_.fail("element type " + std::to_string(type) +
             " in binary data is not one Ramus knows (save the mesh as ASCII, or with "
             "volume, surface and line elements of order 5 or less)");
  return n;
}

void GmshReader::read_elements_41_binary() {
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
    const std::optional<VolumeType> kind = gmsh_volume_type(type);
    if (!kind && dim == 3)
      in_.fail("element type " + std::to_string(type) +
               " is not a volume element Ramus knows (tetrahedra, pyramids, prisms and "
               "hexahedra of any order are)");
    const int nodes = nodes_of_type(type);
    const int n =
        take_count("the number of elements in a block", 8 * (1 + static_cast<std::size_t>(nodes)));
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

void GmshReader::read_elements_22_binary() {
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
    const std::optional<VolumeType> kind = gmsh_volume_type(type);
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

void GmshReader::read_entities_binary() {
  start_binary();
  std::uint64_t counts[4];
  for (std::uint64_t& c : counts) c = static_cast<std::uint64_t>(take_count("an entity count", 28));
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

}  // namespace ramus::detail
