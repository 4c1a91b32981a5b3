// `ramus settings`: the one settings list (settings_list.h) as a table: each setting's name, spec
// key, command-line flag, default, bounds, unit and meaning; --markdown and --format-table print
// the tables docs/SPEC.md and docs/FORMAT.md hold (a test checks that they match).
#include <cstdio>
#include <memory>
#include <string>

#include "commands.h"
#include "ramus/precompute/contact/collider_spec.h"
#include "ramus/runtime/data/settings_table.h"

namespace ramus::cli {

namespace {

struct Args {
  bool markdown = false, format_table = false, collider_table = false;
};

void run(const Args& args) {
  if (args.markdown) {
    std::fputs(settings_markdown_table().c_str(), stdout);
    return;
  }
  if (args.collider_table) {
    std::fputs(collider_keys_markdown_table().c_str(), stdout);
    return;
  }
  if (args.format_table) {
    std::fputs(runtime_fields_markdown_table().c_str(), stdout);
    return;
  }
  // One line a setting: name, default, allowed values, unit; where the spec and the CLI set it.
  for (const SettingInfo& info : settings_table()) {
    std::printf("%-24s %-14s %-22s %-7s %-34s %s\n", info.name,
                format_setting(info, info.default_value).c_str(), bounds_text(info).c_str(),
                info.unit, info.json_key, info.cli_flag);
  }
}

}  // namespace

void add_settings_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "settings", "List every setting: default, bounds, unit, spec key and command-line flag");
  command->add_flag("--markdown", args->markdown, "The table of docs/SPEC.md (\"Settings\")");
  command->add_flag("--format-table", args->format_table, "The /runtime table of docs/FORMAT.md");
  command->add_flag("--collider-table", args->collider_table,
                    "The keys of a collider, the table of docs/SPEC.md (\"Colliders\")");
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
