#include "ramus/runtime/data/settings_table.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace ramus {

namespace {

// The value type of each C++ type of the list.
template <typename T>
constexpr SettingType type_of();
template <>
constexpr SettingType type_of<double>() {
  return SettingType::kReal;
}
template <>
constexpr SettingType type_of<int>() {
  return SettingType::kInteger;
}
template <>
constexpr SettingType type_of<Eigen::Vector3d>() {
  return SettingType::kVector3;
}
template <>
constexpr SettingType type_of<Integrator>() {
  return SettingType::kIntegrator;
}
template <>
constexpr SettingType type_of<InterfaceLumping>() {
  return SettingType::kLumping;
}

// A member's value as a SettingValue and back.
SettingValue to_value(double x) {
  return {{x, 0, 0}};
}
SettingValue to_value(int x) {
  return {{static_cast<double>(x), 0, 0}};
}
SettingValue to_value(const Eigen::Vector3d& x) {
  return {{x(0), x(1), x(2)}};
}
SettingValue to_value(Integrator x) {
  return {{static_cast<double>(x), 0, 0}};
}
SettingValue to_value(InterfaceLumping x) {
  return {{static_cast<double>(x), 0, 0}};
}
void from_value(const SettingValue& v, double& x) {
  x = v.v[0];
}
void from_value(const SettingValue& v, int& x) {
  x = static_cast<int>(v.v[0]);
}
void from_value(const SettingValue& v, Eigen::Vector3d& x) {
  x = {v.v[0], v.v[1], v.v[2]};
}
void from_value(const SettingValue& v, Integrator& x) {
  x = static_cast<Integrator>(static_cast<int>(v.v[0]));
}
void from_value(const SettingValue& v, InterfaceLumping& x) {
  x = static_cast<InterfaceLumping>(static_cast<int>(v.v[0]));
}

// Whether a value lies within its bounds: the one rule, used by the step's noexcept check and by
// the messages alike.
bool within(double x, const SettingBounds& b) noexcept {
  if (!std::isfinite(x)) return false;
  const bool above = b.lo_open ? x > b.lo : x >= b.lo;
  const bool below = b.hi_open ? x < b.hi : x <= b.hi;
  return above && below;
}
bool within(int x, const SettingBounds& b) noexcept {
  return within(static_cast<double>(x), b);
}
bool within(const Eigen::Vector3d& x, const SettingBounds& b) noexcept {
  return x.allFinite() && within(x.norm(), b);
}
bool within(Integrator x, const SettingBounds&) noexcept {
  return static_cast<int>(x) >= 1 && static_cast<int>(x) <= kNumIntegrators;
}
bool within(InterfaceLumping x, const SettingBounds&) noexcept {
  return static_cast<int>(x) >= 1 && static_cast<int>(x) <= 3;
}

// The table's rows, made from the list: one row maker, named and scoped per section.
#define RAMUS_ROW(name, scope, Type, member, value, bounds, json_key, flag, unit, doc) \
  SettingInfo{name, #member, scope, type_of<Type>(),      bounds, json_key,            \
              flag, unit,    doc,   to_value(Type(value))},
#define RAMUS_OBJECT_ROW(Type, member, ...) \
  RAMUS_ROW(#member, SettingScope::kObject, Type, member, __VA_ARGS__)
#define RAMUS_WIND_ROW(Type, member, ...) \
  RAMUS_ROW("wind." #member, SettingScope::kWind, Type, member, __VA_ARGS__)
#define RAMUS_DOMAIN_ROW(Type, member, ...) \
  RAMUS_ROW(#member, SettingScope::kDomain, Type, member, __VA_ARGS__)
#define RAMUS_SCENARIO_ROW(Type, member, ...) \
  RAMUS_ROW(#member, SettingScope::kScenario, Type, member, __VA_ARGS__)
#define RAMUS_CLOTH_ROW(Type, member, ...) \
  RAMUS_ROW("cloth." #member, SettingScope::kCloth, Type, member, __VA_ARGS__)
#define RAMUS_FULL_SPACE_ROW(Type, member, ...) \
  RAMUS_ROW(#member, SettingScope::kFullSpace, Type, member, __VA_ARGS__)

const std::vector<SettingInfo>& table() {
  static const std::vector<SettingInfo> rows = {
      RAMUS_OBJECT_SETTINGS(RAMUS_OBJECT_ROW) RAMUS_WIND_SETTINGS(RAMUS_WIND_ROW)
          RAMUS_DOMAIN_SETTINGS(RAMUS_DOMAIN_ROW) RAMUS_SCENARIO_SETTINGS(RAMUS_SCENARIO_ROW)
              RAMUS_CLOTH_SETTINGS(RAMUS_CLOTH_ROW)
                  RAMUS_FULL_SPACE_SETTINGS(RAMUS_FULL_SPACE_ROW)};
  return rows;
}

// The member a row names, read or written through one visitor call: f(member&).
#define RAMUS_VISIT_FIELD(Type, field, ...) \
  if (std::string_view(info.member) == #field) return f(holder.field);
template <typename S, typename F>
void with_object_member(S& s, const SettingInfo& info, F&& f) {
  if (info.scope == SettingScope::kObject) {
    auto& holder = s;
    RAMUS_OBJECT_SETTINGS(RAMUS_VISIT_FIELD)
  } else if (info.scope == SettingScope::kWind) {
    auto& holder = s.wind;
    RAMUS_WIND_SETTINGS(RAMUS_VISIT_FIELD)
  }
}
template <typename N, typename F>
void with_domain_member(N& holder, const SettingInfo& info, F&& f) {
  RAMUS_DOMAIN_SETTINGS(RAMUS_VISIT_FIELD)
}
template <typename S, typename F>
void with_scenario_member(S& holder, const SettingInfo& info, F&& f) {
  RAMUS_SCENARIO_SETTINGS(RAMUS_VISIT_FIELD)
}
template <typename C, typename F>
void with_cloth_member(C& holder, const SettingInfo& info, F&& f) {
  RAMUS_CLOTH_SETTINGS(RAMUS_VISIT_FIELD)
}
template <typename C, typename F>
void with_full_space_member(C& holder, const SettingInfo& info,
                            F&& f){RAMUS_FULL_SPACE_SETTINGS(RAMUS_VISIT_FIELD)}
#undef RAMUS_VISIT_FIELD

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", x);
  return text;
}

// An integer setting's value or bound in full (2147483647, not 2.14748365e+09).
std::string integer(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.0f", x);
  return text;
}

std::string lumping_names() {
  return "L1, L2, L3 (or interface, center_of_mass, rigid_subtree)";
}

}  // namespace

std::span<const SettingInfo> settings_table() {
  return table();
}

const SettingInfo* find_setting(std::string_view name) {
  for (const SettingInfo& info : table())
    if (name == info.name) return &info;
  return nullptr;
}
const SettingInfo* find_setting_by_json_key(std::string_view json_key) {
  for (const SettingInfo& info : table())
    if (json_key == info.json_key) return &info;
  return nullptr;
}
const SettingInfo* find_setting_by_flag(std::string_view flag) {
  for (const SettingInfo& info : table())
    if (flag == info.cli_flag) return &info;
  return nullptr;
}

SettingValue setting_value(const RuntimeSettings& settings, const SettingInfo& info, int domain) {
  SettingValue value;
  const auto read = [&](const auto& member) { value = to_value(member); };
  if (info.scope == SettingScope::kDomain)
    with_domain_member(settings.domains.at(static_cast<std::size_t>(domain)), info, read);
  else
    with_object_member(settings, info, read);
  return value;
}
SettingValue setting_value(const ScenarioSettings& scenario, const SettingInfo& info) {
  SettingValue value;
  with_scenario_member(scenario, info, [&](const auto& member) { value = to_value(member); });
  return value;
}

// A section's value read and written through its visitor.
#define RAMUS_SECTION_ACCESS(Struct, visit)                                              \
  SettingValue setting_value(const Struct& holder, const SettingInfo& info) {            \
    SettingValue value;                                                                  \
    visit(holder, info, [&](const auto& member) { value = to_value(member); });          \
    return value;                                                                        \
  }                                                                                      \
  void set_setting(Struct& holder, const SettingInfo& info, const SettingValue& value) { \
    visit(holder, info, [&](auto& member) { from_value(value, member); });               \
  }
RAMUS_SECTION_ACCESS(DomainSettings, with_domain_member)
RAMUS_SECTION_ACCESS(ClothSettings, with_cloth_member)
RAMUS_SECTION_ACCESS(FullSpaceSettings, with_full_space_member)
#undef RAMUS_SECTION_ACCESS

std::string_view json_key_in_block(const SettingInfo& info) {
  const std::string_view key(info.json_key);
  return key.substr(key.rfind('.') + 1);
}

void set_setting(RuntimeSettings& settings, const SettingInfo& info, const SettingValue& value,
                 int domain) {
  const auto write = [&](auto& member) { from_value(value, member); };
  if (info.scope != SettingScope::kDomain) return with_object_member(settings, info, write);
  if (domain >= 0)
    return with_domain_member(settings.domains.at(static_cast<std::size_t>(domain)), info, write);
  for (DomainSettings& n : settings.domains) with_domain_member(n, info, write);
}
void set_setting(ScenarioSettings& scenario, const SettingInfo& info, const SettingValue& value) {
  with_scenario_member(scenario, info, [&](auto& member) { from_value(value, member); });
}

std::string bounds_text(const SettingInfo& info) {
  const SettingBounds& b = info.bounds;
  if (info.type == SettingType::kIntegrator) return "a name: " + integrator_names();
  if (info.type == SettingType::kLumping) return "a name: L1, L2, L3";
  const bool whole = info.type == SettingType::kInteger;
  const std::string lo = whole ? integer(b.lo) : number(b.lo);
  const std::string hi = whole && std::isfinite(b.hi) ? integer(b.hi) : number(b.hi);
  if (info.type == SettingType::kVector3) return "|v| <= " + hi;
  if (std::isinf(b.hi)) {
    if (b.lo == 0) return b.lo_open ? "> 0" : ">= 0";
    return (b.lo_open ? "> " : ">= ") + lo;
  }
  return (b.lo_open ? "(" : "[") + lo + ", " + hi + (b.hi_open ? ")" : "]");
}

bool setting_value_ok(const SettingInfo& info, const SettingValue& value) noexcept {
  const SettingBounds& b = info.bounds;
  switch (info.type) {
    case SettingType::kIntegrator: {
      Integrator x;
      from_value(value, x);
      return within(x, b);
    }
    case SettingType::kLumping: {
      InterfaceLumping x;
      from_value(value, x);
      return within(x, b);
    }
    case SettingType::kVector3: {
      Eigen::Vector3d x;
      from_value(value, x);
      return within(x, b);
    }
    case SettingType::kInteger:
      return value.v[0] == std::floor(value.v[0]) && within(value.v[0], b);
    case SettingType::kReal:
      return within(value.v[0], b);
  }
  return false;
}

std::string setting_value_problem(const SettingInfo& info, const SettingValue& value) {
  if (setting_value_ok(info, value)) return "";  // (no message built: allocation-free)
  const SettingBounds& b = info.bounds;
  const std::string got = ", got " + format_setting(info, value);
  const std::string unit = info.unit[0] ? std::string(" ") + info.unit : "";
  switch (info.type) {
    case SettingType::kIntegrator: {
      Integrator x;
      from_value(value, x);
      if (within(x, b)) return "";
      return "expected one of " + integrator_names() + "; got " + number(value.v[0]);
    }
    case SettingType::kLumping: {
      InterfaceLumping x;
      from_value(value, x);
      if (within(x, b)) return "";
      return "expected one of " + lumping_names() + "; got " + number(value.v[0]);
    }
    case SettingType::kVector3: {
      Eigen::Vector3d x;
      from_value(value, x);
      if (within(x, b)) return "";
      return "must be finite, of length at most " + number(b.hi) + unit + got;
    }
    case SettingType::kInteger:
      if (value.v[0] != std::floor(value.v[0])) return "must be an integer" + got;
      if (within(value.v[0], b)) return "";
      if (std::isinf(b.hi)) return "must be at least " + integer(b.lo) + got;
      return "must be between " + integer(b.lo) + " and " + integer(b.hi) + got;
    case SettingType::kReal:
      if (within(value.v[0], b)) return "";
      if (std::isinf(b.hi)) {
        if (b.lo == 0) return (b.lo_open ? "must be positive" : "must not be negative") + got;
        return "must be " + bounds_text(info) + unit + got;
      }
      return "must lie in " + bounds_text(info) + unit + got;
  }
  return "unknown setting type";
}

std::optional<SettingValue> parse_setting_text(const SettingInfo& info, const std::string& text,
                                               std::string& problem) {
  SettingValue value;
  // A finite number, the whole text.
  const auto parse_number = [&](const std::string& item, double& x) {
    char* end = nullptr;
    x = std::strtod(item.c_str(), &end);
    return !item.empty() && end == item.c_str() + item.size() && std::isfinite(x);
  };
  switch (info.type) {
    case SettingType::kIntegrator:
      if (const std::optional<Integrator> i = integrator_from_string(text)) return to_value(*i);
      problem = "expected one of " + integrator_names() + "; got \"" + text + "\"";
      return std::nullopt;
    case SettingType::kLumping:
      if (const std::optional<InterfaceLumping> l = lumping_from_string(text)) return to_value(*l);
      problem = "expected one of " + lumping_names() + "; got \"" + text + "\"";
      return std::nullopt;
    case SettingType::kVector3: {
      std::stringstream in(text);
      std::string item;
      int count = 0;
      while (std::getline(in, item, ',')) {
        if (count == 3 || !parse_number(item, value.v[static_cast<std::size_t>(count)])) {
          count = -1;
          break;
        }
        ++count;
      }
      if (count == 3) return value;
      problem = "expected three finite numbers x,y,z; got \"" + text + "\"";
      return std::nullopt;
    }
    case SettingType::kInteger:
    case SettingType::kReal:
      if (parse_number(text, value.v[0]) &&
          (info.type == SettingType::kReal || value.v[0] == std::floor(value.v[0])))
        return value;
      problem = std::string("expected ") +
                (info.type == SettingType::kReal ? "a finite number" : "an integer") + "; got \"" +
                text + "\"";
      return std::nullopt;
  }
  return std::nullopt;
}

std::string format_setting(const SettingInfo& info, const SettingValue& value) {
  switch (info.type) {
    case SettingType::kIntegrator: {
      Integrator x;
      from_value(value, x);
      return to_string(x);
    }
    case SettingType::kLumping: {
      InterfaceLumping x;
      from_value(value, x);
      return to_string(x);
    }
    case SettingType::kVector3:
      return number(value.v[0]) + "," + number(value.v[1]) + "," + number(value.v[2]);
    case SettingType::kInteger:
      return value.v[0] == std::floor(value.v[0]) && std::abs(value.v[0]) < 1e18
                 ? integer(value.v[0])
                 : number(value.v[0]);
    case SettingType::kReal:
      return number(value.v[0]);
  }
  return "";
}

bool settings_within_bounds(const RuntimeSettings& s, int num_domains) noexcept {
  // The list's bounds written out member by member: comparisons only, nothing allocated.
#define RAMUS_CHECK_OBJECT(Type, field, value, bounds, ...) \
  if (!within(s.field, bounds)) return false;
#define RAMUS_CHECK_WIND(Type, field, value, bounds, ...) \
  if (!within(s.wind.field, bounds)) return false;
#define RAMUS_CHECK_DOMAIN(Type, field, value, bounds, ...) \
  if (!within(n.field, bounds)) return false;
  RAMUS_OBJECT_SETTINGS(RAMUS_CHECK_OBJECT)
  RAMUS_WIND_SETTINGS(RAMUS_CHECK_WIND)
  if (static_cast<int>(s.domains.size()) != num_domains) return false;
  for (const DomainSettings& n : s.domains) {
    RAMUS_DOMAIN_SETTINGS(RAMUS_CHECK_DOMAIN)
  }
#undef RAMUS_CHECK_OBJECT
#undef RAMUS_CHECK_WIND
#undef RAMUS_CHECK_DOMAIN
  return true;
}

std::string find_settings_problem(const RuntimeSettings& settings, int num_domains) {
  // Whole-object settings and the wind first, then the domain count, then each domain's.
  for (const SettingInfo& info : table()) {
    if (info.scope != SettingScope::kObject && info.scope != SettingScope::kWind) continue;
    const SettingValue value = setting_value(settings, info);
    if (!setting_value_ok(info, value))
      return std::string(info.name) + ": " + setting_value_problem(info, value);
  }
  if (static_cast<int>(settings.domains.size()) != num_domains)
    return std::to_string(settings.domains.size()) + " domain settings given for a model of " +
           std::to_string(num_domains) + " domains";
  for (int i = 0; i < num_domains; ++i) {
    for (const SettingInfo& info : table()) {
      if (info.scope != SettingScope::kDomain) continue;
      const SettingValue value = setting_value(settings, info, i);
      if (!setting_value_ok(info, value))
        return "domains[" + std::to_string(i) + "]." + info.name + ": " +
               setting_value_problem(info, value);
    }
  }
  return "";
}

namespace {

// The mesh colliders' grids: a row per collider, at least 2 samples each way and a positive
// spacing in a grid's row (zeros in another's), and as many finite values as the grids hold.
std::string collider_grids_problem(const ScenarioSettings& scenario) {
  const Eigen::Index C = scenario.collider_shapes.size();
  const bool any_grid = (scenario.collider_shapes.array() == 6).any();
  if (!any_grid && scenario.collider_grid_values.size() == 0) return "";
  if (scenario.collider_grid_origins.rows() != C || scenario.collider_grid_spacings.size() != C ||
      scenario.collider_grid_samples.rows() != C)
    return "colliders: " + std::to_string(C) + " shapes, but the grid columns have other lengths";
  long long values = 0;
  for (Eigen::Index c = 0; c < C; ++c) {
    const std::string collider = "colliders[" + std::to_string(c) + "]: ";
    const Eigen::Vector3i n = scenario.collider_grid_samples.row(c).transpose();
    if (scenario.collider_shapes(c) != 6) {
      if (n != Eigen::Vector3i::Zero()) return collider + "not a grid, but it has grid samples";
      continue;
    }
    if (!scenario.collider_grid_origins.row(c).allFinite())
      return collider + "its grid's origin is not finite";
    if (!(scenario.collider_grid_spacings(c) > 0) ||
        !std::isfinite(scenario.collider_grid_spacings(c)))
      return collider + "its grid's spacing must be positive, got " +
             number(scenario.collider_grid_spacings(c));
    if (n.minCoeff() < 2 || n.maxCoeff() > 4096)
      return collider + "its grid needs 2 to 4096 samples each way, got " + std::to_string(n(0)) +
             " by " + std::to_string(n(1)) + " by " + std::to_string(n(2));
    values += static_cast<long long>(n(0)) * n(1) * n(2);
  }
  if (values != scenario.collider_grid_values.size())
    return "colliders: the grids hold " + std::to_string(values) +
           " samples, but grid_values has " + std::to_string(scenario.collider_grid_values.size());
  for (Eigen::Index k = 0; k < scenario.collider_grid_values.size(); ++k)
    if (!std::isfinite(scenario.collider_grid_values(k)))
      return "colliders: grid value " + std::to_string(k) + " is not finite";
  return "";
}

// The first setting of `scope` in `holder` out of its bounds, as "<name>: <what is wrong>".
template <typename Holder>
std::string find_scope_problem(const Holder& holder, SettingScope scope) {
  for (const SettingInfo& info : table()) {
    if (info.scope != scope) continue;
    const std::string problem = setting_value_problem(info, setting_value(holder, info));
    if (!problem.empty()) return std::string(info.name) + ": " + problem;
  }
  return "";
}

}  // namespace

std::string find_cloth_problem(const ClothSettings& cloth) {
  return find_scope_problem(cloth, SettingScope::kCloth);
}
std::string find_full_space_problem(const FullSpaceSettings& full_space) {
  return find_scope_problem(full_space, SettingScope::kFullSpace);
}

std::string find_scenario_problem(const ScenarioSettings& scenario, int num_global_vertices) {
  // The list's scenario settings, then the forces' shapes, vertices and windows.
  if (std::string problem = find_scope_problem(scenario, SettingScope::kScenario); !problem.empty())
    return problem;
  const Eigen::Index F = scenario.force_vertices.size();
  if (scenario.forces.rows() != F || scenario.force_windows.rows() != F)
    return "forces: " + std::to_string(F) + " vertices, " + std::to_string(scenario.forces.rows()) +
           " forces and " + std::to_string(scenario.force_windows.rows()) + " windows";
  for (Eigen::Index k = 0; k < F; ++k) {
    const std::string force = "forces[" + std::to_string(k) + "]: ";
    const int vertex = scenario.force_vertices(k);
    if (vertex < 0 || vertex >= num_global_vertices)
      return force + "vertex " + std::to_string(vertex) + " does not exist (the model has " +
             std::to_string(num_global_vertices) + " vertices)";
    if (!scenario.forces.row(k).allFinite()) return force + "its force is not finite";
    const double start = scenario.force_windows(k, 0), end = scenario.force_windows(k, 1);
    if (!(start <= end))
      return force + "its window starts at " + number(start) + " s, after its end " + number(end) +
             " s";
  }
  // The colliders' shapes, numbers and friction (their sizes and poses are checked where a run
  // adds them, by collider_problem).
  const Eigen::Index C = scenario.collider_shapes.size();
  if (scenario.collider_sizes.rows() != C || scenario.collider_rotations.rows() != C ||
      scenario.collider_positions.rows() != C || scenario.collider_velocities.rows() != C ||
      scenario.collider_angular_velocities.rows() != C || scenario.collider_friction.size() != C)
    return "colliders: " + std::to_string(C) + " shapes, but other columns of other lengths";
  for (Eigen::Index c = 0; c < C; ++c) {
    const std::string collider = "colliders[" + std::to_string(c) + "]: ";
    if (scenario.collider_shapes(c) < 0 || scenario.collider_shapes(c) > 6)
      return collider + "shape " + std::to_string(scenario.collider_shapes(c)) +
             " is none of the shapes 0 to 6";
    if (!scenario.collider_sizes.row(c).allFinite() ||
        !scenario.collider_rotations.row(c).allFinite() ||
        !scenario.collider_positions.row(c).allFinite() ||
        !scenario.collider_velocities.row(c).allFinite() ||
        !scenario.collider_angular_velocities.row(c).allFinite())
      return collider + "a size, its pose or a velocity is not finite";
    if (!(scenario.collider_friction(c) >= 0))
      return collider + "friction must be >= 0, got " + number(scenario.collider_friction(c));
  }
  return collider_grids_problem(scenario);
}

}  // namespace ramus
