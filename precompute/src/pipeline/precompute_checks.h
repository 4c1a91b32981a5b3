// The checks precompute runs on a finished model before it is written: its interfaces against
// the rigid-interface assumption and its energy under the spec's scenario. They report and warn;
// they never fail the precompute.
#pragma once

#include <vector>

#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/precompute_listener.h"
#include "ramus/precompute/reduction/static_modal_check.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// A summary line of the interfaces, and warnings (the first 10) for soft or large ones and deep
/// chains (issue 12); notes instead when `checked_within` (the full FEM's check passed).
void report_interfaces(const ReducedModel& model, const PrecomputeListener& listener,
                       bool checked_within = false);

/// The accuracy was measured and is within the check's tolerances.
bool within_tolerances(const ModelAccuracy& accuracy, const CheckSpec& check);

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
/// past the tolerances, a note where it cannot run (a free body, separate meshes). `reference`:
/// the full side when already computed (else computed here). Returns the measured errors.
ModelAccuracy report_accuracy(ReducedModel& model, const ModelSpec& spec,
                              const PrecomputeListener& listener,
                              const FullSpaceReference* reference = nullptr);

/// The check's options for `model` (its settings, the spec's number of frequencies).
StaticModalOptions check_options(const ReducedModel& model, const CheckSpec& check);

/// The reduced side of report_accuracy against `reference`, the lumping chosen into
/// model.settings as there (its line reported to `listener` when given).
StaticModalCheck run_check(ReducedModel& model, const FullSpaceReference& reference,
                           const ModelSpec& spec, const PrecomputeListener* listener);

/// The worst of a check's frequency errors (relative; infinite where no period was seen) and
/// which frequency it is (0-based).
double worst_frequency_error(const StaticModalCheck& c, Eigen::Index& which);

/// How far a check is from the spec's tolerances: its larger error over its tolerance (<= 1:
/// within both).
double check_score(const StaticModalCheck& c, const CheckSpec& spec);

}  // namespace ramus
