#include "precompute_checks.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "printf_text.h"
#include "ramus/error.h"
#include "ramus/precompute/reduction/world_energy.h"
#include "ramus/runtime/analysis/interface_diagnostics.h"

namespace ramus {

// The interfaces against the rigid-interface assumption (issue 12): a summary line, and warnings
// (the first 10; `ramus inspect` lists every interface) for soft or large ones and deep chains.
void report_interfaces(const ReducedModel& model, const PrecomputeListener& listener) {
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
  const std::vector<std::string> warnings = interface_warnings(model, interfaces);
  for (std::size_t k = 0; k < std::min<std::size_t>(10, warnings.size()); ++k)
    listener.warning(warnings[k]);
  if (warnings.size() > 10)
    listener.warning(printf_text("... and %zu more (ramus inspect lists every interface)",
                                 warnings.size() - 10));
}

// The energy check before any run (issue 12): the model dropped under the spec's gravity for
// 1 s (at most 100 steps) with the spec's settings, its energy H = T + V_elastic + V_gravity
// measured every 5 steps (world_energy.h); a warning when it gains more than 1 % of its largest
// elastic energy or diverges. Never fails the precompute.
void report_energy(const ReducedModel& model, const std::vector<PointForce>& forces,
                   const PrecomputeListener& listener) {
  const RuntimeSettings& settings = model.settings;
  if (settings.gravity.norm() == 0.0 && forces.empty()) return;
  const int steps = std::clamp(static_cast<int>(std::lround(1.0 / settings.time_step)), 1, 100);
  const double seconds = steps * settings.time_step;
  // Every step is measured: a transient gain lasts a few steps.
  EnergyAudit audit;
  try {
    audit = audit_energy(std::make_shared<const ReducedModel>(model), settings, steps, forces, 1);
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

}  // namespace ramus
