#include "tree_improvement.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "precompute_checks.h"
#include "printf_text.h"
#include "ramus/error.h"
#include "ramus/precompute/pipeline/spec_mesh.h"
#include "ramus/precompute/substructuring/cut_adjustment.h"

namespace ramus {

namespace {

// Half the domain beyond the worst interface moves to its parent each round.
constexpr double kMovedFraction = 0.5;

std::vector<std::string> domain_names(const ReducedModel& model) {
  std::vector<std::string> names;
  for (const ReducedDomain& domain : model.domains) names.push_back(domain.name);
  return names;
}

// The model's settings as finish_model will set them (the check steps the runtime).
void set_spec_settings(ReducedModel& model, const ModelSpec& spec) {
  model.settings = spec_runtime_settings(spec, domain_names(model));
}

// The full-space field behind the check's larger error (over its tolerance): the static
// deflection, or the mode of the worst frequency (#V by 3).
Eigen::MatrixX3d worst_field(const StaticModalCheck& c, const FullSpaceReference& reference,
                             const CheckSpec& check, std::string& what) {
  Eigen::Index which = 0;
  const double frequency = worst_frequency_error(c, which) / check.frequency_tolerance;
  if (c.static_deflection.relative_error / check.static_tolerance >= frequency ||
      which >= reference.modes.cols()) {
    what = "the static deflection";
    return reference.static_displacement;
  }
  what = printf_text("mode %td", which + 1);
  const Eigen::Index V = reference.modes.rows() / 3;
  return reference.modes.col(which).reshaped(3, V).transpose();
}

// The reductions of a changed tree: the spec's rules, its per_domain for the names still there.
std::vector<ReductionSpec> tree_reductions(const ModelSpec& spec, const DomainTree& tree) {
  std::optional<DomainsSpec> domains(std::in_place);
  domains->partition = spec.domains->partition;
  domains->total_r = spec.domains->total_r;
  domains->distribution = spec.domains->distribution;
  domains->min_r = spec.domains->min_r;
  domains->max_r = spec.domains->max_r;
  for (const auto& [name, overrides] : spec.domains->per_domain)
    if (std::find(tree.names.begin(), tree.names.end(), name) != tree.names.end())
      domains->per_domain.emplace(name, overrides);
  return domain_reductions(spec.reduction, domains, tree, spec.spec_path, "domains");
}

std::string errors_text(const StaticModalCheck& c) {
  Eigen::Index which = 0;
  return printf_text("static %.3g %%, worst frequency %.3g %%",
                     100 * c.static_deflection.relative_error,
                     100 * worst_frequency_error(c, which));
}

}  // namespace

std::shared_ptr<const FullSpaceReference> improve_tree(ReducedTree& current, const ModelSpec& spec,
                                                       const TetMesh& mesh,
                                                       const std::vector<int>& fixed,
                                                       const TreeReducer& reduce,
                                                       const PrecomputeListener& listener) {
  const CheckSpec& check = spec.check;
  if (!check.enabled || check.improve_rounds <= 0 || current.tree.num_domains < 2 ||
      !spec.domains || spec.domains->partition != DomainsSpec::Partition::kAutomatic)
    return nullptr;
  // The full side, once.
  std::shared_ptr<FullSpaceReference> reference;
  try {
    set_spec_settings(current.model, spec);
    reference = std::make_shared<FullSpaceReference>(
        full_space_reference(current.model, check_options(current.model, check)));
  } catch (const Error&) {
    return nullptr;  // (report_accuracy tries again and says why)
  }
  if (!reference->anchored || reference->static_displacement.rows() != mesh.num_vertices())
    return reference;
  // Rounds: check, stop within the tolerances, else move the worst cut and reduce again.
  StaticModalCheck checked = run_check(current.model, *reference, spec, nullptr);
  double score = check_score(checked, check);
  if (!(score > 1)) return reference;
  listener.report(printf_text(
      "improve      the tree is past the check's tolerances (%s): moving cuts, at most %d "
      "rounds (check.improve_rounds)",
      errors_text(checked).c_str(), check.improve_rounds));
  ReducedTree best = current;
  StaticModalCheck best_check = checked;
  double best_score = score;
  int best_round = 0, last_round = 0;
  for (int round = 1; round <= check.improve_rounds && current.tree.num_domains > 1; ++round) {
    const auto start = std::chrono::steady_clock::now();
    // The interface the worst error's field bends most.
    std::string field_name;
    const std::vector<double> errors = interface_rigidity_errors(
        mesh, current.tree, worst_field(checked, *reference, check, field_name));
    const int worst =
        static_cast<int>(std::max_element(errors.begin(), errors.end()) - errors.begin());
    if (!(errors[static_cast<std::size_t>(worst)] > 0)) break;
    const std::string name = current.tree.names[static_cast<std::size_t>(worst)];
    const int tets =
        static_cast<int>(current.tree.domain_tets[static_cast<std::size_t>(worst)].size());
    // Its cut moved outward, the tree reduced and checked again (a failure ends the rounds).
    ReducedTree next;
    CutMove move;
    StaticModalCheck next_check;
    try {
      next.tree = move_cut_outward(mesh, current.tree, fixed, worst, kMovedFraction,
                                   spec.domains->automatic.min_domain_tets, &move);
      next.reductions = tree_reductions(spec, next.tree);
      next.model = reduce(next.tree, next.reductions);
      set_spec_settings(next.model, spec);
      next_check = run_check(next.model, *reference, spec, nullptr);
    } catch (const Error& e) {
      listener.note(printf_text("improve: round %d (the cut of '%s') stopped the rounds: %s", round,
                                name.c_str(), e.what()));
      break;
    }
    last_round = round;
    current = std::move(next);
    const StaticModalCheck before = checked;
    checked = next_check;
    score = check_score(checked, check);
    listener.report(printf_text(
        "improve      round %d: '%s' (its interface %.3g %% from rigid in %s) %s '%s': %s -> "
        "%s (%.2f s)",
        round, name.c_str(), 100 * errors[static_cast<std::size_t>(worst)], field_name.c_str(),
        move.merged ? "merged into"
                    : printf_text("handed %d of its %d tets to", move.moved_tets, tets).c_str(),
        move.parent.c_str(), errors_text(before).c_str(), errors_text(checked).c_str(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
    if (score < best_score) {
      best = current;
      best_check = checked;
      best_score = score;
      best_round = round;
    }
    if (!(score > 1)) break;
  }
  // The best tree seen.
  if (best_round != last_round) current = std::move(best);
  listener.report(printf_text("improve      %s: %s, %d domains",
                              best_round == 0
                                  ? "no round improved the tree; the first kept"
                                  : printf_text("round %d's tree kept", best_round).c_str(),
                              errors_text(best_check).c_str(), current.tree.num_domains));
  return reference;
}

}  // namespace ramus
