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

/// The energy report_energy measures: the largest gain over the largest elastic energy (infinite
/// when the run diverges; 0 without a load or when it cannot run).
double scenario_energy_gain(const ReducedModel& model, const std::vector<PointForce>& forces);

/// The model against the full FEM of its undivided mesh (static_modal_check.h) as the spec's
/// `check` asks: a tree whose spec sets no lumping gets the best of L1, L2 and L3 (written into
/// model.settings); a report line each for the static deflection and the frequencies, a warning
/// past the tolerances, a note where it cannot run (a free body, separate meshes). Returns the
/// measured errors.
ModelAccuracy report_accuracy(ReducedModel& model, const ModelSpec& spec,
                              const PrecomputeListener& listener);

}  // namespace ramus
