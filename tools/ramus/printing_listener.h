// The CLI's PrecomputeListener: report lines to stdout, "ramus: warning:" and "ramus: note:"
// lines to stderr, progress lines every few seconds.
#pragma once

#include "ramus/precompute/pipeline/precompute_listener.h"

namespace ramus::cli {

/// A listener that prints; `progress_every_s`: seconds between progress lines (0: none).
PrecomputeListener printing_listener(double progress_every_s = 0);

}  // namespace ramus::cli
