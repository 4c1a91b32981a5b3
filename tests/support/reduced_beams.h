// Reduced models of small clamped beams built through the real precompute pipeline (tests only).
#pragma once

#include <memory>

#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/runtime/data/reduced_model.h"
#include "support/test_meshes.h"

namespace ramus::test {

struct BeamSetup {
  int nx = 12, ny = 3, nz = 3;
  double length = 1.0, width = 0.2;
  Material material{1e6, 0.45, 1000};
};

inline TetMesh beam_mesh(const BeamSetup& b) {
  return box_mesh(b.nx, b.ny, b.nz, b.length, b.width, b.width);
}

inline std::vector<int> clamped_vertices(const TetMesh& mesh) {
  std::vector<int> fixed;
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (mesh.rest_positions(v, 0) == 0.0) fixed.push_back(v);
  return fixed;
}

/// A one-domain reduced model of the beam clamped at x = 0.
inline std::shared_ptr<ReducedModel> reduced_beam(const BeamSetup& b,
                                                  const ReductionSpec& reduction) {
  const TetMesh mesh = beam_mesh(b);
  const StvkFemModel model(mesh, assign_materials(mesh, b.material));
  return std::make_shared<ReducedModel>(single_domain_model(
      build_reduced_part(model, DofMap(mesh.num_vertices(), clamped_vertices(mesh)), reduction)));
}

}  // namespace ramus::test
