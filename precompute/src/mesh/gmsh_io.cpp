#include "ramus/precompute/mesh/gmsh_io.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "ramus/error.h"
#include "text_io.h"

namespace ramus {

namespace {

constexpr int kGmshTet = 4;

// Tetrahedra of higher order (Gmsh types 11, 29, 30: 10, 20 and 35 nodes, the 4 corners first):
// read as their corner tets, the other nodes dropped. 0 for any other type.
int higher_order_tet_nodes(long long type) {
  return type == 11 ? 10 : type == 29 ? 20 : type == 30 ? 35 : 0;
}
bool is_tet_type(long long type) {
  return type == kGmshTet || higher_order_tet_nodes(type) > 0;
}

bool is_volume_element_type(long long type) {
  switch (type) {
    case 4:
    case 5:
    case 6:
    case 7:
    case 11:
    case 12:
    case 13:
    case 14:
    case 17:
    case 18:
    case 19:
    case 29:
    case 30:
    case 31:
    case 92:
    case 93:
      return true;
    default:
      return false;
  }
}

// How to get tets from hexahedra, prisms or pyramids in Gmsh itself.
constexpr const char* kSplitHint =
    " (mesh the volume with tetrahedra in Gmsh: no Recombine, Mesh.RecombineAll = 0 and "
    "Mesh.SubdivisionAlgorithm = 0; or split the elements into tets before reading)";

std::string volume_type_name(long long type) {
  switch (type) {
    case 5:
    case 12:
    case 17:
    case 92:
    case 93:
      return "hexahedra";
    case 6:
    case 13:
    case 18:
      return "prisms";
    case 7:
    case 14:
    case 19:
      return "pyramids";
    case 11:
    case 29:
    case 30:
    case 31:
      return "high-order tetrahedra";
    default:
      return "volume elements";
  }
}

struct RawTet {
  long long element_tag = 0;
  long long nodes[4] = {0, 0, 0, 0};
  long long group = 0;  // 2.2: physical tag; 4.1: entity tag
  long line = 0;
};

class GmshReader {
 public:
  GmshReader(const std::string& path, const std::string& text) : in_(path, text, 0) {}

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
        version4_ ? read_nodes_41() : read_nodes_22();
      } else if (name == "Elements") {
        if (saw_elements_) in_.fail("second $Elements section");
        saw_elements_ = true;
        version4_ ? read_elements_41() : read_elements_22();
      } else if (name == "PhysicalNames") {
        read_physical_names();
      } else if (name == "Entities" && version4_) {
        read_entities();
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
    if (file_type == 1) in_.fail("binary .msh is not supported, save as ASCII");
    if (file_type != 0) in_.fail("unknown .msh file type " + std::to_string(file_type));
    if (version == "4.1") {
      version4_ = true;
    } else if (version == "2" || version == "2.0" || version == "2.1" || version == "2.2") {
      version4_ = false;
    } else {
      in_.fail("MSH version " + version + " is not supported, save as MSH 4.1 or 2.2 (ASCII)");
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
      if (!is_tet_type(type)) {
        if (is_volume_element_type(type))
          in_.fail("element " + std::to_string(tag) + " has type " + std::to_string(type) + " (" +
                   volume_type_name(type) + "); only tetrahedra are supported" + kSplitHint);
        ++skipped_elements_;
        continue;
      }
      const std::size_t first_node = 3 + static_cast<std::size_t>(num_tags);
      RawTet t;
      t.element_tag = tag;
      t.line = in_.line_number();
      t.group = num_tags >= 1 ? in_.int_at(3, "the physical tag") : 0;
      read_tet_nodes(t, first_node, type);
      tets_.push_back(t);
    }
  }

  // The corners of a tet element of `type` (its first 4 nodes; the others counted as dropped).
  void read_tet_nodes(RawTet& t, std::size_t first_node, long long type) {
    const std::size_t found = in_.tokens().size() - first_node;
    const int expected = type == kGmshTet ? 4 : higher_order_tet_nodes(type);
    if (found != static_cast<std::size_t>(expected))
      in_.fail("expected " + std::to_string(expected) + " node tags for tet element " +
               std::to_string(t.element_tag) + " (type " + std::to_string(type) + "), found " +
               std::to_string(found));
    for (int c = 0; c < 4; ++c) t.nodes[c] = in_.int_at(first_node + c, "a node tag");
    if (type != kGmshTet) ++higher_order_[type];
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
      if (!is_tet_type(type) && (dim == 3 || is_volume_element_type(type)))
        in_.fail("element type " + std::to_string(type) + " (" + volume_type_name(type) +
                 ") is not supported; only tetrahedra are" + kSplitHint);
      for (int i = 0; i < n; ++i) {
        next_record("Elements", total, found + i, "elements");
        if (!is_tet_type(type)) {
          ++skipped_elements_;
          continue;
        }
        RawTet t;
        t.element_tag = in_.int_at(0, "an element tag");
        t.line = in_.line_number();
        t.group = entity;
        read_tet_nodes(t, 1, type);
        tets_.push_back(t);
      }
      found += n;
    }
    if (found != total)
      in_.fail("$Elements header announces " + std::to_string(total) +
               " elements but the blocks hold " + std::to_string(found));
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
      return a.element_tag < b.element_tag;
    });
    const int nt = static_cast<int>(tets_.size());
    std::vector<int> new_index(xyz_.size() / 3, -1);
    Eigen::MatrixX4i tets(nt, 4);
    for (int t = 0; t < nt; ++t) {
      const RawTet& raw = tets_[t];
      if (t > 0 && raw.element_tag == tets_[t - 1].element_tag)
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
    for (const auto& [type, count] : higher_order_)
      mesh.read_notes.push_back(std::to_string(count) + " higher-order tets (Gmsh type " +
                                std::to_string(type) + ", " +
                                std::to_string(higher_order_tet_nodes(type)) +
                                " nodes) read as linear tets: their edge and face nodes were "
                                "dropped");
    return mesh;
  }

  detail::LineReader in_;
  bool version4_ = false;
  bool saw_nodes_ = false;
  bool saw_elements_ = false;
  std::vector<double> xyz_;
  std::unordered_map<long long, int> node_index_;
  std::vector<RawTet> tets_;
  long long skipped_elements_ = 0;               // lower-dimensional elements (surface groups, ...)
  std::map<long long, long long> higher_order_;  // tets read by their corners, by Gmsh type
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
