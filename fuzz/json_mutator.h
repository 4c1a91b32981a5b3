// Structure-aware mutation of JSON inputs (the spec target's LLVMFuzzerCustomMutator): parses the
// input and edits its tree, so that most mutants are valid JSON that reach the spec's checks
// (byte edits mostly stop at the JSON syntax). Inputs that do not parse get byte edits.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace ramus::fuzz {

/// Values that probe ranges, types and size arithmetic.
inline std::vector<nlohmann::json> interesting_json_values() {
  using nlohmann::json;
  return {0,
          -1,
          1,
          2,
          0.5,
          0.4999999999,
          -0.0,
          1e-320,
          1e308,
          -1e308,
          2147483647,
          2147483648LL,
          -2147483649LL,
          std::numeric_limits<std::int64_t>::max(),
          std::numeric_limits<std::uint64_t>::max(),
          "",
          "x",
          "L3",
          "labels",
          "automatic",
          "../../../../etc/passwd",
          nullptr,
          true,
          json::array(),
          json::object(),
          json::array({0, 0, 0}),
          json::array({1e308, 0, 0}),
          json::array({json::array({1, 0, 0}), json::array({0, 1, 0}), json::array({0, 0, 1})}),
          json::array({json::array({2, 0, 0}), json::array({0, 1, 0}), json::array({0, 0, -1})})};
}

/// Every node of `j` (pre-order), with the key under which it sits in its parent ("" in arrays).
inline void collect_json_nodes(nlohmann::json& j, std::vector<nlohmann::json*>& nodes,
                               std::vector<std::string>& keys) {
  nodes.push_back(&j);
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      keys.push_back(it.key());
      collect_json_nodes(it.value(), nodes, keys);
    }
  } else if (j.is_array()) {
    for (auto& child : j) collect_json_nodes(child, nodes, keys);
  }
}

/// One to four edits of the JSON tree in `text`: a node replaced by an interesting value, a number
/// scaled or shifted, a key or element removed, a key renamed to another key of the document, a
/// subtree copied elsewhere, an element duplicated, a node nested deeply. Returns false when
/// `text` is not JSON.
inline bool mutate_json(std::string& text, std::mt19937_64& random) {
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return false;
  const auto pick = [&](std::size_t n) {
    return n == 0 ? std::size_t{0} : std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  };
  static const std::vector<nlohmann::json> values = interesting_json_values();
  const int edits = 1 + static_cast<int>(pick(4));
  for (int e = 0; e < edits; ++e) {
    std::vector<nlohmann::json*> nodes;
    std::vector<std::string> keys;
    collect_json_nodes(doc, nodes, keys);
    nlohmann::json& node = *nodes[pick(nodes.size())];
    switch (pick(7)) {
      case 0:  // replaced by a value that probes a range or a type
        node = values[pick(values.size())];
        break;
      case 1:  // a number scaled, negated or shifted
        if (node.is_number()) {
          static const double factors[] = {-1, 0, 2, 1e10, 1e-10, 1e300};
          const double v = node.get<double>();
          node = pick(2) == 0 ? v * factors[pick(std::size(factors))] : v + (pick(2) ? 1 : -1);
        }
        break;
      case 2:  // a key or an element removed
        if (node.is_object() && !node.empty()) {
          auto it = node.begin();
          std::advance(it, static_cast<std::ptrdiff_t>(pick(node.size())));
          node.erase(it);
        } else if (node.is_array() && !node.empty()) {
          node.erase(pick(node.size()));
        }
        break;
      case 3:  // a key renamed to another key of the document (or a misspelling of it)
        if (node.is_object() && !node.empty() && !keys.empty()) {
          auto it = node.begin();
          std::advance(it, static_cast<std::ptrdiff_t>(pick(node.size())));
          std::string key = keys[pick(keys.size())];
          if (pick(4) == 0) key += "s";
          nlohmann::json moved = it.value();
          node.erase(it);
          node[key] = std::move(moved);
        }
        break;
      case 4: {  // a subtree copied under an object's key (another place's structure)
        const nlohmann::json copy = *nodes[pick(nodes.size())];
        if (node.is_object() && !keys.empty()) node[keys[pick(keys.size())]] = copy;
        break;
      }
      case 5:  // an element duplicated, many times
        if (node.is_array() && !node.empty()) {
          const nlohmann::json element = node[pick(node.size())];
          const std::size_t copies = pick(2) || element.dump().size() > 64 ? 1 : 1000;
          for (std::size_t k = 0; k < copies; ++k) node.push_back(element);
        }
        break;
      default: {  // nested deeply
        nlohmann::json nested = std::move(node);
        const std::size_t depth = pick(2) ? 8 : 2000;
        for (std::size_t k = 0; k < depth; ++k) {
          nlohmann::json wrapper = nlohmann::json::array();
          wrapper.push_back(std::move(nested));  // (moved: an initializer list would copy)
          nested = std::move(wrapper);
        }
        node = std::move(nested);
        break;
      }
    }
  }
  text = doc.dump(pick(2) ? -1 : 2);
  return true;
}

}  // namespace ramus::fuzz
