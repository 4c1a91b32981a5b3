// A command never writes over one of its own inputs: an output that is an input (the same path,
// a hard link or a symbolic link to it) is refused before any work is done.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ramus/precompute/model/model_spec.h"

namespace ramus::cli {

/// OptionError naming the option and the input when an output (option, path; empty paths
/// skipped) is one of `inputs` (the same file however reached, or the same path not yet made).
void refuse_outputs_over_inputs(const std::vector<std::string>& inputs,
                                const std::vector<std::pair<std::string, std::string>>& outputs);

/// The files a spec reads: itself, its meshes, label files and render surfaces.
std::vector<std::string> spec_input_files(const ModelSpec& spec);

/// How a series' frames store the motion, said after every "output ... (N frames" line.
inline constexpr const char* kFrameConvention =
    "points at their deformed positions, 'displacement' from rest for colouring: Warp By Vector "
    "on it would double the motion";

}  // namespace ramus::cli
