#include "volume_elements.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>
#include <numeric>
#include <utility>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus::detail {

namespace {

// The faces of each shape as local corner lists (3 or 4 corners, in cyclic order).
struct Face {
  int size;
  int corner[4];
};
constexpr Face kPyramidFaces[] = {
    {4, {0, 1, 2, 3}}, {3, {0, 1, 4, 0}}, {3, {1, 2, 4, 0}}, {3, {2, 3, 4, 0}}, {3, {3, 0, 4, 0}}};
constexpr Face kPrismFaces[] = {
    {3, {0, 1, 2, 0}}, {3, {3, 4, 5, 0}}, {4, {0, 1, 4, 3}}, {4, {1, 2, 5, 4}}, {4, {2, 0, 3, 5}}};
constexpr Face kHexFaces[] = {{4, {0, 1, 2, 3}}, {4, {4, 5, 6, 7}}, {4, {0, 1, 5, 4}},
                              {4, {1, 2, 6, 5}}, {4, {2, 3, 7, 6}}, {4, {3, 0, 4, 7}}};

std::span<const Face> faces_of(VolumeShape shape) {
  switch (shape) {
    case VolumeShape::kPyramid:
      return kPyramidFaces;
    case VolumeShape::kPrism:
      return kPrismFaces;
    case VolumeShape::kHex:
      return kHexFaces;
    case VolumeShape::kTet:
      break;
  }
  return {};
}

}  // namespace

int corner_count(VolumeShape shape) {
  switch (shape) {
    case VolumeShape::kTet:
      return 4;
    case VolumeShape::kPyramid:
      return 5;
    case VolumeShape::kPrism:
      return 6;
    case VolumeShape::kHex:
      return 8;
  }
  return 0;
}

std::string shape_name(VolumeShape shape) {
  switch (shape) {
    case VolumeShape::kTet:
      return "tetrahedra";
    case VolumeShape::kPyramid:
      return "pyramids";
    case VolumeShape::kPrism:
      return "prisms";
    case VolumeShape::kHex:
      return "hexahedra";
  }
  return "volume elements";
}

void split_into_tets(VolumeShape shape, std::span<const long long> corners,
                     std::vector<std::array<long long, 4>>& tets) {
  if (shape == VolumeShape::kTet) {
    tets.push_back({corners[0], corners[1], corners[2], corners[3]});
    return;
  }
  // The apex of the cone: the corner with the smallest id. Every face through it is cut along
  // a diagonal through it, so the cone over the other faces fills the element.
  const long long apex = *std::min_element(corners.begin(), corners.end());
  for (const Face& face : faces_of(shape)) {
    long long id[4];
    for (int k = 0; k < face.size; ++k) id[k] = corners[static_cast<std::size_t>(face.corner[k])];
    if (std::find(id, id + face.size, apex) != id + face.size) continue;
    if (face.size == 3) {
      tets.push_back({apex, id[0], id[1], id[2]});
      continue;
    }
    // A quad: cut along the diagonal through its smallest id m.
    const int m = static_cast<int>(std::min_element(id, id + 4) - id);
    const long long a = id[m], b = id[(m + 1) % 4], c = id[(m + 2) % 4], d = id[(m + 3) % 4];
    tets.push_back({apex, a, b, c});
    tets.push_back({apex, a, c, d});
  }
}

void orient_split_tets(const Eigen::MatrixX3d& X, std::span<const char> split,
                       Eigen::MatrixX4i& tets) {
  for (int t = 0; t < static_cast<int>(tets.rows()); ++t)
    if (split[static_cast<std::size_t>(t)] != 0 && signed_tet_volume(X, tets, t) < 0)
      std::swap(tets(t, 2), tets(t, 3));
}

std::string split_note(VolumeShape shape, long long count, const std::string& id_name) {
  std::vector<std::array<long long, 4>> sample;
  const long long ids[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  split_into_tets(shape,
                  std::span<const long long>(ids, static_cast<std::size_t>(corner_count(shape))),
                  sample);
  return std::to_string(count) + " " + shape_name(shape) + " split into " +
         std::to_string(sample.size()) +
         " tets each (conforming: every quad face cut along the diagonal through its smallest " +
         id_name + ")";
}

std::optional<VolumeType> vtk_volume_type(long long type) {
  using S = VolumeShape;
  switch (type) {
    case 10:
      return VolumeType{S::kTet, 4};  // VTK_TETRA
    case 24:
      return VolumeType{S::kTet, 10};  // VTK_QUADRATIC_TETRA
    case 14:
      return VolumeType{S::kPyramid, 5};  // VTK_PYRAMID
    case 27:
      return VolumeType{S::kPyramid, 13};  // VTK_QUADRATIC_PYRAMID
    case 37:
      return VolumeType{S::kPyramid, 19};  // VTK_TRIQUADRATIC_PYRAMID
    case 13:
      return VolumeType{S::kPrism, 6};  // VTK_WEDGE
    case 26:
      return VolumeType{S::kPrism, 15};  // VTK_QUADRATIC_WEDGE
    case 31:
      return VolumeType{S::kPrism, 12};  // VTK_QUADRATIC_LINEAR_WEDGE
    case 32:
      return VolumeType{S::kPrism, 18};  // VTK_BIQUADRATIC_QUADRATIC_WEDGE
    case 11:
      return VolumeType{S::kHex, 8};  // VTK_VOXEL (corners 2-3 and 6-7 swapped)
    case 12:
      return VolumeType{S::kHex, 8};  // VTK_HEXAHEDRON
    case 25:
      return VolumeType{S::kHex, 20};  // VTK_QUADRATIC_HEXAHEDRON
    case 29:
      return VolumeType{S::kHex, 27};  // VTK_TRIQUADRATIC_HEXAHEDRON
    case 33:
      return VolumeType{S::kHex, 24};  // VTK_BIQUADRATIC_QUADRATIC_HEXAHEDRON
    default:
      return std::nullopt;
  }
}

bool is_vtk_lower_dimensional_type(long long type) {
  switch (type) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
    case 8:
    case 9:
    case 21:
    case 22:
    case 23:
    case 28:
    case 30:
    case 34:
    case 35:
    case 36:
    case 68:
    case 69:
    case 70:
    case 75:
    case 76:
    case 77:
      return true;
    default:
      return false;
  }
}

VtkCellTets vtk_cells_to_tets(
    std::span<const double> connectivity, std::span<const double> offsets,
    std::span<const double> types, const Eigen::MatrixX3d& points,
    const std::function<void(const std::string& array, const std::string& message)>& fail) {
  const long long nv = points.rows();
  std::vector<std::array<long long, 4>> tets;
  std::vector<int> source;
  std::vector<char> split;
  std::map<long long, long long> higher_order, lower_dimensional;
  std::map<VolumeShape, long long> split_count;
  double begin = 0;
  for (std::size_t c = 0; c < types.size(); ++c) {
    const std::string cell = "cell " + std::to_string(c);
    // The cell's node range in connectivity: from the previous end offset to its own.
    const double end = offsets[c];
    if (!(end >= begin && end <= static_cast<double>(connectivity.size())) ||
        end != std::floor(end))
      fail("offsets", "offset of " + cell + " is " + std::to_string(end) + ", expected " +
                          std::to_string(static_cast<long long>(begin)) + " to " +
                          std::to_string(connectivity.size()));
    const auto first = static_cast<std::size_t>(begin);
    const auto count = static_cast<std::size_t>(end - begin);
    begin = end;
    const double type_value = types[c];
    const auto type = static_cast<long long>(type_value);
    const std::optional<VolumeType> kind = vtk_volume_type(type);
    if (!kind || static_cast<double>(type) != type_value) {
      if (static_cast<double>(type) == type_value && is_vtk_lower_dimensional_type(type)) {
        ++lower_dimensional[type];
        continue;
      }
      fail("types", cell + " has VTK type " + std::to_string(type_value) +
                        ", which is not a volume cell Ramus reads (tetrahedra, pyramids, "
                        "wedges, hexahedra, voxels, linear or quadratic)");
    }
    if (count != static_cast<std::size_t>(kind->nodes))
      fail("offsets", cell + " (VTK type " + std::to_string(type) + ") has " +
                          std::to_string(count) + " nodes, expected " +
                          std::to_string(kind->nodes));
    const int corners = corner_count(kind->shape);
    long long ids[8];
    for (int k = 0; k < corners; ++k) {
      const double v = connectivity[first + static_cast<std::size_t>(k)];
      if (!(v >= 0 && v < static_cast<double>(nv)) || v != std::floor(v))
        fail("connectivity", cell + " references vertex " + std::to_string(v) + " but there are " +
                                 std::to_string(nv) + " points");
      ids[k] = static_cast<long long>(v);
    }
    if (type == 11) {  // a voxel's corners in hexahedron order
      std::swap(ids[2], ids[3]);
      std::swap(ids[6], ids[7]);
    }
    if (kind->nodes != corners) ++higher_order[type];
    if (kind->shape != VolumeShape::kTet) ++split_count[kind->shape];
    const std::size_t before = tets.size();
    split_into_tets(kind->shape, std::span<const long long>(ids, corners), tets);
    for (std::size_t k = before; k < tets.size(); ++k) {
      source.push_back(static_cast<int>(c));
      split.push_back(kind->shape != VolumeShape::kTet ? 1 : 0);
    }
  }
  if (begin != static_cast<double>(connectivity.size()))
    fail("connectivity", "connectivity has " + std::to_string(connectivity.size()) +
                             " values but the offsets end at " +
                             std::to_string(static_cast<long long>(begin)));

  VtkCellTets out;
  out.tets.resize(static_cast<Eigen::Index>(tets.size()), 4);
  for (std::size_t t = 0; t < tets.size(); ++t)
    for (int k = 0; k < 4; ++k)
      out.tets(static_cast<Eigen::Index>(t), k) =
          static_cast<int>(tets[t][static_cast<std::size_t>(k)]);
  orient_split_tets(points, split, out.tets);
  out.source_cell = std::move(source);
  out.dropped_nodes = !higher_order.empty();
  for (const auto& [type, n] : higher_order)
    out.notes.push_back(std::to_string(n) + " higher-order cells (VTK type " +
                        std::to_string(type) + ", " + std::to_string(vtk_volume_type(type)->nodes) +
                        " nodes) read as linear ones: their edge, face and interior nodes were "
                        "dropped");
  for (const auto& [shape, n] : split_count)
    out.notes.push_back(split_note(shape, n, "vertex index"));
  long long skipped = 0;
  for (const auto& [type, n] : lower_dimensional) skipped += n;
  if (skipped > 0)
    out.notes.push_back(std::to_string(skipped) +
                        " cells of points, lines or surfaces were skipped (only volume cells "
                        "make the tet mesh)");
  return out;
}

std::vector<int> drop_unused_vertices(TetMesh& mesh) {
  const int nv = mesh.num_vertices();
  std::vector<int> new_index(static_cast<std::size_t>(nv), -1);
  // (An index out of range is left for the mesh checks to name.)
  if (mesh.tets.size() > 0 && (mesh.tets.minCoeff() < 0 || mesh.tets.maxCoeff() >= nv)) {
    std::iota(new_index.begin(), new_index.end(), 0);
    return new_index;
  }
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (int k = 0; k < 4; ++k) new_index[static_cast<std::size_t>(mesh.tets(t, k))] = 0;
  int kept = 0, first_dropped = -1;
  for (int v = 0; v < nv; ++v) {
    int& i = new_index[static_cast<std::size_t>(v)];
    if (i == 0)
      i = kept++;
    else if (first_dropped < 0)
      first_dropped = v;
  }
  if (kept == nv) return new_index;
  mesh.read_notes.push_back(std::to_string(nv - kept) + " of the file's " + std::to_string(nv) +
                            " points are used by no tet and were dropped: the vertices after " +
                            "point " + std::to_string(first_dropped) +
                            " (0-based) are numbered without them");
  Eigen::MatrixX3d x(kept, 3);
  Eigen::VectorXi flags(mesh.vertex_flags.size() == nv ? kept : 0);
  for (int v = 0; v < nv; ++v) {
    const int i = new_index[static_cast<std::size_t>(v)];
    if (i < 0) continue;
    x.row(i) = mesh.rest_positions.row(v);
    if (flags.size() > 0) flags(i) = mesh.vertex_flags(v);
  }
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (int k = 0; k < 4; ++k)
      mesh.tets(t, k) = new_index[static_cast<std::size_t>(mesh.tets(t, k))];
  mesh.rest_positions = std::move(x);
  if (mesh.vertex_flags.size() == nv) mesh.vertex_flags = std::move(flags);
  return new_index;
}

}  // namespace ramus::detail
