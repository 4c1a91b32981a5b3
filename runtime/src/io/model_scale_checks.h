// Semantic bounds of a model's stored quantities against its own scale (runtime internals):
// positions, masses, the basis and the polynomial's coefficients, each checked against what its
// mesh and materials allow (docs/FORMAT.md, "Guarantees of the writer and the reader").
#pragma once

#include <string>

#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Largest |coordinate| of any stored position (m): nothing a game simulates is 100 km away.
inline constexpr double kMaxModelCoordinate = 1e5;

/// The first stored quantity out of its model's own scale, naming its dataset, or "" when every
/// one is within bounds. Runs on a model whose shapes and indices are consistent
/// (find_model_inconsistency, which calls it last).
std::string find_scale_problem(const ReducedModel& model);

}  // namespace ramus
