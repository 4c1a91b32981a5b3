#include "ramus/precompute/formats/tetgen_io.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "text_io.h"
#include "volume_elements.h"

namespace ramus {

namespace {

std::string tetgen_basename(const std::string& path) {
  const std::string ext = detail::lowercase_extension(path);
  if (ext == ".node" || ext == ".ele") return path.substr(0, path.size() - ext.size());
  return path;
}

struct NodeData {
  std::vector<double> xyz;
  std::vector<int> markers;
  int count = 0;
  int base = 0;
};

NodeData read_node_file(const std::string& path) {
  const std::string text = detail::read_file_to_string(path);
  detail::LineReader in(path, text);
  if (!in.next()) in.fail("empty file: expected the header '<#points> 3 <#attributes> <0|1>'");
  const auto& header = in.tokens();
  if (header.size() > 4)
    in.fail("node header has " + std::to_string(header.size()) +
            " fields, expected '<#points> <dimension> <#attributes> <#boundary markers>'");
  const long long num_points = in.int_at(0, "the number of points");
  const long long dim = header.size() > 1 ? in.int_at(1, "the dimension") : 3;
  const long long num_attributes = header.size() > 2 ? in.int_at(2, "the number of attributes") : 0;
  const long long num_markers = header.size() > 3 ? in.int_at(3, "the boundary marker flag") : 0;
  if (dim != 3) in.fail("dimension is " + std::to_string(dim) + ", only 3D meshes are supported");
  if (num_attributes < 0 || num_attributes > 1000)
    in.fail("invalid number of point attributes (" + std::to_string(num_attributes) + ")");
  if (num_markers != 0 && num_markers != 1)
    in.fail("boundary marker flag must be 0 or 1, found " + std::to_string(num_markers));
  if (num_points == 0)
    in.fail("the file defines no points (points stored in a .poly file are not supported)");
  NodeData nodes;
  nodes.count = in.checked_count(num_points, "number of points");
  const std::size_t fields = 4 + static_cast<std::size_t>(num_attributes + num_markers);
  nodes.xyz.reserve(3 * std::min<std::size_t>(nodes.count, in.remaining_bytes() / 8 + 1));
  for (int i = 0; i < nodes.count; ++i) {
    if (!in.next())
      in.fail("unexpected end of file: expected " + std::to_string(nodes.count) +
              " points, found " + std::to_string(i));
    const long long index = in.int_at(0, "the index of point " + std::to_string(i));
    if (i == 0) {
      if (index != 0 && index != 1)
        in.fail("the first point index must be 0 or 1, found " + std::to_string(index));
      nodes.base = static_cast<int>(index);
    } else if (index != nodes.base + i) {
      in.fail("point index " + std::to_string(index) + " out of sequence (expected " +
              std::to_string(nodes.base + i) + ")");
    }
    const std::string what = "point " + std::to_string(index);
    if (in.tokens().size() != fields)
      in.fail("expected " + std::to_string(fields) + " values for " + what + " (index, x, y, z, " +
              std::to_string(num_attributes) + " attributes, " + std::to_string(num_markers) +
              " markers), found " + std::to_string(in.tokens().size()));
    for (int c = 0; c < 3; ++c) {
      const double x = in.double_at(1 + c, "a coordinate of " + what);
      if (!std::isfinite(x))
        in.fail("vertex " + std::to_string(index) + " has a non-finite coordinate (" +
                std::string(in.tokens()[1 + c]) + ")");
      nodes.xyz.push_back(x);
    }
    if (num_markers == 1) {
      const long long marker = in.int_at(fields - 1, "the boundary marker of " + what);
      if (marker < std::numeric_limits<int>::min() || marker > std::numeric_limits<int>::max())
        in.fail("boundary marker of " + what + " does not fit in an int");
      nodes.markers.push_back(static_cast<int>(marker));
    }
  }
  return nodes;
}

}  // namespace

TetMesh read_tetgen(const std::string& node_or_ele_path) {
  const std::string base = tetgen_basename(node_or_ele_path);
  const std::string node_path = base + ".node";
  const std::string ele_path = base + ".ele";
  const NodeData nodes = read_node_file(node_path);

  const std::string text = detail::read_file_to_string(ele_path);
  detail::LineReader in(ele_path, text);
  if (!in.next()) in.fail("empty file: expected the header '<#tets> 4 <#attributes>'");
  if (in.tokens().size() > 3)
    in.fail("element header has " + std::to_string(in.tokens().size()) +
            " fields, expected '<#tets> <nodes per tet> <#attributes>'");
  const long long num_tets = in.int_at(0, "the number of tets");
  const long long corners = in.tokens().size() > 1 ? in.int_at(1, "the nodes per tet") : 4;
  const long long num_attributes =
      in.tokens().size() > 2 ? in.int_at(2, "the number of attributes") : 0;
  if (corners == 10)
    in.fail("quadratic (10-node) tets are not supported; mesh with linear tets (no -o2)");
  if (corners != 4) in.fail("expected 4 nodes per tet, found " + std::to_string(corners));
  if (num_attributes < 0 || num_attributes > 1000)
    in.fail("invalid number of tet attributes (" + std::to_string(num_attributes) + ")");
  const int count = in.checked_count(num_tets, "number of tets");
  const std::size_t fields = 5 + static_cast<std::size_t>(num_attributes);

  std::vector<int> tets;
  std::vector<int> labels;
  long long tet_base = 0;
  tets.reserve(4 * std::min<std::size_t>(count, in.remaining_bytes() / 8 + 1));
  for (int t = 0; t < count; ++t) {
    if (!in.next())
      in.fail("unexpected end of file: expected " + std::to_string(count) + " tets, found " +
              std::to_string(t));
    const long long index = in.int_at(0, "the index of tet " + std::to_string(t));
    if (t == 0) {
      if (index != 0 && index != 1)
        in.fail("the first tet index must be 0 or 1, found " + std::to_string(index));
      tet_base = index;
    } else if (index != tet_base + t) {
      in.fail("tet index " + std::to_string(index) + " out of sequence (expected " +
              std::to_string(tet_base + t) + ")");
    }
    const std::string what = "tet " + std::to_string(index);
    const std::size_t found = in.tokens().size();
    if (found != fields) {
      if (num_attributes == 0)
        in.fail("expected 4 vertex indices for " + what + ", found " + std::to_string(found - 1));
      in.fail("expected an index, 4 vertex indices and " + std::to_string(num_attributes) +
              " attributes for " + what + ", found " + std::to_string(found) + " values");
    }
    for (int c = 0; c < 4; ++c) {
      const long long v = in.int_at(1 + c, "a vertex index of " + what);
      if (v < nodes.base || v - nodes.base >= nodes.count)
        in.fail(what + " references vertex " + std::to_string(v) + " but the file defines " +
                std::to_string(nodes.count) + " vertices (numbered from " +
                std::to_string(nodes.base) + ")");
      tets.push_back(static_cast<int>(v - nodes.base));
    }
    if (num_attributes > 0) {
      const double a = in.double_at(5, "the attribute of " + what);
      if (!std::isfinite(a) || std::abs(a) > std::numeric_limits<int>::max())
        in.fail("attribute of " + what + " is not a finite integer (" +
                std::string(in.tokens()[5]) + ")");
      labels.push_back(static_cast<int>(std::lround(a)));
    }
  }

  TetMesh mesh;
  mesh.rest_positions.resize(nodes.count, 3);
  for (int i = 0; i < nodes.count; ++i)
    for (int c = 0; c < 3; ++c) mesh.rest_positions(i, c) = nodes.xyz[3 * i + c];
  mesh.tets.resize(count, 4);
  for (int t = 0; t < count; ++t)
    for (int c = 0; c < 4; ++c) mesh.tets(t, c) = tets[4 * t + c];
  if (!labels.empty()) mesh.labels = Eigen::Map<const Eigen::VectorXi>(labels.data(), count);
  if (!nodes.markers.empty())
    mesh.vertex_flags = Eigen::Map<const Eigen::VectorXi>(nodes.markers.data(), nodes.count);
  detail::drop_unused_vertices(mesh);
  return mesh;
}

void write_tetgen(const TetMesh& mesh, const std::string& basename) {
  const int nv = mesh.num_vertices();
  const int nt = mesh.num_tets();
  const bool markers = mesh.vertex_flags.size() == nv && nv > 0;
  const bool labels = mesh.has_labels();
  write_stream_atomically(basename + ".node", [&](std::ostream& out) {
    out << "# written by Ramus\n" << nv << " 3 0 " << (markers ? 1 : 0) << "\n";
    for (int i = 0; i < nv; ++i) {
      out << i + 1;
      for (int c = 0; c < 3; ++c) out << ' ' << detail::format_double(mesh.rest_positions(i, c));
      if (markers) out << ' ' << mesh.vertex_flags(i);
      out << '\n';
    }
  });
  write_stream_atomically(basename + ".ele", [&](std::ostream& out) {
    out << "# written by Ramus\n" << nt << " 4 " << (labels ? 1 : 0) << "\n";
    for (int t = 0; t < nt; ++t) {
      out << t + 1;
      for (int c = 0; c < 4; ++c) out << ' ' << mesh.tets(t, c) + 1;
      if (labels) out << ' ' << mesh.labels(t);
      out << '\n';
    }
  });
}

}  // namespace ramus
