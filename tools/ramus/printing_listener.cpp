#include "printing_listener.h"

#include <cstdio>

#include "ramus/precompute/pipeline/precompute_progress.h"

namespace ramus::cli {

PrecomputeListener printing_listener(double progress_every_s) {
  PrecomputeListener listener;
  // Each line flushed: a long precompute's report is read as it comes.
  listener.on_report = [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };
  listener.on_warning = [](const std::string& text) {
    std::fprintf(stderr, "ramus: warning: %s\n", text.c_str());
  };
  listener.on_note = [](const std::string& text) {
    std::fprintf(stderr, "ramus: note: %s\n", text.c_str());
  };
  listener.on_progress = [](const PrecomputeProgressReport& progress) {
    std::printf("%s\n", progress_line(progress).c_str());
    std::fflush(stdout);
  };
  listener.progress_interval_s = progress_every_s;
  return listener;
}

}  // namespace ramus::cli
