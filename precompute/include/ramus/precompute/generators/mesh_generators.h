// Procedural tetrahedral meshes for tests, demos and benchmarks: a box, the standard cantilever
// beam and a branching plant. Every mesh is conforming and every tet has positive signed volume:
// all are built from lattice cells split into 6 Kuhn tets around the cell's main diagonal.
#pragma once

#include <Eigen/Core>
#include <functional>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// Box [origin, origin + size] of nx*ny*nz cells, 6 tets each: (nx+1)(ny+1)(nz+1) by 3 vertices
/// (x fastest), 6*nx*ny*nz by 4 tets; labels, vertex_flags empty. Throws OptionError.
TetMesh make_box_tet_mesh(const Eigen::Vector3d& size, int nx, int ny, int nz,
                          const Eigen::Vector3d& origin = Eigen::Vector3d::Zero());

/// Voxel mesh of a shape: the lattice cells of edge cell_size filling [lower, upper] whose centre
/// has label_at(centre) > 0, 6 Kuhn tets each, labels (#T) = that value; only used vertices are
/// kept. For tests and generated test objects (staircase surfaces). Throws OptionError.
TetMesh make_voxel_tet_mesh(const std::function<int(const Eigen::Vector3d&)>& label_at,
                            const Eigen::Vector3d& lower, const Eigen::Vector3d& upper,
                            double cell_size);

/// Beam [0, length] x [0, width]^2 (x along the length) of nx*ny*nz cells, 6 tets each;
/// vertex_flags (#V) is 1 on the clamped end x == 0, else 0. Standard: (30, 6, 6) = 6,480 tets.
TetMesh make_cantilever_beam(int nx, int ny, int nz, double length = 1.0, double width = 0.2);

/// Layout of make_branching_plant. Lengths are in design voxels of edge voxel_size.
struct PlantOptions {
  double voxel_size = 0.01;  ///< edge of one design voxel, metres
  int refinement = 1;        ///< each design voxel becomes refinement^3 lattice cells (keep small)
  int num_branches = 6;      ///< branches, lowest first, cycling directions +x, +y, -x, -y
  int stem_height = 40;      ///< stem height (cross-section 2 x 2 voxels)
  int branch_run = 4;        ///< horizontal run of the top branch (lower branches are longer)
  int branch_rise = 4;       ///< staircase steps (one out, one up) after the horizontal run
  int leaf_length = 5;       ///< leaf blade length along its branch (blade is 1 voxel thick)
  int leaf_width = 4;        ///< leaf blade width across its branch, >= 2
  bool bloom = true;         ///< flat bloom (disc + 2 x 2 pistil) on top of the stem
  double lean = 0.05;        ///< stem lean: x += lean z^2 / H (H = stem height, metres)
  double droop = 0.3;        ///< droop of outer parts: z -= droop max(0, r - 2 voxels)^2 / H
};

/// Plant on a voxel lattice, stem axis on x = y = 0, base z = 0: labels (#T) 1 = "stem",
/// 1+b = "branch_b", 1+B+b = "leaf_b" (b = 1..B), 2+2B = "bloom"; vertex_flags (#V) 1 on z == 0.
/// Parts touch only through shared faces (branch-stem, leaf-branch, bloom-stem): a tree.
/// Throws OptionError for invalid or colliding layouts, MeshError if lean/droop invert a tet.
TetMesh make_branching_plant(const PlantOptions& options = {});

}  // namespace ramus
