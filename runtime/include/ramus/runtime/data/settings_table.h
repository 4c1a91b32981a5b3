// The settings list (settings_list.h) as a table to walk at run time: each setting's names,
// bounds and doc, its value read and written by name, parsed from text, checked and printed. The
// spec parser, the CLI, `ramus inspect`, the C API, find_settings_problem and the docs' tables
// all go through it, so a setting is checked one way and named one way everywhere.
#pragma once

#include <array>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "ramus/runtime/data/runtime_settings.h"

namespace ramus {

/// Which struct holds a setting: RuntimeSettings, its wind, one DomainSettings per domain,
/// ScenarioSettings, or ClothSettings and FullSpaceSettings (full space only: not in model files,
/// not in the C API).
enum class SettingScope { kObject, kWind, kDomain, kScenario, kCloth, kFullSpace };
/// A setting's value type.
enum class SettingType { kReal, kInteger, kVector3, kIntegrator, kLumping };

/// Allowed values: lo .. hi with open or closed ends (a vector: its norm; an enumeration: its
/// names). hi = infinity: no upper bound (values must still be finite).
struct SettingBounds {
  double lo = 0, hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;
  bool named = false;  ///< an enumeration: any of its names
};
constexpr SettingBounds positive() {
  return {0, std::numeric_limits<double>::infinity(), true};
}
constexpr SettingBounds at_least(double lo) {
  return {lo};
}
constexpr SettingBounds closed(double lo, double hi) {
  return {lo, hi};
}
constexpr SettingBounds open_closed(double lo, double hi) {
  return {lo, hi, true};
}
constexpr SettingBounds named() {
  return {0, 0, false, false, true};
}

/// A setting's value: a vector in v[0..2], anything else in v[0] (an integer exactly, an
/// enumeration as its number: Integrator, InterfaceLumping).
struct SettingValue {
  std::array<double, 3> v{};
};

struct SettingInfo {
  /// Its name: the member ("time_step", "integrator"), "wind." + member for the wind. The file
  /// stores it under /runtime as that path, a per-domain one as domains/<member> (docs/FORMAT.md).
  const char* name;
  const char* member;
  SettingScope scope;
  SettingType type;
  SettingBounds bounds;
  const char* json_key;  ///< where a spec gives it ("simulation.time_step")
  const char* cli_flag;  ///< its command-line option ("--dt")
  const char* unit;      ///< SI unit, "" for none
  const char* doc;       ///< one line
  SettingValue default_value;
};

/// Every setting, in the list's order (object, wind, per domain, scenario, cloth).
std::span<const SettingInfo> settings_table();
/// The setting of this name (or JSON key, or CLI flag); nullptr when none has it.
const SettingInfo* find_setting(std::string_view name);
const SettingInfo* find_setting_by_json_key(std::string_view json_key);
const SettingInfo* find_setting_by_flag(std::string_view flag);

/// A setting's value in `settings` (a per-domain one: of domain `domain`, which must exist).
SettingValue setting_value(const RuntimeSettings& settings, const SettingInfo& info,
                           int domain = 0);
SettingValue setting_value(const ScenarioSettings& scenario, const SettingInfo& info);
SettingValue setting_value(const DomainSettings& domain, const SettingInfo& info);
SettingValue setting_value(const ClothSettings& cloth, const SettingInfo& info);
SettingValue setting_value(const FullSpaceSettings& full_space, const SettingInfo& info);
/// Sets it, unchecked (a per-domain one: in domain `domain`, or in every domain for domain < 0).
void set_setting(RuntimeSettings& settings, const SettingInfo& info, const SettingValue& value,
                 int domain = -1);
void set_setting(ScenarioSettings& scenario, const SettingInfo& info, const SettingValue& value);
void set_setting(DomainSettings& domain, const SettingInfo& info, const SettingValue& value);
void set_setting(ClothSettings& cloth, const SettingInfo& info, const SettingValue& value);
void set_setting(FullSpaceSettings& full_space, const SettingInfo& info, const SettingValue& value);
/// "" when every cloth (full-space) setting lies within its bounds, else "<name>: <what is wrong>".
std::string find_cloth_problem(const ClothSettings& cloth);
std::string find_full_space_problem(const FullSpaceSettings& full_space);

/// True when `value` lies within the setting's bounds (setting_value_problem gives "");
/// allocation-free.
bool setting_value_ok(const SettingInfo& info, const SettingValue& value) noexcept;

/// "" when `value` is allowed, else what is wrong in the one message style: "must lie in (0, 1]
/// s, got 2", "must be positive, got 0", "expected one of L1, L2, L3; got 7".
std::string setting_value_problem(const SettingInfo& info, const SettingValue& value);
/// A value from text as the command line spells it ("0.01", "0,0,-9.81", "siere", "L3"); nullopt
/// and `problem` set when it is malformed (its range is checked by setting_value_problem).
std::optional<SettingValue> parse_setting_text(const SettingInfo& info, const std::string& text,
                                               std::string& problem);
/// The value as text, the inverse of parse_setting_text ("0.0166666667", "0,0,-9.81", "sbdf2").
std::string format_setting(const SettingInfo& info, const SettingValue& value);
/// The key of a setting within its spec block: the json_key's last part ("time_step", "velocity").
std::string_view json_key_in_block(const SettingInfo& info);
/// The bounds as the docs write them ("(0, 1]", "> 0", "[1, 100]", "|v| <= 1000", a name).
std::string bounds_text(const SettingInfo& info);

/// The step's own check of the list's bounds (object, wind and every domain's), with nothing
/// allocated and no message: false when a setting is out of bounds or domains has not num_domains.
bool settings_within_bounds(const RuntimeSettings& settings, int num_domains) noexcept;

/// The settings table of docs/SPEC.md ("Settings"), Markdown, as the list makes it.
std::string settings_markdown_table();
/// The /runtime fields table of docs/FORMAT.md, Markdown, as the list makes it.
std::string runtime_fields_markdown_table();

}  // namespace ramus
