// The single-domain precompute pipeline: linear modes -> modal derivatives -> mass-orthonormal
// basis -> exact cubic reduced StVK polynomial -> a ReducedPart ready for the model file.
#pragma once

#include <functional>
#include <string>

#include "ramus/precompute/fem/dof_map.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Called after each stage with its name ("linear modes", "modal derivatives", "basis",
/// "polynomial") and its wall-clock duration in seconds.
using StageReporter = std::function<void(const std::string& stage, double seconds)>;

/// Reduces one part (a domain of a mesh, or a part of an assembly). `dofs` holds its fixed vertices
/// (none: a free body, whose rigid modes are removed). Throws OptionError for impossible mode
/// counts, NumericalError when a solver fails.
ReducedPart build_reduced_part(const StvkFemModel& model, const DofMap& dofs,
                               const ReductionSpec& reduction, const StageReporter& report = {});

/// A rigid part (r = 0): everything build_reduced_part fills, with a 3#V by 0 basis (a free one
/// reports 6 rigid modes).
ReducedPart build_rigid_part(const StvkFemModel& model, const DofMap& dofs);

/// FNV-1a 64-bit hash of some bytes, continuing from `seed` (provenance of model files).
std::uint64_t fnv1a_hash(const std::string& bytes, std::uint64_t seed = 14695981039346656037ull);

/// Reads a whole file into a string (throws InputError naming the file when it can't).
std::string read_file_bytes(const std::string& path);

}  // namespace ramus
