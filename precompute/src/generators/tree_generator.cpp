#include "ramus/precompute/generators/tree_generator.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "ramus/error.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/mesh/boundary_surface.h"
#include "ramus/precompute/substructuring/surface_embedding.h"

namespace ramus {

namespace {

constexpr double kGoldenAngle = 137.50776405 * M_PI / 180;
// A child's base half-diagonal may take this share of its parent's local half-width.
constexpr double kEmbeddingShare = 0.9;

double smoothstep(double x) {
  x = std::clamp(x, 0.0, 1.0);
  return x * x * (3 - 2 * x);
}

// Uniform in [0, 1) from the generator's raw bits (the same on every standard library).
double uniform(std::mt19937& rng) {
  return static_cast<double>(rng() >> 8) / static_cast<double>(1u << 24);
}

// The limb's z half-width where its y half-width is w.
double half_thickness(const LimbShape& shape, double w) {
  return shape.half_thickness > 0 ? shape.half_thickness : shape.thickness * w;
}

// An instance's pose: world x = rotation (scale X) + translation.
struct Pose {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  double scale = 1;
};

// The pose of a child whose base centre sits on the parent's axis at fraction u, its axis at
// `elevation` from the parent's tangent, turned by `azimuth` about it.
Pose child_pose(const Pose& parent, const LimbShape& shape, double u, double azimuth,
                double elevation, double scale) {
  const Eigen::Vector3d tangent = limb_tangent(shape, u);
  const Eigen::Vector3d n1 = Eigen::Vector3d::UnitY();
  const Eigen::Vector3d n2 = tangent.cross(n1).normalized();
  const Eigen::Vector3d d = std::cos(elevation) * tangent +
                            std::sin(elevation) * (std::cos(azimuth) * n1 + std::sin(azimuth) * n2);
  Eigen::Vector3d y = tangent.cross(d);
  y = y.norm() > 1e-9 ? Eigen::Vector3d(y.normalized()) : n1;
  Eigen::Matrix3d local;
  local.col(0) = d.normalized();
  local.col(1) = y;
  local.col(2) = local.col(0).cross(y);
  Pose child;
  child.rotation = parent.rotation * local;
  child.translation =
      parent.rotation * (parent.scale * limb_axis_point(shape, u)) + parent.translation;
  child.scale = scale;
  return child;
}

// The largest scale at which a child's base (half-widths w, t at scale 1) fits inside its parent
// at fraction u.
double max_child_scale(const LimbShape& parent, double parent_scale, double u, double w, double t) {
  const double pw = limb_half_width(parent, u);
  const double room = std::min(pw, half_thickness(parent, pw)) * parent_scale;
  return kEmbeddingShare * room / std::hypot(w, t);
}

}  // namespace

double limb_half_width(const LimbShape& s, double u) {
  if (s.petiole_half_width <= 0)
    return s.base_half_width + (s.tip_half_width - s.base_half_width) * u;
  if (u < 0.2) return s.petiole_half_width;
  if (u < 0.5)
    return s.petiole_half_width +
           (s.base_half_width - s.petiole_half_width) * smoothstep((u - 0.2) / 0.3);
  return s.base_half_width + (s.tip_half_width - s.base_half_width) * (u - 0.5) / 0.5;
}

Eigen::Vector3d limb_axis_point(const LimbShape& s, double u) {
  return {s.length * u, 0, s.bend * s.length * u * u};
}

Eigen::Vector3d limb_tangent(const LimbShape& s, double u) {
  return Eigen::Vector3d(s.length, 0, 2 * s.bend * s.length * u).normalized();
}

TetMesh make_limb_mesh(const LimbShape& s) {
  if (!(s.length > 0) || !(s.base_half_width > 0) || !(s.tip_half_width > 0) ||
      !(s.thickness > 0) || s.nx < 1 || s.ny < 1 || s.nz < 1)
    throw OptionError("make_limb_mesh: sizes and cell counts must be positive");
  // The unit box's lattice (u, j / ny, k / nz), mapped onto the limb: an orientation-preserving
  // map, so every Kuhn tet keeps its positive volume.
  TetMesh mesh = make_box_tet_mesh(Eigen::Vector3d::Ones(), s.nx, s.ny, s.nz);
  mesh.vertex_flags = Eigen::VectorXi::Zero(mesh.rest_positions.rows());
  for (Eigen::Index v = 0; v < mesh.rest_positions.rows(); ++v) {
    const double u = mesh.rest_positions(v, 0);
    const double a = 2 * mesh.rest_positions(v, 1) - 1, b = 2 * mesh.rest_positions(v, 2) - 1;
    const Eigen::Vector3d tangent = limb_tangent(s, u);
    const Eigen::Vector3d n1 = Eigen::Vector3d::UnitY();
    const Eigen::Vector3d n2 = tangent.cross(n1).normalized();
    const double w = limb_half_width(s, u);
    mesh.rest_positions.row(v) =
        (limb_axis_point(s, u) + w * a * n1 + half_thickness(s, w) * b * n2).transpose();
    if (u == 0) mesh.vertex_flags(v) = 1;
  }
  for (int t = 0; t < mesh.num_tets(); ++t)
    if (!(signed_tet_volume(mesh.rest_positions, mesh.tets, t) > 0))
      throw MeshError("make_limb_mesh: the limb's shape inverts tet " + std::to_string(t), t);
  return mesh;
}

namespace {

// `items` spread over shares in proportion (share / total), whole numbers by largest remainders
// (ties to the earlier share).
std::vector<int> largest_remainders(const std::vector<double>& share, double total, int items) {
  std::vector<int> count(share.size(), 0);
  std::vector<std::pair<double, std::size_t>> remainder;
  int given = 0;
  for (std::size_t b = 0; b < share.size(); ++b) {
    const double exact = items * share[b] / total;
    count[b] = static_cast<int>(std::floor(exact));
    given += count[b];
    remainder.push_back({exact - count[b], b});
  }
  std::sort(remainder.begin(), remainder.end(), [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  });
  for (int k = 0; given < items; ++k, ++given)
    ++count[remainder[static_cast<std::size_t>(k)].second];
  return count;
}

}  // namespace

Tree make_tree(const TreeOptions& o) {
  if (o.main_branches < 1 || o.sub_branches < 0 || o.sub_branches_per_main < 0 || o.leaves < 0)
    throw OptionError(
        "make_tree: branch and leaf counts must not be negative (one main branch "
        "at least)");
  std::mt19937 rng(o.seed);
  const int cells = o.small ? 1 : 2;
  // The trunk, five branch classes (two for the main branches, three for the sub-branches) and
  // the leaf; lengths in metres.
  std::vector<LimbShape> shapes = {
      {3.2, 0.22, 0.07, 0.02, 1, 0, o.small ? 8 : 16, cells + 1, cells + 1, 0},
      {1.3, 0.055, 0.014, 0.08, 1, 0, o.small ? 6 : 12, cells, cells, 0},
      {1.1, 0.05, 0.013, 0.12, 1, 0, o.small ? 6 : 12, cells, cells, 0},
      {0.8, 0.03, 0.010, 0.10, 1, 0, o.small ? 5 : 10, cells, cells, 0},
      {0.65, 0.027, 0.009, 0.15, 1, 0, o.small ? 4 : 9, cells, cells, 0},
      {0.5, 0.024, 0.008, 0.05, 1, 0, o.small ? 4 : 8, cells, cells, 0},
      {0.12, 0.03, 0.004, 0.3, 1, 0.0015, o.small ? 3 : 5, 2, 1, 0.003}};
  const char* names[] = {"trunk", "limb_a", "limb_b", "limb_c", "limb_d", "limb_e", "leaf"};
  Tree tree;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    Tree::Part part;
    part.name = names[k];
    part.mesh = make_limb_mesh(shapes[k]);
    part.r = k == 0 ? o.trunk_r : k == 6 ? o.leaf_r : o.branch_r;
    part.youngs_modulus = k == 6 ? 5e7 : 2e8;
    part.density = k == 6 ? 500 : 700;
    if (k == 6) part.render_surface = make_leaf_blade(shapes[k], o.small ? 8 : 24);
    tree.parts.push_back(std::move(part));
  }
  struct Limb {
    int shape;
    Pose pose;
    std::string name;
  };
  std::vector<Limb> limbs;
  const auto place = [&](const std::string& name, int shape, const std::string& parent,
                         const Pose& pose) {
    tree.placements.push_back(
        {name, names[shape], parent, pose.rotation, pose.translation, pose.scale});
  };
  // The trunk rises along z (its axis is +x in its part).
  Pose trunk;
  trunk.rotation = Eigen::AngleAxisd(-M_PI / 2, Eigen::Vector3d::UnitY()).toRotationMatrix();
  place("trunk", 0, "", trunk);
  limbs.push_back({0, trunk, "trunk"});
  // Main branches up the trunk, golden-angle azimuths, larger below.
  for (int m = 0; m < o.main_branches; ++m) {
    const double f = o.main_branches > 1 ? static_cast<double>(m) / (o.main_branches - 1) : 0;
    const int shape = 1 + m % 2;
    const double u = 0.42 + 0.5 * f;
    const double wanted = 1.4 - 0.6 * f;
    const double scale =
        std::min(wanted, max_child_scale(shapes[0], 1, u,
                                         shapes[static_cast<std::size_t>(shape)].base_half_width,
                                         shapes[static_cast<std::size_t>(shape)].base_half_width));
    const Pose pose = child_pose(trunk, shapes[0], u, m * kGoldenAngle,
                                 (50 + 15 * uniform(rng)) * M_PI / 180, scale);
    const std::string name = "main_" + std::to_string(m);
    place(name, shape, "trunk", pose);
    limbs.push_back({shape, pose, name});
  }
  // Sub-branches on the main branches, moved towards a parent's base until they fit at 0.6.
  const int mains = static_cast<int>(limbs.size()) - 1;
  for (int k = 0; k < o.sub_branches; ++k) {
    const int per = std::max(1, o.sub_branches_per_main);
    const Limb parent = limbs[static_cast<std::size_t>(1 + (k / per) % mains)];
    const int slot = k % per;
    const int shape = 3 + k % 3;
    const LimbShape& ps = shapes[static_cast<std::size_t>(parent.shape)];
    const double w = shapes[static_cast<std::size_t>(shape)].base_half_width;
    double u = 0.3 + 0.45 * slot / std::max(1, per - 1);
    while (u > 0.1 && max_child_scale(ps, parent.pose.scale, u, w, w) < 0.6) u -= 0.02;
    const double scale =
        std::min(0.6 + 0.4 * uniform(rng), max_child_scale(ps, parent.pose.scale, u, w, w));
    const Pose pose = child_pose(parent.pose, ps, u, slot * kGoldenAngle + k * 1.1,
                                 (40 + 15 * uniform(rng)) * M_PI / 180, scale);
    const std::string name = "sub_" + std::to_string(k);
    place(name, shape, parent.name, pose);
    limbs.push_back({shape, pose, name});
  }
  // Leaves over every branch by length (largest remainders), along the outer two thirds.
  const LimbShape& leaf = shapes[6];
  std::vector<double> share;
  double total = 0;
  for (std::size_t b = 1; b < limbs.size(); ++b) {
    share.push_back(shapes[static_cast<std::size_t>(limbs[b].shape)].length * limbs[b].pose.scale);
    total += share.back();
  }
  const std::vector<int> count = largest_remainders(share, total, o.leaves);
  int next = 0;
  const double petiole_t = leaf.half_thickness;
  for (std::size_t b = 0; b < count.size(); ++b) {
    const Limb& branch = limbs[b + 1];
    const LimbShape& bs = shapes[static_cast<std::size_t>(branch.shape)];
    for (int i = 0; i < count[b]; ++i) {
      const double u = 0.33 + 0.64 * (i + 0.5) / count[b];
      const double scale =
          std::min(0.8 + 0.4 * uniform(rng),
                   max_child_scale(bs, branch.pose.scale, u, leaf.petiole_half_width, petiole_t));
      const Pose pose = child_pose(branch.pose, bs, u, i * kGoldenAngle,
                                   (50 + 20 * uniform(rng)) * M_PI / 180, scale);
      char name[16];
      std::snprintf(name, sizeof name, "leaf_%04d", next++);
      place(name, 6, branch.name, pose);
    }
  }
  return tree;
}

SurfaceMesh make_leaf_blade(const LimbShape& shape, int stations) {
  if (stations < 1) throw OptionError("make_leaf_blade: stations must be >= 1");
  // The blade in the unit box the limb's lattice maps from: its mid-plane z = 1/2 from edge
  // y = 0 to edge y = 1 at each station; each point mapped as the tet holding it maps (so the
  // blade lies in the leaf's tets, and deforms with them exactly).
  SurfaceMesh blade;
  Eigen::MatrixX3d unit(2 * (stations + 1), 3);
  for (int i = 0; i <= stations; ++i) {
    const double u = static_cast<double>(i) / stations;
    unit.row(2 * i) << u, 0.0, 0.5;
    unit.row(2 * i + 1) << u, 1.0, 0.5;
  }
  const TetMesh box = make_box_tet_mesh(Eigen::Vector3d::Ones(), shape.nx, shape.ny, shape.nz);
  const TetMesh limb = make_limb_mesh(shape);
  ReducedPart lattice;
  lattice.rest_positions = box.rest_positions;
  lattice.tets = box.tets;
  const EmbeddedSurface in_box =
      embed_surface(single_domain_model(std::move(lattice)), unit, Eigen::MatrixX3i(0, 3));
  blade.vertices = Eigen::MatrixX3d::Zero(unit.rows(), 3);
  for (Eigen::Index v = 0; v < unit.rows(); ++v)
    for (int c = 0; c < 4; ++c)
      blade.vertices.row(v) +=
          in_box.barycentric(v, c) * limb.rest_positions.row(limb.tets(in_box.tet(v), c));
  blade.triangles.resize(2 * stations, 3);
  for (int i = 0; i < stations; ++i) {
    blade.triangles.row(2 * i) << 2 * i, 2 * i + 2, 2 * i + 1;
    blade.triangles.row(2 * i + 1) << 2 * i + 1, 2 * i + 2, 2 * i + 3;
  }
  return blade;
}

std::string tree_spec_json(const Tree& tree, const TreeOptions& options) {
  using nlohmann::json;
  json spec;
  spec["comment"] =
      "A procedural tree (ramus generate tree" + std::string(options.small ? " --small" : "") +
      ", seed " + std::to_string(options.seed) + "): a trunk anchored at its foot, " +
      std::to_string(options.main_branches + options.sub_branches) +
      " branches placing 5 limb meshes at scales 0.6-1.4, " + std::to_string(options.leaves) +
      " leaves placing one leaf mesh. Each part is reduced once (docs/SPEC.md, Assemblies).";
  for (const Tree::Part& part : tree.parts) {
    json p;
    p["mesh"] = part.name + ".msh";
    p["material"] = {{"youngs_modulus", part.youngs_modulus},
                     {"poisson_ratio", 0.35},
                     {"density", part.density}};
    p["base"] = json::array({{{"plane", {{"point", {0, 0, 0}}, {"normal", {1, 0, 0}}}}}});
    p["reduction"] = {{"linear_modes", std::max(1, part.r / 2)}, {"r", part.r}};
    if (part.render_surface.num_vertices() > 0) p["render_surface"] = part.name + "_surface.obj";
    spec["parts"][part.name] = p;
  }
  json instances = json::array();
  for (const TreePlacement& placed : tree.placements) {
    json i;
    i["name"] = placed.name;
    i["part"] = placed.part;
    if (!placed.parent.empty()) i["parent"] = placed.parent;
    json rows = json::array();
    for (int r = 0; r < 3; ++r)
      rows.push_back({placed.rotation(r, 0), placed.rotation(r, 1), placed.rotation(r, 2)});
    i["rotation"] = rows;
    i["translation"] = {placed.translation(0), placed.translation(1), placed.translation(2)};
    if (placed.scale != 1) i["scale"] = placed.scale;
    instances.push_back(i);
  }
  spec["instances"] = instances;
  spec["attachment_tolerance"] = 1e-6;
  spec["simulation"] = {{"time_step", 0.01},
                        {"steps", 300},
                        {"gravity", {0, 0, -9.81}},
                        {"integrator", "si"},
                        {"rayleigh_mass", 0.5},
                        {"rayleigh_stiffness", 0.002},
                        {"output_every", 10},
                        {"wind",
                         {{"velocity", {4.0, 1.0, 0.0}},
                          {"gust", 0.5},
                          {"gust_period", 3.0},
                          {"turbulence", 1.5},
                          {"turbulence_length", 3.0},
                          {"seed", static_cast<int>(options.seed)}}}};
  spec["domains"] = {{"lumping", "interface"}};
  return spec.dump(1);
}

// Every placement's part surface, placed (x = s R X + t), in one surface.
SurfaceMesh tree_surface_soup(const Tree& tree) {
  std::map<std::string, SurfaceMesh> surfaces;
  for (const Tree::Part& part : tree.parts)
    surfaces[part.name] = extract_boundary_surface(part.mesh);
  // Sized first, then filled placement by placement.
  Eigen::Index num_vertices = 0, num_triangles = 0;
  for (const TreePlacement& p : tree.placements) {
    num_vertices += surfaces.at(p.part).num_vertices();
    num_triangles += surfaces.at(p.part).num_triangles();
  }
  SurfaceMesh soup;
  soup.vertices.resize(num_vertices, 3);
  soup.triangles.resize(num_triangles, 3);
  Eigen::Index v0 = 0, t0 = 0;
  for (const TreePlacement& p : tree.placements) {
    const SurfaceMesh& s = surfaces.at(p.part);
    soup.vertices.middleRows(v0, s.num_vertices()) =
        ((p.scale * p.rotation * s.vertices.transpose()).colwise() + p.translation).transpose();
    soup.triangles.middleRows(t0, s.num_triangles()) = s.triangles.array() + static_cast<int>(v0);
    v0 += s.num_vertices();
    t0 += s.num_triangles();
  }
  return soup;
}

}  // namespace ramus
