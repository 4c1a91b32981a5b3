// The precompute pipeline as one library call: a model spec (model_spec.h) becomes a reduced
// model ready for write_model_file (model_file_writer.h). `ramus precompute` is this call with
// its report printed.
#pragma once

#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/precompute_listener.h"
#include "ramus/precompute/reduction/distributed_reduction.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Overrides of a one-mesh spec's "reduction" block (the CLI's -r, --linear-modes,
/// --no-modal-derivatives); an assembly gives them per part and refuses these.
struct ReductionOverrides {
  int linear_modes = -1;  ///< > 0: replaces reduction.linear_modes
  int r = -1;             ///< > 0: replaces reduction.r
  bool no_modal_derivatives = false;
  bool any() const { return linear_modes > 0 || r > 0 || no_modal_derivatives; }
};

/// The spec's model: its mesh (or each assembly part's) read and checked, cut into domains, each
/// distinct part reduced once on all cores (modes, modal derivatives, basis, cubic polynomial,
/// system-force integrals), placed, its render surfaces embedded, the spec's settings and
/// scenario and the provenance recorded; then its interfaces, energy and accuracy checked
/// (report_accuracy: may choose the lumping). Errors name the spec's file and key (InputError)
/// or the override (OptionError). The listener gets the report, warnings, notes and progress.
/// Given `processes` (`mpirun`), every process calls this: the parts and domains are spread over
/// them and every process builds the same model; the checks run on rank 0 alone, the others
/// return the model unchecked (rank 0's is the one to write).
ReducedModel precompute_model(const ModelSpec& spec, const ReductionOverrides& overrides,
                              const PrecomputeListener& listener,
                              ProcessGroup* processes = nullptr);

/// ω₁ (rad/s) of the default damping (kDefaultDampingRatio): the undivided mesh's lowest
/// frequency when precompute's check measured it, else the root domain's lowest linear mode
/// (one domain: the same; a tree without a check: the root's alone, higher); 0 when neither.
double damping_reference_omega(const ReducedModel& model);

/// The scenario a model file stores: the spec's steps and output cadence with its `forces`
/// resolved to global vertices (check_spec_forces).
ScenarioSettings stored_scenario(const ScenarioSettings& scenario,
                                 const std::vector<PointForce>& forces);

/// The spec's colliders with a constant motion into the stored scenario, a mesh collider with its
/// grid level set (keyframes: a warning, left to `ramus simulate-full`).
/// A grid's band and voxel follow the runtime's `contact_distance` (m); errors name `spec_path`.
void store_scenario_colliders(const ContactSpec& contact, const std::string& spec_path,
                              double contact_distance, ScenarioSettings& scenario,
                              const PrecomputeListener& listener);

/// The time of writing as "2026-11-26T23:10:26Z", or SOURCE_DATE_EPOCH (seconds) where set, so
/// that the same inputs give byte-identical model files.
std::string provenance_time_utc();

}  // namespace ramus
