// Writing a ReducedModel as a Ramus model file (HDF5, layout in docs/FORMAT.md); read it back
// with read_model_file (ramus/runtime/model_file.h).
#pragma once

#include <string>

#include "ramus/precompute/model/model_signing.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Checks the model (find_model_inconsistency), writes "<path>.tmp-<pid>" and renames it onto
/// path; throws Error on any failure, leaving path as it was and no temporary file behind.
/// Optional data is left out when there is none: the root's interface, system-force integrals
/// that were not computed (a rigid domain's empty ones are written in their documented shapes),
/// an embedded surface of 0 vertices.
/// Temporaries "<path>.tmp-<pid>" left by a killed writer whose process is gone are removed first.
/// With `signer` the seal carries its Ed25519 signature of the file (model_signing.h).
void write_model_file(const ReducedModel& model, const std::string& path,
                      const ModelSecretKey* signer = nullptr);

/// Removes the temporary of a write_model_file in progress, if any. Async-signal-safe: meant for
/// a SIGINT/SIGTERM handler, which then ends the process (the target path is never touched).
void remove_model_file_in_progress() noexcept;

}  // namespace ramus
