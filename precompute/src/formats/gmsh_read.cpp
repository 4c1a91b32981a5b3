// The Gmsh reader's sections as text (ASCII files), its assembly of the tet mesh, read_gmsh.
#include "gmsh_reader.h"
#include "ramus/precompute/formats/gmsh_io.h"

namespace ramus {

namespace detail {

std::optional<VolumeType> gmsh_volume_type(long long type) {
  using S = VolumeShape;
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

TetMesh GmshReader::read() {
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
    throw InputError(in_.file(), 0,
                     "no tetrahedra: the " + std::to_string(skipped_elements_) +
                         " elements are surface, curve or point elements (Gmsh exported its "
                         "2D/1D groups only); mesh the volume (Mesh > 3D) and add a Physical "
                         "Volume, or give the closed surface as .obj/.off/.ply to tetrahedralize");
  return assemble();
}

void GmshReader::read_format() {
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

void GmshReader::expect_end(const std::string& name) {
  in_.next_or_fail("$" + name + " (missing $End" + name + ")");
  if (in_.tokens()[0] != "$End" + name)
    in_.fail("expected $End" + name + ", found '" + std::string(in_.line().substr(0, 40)) + "'");
}

void GmshReader::skip_section(const std::string& name) {
  const std::string end = "$End" + name;
  while (true) {
    in_.next_or_fail("$" + name + " (missing " + end + ")");
    if (in_.tokens()[0] == end) return;
  }
}

// Reads the next line of a section that must hold a record, failing at end of file or at a
// premature $End... line with "expected N <what>, found k".
void GmshReader::next_record(const std::string& section, long long expected, long long found,
                             const std::string& what) {
  const std::string counts =
      "expected " + std::to_string(expected) + " " + what + ", found " + std::to_string(found);
  if (!in_.next()) in_.fail("unexpected end of file while reading $" + section + ": " + counts);
  if (in_.tokens()[0] == "$End" + section) in_.fail("unexpected $End" + section + ": " + counts);
}

void GmshReader::add_node(long long tag, std::size_t x_token) {
  const std::string what = "node " + std::to_string(tag);
  Eigen::Vector3d x;
  for (int c = 0; c < 3; ++c) x(c) = in_.finite_double_at(x_token + c, "a coordinate of " + what);
  add_node(tag, x);
}

void GmshReader::add_node(long long tag, const Eigen::Vector3d& x) {
  if (!x.allFinite()) in_.fail("node " + std::to_string(tag) + " has a non-finite coordinate");
  if (!node_index_.emplace(tag, static_cast<int>(xyz_.size() / 3)).second)
    in_.fail("node tag " + std::to_string(tag) + " is defined twice");
  xyz_.insert(xyz_.end(), x.data(), x.data() + 3);
}

void GmshReader::read_nodes_22() {
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

void GmshReader::read_nodes_41() {
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

void GmshReader::read_elements_22() {
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
    const std::optional<VolumeType> kind = gmsh_volume_type(type);
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
void GmshReader::read_element(long long tag, const VolumeType& kind, long long type,
                              std::size_t first_node, long long group) {
  const std::size_t found = in_.tokens().size() - first_node;
  if (found != static_cast<std::size_t>(kind.nodes))
    in_.fail("expected " + std::to_string(kind.nodes) + " node tags for element " +
             std::to_string(tag) + " (type " + std::to_string(type) + "), found " +
             std::to_string(found));
  const int corners = corner_count(kind.shape);
  long long ids[8];
  for (int c = 0; c < corners; ++c) ids[c] = in_.int_at(first_node + c, "a node tag");
  add_element(tag, kind, type, ids, group);
}

// An element's corners (ids: corner_count node tags): its tets, split when it is not one.
void GmshReader::add_element(long long tag, const VolumeType& kind, long long type,
                             const long long* ids, long long group) {
  const int corners = corner_count(kind.shape);
  if (kind.nodes != corners) ++higher_order_[type];
  if (kind.shape != VolumeShape::kTet) ++split_[kind.shape];
  split_buffer_.clear();
  split_into_tets(kind.shape, std::span<const long long>(ids, corners), split_buffer_);
  for (std::size_t k = 0; k < split_buffer_.size(); ++k) {
    RawTet t;
    t.element_tag = tag;
    t.part = static_cast<int>(k);
    t.split = kind.shape != VolumeShape::kTet;
    t.line = in_.line_number();
    t.group = group;
    std::copy(split_buffer_[k].begin(), split_buffer_[k].end(), t.nodes);
    tets_.push_back(t);
  }
}

void GmshReader::read_elements_41() {
  in_.next_or_fail("$Elements");
  if (in_.tokens().size() != 4)
    in_.fail("expected '<numEntityBlocks> <numElements> <minTag> <maxTag>' in $Elements");
  const int blocks =
      in_.checked_count(in_.int_at(0, "the number of element blocks"), "number of element blocks");
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
    const std::optional<VolumeType> kind = gmsh_volume_type(type);
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

void GmshReader::read_physical_names() {
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

void GmshReader::read_entities() {
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

TetMesh GmshReader::assemble() {
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
  if (static_cast<std::size_t>(nv) < new_index.size())
    mesh.read_notes.push_back(std::to_string(new_index.size() - static_cast<std::size_t>(nv)) +
                              " of the file's " + std::to_string(new_index.size()) +
                              " nodes are used by no tet and were dropped");

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
    const VolumeType kind = *gmsh_volume_type(type);
    mesh.read_notes.push_back(std::to_string(count) + " higher-order " + shape_name(kind.shape) +
                              " (Gmsh type " + std::to_string(type) + ", " +
                              std::to_string(kind.nodes) +
                              " nodes) read as linear ones: their edge, face and interior "
                              "nodes were dropped");
  }
  for (const auto& [shape, count] : split_)
    mesh.read_notes.push_back(split_note(shape, count, "node tag"));
  // Split tets take the orientation of their volume (a file's own tets are kept as stored).
  std::vector<char> split(static_cast<std::size_t>(nt));
  for (int t = 0; t < nt; ++t) split[static_cast<std::size_t>(t)] = tets_[t].split ? 1 : 0;
  orient_split_tets(mesh.rest_positions, split, mesh.tets);
  return mesh;
}

}  // namespace detail

TetMesh read_gmsh(const std::string& path) {
  const std::string text = detail::read_file_to_string(path);
  return detail::GmshReader(path, text).read();
}

}  // namespace ramus
