// `ramus simulate-full` for a spec with "model": "mass_spring": the cloth stepped by the
// mass-spring paper's implicit Euler, written as a ParaView series of its surface.
#pragma once

#include <optional>
#include <string>

#include "ramus/precompute/cloth/cloth_self_repulsion.h"
#include "ramus/precompute/cloth/mass_spring_cloth.h"
#include "ramus/precompute/model/model_spec.h"

namespace ramus::cli {

/// Where and how the run writes.
struct ClothRunOutput {
  std::string path;    ///< the .pvd series
  bool ascii = false;  ///< ASCII frames instead of binary, zlib-compressed ones
  bool quiet = false;  ///< only the summary
};

/// The spec's surface as a cloth with its pinned particles ("fixed") and its point forces
/// resolved on the surface's vertices; every error names the spec or the surface.
struct SpecCloth {
  MassSpringCloth cloth;
  std::vector<PointForce> forces;
};
SpecCloth load_spec_cloth(const ModelSpec& spec);

/// The repulsion of the spec's cloth against itself ("contact": {"self_collision": true}: the
/// cloth's thickness, its stretch stiffness, contact.self_friction), or nothing.
std::optional<ClothSelfRepulsionOptions> cloth_self_repulsion(const ModelSpec& spec);

/// Runs the spec's cloth for its steps (one frame of simulation.time_step each, halved by the
/// strain rule where needed) and prints a line every tenth of the run and a summary.
void simulate_cloth(const ModelSpec& spec, const ClothRunOutput& output);

}  // namespace ramus::cli
