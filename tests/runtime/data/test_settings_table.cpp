// The one settings list (settings_list.h) through its table: every setting's default, bounds,
// text form and accessors, the step's check against the messages' check, and the docs' tables
// against the list.
#include "ramus/runtime/data/settings_table.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "support/generated_docs.h"

using namespace ramus;
using Catch::Matchers::Contains;
using test::generated_part;
using test::read_doc;

namespace {

// Settings of a model of three domains at the list's defaults.
RuntimeSettings three_domains() {
  RuntimeSettings s;
  s.domains.resize(3);
  return s;
}

// A value just outside the setting's bounds (below, or above where the lower end is open to
// anything); nullopt for an enumeration.
std::optional<SettingValue> outside(const SettingInfo& info) {
  const SettingBounds& b = info.bounds;
  if (b.named) return SettingValue{{0, 0, 0}};  // (no enumeration has the number 0)
  SettingValue v;
  if (info.type == SettingType::kVector3) {
    if (std::isinf(b.hi)) return std::nullopt;
    v.v = {b.hi * 1.01, 0, 0};
    return v;
  }
  const double step = info.type == SettingType::kInteger ? 1 : 1e-9 * std::max(1.0, std::abs(b.lo));
  v.v[0] = b.lo_open ? b.lo : b.lo - step;
  return v;
}

}  // namespace

// A full-space section (cloth, solvers): a fresh struct holds the default; a write reads back.
template <typename Section>
void check_written_back(const SettingInfo& info) {
  Section section;
  CHECK(setting_value(section, info).v == info.default_value.v);
  SettingValue other = info.default_value;
  other.v[0] += 1;
  set_setting(section, info, other);
  CHECK(setting_value(section, info).v == other.v);
}

TEST_CASE("Every setting has one name, key and flag, a default within its bounds, a doc",
          "[runtime][data]") {
  std::set<std::string> names, keys, flags;
  for (const SettingInfo& info : settings_table()) {
    CAPTURE(info.name);
    CHECK(names.insert(info.name).second);
    CHECK(keys.insert(info.json_key).second);
    CHECK(flags.insert(info.cli_flag).second);
    CHECK(std::string(info.cli_flag).rfind("--", 0) == 0);
    CHECK(std::string(info.doc).size() > 5);
    CHECK(setting_value_problem(info, info.default_value).empty());
    CHECK(find_setting(info.name) == &info);
    CHECK(find_setting_by_json_key(info.json_key) == &info);
    CHECK(find_setting_by_flag(info.cli_flag) == &info);
  }
  CHECK(find_setting("no_such_setting") == nullptr);
  CHECK(find_settings_problem(three_domains(), 3).empty());
  CHECK(settings_within_bounds(three_domains(), 3));
  CHECK_THAT(find_settings_problem(three_domains(), 2), Contains("3 domain settings given"));
  CHECK_FALSE(settings_within_bounds(three_domains(), 2));
}

TEST_CASE("A setting read and written by name is the struct's member, text round-trips",
          "[runtime][data]") {
  for (const SettingInfo& info : settings_table()) {
    CAPTURE(info.name);
    // The text form of the default parses back to it.
    std::string problem;
    const std::string text = format_setting(info, info.default_value);
    const std::optional<SettingValue> parsed = parse_setting_text(info, text, problem);
    REQUIRE(parsed);
    for (int k = 0; k < 3; ++k)
      CHECK(parsed->v[static_cast<std::size_t>(k)] ==
            Approx(info.default_value.v[static_cast<std::size_t>(k)]).epsilon(1e-8));
    // A fresh struct holds the list's default; a write shows in the read, and in that domain only.
    if (info.scope == SettingScope::kScenario) {
      ScenarioSettings scenario;
      CHECK(setting_value(scenario, info).v == info.default_value.v);
      continue;
    }
    if (info.scope == SettingScope::kCloth) {
      check_written_back<ClothSettings>(info);
      continue;
    }
    if (info.scope == SettingScope::kFullSpace) {
      check_written_back<FullSpaceSettings>(info);
      continue;
    }
    RuntimeSettings s = three_domains();
    CHECK(setting_value(s, info, 1).v == info.default_value.v);
    SettingValue other = info.default_value;
    other.v[0] =
        info.type == SettingType::kIntegrator ? 1 : (info.bounds.named ? 3 : other.v[0] + 1);
    set_setting(s, info, other, 1);
    CHECK(setting_value(s, info, 1).v == other.v);
    if (info.scope == SettingScope::kDomain) {
      CHECK(setting_value(s, info, 0).v == info.default_value.v);
      CHECK(setting_value(s.domains[1], info).v == other.v);
    }
  }
  RuntimeSettings s = three_domains();
  set_setting(s, *find_setting("time_step"), SettingValue{{0.004, 0, 0}});
  set_setting(s, *find_setting("wind.gust"), SettingValue{{2, 0, 0}});
  set_setting(s, *find_setting("split_modes"), SettingValue{{7, 0, 0}});  // every domain
  CHECK(s.time_step == 0.004);
  CHECK(s.wind.gust == 2);
  CHECK((s.domains[0].split_modes == 7 && s.domains[2].split_modes == 7));
}

TEST_CASE("The step's check and the messages' check refuse the same values, naming the setting",
          "[runtime][data]") {
  int refused = 0;
  for (const SettingInfo& info : settings_table()) {
    if (info.scope == SettingScope::kScenario) continue;
    CAPTURE(info.name);
    const std::optional<SettingValue> bad = outside(info);
    if (!bad) continue;
    if (info.scope == SettingScope::kCloth) {
      ClothSettings cloth;
      set_setting(cloth, info, *bad);
      CHECK_THAT(find_cloth_problem(cloth), Contains(std::string(info.name) + ": "));
      ++refused;
      continue;
    }
    if (info.scope == SettingScope::kFullSpace) {
      FullSpaceSettings full_space;
      set_setting(full_space, info, *bad);
      CHECK_THAT(find_full_space_problem(full_space), Contains(std::string(info.name) + ": "));
      ++refused;
      continue;
    }
    RuntimeSettings s = three_domains();
    set_setting(s, info, *bad, info.scope == SettingScope::kDomain ? 2 : -1);
    const std::string problem = find_settings_problem(s, 3);
    const std::string expected_name =
        info.scope == SettingScope::kDomain ? std::string("domains[2].") + info.name : info.name;
    CHECK_THAT(problem, Contains(expected_name + ": "));
    CHECK_FALSE(settings_within_bounds(s, 3));
    ++refused;
    // NaN is out of every real setting's bounds.
    if (info.type != SettingType::kReal && info.type != SettingType::kVector3) continue;
    RuntimeSettings nan = three_domains();
    set_setting(nan, info, SettingValue{{NAN, NAN, NAN}});
    CHECK_FALSE(find_settings_problem(nan, 3).empty());
    CHECK_FALSE(settings_within_bounds(nan, 3));
  }
  CHECK(refused >= 25);
  // The one message style.
  RuntimeSettings s = three_domains();
  s.time_step = 2;
  CHECK(find_settings_problem(s, 3) == "time_step: must lie in (0, 1] s, got 2");
  s = three_domains();
  s.domains[1].stiffness_scale = -1;
  CHECK(find_settings_problem(s, 3) == "domains[1].stiffness_scale: must be positive, got -1");
  s = three_domains();
  s.domains[0].split_modes = 33;
  CHECK(find_settings_problem(s, 3) == "domains[0].split_modes: must be between 0 and 32, got 33");
  std::string problem;
  CHECK_FALSE(parse_setting_text(*find_setting("integrator"), "rk4", problem));
  CHECK_THAT(problem, Contains("expected one of newmark, be, si"));
  CHECK_FALSE(parse_setting_text(*find_setting("gravity"), "0,0", problem));
  CHECK_THAT(problem, Contains("three finite numbers"));
  CHECK_FALSE(parse_setting_text(*find_setting("newton_iterations"), "2.5", problem));
  CHECK_THAT(problem, Contains("an integer"));
}

TEST_CASE("The split-mode bound of the list is the State's fixed storage", "[runtime][data]") {
  CHECK(find_setting("split_modes")->bounds.hi == kMaxSplitModes);
}

TEST_CASE("docs/SPEC.md and docs/FORMAT.md hold the list's tables as it makes them",
          "[runtime][data]") {
  // (Regenerate with `ramus settings --markdown` and `ramus settings --format-table`.)
  CHECK(generated_part(read_doc("SPEC.md"), "settings table") == settings_markdown_table());
  CHECK(generated_part(read_doc("FORMAT.md"), "runtime fields") == runtime_fields_markdown_table());
}
