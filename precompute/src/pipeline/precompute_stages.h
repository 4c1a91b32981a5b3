// Stages the one-mesh and the assembly pipelines of precompute_model share.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/precompute_listener.h"
#include "ramus/precompute/pipeline/precompute_progress.h"
#include "ramus/precompute/reduction/distributed_reduction.h"
#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/precompute/reduction/static_modal_check.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// The stages of a reduction as the builders report them ("<domain>: <stage>", seconds): the
/// progress reports, and the seconds per stage summed over the domains, reported as
/// "  <stage>  0.123 s" lines in the order of their names.
class StageTally {
 public:
  /// `work`: each domain's (or part's) share of the work (progress_line's estimate).
  StageTally(std::map<std::string, double> work, const PrecomputeListener& listener)
      : progress_(std::move(work), listener) {}
  /// The callback the builders take.
  StageReporter callback();
  void report(const PrecomputeListener& listener, int name_width, const char* summed_note) const;

 private:
  PrecomputeProgress progress_;
  std::map<std::string, double> seconds_;
};

/// The model's runtime settings from the spec (domains by `names`), its provenance (this Ramus,
/// the time, the spec's text, `mesh_path`, the hash of the inputs' bytes, `options_json`); then
/// its interfaces, energy and accuracy checked under `forces` (on rank 0 of `processes` alone;
/// `reference`: the accuracy check's full side when already computed).
void finish_model(ReducedModel& model, const ModelSpec& spec, const std::vector<std::string>& names,
                  const std::string& mesh_path, const std::string& input_bytes,
                  const std::string& options_json, const std::vector<PointForce>& forces,
                  const PrecomputeListener& listener, const ProcessGroup* processes,
                  const FullSpaceReference* reference = nullptr);

/// The most times set_default_damping doubles β (64 times the rule's at most).
inline constexpr int kMaxDampingDoublings = 6;

/// The damping of a spec without rayleigh_stiffness: β = 2 kDefaultDampingRatio / ω₁
/// (damping_reference_omega) on every domain no per_domain sets, for a tree doubled while the
/// spec's scenario gains over 1 % of its elastic energy (at most kMaxDampingDoublings), with a
/// note saying so.
void set_default_damping(ReducedModel& model, const ModelSpec& spec,
                         const std::vector<std::string>& names,
                         const std::vector<PointForce>& forces, const PrecomputeListener& listener);

/// An assembly spec's model (precompute_model's assembly half, precompute_assembly.cpp).
ReducedModel precompute_assembly(const ModelSpec& spec, const PrecomputeListener& listener,
                                 ProcessGroup* processes);

/// Seconds since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace ramus
