// A CLI11 check that refuses NaN and infinities. CLI::Range and CLI::PositiveNumber compare, and
// every comparison with NaN is false, so `--periods nan` passed them; combine: Range(a, b) &
// finite_number().
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

namespace ramus::cli {

/// Passes a number that is finite; names the value otherwise.
inline CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value)) return "Value " + text + " is not a number";
        if (!std::isfinite(value)) return "Value " + text + " is not a finite number";
        return "";
      },
      "FINITE");
}

}  // namespace ramus::cli
