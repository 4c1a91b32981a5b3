// A mass-spring cloth made of a triangle surface as "Implementing the implicit Euler method for
// mass-spring systems" (2004, §1.1) builds it after Baraff and Witkin's "Large steps in cloth
// simulation" (1998): a particle per vertex, all of equal mass; a stretch spring along every edge;
// a bending spring across every edge two triangles share, between the two vertices off the edge;
// rest lengths from the surface as given.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "ramus/precompute/mesh/surface_mesh.h"
#include "ramus/runtime/data/runtime_settings.h"

namespace ramus {

/// One spring between particles i and j.
struct ClothSpring {
  int i = 0, j = 0;
  double rest_length = 0;  ///< m
  double stiffness = 0;    ///< k, N/m
  double damping = 0;      ///< kd, N s/m
};

/// The particles and springs of a cloth (SI units).
struct MassSpringCloth {
  Eigen::MatrixX3d rest_positions;  ///< #V by 3, m
  Eigen::MatrixX3i triangles;       ///< #F by 3, the surface (for output)
  double particle_mass = 0;         ///< kg, every particle's: areal density x area / #V
  double area = 0;                  ///< m², the surface's
  /// The stretch springs (one per edge, num_stretch of them) first, then the bending springs.
  std::vector<ClothSpring> springs;
  int num_stretch = 0;
  std::vector<int> pinned;  ///< sorted particles held in place

  int num_particles() const { return static_cast<int>(rest_positions.rows()); }
  int num_springs() const { return static_cast<int>(springs.size()); }
};

/// The cloth of `surface` with `settings`' density and springs, `pinned` particles held. Throws
/// InputError (naming `file_for_messages` and the triangle, edge or vertex) for non-finite
/// coordinates, indices out of range, a degenerate triangle (its area at most 1e-10 of its longest
/// edge squared: shape, not size), an edge shared by more than two triangles (a bending spring is
/// defined only where exactly two meet), a zero-length spring, a vertex in no triangle, or a
/// setting outside its bounds (find_cloth_problem).
MassSpringCloth build_mass_spring_cloth(const SurfaceMesh& surface, const ClothSettings& settings,
                                        const std::vector<int>& pinned,
                                        const std::string& file_for_messages);

/// A square cloth in the z = 0 plane, `side` m across and centred on the origin, with `n` by `n`
/// particles (n >= 2), its cells split into two triangles along alternating diagonals.
SurfaceMesh make_square_cloth(int n, double side);

}  // namespace ramus
