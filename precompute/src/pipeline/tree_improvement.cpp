#include "tree_improvement.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>

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

// The reductions of a changed tree: the spec's rules, its per_domain for the names still there,
// then the rounds' own r by name.
std::vector<ReductionSpec> tree_reductions(const ModelSpec& spec, const DomainTree& tree,
                                           const std::map<std::string, int>& r_by_name) {
  std::optional<DomainsSpec> domains(std::in_place);
  domains->partition = spec.domains->partition;
  // (r̂ within what the tree's domains can hold: a merge may leave fewer than it was spread over)
  const int count = tree.num_domains;
  domains->total_r = spec.domains->total_r > 0
                         ? std::clamp(spec.domains->total_r, spec.domains->min_r * count,
                                      std::max(spec.domains->min_r, spec.domains->max_r) * count)
                         : 0;
  domains->distribution = spec.domains->distribution;
  domains->min_r = spec.domains->min_r;
  domains->max_r = spec.domains->max_r;
  for (const auto& [name, overrides] : spec.domains->per_domain)
    if (std::find(tree.names.begin(), tree.names.end(), name) != tree.names.end())
      domains->per_domain.emplace(name, overrides);
  for (const auto& [name, r] : r_by_name)
    if (std::find(tree.names.begin(), tree.names.end(), name) != tree.names.end())
      domains->per_domain[name].r = r;
  std::vector<ReductionSpec> reductions =
      domain_reductions(spec.reduction, domains, tree, spec.spec_path, "domains");
  // The spec's total r̂ kept: what a moved cut left over goes to (or comes from) the largest
  // domain whose r no one set.
  if (domains->total_r <= 0) return reductions;
  int total = 0, largest = -1;
  for (std::size_t d = 0; d < reductions.size(); ++d) {
    total += reductions[d].r;
    const auto set = domains->per_domain.find(tree.names[d]);
    if ((set == domains->per_domain.end() || !set->second.r) &&
        (largest < 0 || reductions[d].r > reductions[static_cast<std::size_t>(largest)].r))
      largest = static_cast<int>(d);
  }
  if (largest < 0 || total == domains->total_r) return reductions;
  const int r =
      std::clamp(reductions[static_cast<std::size_t>(largest)].r + domains->total_r - total,
                 domains->min_r, domains->max_r);
  reductions[static_cast<std::size_t>(largest)] = scaled_reduction(spec.reduction, r);
  return reductions;
}

// More modes for `domain` (a quarter more, at least 2, within max_r), taken from the domain
// whose basis the field needs least when the spec spreads a total r̂; false when it cannot
// grow (at max_r, or its r is the spec's per_domain). `text` says what was moved.
bool plan_more_modes(const ReducedTree& current, int domain, const std::vector<double>& need,
                     const ModelSpec& spec, std::map<std::string, int>& r_by_name,
                     std::string& text) {
  const DomainsSpec& domains = *spec.domains;
  const auto user_set = [&](int d) {
    const auto it = domains.per_domain.find(current.tree.names[static_cast<std::size_t>(d)]);
    return it != domains.per_domain.end() && it->second.r.has_value();
  };
  const int r = current.reductions[static_cast<std::size_t>(domain)].r;
  const int grown = std::min({r + std::max(2, r / 4), domains.max_r, 300});
  if (user_set(domain) || grown <= r) return false;
  const int delta = grown - r;
  const std::string& name = current.tree.names[static_cast<std::size_t>(domain)];
  r_by_name[name] = grown;
  text = printf_text("gets %d more modes (r = %d)", delta, grown);
  if (domains.total_r <= 0) return true;
  // The donor: the least needy domain that keeps min_r.
  int donor = -1;
  for (int d = 0; d < current.tree.num_domains; ++d) {
    const int rd = current.reductions[static_cast<std::size_t>(d)].r;
    if (d == domain || user_set(d) || rd - delta < domains.min_r) continue;
    if (donor < 0 || need[static_cast<std::size_t>(d)] < need[static_cast<std::size_t>(donor)])
      donor = d;
  }
  if (donor < 0) return true;
  const int donor_r = current.reductions[static_cast<std::size_t>(donor)].r - delta;
  r_by_name[current.tree.names[static_cast<std::size_t>(donor)]] = donor_r;
  text += printf_text(", taken from '%s' (r = %d)",
                      current.tree.names[static_cast<std::size_t>(donor)].c_str(), donor_r);
  return true;
}

// Half as many more linear modes and basis vectors (at most 300; within r1 without
// derivatives).
ReductionSpec more_modes_of(const ReductionSpec& reduction) {
  ReductionSpec more = reduction;
  more.linear_modes = std::min(300, reduction.linear_modes + (reduction.linear_modes + 1) / 2);
  more.r = std::min(300, reduction.r + (reduction.r + 1) / 2);
  if (!more.modal_derivatives) more.r = std::min(more.r, more.linear_modes);
  return more;
}

std::string errors_text(const StaticModalCheck& c) {
  Eigen::Index which = 0;
  return printf_text("static %.3g %%, worst frequency %.3g %%",
                     100 * c.static_deflection.relative_error,
                     100 * worst_frequency_error(c, which));
}

// A round's change: the next tree and its reductions, the rounds' r by name after it, and what
// to print; stop: no change left to try.
struct RoundPlan {
  DomainTree tree;
  std::vector<ReductionSpec> reductions;
  std::map<std::string, int> r_by_name;
  std::string text;
  bool stop = false;
};

// One domain with the default modes: half as many more.
RoundPlan plan_more_default_modes(const ReducedTree& current) {
  RoundPlan plan;
  const ReductionSpec& was = current.reductions.front();
  plan.tree = current.tree;
  plan.reductions = {more_modes_of(was)};
  plan.stop = plan.reductions.front().r == was.r;
  plan.text = printf_text("%d linear modes -> r = %d", plan.reductions.front().linear_modes,
                          plan.reductions.front().r);
  return plan;
}

// A tree: the worst error's field, the interface it bends most and the basis it fits worst; more
// modes where the basis falls shorter than the worst cut bends, else that cut moved outward.
RoundPlan plan_tree_round(const ReducedTree& current, const StaticModalCheck& checked,
                          const FullSpaceReference& reference, const ModelSpec& spec,
                          const TetMesh& mesh, const std::vector<int>& fixed,
                          const std::map<std::string, int>& r_by_name) {
  RoundPlan plan;
  plan.stop = current.tree.num_domains < 2;
  if (plan.stop) return plan;
  std::string field_name;
  const Eigen::MatrixX3d field = worst_field(checked, reference, spec.check, field_name);
  const std::vector<double> bent = interface_rigidity_errors(mesh, current.tree, field);
  const std::vector<double> unfit = basis_residual_errors(mesh, current.tree, current.model, field);
  const auto worst_of = [](const std::vector<double>& errors) {
    return static_cast<int>(std::max_element(errors.begin(), errors.end()) - errors.begin());
  };
  const int worst_cut = worst_of(bent), worst_basis = worst_of(unfit);
  const double cut_error = bent[static_cast<std::size_t>(worst_cut)];
  const double basis_error = unfit[static_cast<std::size_t>(worst_basis)];
  plan.stop = !(std::max(cut_error, basis_error) > 0);
  if (plan.stop) return plan;
  plan.r_by_name = r_by_name;
  std::string modes_text;
  if (basis_error > cut_error &&
      plan_more_modes(current, worst_basis, unfit, spec, plan.r_by_name, modes_text)) {
    plan.tree = current.tree;
    plan.text = printf_text("'%s' (its basis leaves %.3g %% of %s) %s",
                            current.tree.names[static_cast<std::size_t>(worst_basis)].c_str(),
                            100 * basis_error, field_name.c_str(), modes_text.c_str());
  } else {
    const std::string& name = current.tree.names[static_cast<std::size_t>(worst_cut)];
    const auto tets = current.tree.domain_tets[static_cast<std::size_t>(worst_cut)].size();
    CutMove move;
    plan.tree = move_cut_outward(mesh, current.tree, fixed, worst_cut, kMovedFraction,
                                 spec.domains->automatic.min_domain_tets, &move);
    plan.text = printf_text("'%s' (its interface %.3g %% from rigid in %s) ", name.c_str(),
                            100 * cut_error, field_name.c_str()) +
                (move.merged ? printf_text("merged into '%s'", move.parent.c_str())
                             : printf_text("handed %d of its %zu tets to '%s'", move.moved_tets,
                                           tets, move.parent.c_str()));
  }
  plan.reductions = tree_reductions(spec, plan.tree, plan.r_by_name);
  return plan;
}

}  // namespace

std::shared_ptr<const FullSpaceReference> improve_tree(ReducedTree& current, const ModelSpec& spec,
                                                       const TetMesh& mesh,
                                                       const std::vector<int>& fixed,
                                                       const TreeReducer& reduce,
                                                       const PrecomputeListener& listener) {
  const CheckSpec& check = spec.check;
  // An automatic tree, or one domain with the default modes (the spec's own are kept).
  const bool automatic = spec.domains &&
                         spec.domains->partition == DomainsSpec::Partition::kAutomatic &&
                         current.tree.num_domains > 1;
  const bool default_modes = !spec.domains && !spec.reduction_given;
  if (!check.enabled || check.improve_rounds <= 0 || !(automatic || default_modes)) return nullptr;
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
  listener.report(
      printf_text("improve      the %s is past the check's tolerances (%s): %s, at "
                  "most %d rounds (check.improve_rounds)",
                  automatic ? "tree" : "model", errors_text(checked).c_str(),
                  automatic ? "moving cuts" : "more modes", check.improve_rounds));
  ReducedTree best = current;
  StaticModalCheck best_check = checked;
  double best_score = score;
  int best_round = 0, last_round = 0;
  std::map<std::string, int> r_by_name;  // the rounds' r by domain name
  for (int round = 1; round <= check.improve_rounds; ++round) {
    const auto start = std::chrono::steady_clock::now();
    // The round's change, the tree reduced and checked again (a failure ends the rounds).
    RoundPlan plan;
    ReducedTree next;
    StaticModalCheck next_check;
    try {
      plan = automatic ? plan_tree_round(current, checked, *reference, spec, mesh, fixed, r_by_name)
                       : plan_more_default_modes(current);
      if (plan.stop) break;
      next.tree = std::move(plan.tree);
      next.reductions = std::move(plan.reductions);
      next.model = reduce(next.tree, next.reductions);
      set_spec_settings(next.model, spec);
      next_check = run_check(next.model, *reference, spec, nullptr);
    } catch (const Error& e) {
      listener.note(printf_text("improve: round %d stopped the rounds: %s", round, e.what()));
      break;
    }
    listener.report(printf_text(
        "improve      round %d: %s: %s -> %s (%.2f s)", round, plan.text.c_str(),
        errors_text(checked).c_str(), errors_text(next_check).c_str(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()));
    // The best kept.
    last_round = round;
    current = std::move(next);
    r_by_name = std::move(plan.r_by_name);
    checked = next_check;
    score = check_score(checked, check);
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
  const char* what = automatic ? "tree" : "model";
  listener.report(printf_text(
      "improve      %s: %s, %s",
      best_round == 0 ? printf_text("no round improved the %s; the first kept", what).c_str()
                      : printf_text("round %d's %s kept", best_round, what).c_str(),
      errors_text(best_check).c_str(),
      current.tree.num_domains > 1 ? printf_text("%d domains", current.tree.num_domains).c_str()
                                   : printf_text("r = %d", current.reductions.front().r).c_str()));
  return reference;
}

}  // namespace ramus
