// What precompute tells whoever runs it, as it works: report lines, warnings, notes and the
// progress of a long reduction. The CLI prints them; a library caller may keep or drop each kind.
#pragma once

#include <functional>
#include <string>

namespace ramus {

/// The progress of a reduction, sent every PrecomputeListener::progress_interval_s seconds.
struct PrecomputeProgressReport {
  double fraction_done = 0;  ///< share of the work done, in [0, 1]
  double spent_s = 0;        ///< seconds since the reduction began
  double left_s = -1;        ///< estimated seconds left; negative: no estimate yet
  std::string running;       ///< "<domain>: <stage>" expected to be running, or ""
};

/// Callbacks of precompute_model; one left empty drops what it would have received. They are
/// called on the calling thread, except on_progress (a ticker thread, one call at a time).
struct PrecomputeListener {
  /// A line of the report ("mesh         beam.msh: 80 vertices, ..."), no newline.
  std::function<void(const std::string& line)> on_report;
  /// Something the user should look at (the result is still written).
  std::function<void(const std::string& text)> on_warning;
  /// What was changed or chosen without being asked (a reader's repair, a partition's choice).
  std::function<void(const std::string& text)> on_note;
  std::function<void(const PrecomputeProgressReport& progress)> on_progress;
  /// Seconds between progress reports (the first after that long); 0: none.
  double progress_interval_s = 5;

  void report(const std::string& line) const {
    if (on_report) on_report(line);
  }
  void warning(const std::string& text) const {
    if (on_warning) on_warning(text);
  }
  void note(const std::string& text) const {
    if (on_note) on_note(text);
  }
};

}  // namespace ramus
