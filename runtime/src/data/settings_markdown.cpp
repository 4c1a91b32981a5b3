// The docs' tables of the one settings list (docs/SPEC.md "Settings", docs/FORMAT.md's runtime
// fields), made from it: `ramus settings --markdown` / `--format-table` print them, and a test
// checks the docs hold them as made.
#include <string>

#include "ramus/runtime/data/settings_table.h"

namespace ramus {

namespace {

// Text as a Markdown table cell: its pipes escaped.
std::string cell(const std::string& text) {
  std::string escaped;
  for (char c : text) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
  return escaped;
}

}  // namespace

std::string settings_markdown_table() {
  const std::pair<SettingScope, const char*> sections[] = {
      {SettingScope::kObject, "Whole object (`RuntimeSettings`)"},
      {SettingScope::kWind, "Wind (`RuntimeSettings::wind`, docs/WIND.md)"},
      {SettingScope::kDomain,
       "Per domain (`DomainSettings`; also `domains.per_domain.<name>.<key>` for one domain)"},
      {SettingScope::kScenario, "Scenario of a run (`ScenarioSettings`)"},
      {SettingScope::kCloth,
       "Mass-spring cloth (`ClothSettings`; `ramus simulate-full`, \"model\": \"mass_spring\", "
       "docs/CLOTH.md)"},
      {SettingScope::kFullSpace,
       "Full-space solvers (`FullSpaceSettings`; `ramus simulate-full`, docs/LOCAL_GLOBAL.md)"}};
  std::string text;
  for (const auto& [scope, title] : sections) {
    text += "\n" + std::string(title) + ":\n\n";
    text += "| setting | spec key | CLI flag | default | allowed | unit | meaning |\n";
    text += "|---|---|---|---|---|---|---|\n";
    for (const SettingInfo& info : settings_table()) {
      if (info.scope != scope) continue;
      text += "| `" + std::string(info.name) + "` | `" + info.json_key + "` | `" + info.cli_flag +
              "` | " + format_setting(info, info.default_value) + " | " + cell(bounds_text(info)) +
              " | " + info.unit + " | " + cell(info.doc) + " |\n";
    }
  }
  return text;
}

std::string runtime_fields_markdown_table() {
  std::string text =
      "\n| path under `/runtime` | kind | type | shape | unit | allowed | meaning |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const SettingInfo& info : settings_table()) {
    // (full space only: not in model files)
    if (info.scope == SettingScope::kCloth || info.scope == SettingScope::kFullSpace) continue;
    const bool domain = info.scope == SettingScope::kDomain;
    const char* group = info.scope == SettingScope::kWind       ? "wind/"
                        : info.scope == SettingScope::kScenario ? "scenario/"
                                                                : "";
    const std::string path = (domain ? "domains/" : group) + std::string(info.member);
    std::string kind = domain || info.type == SettingType::kVector3 ? "dataset" : "attribute";
    std::string type = "float64";
    if (info.type == SettingType::kInteger || info.type == SettingType::kIntegrator) type = "int32";
    if (info.type == SettingType::kIntegrator) type += " (Integrator's number)";
    if (info.type == SettingType::kLumping) type = "string \"L1\", \"L2\" or \"L3\"";
    const std::string shape =
        domain ? "(num_domains)" : (info.type == SettingType::kVector3 ? "(3)" : "scalar");
    text += "| `" + path + "` | " + kind + " | " + type + " | " + shape + " | " + info.unit +
            " | " + cell(bounds_text(info)) + " | " + cell(info.doc) + " |\n";
  }
  // The scenario's point forces (not settings: a run's data, resolved at precompute).
  text +=
      "| `scenario/force_vertices` | dataset | int32 | (F) | | [0, num_global_vertices) | the "
      "global vertex each point force pushes |\n"
      "| `scenario/forces` | dataset | float64 | (F, 3) | N | finite | each force, world axes "
      "|\n"
      "| `scenario/force_windows` | dataset | float64 | (F, 2) | s | start <= end | each force "
      "acts from its start to its end |\n"
      "| `scenario/colliders/shape` | dataset, optional group | int32 | (C) | | 0 to 6 | each "
      "kinematic collider's shape: half-space, sphere, capsule, rounded box, cylinder, bowl, grid "
      "|\n"
      "| `scenario/colliders/size` | dataset | float64 | (C, 4) | m | by shape | its sizes |\n"
      "| `scenario/colliders/rotation` | dataset | float64 | (C, 9) | | orthonormal | its "
      "rotation at t = 0, rows |\n"
      "| `scenario/colliders/position` | dataset | float64 | (C, 3) | m | finite | its origin at "
      "t = 0 |\n"
      "| `scenario/colliders/velocity` | dataset | float64 | (C, 3) | m/s | finite | its "
      "constant velocity |\n"
      "| `scenario/colliders/angular_velocity` | dataset | float64 | (C, 3) | rad/s | finite | "
      "its constant angular velocity about its origin (world) |\n"
      "| `scenario/colliders/friction` | dataset | float64 | (C) | | >= 0 | Coulomb's mu |\n"
      "| `scenario/colliders/grid_origin` | dataset, optional (with any grid) | float64 | (C, 3) | "
      "m | finite | a grid's first sample, the collider's frame (zeros for an analytic shape) |\n"
      "| `scenario/colliders/grid_spacing` | dataset | float64 | (C) | m | > 0 for a grid | its "
      "spacing |\n"
      "| `scenario/colliders/grid_samples` | dataset | int32 | (C, 3) | | 2 to 4096 for a grid | "
      "its samples along x, y, z |\n"
      "| `scenario/colliders/grid_values` | dataset | float32 | (sum of the grids' samples) | m | "
      "finite | every grid's signed distances (negative inside, x fastest), in collider order |\n";
  return text;
}

}  // namespace ramus
