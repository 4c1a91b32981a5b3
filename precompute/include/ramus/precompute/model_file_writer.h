// Writing a ReducedModel as a Ramus model file (HDF5, layout in docs/FORMAT.md); read it back
// with read_model_file (ramus/runtime/model_file.h).
#pragma once

#include <string>

#include "ramus/runtime/reduced_model.h"

namespace ramus {

/// Checks the model (find_model_inconsistency), writes "<path>.tmp-<pid>" and renames it onto
/// path; throws Error on any failure, leaving path as it was and no temporary file behind.
void write_model_file(const ReducedModel& model, const std::string& path);

}  // namespace ramus
