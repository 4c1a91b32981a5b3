// `ramus simulate-full --integrator lg-be | lg-im | lg-im-blend`: the local/global solver of the
// stabilizing-integrators paper (local_global_integrator.h) on a spec's cloth ("model":
// "mass_spring") or corotated tet mesh, written as a ParaView series; per step its iterations,
// the blend's side and α, and the energy against the tracked total.
#pragma once

#include <string>
#include <vector>

#include "ramus/precompute/contact/step_contact.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/model/model_spec.h"
#include "simulate_cloth.h"

namespace ramus::cli {

/// True for the local/global integrators' names.
bool is_local_global_integrator(const std::string& integrator);

/// What a local/global run needs besides the spec: the integrator's name, the blend's energy
/// tolerance (relative) and where to write.
struct LocalGlobalRun {
  std::string integrator;
  double energy_tolerance = 0.01;
  ClothRunOutput output;
};

/// The spec's cloth (springs as projective terms, equal masses, pinned particles, its colliders).
void simulate_local_global_cloth(const ModelSpec& spec, const LocalGlobalRun& run);

/// The spec's tet mesh (fixed_corotated with poisson_ratio 0; lumped masses; `fixed` vertices;
/// the spec's point forces resolved on its vertices) with the colliders of `contact`.
void simulate_local_global_tets(const ModelSpec& spec, const TetMesh& mesh,
                                const StvkFemModel& model, const std::vector<int>& fixed,
                                const ContactOptions& contact, const LocalGlobalRun& run);

}  // namespace ramus::cli
