// How often a run writes a frame so that its series stays a size one can open: without a cadence
// from the user, the cadence is raised as the frames are written whenever the series, at the
// latest frame's size, would exceed 50 MB by the run's end.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace ramus::cli {

/// Bytes of the files at `paths` (those that exist).
inline double files_bytes(const std::vector<std::string>& paths) {
  double bytes = 0;
  std::error_code ec;
  for (const std::string& p : paths) {
    const std::uintmax_t size = std::filesystem::file_size(p, ec);
    if (!ec) bytes += static_cast<double>(size);
  }
  return bytes;
}

class SeriesBudget {
 public:
  static constexpr double kBytes = 50e6;  ///< the budget without a cadence from the user

  /// `every`: the run's cadence (steps a frame) over `steps` steps; `fixed`: the user's, kept.
  SeriesBudget(int every, int steps, bool fixed)
      : every_(std::max(1, every)), requested_(every_), steps_(steps), fixed_(fixed) {}

  /// After the frame at `step` (0: the initial one) of `bytes`: the cadence from here on, raised
  /// where the frames left at the latest frame's size would take the series past the budget.
  int after_frame(int step, double bytes) {
    written_ += bytes;
    latest_ = bytes;
    if (fixed_ || bytes <= 0) return every_;
    const int left = steps_ - step;
    if (written_ + (left / every_) * bytes <= kBytes) return every_;
    const double frames = std::floor((kBytes - written_) / bytes);
    every_ = frames < 1 ? std::max(1, left + 1)
                        : std::max(every_, static_cast<int>(std::ceil(left / frames)));
    return every_;
  }
  /// A line saying so where the cadence was raised; `how_to_set` names the user's option.
  void report(const char* how_to_set) const {
    if (every_ == requested_) return;
    std::printf(
        "output    frames every %d steps by the end instead of %d, so that the series "
        "(%.3g MB a frame lately) stays under %.0f MB (%s sets the cadence)\n",
        every_, requested_, latest_ / 1e6, kBytes / 1e6, how_to_set);
  }
  int every() const { return every_; }

 private:
  int every_, requested_, steps_;
  bool fixed_;
  double written_ = 0, latest_ = 0;
};

}  // namespace ramus::cli
