// Progress of a long step-by-step run (a ground truth, a comparison) on stderr, about every 2 s:
// step, share and time left. A run under 2 s prints nothing.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <utility>

namespace ramus::cli {

class RunProgress {
 public:
  /// `label`: the line's first word and what runs, e.g. "compare" or "validate  full FEM".
  explicit RunProgress(std::string label) : label_(std::move(label)) {}
  void operator()(int step, int steps) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::seconds(2) && (step < steps || !printed_)) return;
    last_ = now;
    printed_ = true;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "%s step %d of %d (%.0f %%), %.0f s, about %.0f s left\n", label_.c_str(),
                 step, steps, 100.0 * step / std::max(1, steps), elapsed,
                 elapsed / std::max(1, step) * (steps - step));
  }

 private:
  std::string label_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
  bool printed_ = false;
};

}  // namespace ramus::cli
