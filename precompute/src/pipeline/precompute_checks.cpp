#include "precompute_checks.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "printf_text.h"
#include "ramus/error.h"
#include "ramus/precompute/reduction/static_modal_check.h"
#include "ramus/precompute/reduction/world_energy.h"
#include "ramus/runtime/analysis/interface_diagnostics.h"

namespace ramus {

// The interfaces against the rigid-interface assumption (issue 12): a summary line, and warnings
// (the first 10; `ramus inspect` lists every interface) for soft or large ones and deep chains.
void report_interfaces(const ReducedModel& model, const PrecomputeListener& listener,
                       bool checked_within) {
  const std::vector<InterfaceDiagnostics> interfaces = interface_diagnostics(model);
  if (interfaces.empty()) return;
  const auto worst = [&](auto measure) {
    return *std::max_element(interfaces.begin(), interfaces.end(),
                             [&](const auto& a, const auto& b) { return measure(a) < measure(b); });
  };
  const auto name = [&](int k) { return model.domains[static_cast<std::size_t>(k)].name.c_str(); };
  const InterfaceDiagnostics soft = worst([](const auto& d) { return d.nonrigidity; });
  const InterfaceDiagnostics large = worst([](const auto& d) { return d.relative_area; });
  const InterfaceDiagnostics deep = worst([](const auto& d) { return d.depth; });
  listener.report(printf_text(
      "interfaces   %zu: non-rigidity at most %.2f %% ('%s' on '%s'), area at most %.1f %% of "
      "a domain's surface ('%s'), depth %d",
      interfaces.size(), 100 * soft.nonrigidity, name(soft.domain), name(soft.parent),
      100 * large.relative_area, name(large.domain), deep.depth));
  // Warnings, or notes where the full FEM's check measured the tree within its tolerances.
  const std::vector<std::string> warnings = interface_warnings(model, interfaces);
  const auto say = [&](const std::string& text) {
    if (checked_within)
      listener.note(text + " (a hint: the check against the full FEM is within its tolerances)");
    else
      listener.warning(text);
  };
  for (std::size_t k = 0; k < std::min<std::size_t>(10, warnings.size()); ++k) say(warnings[k]);
  if (warnings.size() > 10)
    say(printf_text("... and %zu more (ramus inspect lists every interface)",
                    warnings.size() - 10));
}

namespace {

// Steps of the scenario run: 1 s, at most 100.
int scenario_steps(const RuntimeSettings& settings) {
  return std::clamp(static_cast<int>(std::lround(1.0 / settings.time_step)), 1, 100);
}

// The scenario run from rest with the model's settings, every step measured (a transient gain
// lasts a few steps); throws Error when it cannot run.
EnergyAudit scenario_audit(const ReducedModel& model, const std::vector<PointForce>& forces) {
  return audit_energy(std::make_shared<const ReducedModel>(model), model.settings,
                      scenario_steps(model.settings), forces, 1);
}

bool has_load(const ReducedModel& model, const std::vector<PointForce>& forces) {
  return model.settings.gravity.norm() != 0.0 || !forces.empty();
}

}  // namespace

double scenario_energy_gain(const ReducedModel& model, const std::vector<PointForce>& forces) {
  if (!has_load(model, forces)) return 0.0;
  try {
    const EnergyAudit audit = scenario_audit(model, forces);
    if (!audit.ok) return INFINITY;
    return audit.max_elastic > 0 ? audit.max_gain / audit.max_elastic : 0.0;
  } catch (const Error&) {
    return 0.0;  // (report_energy says why)
  }
}

// The energy check before any run (issue 12): the model dropped under the spec's gravity for
// 1 s (at most 100 steps) with the spec's settings, its energy H = T + V_elastic + V_gravity
// measured every step (world_energy.h); a warning when it gains more than 1 % of its largest
// elastic energy or diverges. Never fails the precompute.
void report_energy(const ReducedModel& model, const std::vector<PointForce>& forces,
                   const PrecomputeListener& listener) {
  const RuntimeSettings& settings = model.settings;
  if (!has_load(model, forces)) return;
  const double seconds = scenario_steps(settings) * settings.time_step;
  EnergyAudit audit;
  try {
    audit = scenario_audit(model, forces);
  } catch (const Error& e) {
    listener.note(std::string("the energy check could not run: ") + e.what());
    return;
  }
  const std::string scenario = forces.empty()                ? "gravity"
                               : settings.gravity.norm() > 0 ? "gravity and forces"
                                                             : "forces";
  const bool tree = model.domains.size() > 1;
  double beta = 1e300;  // the most lightly damped domain's
  for (const DomainSettings& domain : settings.domains)
    beta = std::min(beta, domain.rayleigh_stiffness);
  if (settings.domains.empty()) beta = 0;
  char more_damping[96];
  std::snprintf(more_damping, sizeof(more_damping), "%.3g",
                std::max(kTreeStiffnessDamping, 2 * beta));
  const std::string cure =
      tree ? std::string(
                 "children are driven by their parents' motion without reacting on "
                 "them (the lumping of Eq. 16), which pumps energy into lightly damped "
                 "domains; set \"rayleigh_stiffness\": ") +
                 more_damping +
                 " (s) in the spec's simulation block or its domains' per_domain, or use a "
                 "larger time step (docs/VALIDATION.md, \"Energy\"); `ramus audit` checks a "
                 "longer run"
           : "use a dissipative integrator (sbdf2, be), a smaller time step or some Rayleigh "
             "damping; `ramus audit` checks a longer run";
  if (!audit.ok) {
    listener.warning(printf_text(
        "the spec's scenario (%s, its settings) run from rest diverges within %.3g s: %s",
        scenario.c_str(), seconds, cure.c_str()));
    return;
  }
  const double share = audit.max_elastic > 0 ? audit.max_gain / audit.max_elastic : 0.0;
  listener.report(printf_text(
      "energy       the spec's scenario (%s, its settings) run from rest for %.3g s: gains "
      "%.3g %% of its largest elastic energy (%.3g J)",
      scenario.c_str(), seconds, 100 * share, audit.max_elastic));
  if (share > 0.01)
    listener.warning(printf_text(
        "the spec's scenario (%s, its settings) run from rest for %.3g s gains %.3g J (%.3g %% "
        "of its largest elastic energy) beyond the work of the forces: %s",
        scenario.c_str(), seconds, audit.max_gain, 100 * share, cure.c_str()));
}

// The worst of a check's frequency errors (relative; infinite where a period was not seen) and
// which frequency it is (0-based).
double worst_frequency_error(const StaticModalCheck& c, Eigen::Index& which) {
  double worst = 0;
  which = 0;
  for (Eigen::Index j = 0; j < c.full_hz.size(); ++j) {
    const double error = std::abs(c.reduced_hz(j) / c.full_hz(j) - 1);
    if (!(error <= worst)) {
      worst = std::isfinite(error) ? error : INFINITY;
      which = j;
    }
  }
  return worst;
}

double check_score(const StaticModalCheck& c, const CheckSpec& spec) {
  Eigen::Index which = 0;
  return std::max(c.static_deflection.relative_error / spec.static_tolerance,
                  worst_frequency_error(c, which) / spec.frequency_tolerance);
}

namespace {

const char* lumping_name(InterfaceLumping lumping) {
  return lumping == InterfaceLumping::kInterface      ? "L1"
         : lumping == InterfaceLumping::kCenterOfMass ? "L2"
                                                      : "L3";
}

// A tree whose spec sets no lumping: each lumping checked against the one full reference, the
// best (the smallest check_score) kept in the model's settings and its check returned.
StaticModalCheck choose_lumping(ReducedModel& model, const FullSpaceReference& reference,
                                const StaticModalOptions& options, const CheckSpec& spec,
                                const PrecomputeListener* listener) {
  StaticModalCheck best;
  double best_score = INFINITY;
  InterfaceLumping chosen = model.settings.lumping;
  std::string line;
  for (const InterfaceLumping lumping :
       {InterfaceLumping::kInterface, InterfaceLumping::kCenterOfMass,
        InterfaceLumping::kRigidSubtree}) {
    StaticModalOptions with = options;
    with.settings.lumping = lumping;
    const StaticModalCheck c = check_against_reference(model, reference, with);
    Eigen::Index which = 0;
    const double worst = worst_frequency_error(c, which);
    line += printf_text("%s%s %.3g %% / %.3g %%", line.empty() ? "" : ", ", lumping_name(lumping),
                        100 * c.static_deflection.relative_error, 100 * worst);
    // (Ties keep the earlier, cheaper lumping.)
    if (const double score = check_score(c, spec); score < best_score) {
      best_score = score;
      best = c;
      chosen = lumping;
    }
  }
  if (listener != nullptr)
    listener->report(
        printf_text("check        lumping (static / worst frequency error): %s: %s "
                    "chosen (the spec sets none)",
                    line.c_str(), lumping_name(chosen)));
  model.settings.lumping = chosen;
  return best;
}

}  // namespace

bool within_tolerances(const ModelAccuracy& accuracy, const CheckSpec& check) {
  if (!accuracy.measured || !(accuracy.static_error <= check.static_tolerance)) return false;
  for (Eigen::Index j = 0; j < accuracy.full_frequencies.size(); ++j)
    if (!(std::abs(accuracy.reduced_frequencies(j) / accuracy.full_frequencies(j) - 1) <=
          check.frequency_tolerance))
      return false;
  return true;
}

StaticModalOptions check_options(const ReducedModel& model, const CheckSpec& check) {
  StaticModalOptions options;
  options.settings = model.settings;
  options.num_frequencies = check.frequencies;
  return options;
}

StaticModalCheck run_check(ReducedModel& model, const FullSpaceReference& reference,
                           const ModelSpec& spec, const PrecomputeListener* listener) {
  const StaticModalOptions options = check_options(model, spec.check);
  return spec.check.choose_lumping && !spec.simulation.lumping_given && model.domains.size() > 1
             ? choose_lumping(model, reference, options, spec.check, listener)
             : check_against_reference(model, reference, options);
}

// The model against the full FEM of its undivided mesh (issue 35, items 1 and 5): what it
// measures is stored in the file; a tree whose spec sets no lumping gets the best; past the
// spec's tolerances, a warning with what to try.
ModelAccuracy report_accuracy(ReducedModel& model, const ModelSpec& spec,
                              const PrecomputeListener& listener,
                              const FullSpaceReference* reference) {
  ModelAccuracy accuracy;
  const CheckSpec& check = spec.check;
  if (!check.enabled) return accuracy;
  StaticModalCheck c;
  try {
    FullSpaceReference computed;
    if (reference == nullptr) {
      computed = full_space_reference(model, check_options(model, check));
      reference = &computed;
    }
    if (!reference->anchored) {
      listener.note("the check against the full FEM skips a free body (no static deflection)");
      return accuracy;
    }
    c = run_check(model, *reference, spec, &listener);
  } catch (const Error& e) {
    listener.note(std::string("the check against the full FEM could not run: ") + e.what());
    return accuracy;
  }
  // The static deflection.
  const StaticCheck& s = c.static_deflection;
  accuracy.measured = true;
  accuracy.gravity = s.gravity;
  accuracy.static_full_max = s.full_max_displacement;
  accuracy.static_reduced_max = s.reduced_max_displacement;
  accuracy.static_error = s.relative_error;
  listener.report(printf_text(
      "check        static deflection under %s: full FEM %.4g m, reduced %.4g m, error "
      "%.3g %% of the full%s (%.2f s and %.2f s)",
      s.load_scale == 1
          ? "gravity"
          : printf_text("%g of gravity (the full FEM's Newton finds no equilibrium under more)",
                        s.load_scale)
                .c_str(),
      s.full_max_displacement, s.reduced_max_displacement, 100 * s.relative_error,
      s.settled ? "" : " (the reduced model did not come to rest)", c.full_seconds,
      c.reduced_seconds));
  // The frequencies (a reduced one not measured is stored as 0).
  accuracy.full_frequencies = c.full_hz;
  accuracy.reduced_frequencies =
      c.reduced_hz.unaryExpr([](double f) { return std::isfinite(f) ? f : 0.0; });
  std::string line;
  for (Eigen::Index j = 0; j < c.full_hz.size(); ++j)
    line += printf_text("%sf%td %.4g Hz / %.4g Hz (%+.2g %%)", j ? ", " : "", j + 1, c.full_hz(j),
                        c.reduced_hz(j), 100 * (c.reduced_hz(j) / c.full_hz(j) - 1));
  if (!line.empty()) listener.report("check        frequencies full / reduced: " + line);
  // Past the tolerances: what to try.
  const bool automatic =
      spec.domains && spec.domains->partition == DomainsSpec::Partition::kAutomatic;
  const char* cure =
      model.domains.size() < 2 ? "more modes (\"r\", \"linear_modes\")"
      : automatic
          ? "more rounds of moving its cuts (\"check\": {\"improve_rounds\": ...}), more "
            "modes (\"total_r\") or fewer domains; `ramus compare` shows where"
          : "more modes (\"total_r\" or \"r\") or fewer domains; `ramus compare` shows where";
  if (s.relative_error > check.static_tolerance)
    listener.warning(printf_text(
        "the reduced model's static deflection is %.3g %% off the full FEM's (the spec's "
        "check.static_tolerance: %.3g %%): try %s",
        100 * s.relative_error, 100 * check.static_tolerance, cure));
  Eigen::Index which = 0;
  if (const double worst = worst_frequency_error(c, which); worst > check.frequency_tolerance)
    listener.warning(
        printf_text("the reduced model's f%td is %.3g %% off the full FEM's (the spec's "
                    "check.frequency_tolerance: %.3g %%): try %s",
                    which + 1, 100 * worst, 100 * check.frequency_tolerance, cure));
  return accuracy;
}

}  // namespace ramus
