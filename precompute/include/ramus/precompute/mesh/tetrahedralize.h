// Tetrahedralization of closed triangle surfaces with TetGen (used as a library).
#pragma once

#include <string>

#include "ramus/precompute/mesh/surface_mesh.h"
#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

struct TetrahedralizeOptions {
  double max_radius_edge_ratio = 1.5;  ///< TetGen -q bound (>= 1; 0 disables quality refinement)
  double max_volume = 0;               ///< TetGen -a bound on every tet volume (0 = unbounded)
  bool label_regions = true;           ///< TetGen -A: one label per enclosed region
};

/// What TetGen's child may use before it is stopped, scaled to its input: the tets to expect
/// (enclosed volume / max_volume when bounded, plus 1,000 per surface triangle for quality
/// refinement) at 10,000 tets a CPU second and 1 kB a tet, plus 10 s and 256 MB; at most 600 s
/// and 16 GB (and 3/4 of the RAM). An 8-vertex surface gets 12 s and 268 MB.
struct TetgenBudget {
  long cpu_seconds = 0;
  double bytes = 0;
};
TetgenBudget tetgen_budget(int num_triangles, double enclosed_volume, double max_volume);

/// Tetrahedralizes the volume bounded by a closed surface (#V by 3 vertices, #F by 3 triangles).
/// Vertices closer than 1e-12 * bbox diagonal are merged, collapsed and duplicated triangles
/// removed (so closed parts sharing faces become one PLC with internal facets), then closedness
/// is checked. Every returned tet has positive signed_tet_volume. With label_regions, labels
/// (#T) are 1..k: if the surface has groups and each region lies inside exactly one closed
/// group, label g+1 is the (innermost) group g containing it and label_names holds group names;
/// otherwise regions are numbered by increasing centroid x, then y, then z.
/// max_volume is a hard bound (TetGen overshoots it slightly at times: it is then rerun with a
/// tighter bound, and any tet left above it is split at its centroid). TetGen runs in a forked
/// child process, since TetGen 1.5.0 crashes (double free) when it reports an error; the child
/// runs within tetgen_budget and is killed when its parent dies, by any signal.
/// Throws InputError (prefixed by file_for_messages) for bad surfaces or TetGen failures, and
/// OptionError for invalid options.
TetMesh tetrahedralize(const SurfaceMesh& surface, const TetrahedralizeOptions& options,
                       const std::string& file_for_messages = "");

}  // namespace ramus
