#include "ramus/precompute/generators/mesh_generators.h"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ramus/error.h"

namespace ramus {
namespace {

// Corner c of a unit cell has offset (c & 1, (c >> 1) & 1, (c >> 2) & 1). Kuhn split: one tet per
// axis permutation (a, b, c), path 0 -> e_a -> e_a + e_b -> 7. All six share the main diagonal
// 0-7 and every cell is split alike, so face-neighbouring cells conform. The signed volume is the
// permutation's sign, so odd permutations list their middle vertices swapped.
constexpr std::array<std::array<int, 4>, 6> kKuhnTets = {{
    {0, 1, 3, 7},  // (x, y, z) even
    {0, 2, 6, 7},  // (y, z, x) even
    {0, 4, 5, 7},  // (z, x, y) even
    {0, 5, 1, 7},  // (x, z, y) odd
    {0, 6, 4, 7},  // (z, y, x) odd
    {0, 3, 2, 7},  // (y, x, z) odd
}};

void append_kuhn_cell(const std::array<int, 8>& corner, std::vector<Eigen::Vector4i>& tets) {
  for (const auto& t : kKuhnTets)
    tets.emplace_back(corner[t[0]], corner[t[1]], corner[t[2]], corner[t[3]]);
}

Eigen::MatrixX4i to_matrix(const std::vector<Eigen::Vector4i>& tets) {
  Eigen::MatrixX4i m(static_cast<Eigen::Index>(tets.size()), 4);
  for (std::size_t t = 0; t < tets.size(); ++t) m.row(static_cast<Eigen::Index>(t)) = tets[t];
  return m;
}

// Design voxels of the plant, keyed (z, y, x) so iteration runs z-major like the lattice.
class VoxelSet {
 public:
  void add(int x, int y, int z, int label) {
    const auto [it, inserted] = voxels_.try_emplace({z, y, x}, label);
    if (!inserted && it->second != label)
      throw OptionError("make_branching_plant: parts " + std::to_string(it->second) + " and " +
                        std::to_string(label) + " overlap at voxel (" + std::to_string(x) + ", " +
                        std::to_string(y) + ", " + std::to_string(z) +
                        "); use fewer branches or a taller stem");
  }
  const std::map<std::array<int, 3>, int>& voxels() const { return voxels_; }

 private:
  std::map<std::array<int, 3>, int> voxels_;
};

void check_plant_options(const PlantOptions& o) {
  auto fail = [](const std::string& what) { throw OptionError("make_branching_plant: " + what); };
  if (!(o.voxel_size > 0.0) || !std::isfinite(o.voxel_size))
    fail("voxel_size must be positive and finite");
  if (o.refinement < 1 || o.refinement > 16) fail("refinement must be in [1, 16]");
  if (o.num_branches < 0) fail("num_branches must be >= 0");
  if (o.stem_height < 1) fail("stem_height must be >= 1");
  if (o.num_branches > 0 && o.stem_height < 16)
    fail("stem_height must be >= 16 voxels to carry branches");
  if (o.branch_run < 1) fail("branch_run must be >= 1");
  if (o.branch_rise < 0) fail("branch_rise must be >= 0");
  if (o.leaf_length < 1) fail("leaf_length must be >= 1");
  if (o.leaf_width < 2) fail("leaf_width must be >= 2");
  if (!std::isfinite(o.lean) || !std::isfinite(o.droop)) fail("lean and droop must be finite");
}

// Heights (design voxels) of the branch bases, lowest first, evenly spread over the stem.
std::vector<int> branch_heights(const PlantOptions& o) {
  const int first = 8;
  const int last = o.stem_height - 8;
  const int count = o.num_branches;
  std::vector<int> heights;
  for (int b = 0; b < count; ++b) {
    const double s = count > 1 ? static_cast<double>(b) / (count - 1) : 0.0;
    heights.push_back(first + static_cast<int>(std::lround(s * (last - first))));
  }
  for (int b = 1; b < count; ++b)
    if (heights[b] - heights[b - 1] < 3)
      throw OptionError("make_branching_plant: " + std::to_string(count) +
                        " branches need a stem taller than " + std::to_string(o.stem_height) +
                        " voxels (branch bases must be >= 3 voxels apart)");
  return heights;
}

// Stem voxels x, y in {0, 1}. Branch b leaves the stem along axis (0: x, 1: y) with sign s, is
// 2 x 2 voxels thick (across: {0, 1}, z: {zc, zc + 1}), runs horizontally, then climbs in a
// staircase; its leaf is a 1-voxel-thick horizontal blade past the tip at the tip's bottom level.
VoxelSet design_plant(const PlantOptions& o) {
  VoxelSet set;
  const int num_b = o.num_branches;
  for (int z = 0; z < o.stem_height; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) set.add(x, y, z, 1);

  const std::vector<int> heights = branch_heights(o);
  for (int b = 0; b < num_b; ++b) {
    const int branch_label = 2 + b;
    const int leaf_label = 2 + num_b + b;
    const int axis = b % 2;                 // 0: x, 1: y
    const int sign = (b % 4) < 2 ? 1 : -1;  // +x, +y, -x, -y, ...
    auto add = [&](int along, int across, int z, int label) {
      if (axis == 0)
        set.add(along, across, z, label);
      else
        set.add(across, along, z, label);
    };
    auto add_block = [&](int along, int zc) {
      for (int dz = 0; dz < 2; ++dz)
        for (int across = 0; across < 2; ++across) add(along, across, zc + dz, branch_label);
    };
    const int run = o.branch_run + (num_b - 1 - b) / 2;
    int along = sign > 0 ? 2 : -1;
    int zc = heights[b];
    for (int t = 0; t < run; ++t, along += sign) add_block(along, zc);
    along -= sign;  // tip of the run
    for (int step = 0; step < o.branch_rise; ++step) {
      along += sign;
      add_block(along, zc);
      ++zc;
      add_block(along, zc);
    }
    const int across0 = -(o.leaf_width - 2) / 2;
    for (int l = 1; l <= o.leaf_length; ++l)
      for (int w = 0; w < o.leaf_width; ++w) add(along + sign * l, across0 + w, zc, leaf_label);
  }

  if (o.bloom) {
    const int bloom_label = 2 + 2 * num_b;
    const int z = o.stem_height;
    for (int y = -2; y <= 3; ++y)
      for (int x = -2; x <= 3; ++x) {
        const double dx = x - 0.5;
        const double dy = y - 0.5;
        if (dx * dx + dy * dy <= 2.6 * 2.6) set.add(x, y, z, bloom_label);
      }
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 2; ++x) set.add(x, y, z + 1, bloom_label);
  }
  return set;
}

// Throws unless parts sharing vertices are exactly the intended (parent, child) pairs.
void check_part_contacts(const TetMesh& mesh, const std::set<std::pair<int, int>>& intended) {
  std::vector<std::vector<int>> vertex_labels(static_cast<std::size_t>(mesh.num_vertices()));
  for (int t = 0; t < mesh.num_tets(); ++t)
    for (int c = 0; c < 4; ++c) {
      auto& labels = vertex_labels[static_cast<std::size_t>(mesh.tets(t, c))];
      if (std::find(labels.begin(), labels.end(), mesh.labels(t)) == labels.end())
        labels.push_back(mesh.labels(t));
    }
  std::set<std::pair<int, int>> contacts;
  for (const auto& labels : vertex_labels)
    for (std::size_t i = 0; i < labels.size(); ++i)
      for (std::size_t j = i + 1; j < labels.size(); ++j)
        contacts.emplace(std::min(labels[i], labels[j]), std::max(labels[i], labels[j]));
  for (const auto& [a, b] : contacts)
    if (!intended.contains({a, b}))
      throw OptionError("make_branching_plant: parts '" + mesh.label_names.at(a) + "' and '" +
                        mesh.label_names.at(b) +
                        "' touch; use fewer branches, shorter branches or a taller stem");
}

}  // namespace

TetMesh make_box_tet_mesh(const Eigen::Vector3d& size, int nx, int ny, int nz,
                          const Eigen::Vector3d& origin) {
  if (nx < 1 || ny < 1 || nz < 1)
    throw OptionError("make_box_tet_mesh: cell counts must be >= 1, got " + std::to_string(nx) +
                      " x " + std::to_string(ny) + " x " + std::to_string(nz));
  if (!size.allFinite() || !(size.minCoeff() > 0.0) || !origin.allFinite())
    throw OptionError("make_box_tet_mesh: size must be positive and finite, origin finite");
  const int vx = nx + 1;
  const int vy = ny + 1;
  const int vz = nz + 1;
  auto id = [&](int i, int j, int k) { return i + vx * (j + vy * k); };

  TetMesh mesh;
  mesh.rest_positions.resize(static_cast<Eigen::Index>(vx) * vy * vz, 3);
  const Eigen::Vector3i n(nx, ny, nz);
  for (int k = 0; k < vz; ++k)
    for (int j = 0; j < vy; ++j)
      for (int i = 0; i < vx; ++i) {
        const Eigen::Vector3i ijk(i, j, k);
        for (int d = 0; d < 3; ++d)
          mesh.rest_positions(id(i, j, k), d) =
              origin(d) + size(d) * (static_cast<double>(ijk(d)) / n(d));
      }

  std::vector<Eigen::Vector4i> tets;
  tets.reserve(static_cast<std::size_t>(6) * nx * ny * nz);
  std::array<int, 8> corner{};
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        for (int c = 0; c < 8; ++c) corner[c] = id(i + (c & 1), j + ((c >> 1) & 1), k + (c >> 2));
        append_kuhn_cell(corner, tets);
      }
  mesh.tets = to_matrix(tets);
  return mesh;
}

TetMesh make_voxel_tet_mesh(const std::function<int(const Eigen::Vector3d&)>& label_at,
                            const Eigen::Vector3d& lower, const Eigen::Vector3d& upper,
                            double cell_size) {
  if (!lower.allFinite() || !upper.allFinite() || !((upper - lower).minCoeff() > 0.0))
    throw OptionError("make_voxel_tet_mesh: the box must be finite with upper > lower");
  if (!(cell_size > 0.0) || !std::isfinite(cell_size))
    throw OptionError("make_voxel_tet_mesh: cell_size must be positive and finite");
  const Eigen::Vector3i n = ((upper - lower) / cell_size).array().ceil().cast<int>();
  if (static_cast<double>(n(0)) * n(1) * n(2) > 5e7)
    throw OptionError("make_voxel_tet_mesh: more than 5e7 cells; use a larger cell_size");
  // Lattice vertices get ids when a kept cell first uses them.
  std::map<std::array<int, 3>, int> vertex_id;
  std::vector<Eigen::Vector3d> positions;
  std::vector<Eigen::Vector4i> tets;
  std::vector<int> labels;
  std::array<int, 8> corner{};
  for (int k = 0; k < n(2); ++k)
    for (int j = 0; j < n(1); ++j)
      for (int i = 0; i < n(0); ++i) {
        const Eigen::Vector3d center =
            lower + cell_size * Eigen::Vector3d(i + 0.5, j + 0.5, k + 0.5);
        const int label = label_at(center);
        if (label <= 0) continue;
        for (int c = 0; c < 8; ++c) {
          const std::array<int, 3> key{i + (c & 1), j + ((c >> 1) & 1), k + (c >> 2)};
          const auto [it, added] = vertex_id.try_emplace(key, static_cast<int>(positions.size()));
          if (added)
            positions.push_back(lower + cell_size * Eigen::Vector3d(key[0], key[1], key[2]));
          corner[static_cast<std::size_t>(c)] = it->second;
        }
        append_kuhn_cell(corner, tets);
        labels.insert(labels.end(), 6, label);
      }
  if (tets.empty()) throw OptionError("make_voxel_tet_mesh: no cell centre is inside the shape");
  TetMesh mesh;
  mesh.rest_positions.resize(static_cast<Eigen::Index>(positions.size()), 3);
  for (std::size_t v = 0; v < positions.size(); ++v)
    mesh.rest_positions.row(static_cast<Eigen::Index>(v)) = positions[v].transpose();
  mesh.tets = to_matrix(tets);
  mesh.labels = Eigen::Map<const Eigen::VectorXi>(labels.data(), std::ssize(labels));
  return mesh;
}

TetMesh make_cantilever_beam(int nx, int ny, int nz, double length, double width) {
  if (!(length > 0.0) || !(width > 0.0))
    throw OptionError("make_cantilever_beam: length and width must be positive");
  TetMesh mesh = make_box_tet_mesh(Eigen::Vector3d(length, width, width), nx, ny, nz);
  mesh.vertex_flags = (mesh.rest_positions.col(0).array() == 0.0).cast<int>();
  return mesh;
}

TetMesh make_branching_plant(const PlantOptions& o) {
  check_plant_options(o);
  const VoxelSet design = design_plant(o);
  const int num_b = o.num_branches;

  // Bounding box of the design voxels, then the fine lattice (r cells per design voxel).
  std::array<int, 3> lo{0, 0, 0};  // x, y, z
  std::array<int, 3> hi{0, 0, 0};
  for (const auto& [zyx, label] : design.voxels())
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::min(lo[d], zyx[2 - d]);
      hi[d] = std::max(hi[d], zyx[2 - d] + 1);
    }
  const int r = o.refinement;
  const std::array<long, 3> np{static_cast<long>(hi[0] - lo[0]) * r + 1,
                               static_cast<long>(hi[1] - lo[1]) * r + 1,
                               static_cast<long>(hi[2] - lo[2]) * r + 1};
  auto point = [&](long i, long j, long k) {
    return static_cast<std::size_t>(i + np[0] * (j + np[1] * k));
  };
  std::vector<int> vertex_id(static_cast<std::size_t>(np[0] * np[1] * np[2]), -1);

  // Fine cells of a design voxel, visited in lattice order within the voxel.
  auto for_each_cell = [&](const std::array<int, 3>& zyx, auto&& fn) {
    const long i0 = static_cast<long>(zyx[2] - lo[0]) * r;
    const long j0 = static_cast<long>(zyx[1] - lo[1]) * r;
    const long k0 = static_cast<long>(zyx[0] - lo[2]) * r;
    for (long k = k0; k < k0 + r; ++k)
      for (long j = j0; j < j0 + r; ++j)
        for (long i = i0; i < i0 + r; ++i) fn(i, j, k);
  };
  for (const auto& [zyx, label] : design.voxels())
    for_each_cell(zyx, [&](long i, long j, long k) {
      for (int c = 0; c < 8; ++c)
        vertex_id[point(i + (c & 1), j + ((c >> 1) & 1), k + (c >> 2))] = 0;
    });

  TetMesh mesh;
  const double h = o.voxel_size;
  std::vector<Eigen::RowVector3d> positions;
  for (long k = 0; k < np[2]; ++k)
    for (long j = 0; j < np[1]; ++j)
      for (long i = 0; i < np[0]; ++i) {
        int& v = vertex_id[point(i, j, k)];
        if (v < 0) continue;
        v = static_cast<int>(positions.size());
        // Stem axis (design x = y = 1) on x = y = 0; base (design z = 0) exactly on z = 0.
        positions.emplace_back(h * (static_cast<double>(lo[0] * r + i) / r - 1.0),
                               h * (static_cast<double>(lo[1] * r + j) / r - 1.0),
                               h * (static_cast<double>(lo[2] * r + k) / r));
      }
  mesh.rest_positions.resize(static_cast<Eigen::Index>(positions.size()), 3);
  for (std::size_t v = 0; v < positions.size(); ++v)
    mesh.rest_positions.row(static_cast<Eigen::Index>(v)) = positions[v];

  std::vector<Eigen::Vector4i> tets;
  std::vector<int> labels;
  tets.reserve(design.voxels().size() * 6 * static_cast<std::size_t>(r * r * r));
  std::array<int, 8> corner{};
  for (const auto& [zyx, voxel_label] : design.voxels()) {
    const int label = voxel_label;  // (a structured binding: clang 14 cannot capture it)
    for_each_cell(zyx, [&](long i, long j, long k) {
      for (int c = 0; c < 8; ++c)
        corner[c] = vertex_id[point(i + (c & 1), j + ((c >> 1) & 1), k + (c >> 2))];
      append_kuhn_cell(corner, tets);
      labels.insert(labels.end(), 6, label);
    });
  }
  mesh.tets = to_matrix(tets);
  mesh.labels =
      Eigen::Map<const Eigen::VectorXi>(labels.data(), static_cast<Eigen::Index>(labels.size()));

  mesh.label_names[1] = "stem";
  std::set<std::pair<int, int>> intended;
  for (int b = 1; b <= num_b; ++b) {
    mesh.label_names[1 + b] = "branch_" + std::to_string(b);
    mesh.label_names[1 + num_b + b] = "leaf_" + std::to_string(b);
    intended.emplace(1, 1 + b);
    intended.emplace(1 + b, 1 + num_b + b);
  }
  if (o.bloom) {
    mesh.label_names[2 + 2 * num_b] = "bloom";
    intended.emplace(1, 2 + 2 * num_b);
  }
  check_part_contacts(mesh, intended);

  mesh.vertex_flags = (mesh.rest_positions.col(2).array() == 0.0).cast<int>();

  // Smooth shears (Jacobian determinant 1): droop of the outer parts, then a lean of the stem.
  // Neither moves the anchored base (z = 0, radius < 2 voxels).
  const double height = o.stem_height * h;
  const double r0 = 2.0 * h;
  for (Eigen::Index v = 0; v < mesh.rest_positions.rows(); ++v) {
    auto p = mesh.rest_positions.row(v);
    const double radius = std::hypot(p(0), p(1));
    const double out = std::max(0.0, radius - r0);
    p(2) -= o.droop * out * out / height;
    p(0) += o.lean * p(2) * p(2) / height;
  }
  for (int t = 0; t < mesh.num_tets(); ++t)
    if (!(signed_tet_volume(mesh.rest_positions, mesh.tets, t) > 0.0))
      throw MeshError("make_branching_plant: lean " + std::to_string(o.lean) + " / droop " +
                          std::to_string(o.droop) + " inverts tet " + std::to_string(t),
                      t);
  return mesh;
}

}  // namespace ramus
