// A procedural tree as an assembly (substructuring paper §5, Fig. 1: an oak of 41 branches from
// 5 branch meshes and 1,394 leaves from one leaf mesh): part meshes (tapered, curved limbs of
// square section and a leaf with a petiole) and the placements that make the tree, written as an
// assembly spec (docs/SPEC.md, "Assemblies") by `ramus generate tree`.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "ramus/precompute/mesh/surface_mesh.h"
#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// A limb along +x from the origin: its axis rises as bend x² / length in the x-z plane, its
/// section a rectangle of half-widths half_width(x) (y) and half_width(x) thickness (z), linear
/// from base to tip, or a leaf's profile. Lattice of nx by ny by nz cells, 6 Kuhn tets each; the
/// base is the vertices at x = 0 (vertex flag 1), centred on the origin.
struct LimbShape {
  double length = 1;              ///< m, along the axis' x extent
  double base_half_width = 0.05;  ///< m
  double tip_half_width = 0.015;  ///< m
  double bend = 0;                ///< rise of the tip over the length (dimensionless)
  double thickness = 1;           ///< z half-width over y half-width
  double half_thickness = 0;      ///< m: a constant z half-width instead (0: use thickness)
  int nx = 10, ny = 2, nz = 2;
  /// A leaf: the width is petiole_half_width up to 20 % of the length, then grows to
  /// base_half_width at 50 % and narrows to tip_half_width (0: a limb, linear taper).
  double petiole_half_width = 0;
};

/// The limb's mesh. Throws OptionError for non-positive sizes or cell counts.
TetMesh make_limb_mesh(const LimbShape& shape);

/// A leaf's blade for rendering: the mid-surface of the limb's tets (edge to edge along y) at
/// stations + 1 stations from base to tip, 2 (stations + 1) vertices, 2 stations triangles
/// facing +z. Throws OptionError for stations < 1.
SurfaceMesh make_leaf_blade(const LimbShape& shape, int stations);

/// Half-width (y) of the limb's section at fraction u of its length.
double limb_half_width(const LimbShape& shape, double u);
/// Axis point at fraction u of the length, and the unit tangent there.
Eigen::Vector3d limb_axis_point(const LimbShape& shape, double u);
Eigen::Vector3d limb_tangent(const LimbShape& shape, double u);

/// Layout of make_tree. Defaults: the paper's oak (41 branches of 5 meshes, 1,394 leaves).
struct TreeOptions {
  int main_branches = 9;          ///< on the trunk
  int sub_branches_per_main = 4;  ///< on each of the first main branches, while they last
  int sub_branches = 32;          ///< in all
  int leaves = 1394;
  int branch_r = 20, trunk_r = 20, leaf_r = 8;
  unsigned seed = 1;
  bool small = false;  ///< a coarse test variant: fewer cells, modes, branches and leaves
};

/// One instance of the generated tree, as an assembly spec places it.
struct TreePlacement {
  std::string name, part, parent;  ///< parent empty for the root
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  double scale = 1;
};

/// The tree: its parts (name, mesh, r, Young's modulus, density) and placements, parents first.
struct Tree {
  struct Part {
    std::string name;
    TetMesh mesh;
    int r = 8;
    double youngs_modulus = 1e8, density = 700;
    SurfaceMesh render_surface;  ///< the leaf's blade (make_leaf_blade); limbs: none
  };
  std::vector<Part> parts;
  std::vector<TreePlacement> placements;
};

/// Builds the tree: a trunk anchored at its foot (rising along z from the origin), main branches
/// around it (golden-angle azimuths) at scales up to 1.4, sub-branches on them down to scale 0.6,
/// and the leaves spread over all branches by length; every child's base lies inside its parent
/// (its half-diagonal within 90 % of the parent's local half-width). Deterministic for a seed.
Tree make_tree(const TreeOptions& options = {});

/// The assembly spec of a tree whose part meshes are written as <part>.msh beside it (and render
/// surfaces as <part>_surface.obj).
std::string tree_spec_json(const Tree& tree, const TreeOptions& options);

/// The whole tree as one polygon soup, as a 3D package exports it: every placement's part
/// boundary surface placed (x = s R X + t), in the placements' order.
SurfaceMesh tree_surface_soup(const Tree& tree);

}  // namespace ramus
