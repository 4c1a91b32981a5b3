// A beam cut along x into a chain of reduced domains through the real substructuring pipeline
// (tests only): 1 x 0.2 x 0.2 m, 16 x 2 x 2 cells (centre-line vertices exist), StVK E 1e6 Pa,
// nu 0.45, rho 1000 kg/m^3, clamped at x = 0 or free.
#pragma once

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"
#include "ramus/runtime/data/reduced_model.h"
#include "support/reduced_beams.h"
#include "support/test_meshes.h"

namespace ramus::test {

inline const Material kSplitBeamMaterial{1e6, 0.45, 1000};

inline TetMesh split_beam_mesh() {
  return box_mesh(16, 2, 2, 1.0, 0.2, 0.2);
}

/// The vertex at the centre of the free end (1, 0.1, 0.1).
inline int split_beam_tip(const TetMesh& mesh) {
  int best = 0;
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    const Eigen::RowVector3d x = mesh.rest_positions.row(v);
    if (std::abs(x(0) - 1.0) < 1e-12 && std::abs(x(1) - 0.1) < 1e-12 &&
        std::abs(x(2) - 0.1) < 1e-12)
      best = v;
  }
  return best;
}

/// The beam in r.size() equal domains along x, domain k with r[k] modes (r / 2 linear modes +
/// modal derivatives), clamped at x = 0 (or free).
inline std::shared_ptr<ReducedModel> split_beam(const std::vector<int>& r, bool clamped = true) {
  const int parts = static_cast<int>(r.size());
  const TetMesh mesh = split_beam_mesh();
  Eigen::VectorXi tet_domain(mesh.num_tets());
  for (int t = 0; t < mesh.num_tets(); ++t) {
    double x = 0;
    for (int c = 0; c < 4; ++c) x += mesh.rest_positions(mesh.tets(t, c), 0) / 4;
    tet_domain(t) = std::min(parts - 1, static_cast<int>(x * parts));
  }
  const std::vector<int> anchors = clamped ? clamped_vertices(mesh) : std::vector<int>{};
  const DomainTree tree = build_domain_tree(mesh, tet_domain, anchors);
  std::vector<ReductionSpec> reductions;
  for (const int r_i : r) {
    ReductionSpec reduction;
    reduction.r = r_i;
    reduction.linear_modes = std::max(1, r_i / 2);
    reductions.push_back(reduction);
  }
  return std::make_shared<ReducedModel>(build_substructured_model(
      mesh, assign_materials(mesh, kSplitBeamMaterial), tree, anchors, reductions));
}

inline std::shared_ptr<ReducedModel> split_beam(int parts, int r, bool clamped = true) {
  return split_beam(std::vector<int>(static_cast<std::size_t>(parts), r), clamped);
}

}  // namespace ramus::test
