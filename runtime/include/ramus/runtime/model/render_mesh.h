// What a renderer draws of a model: triangle meshes that each move with one domain, stored once
// per part and drawn by every domain that places the part (a leaf's blade, once for all leaves).
// A vertex is a fixed combination of its domain's reduced coordinates, in float: the rows of the
// basis at the vertex (embedded: Σ_c b_c U_c over its tet's corners), and its normal's derivative
// per coordinate at rest (the modal normals of James & Pai, "DyRT", 2002), so that a CPU loop or
// a vertex shader rebuilds position and normal from q and the domain's frame alone.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <vector>

namespace ramus {

/// Triangles as a renderer's index buffer takes them: a triangle's three indices together.
using RenderTriangles = Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor>;

/// Per-vertex tables by coordinate (structure of arrays): column c holds coordinate c of every
/// vertex, so that a loop over the vertices runs over contiguous floats.
using RenderColumns = Eigen::Matrix<float, Eigen::Dynamic, 3>;

/// One render mesh and the domains that draw it (each with its own frame, scale and q). The
/// bases' row c S + v is coordinate c of vertex v (S vertices).
struct RenderPiece {
  int part = -1;                   ///< the part whose coordinates move it
  RenderColumns rest;              ///< S by 3: rest positions in the part's frame, unit scale (m)
  RenderColumns rest_normals;      ///< S by 3: unit area-weighted vertex normals at rest
  Eigen::MatrixXf position_basis;  ///< 3S by r: displacement per unit q at each vertex (m)
  /// 3S by r: the unit normal's change per unit q at rest (tangential; per unit scale).
  Eigen::MatrixXf normal_basis;
  RenderTriangles triangles;  ///< #F by 3: its own vertices
  /// S: the part vertex weighing most in each vertex (where a force applied there acts).
  Eigen::VectorXi nearest_part_vertex;
  bool from_boundary = false;  ///< the part's tet-mesh boundary (no render surface was given)
  std::vector<int> domains;    ///< the domains drawing it: one copy of its vertices each
  int first_vertex = 0;        ///< render vertex of its first domain's vertex 0
  int first_triangle = 0;      ///< render triangle of its first domain's triangle 0
  int size() const { return static_cast<int>(rest.rows()); }
};

/// A model's whole render surface. Render vertex v of piece p's j-th domain is
/// p.first_vertex + j p.size() + v; triangles: every piece's for each of its domains, in piece
/// order, then the seam triangles.
struct RenderMesh {
  std::vector<RenderPiece> pieces;
  /// #seam by 3, render vertex indices: triangles of a surface embedded across several domains
  /// whose corners lie in different pieces.
  RenderTriangles seam_triangles;
  /// The render vertex of each vertex of the file's embedded surface (spread across domains:
  /// /embedded_surface), in its order; empty without one. (A part's render surface keeps its
  /// order within its piece.)
  Eigen::VectorXi embedded_surface_vertices;
  int num_vertices = 0;
  int num_triangles = 0;
};

/// Bytes piece holds (its tables, triangles and domain list, as asked of the heap).
std::size_t render_piece_bytes(const RenderPiece& piece);

}  // namespace ramus
