#include "spec_reader.h"

#include <filesystem>
#include <set>

namespace ramus::spec {

std::string resolve_path(const std::string& path, const std::string& spec_path) {
  const std::filesystem::path p(path);
  return p.is_absolute() ? p.string()
                         : (std::filesystem::path(spec_path).parent_path() / p).string();
}

// A value as a message shows it: its JSON, cut to 60 characters (a value may be a whole subtree).
std::string shown(const json& j) {
  const std::string text = j.dump();
  return text.size() <= 60 ? text : text.substr(0, 57) + "...";
}

json parse_without_duplicates(const std::string& text, const std::string& spec_path) {
  std::vector<std::set<std::string>> seen;  // keys of each open object, innermost last
  std::vector<std::string> path;            // the keys leading to it
  std::string last_key;
  const json::parser_callback_t check = [&](int /*depth*/, json::parse_event_t event,
                                            json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        seen.emplace_back();
        path.push_back(last_key);
        break;
      case json::parse_event_t::object_end:
        if (!seen.empty()) seen.pop_back();
        if (!path.empty()) path.pop_back();
        break;
      case json::parse_event_t::key: {
        last_key = parsed.get<std::string>();
        if (!seen.empty() && !seen.back().insert(last_key).second) {
          std::string where;
          for (const std::string& p : path)
            if (!p.empty()) where += (where.empty() ? "" : ".") + p;
          throw InputError(spec_path, 0,
                           (where.empty() ? std::string() : where + ": ") + "key \"" + last_key +
                               "\" given twice");
        }
        break;
      }
      case json::parse_event_t::array_start:
        path.push_back(last_key);
        last_key.clear();
        break;
      case json::parse_event_t::array_end:
        if (!path.empty()) path.pop_back();
        break;
      default:
        break;
    }
    return true;
  };
  return json::parse(text, check);
}

}  // namespace ramus::spec
