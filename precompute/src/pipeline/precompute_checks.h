// The checks precompute runs on a finished model before it is written: its interfaces against
// the rigid-interface assumption and its energy under the spec's scenario. They report and warn;
// they never fail the precompute.
#pragma once

#include <vector>

#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/precompute_listener.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// A summary line of the interfaces, and warnings (the first 10) for soft or large ones and deep
/// chains (issue 12).
void report_interfaces(const ReducedModel& model, const PrecomputeListener& listener);

/// The model dropped under the spec's gravity and `forces` for 1 s (at most 100 steps) with its
/// settings; a warning when its energy gains more than 1 % of its largest elastic energy or it
/// diverges.
void report_energy(const ReducedModel& model, const std::vector<PointForce>& forces,
                   const PrecomputeListener& listener);

}  // namespace ramus
