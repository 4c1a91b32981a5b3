// Precompute's improvement loop for an automatic partition (issue 35, item 1): while the tree is
// past the check's tolerances, move the cut whose interface the full FEM bends most outward, or
// give modes to the domain whose basis fits the full FEM worst (cut_adjustment.h), and reduce
// again, keeping the best tree seen.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/precompute_listener.h"
#include "ramus/precompute/reduction/static_modal_check.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// A domain tree, the reduction of each domain and the model they made.
struct ReducedTree {
  DomainTree tree;
  std::vector<ReductionSpec> reductions;
  ReducedModel model;
};

/// Reduces a tree (the pipeline's reduction, quiet but for its progress).
using TreeReducer =
    std::function<ReducedModel(const DomainTree&, const std::vector<ReductionSpec>&)>;

/// The loop on `current` (an automatic partition with the spec's check on, its improve_rounds
/// > 0, else nothing is done): the full FEM's side computed once; each round checks the tree,
/// stops within the tolerances, else takes the worst error's field (the static deflection, or
/// the mode of the worst frequency): where a domain's basis leaves more of it than the worst
/// interface bends, that domain gets a quarter more modes (from the least needy domain under a
/// total r̂), else that interface's cut moves outward (half the domain beyond it to its parent);
/// then reduces again. A line per round; `current` ends as the best tree seen (the
/// smallest check_score). Returns the full side when computed (for report_accuracy), else null.
std::shared_ptr<const FullSpaceReference> improve_tree(ReducedTree& current, const ModelSpec& spec,
                                                       const TetMesh& mesh,
                                                       const std::vector<int>& fixed,
                                                       const TreeReducer& reduce,
                                                       const PrecomputeListener& listener);

}  // namespace ramus
