// Progress of a long precompute: a report every few seconds with the share done, the time spent and
// an estimate of the time left, from the stages finished so far and a model of what each costs.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "ramus/precompute/pipeline/precompute_listener.h"

namespace ramus {

class PrecomputeProgress {
 public:
  /// `work`: each domain's (or part's) name and its share of the work (its tets; any scale);
  /// the listener's on_progress gets a report every progress_interval_s (the first after that
  /// long: short runs get none; 0 or no on_progress: none).
  PrecomputeProgress(std::map<std::string, double> work, const PrecomputeListener& listener);
  ~PrecomputeProgress();  ///< stops the ticker
  PrecomputeProgress(const PrecomputeProgress&) = delete;
  PrecomputeProgress& operator=(const PrecomputeProgress&) = delete;

  /// A stage finished: `stage` is "<domain>: <stage>" (as build_substructured_model reports).
  void stage_done(const std::string& stage);
  /// The share of the work done, in [0, 1], with the time spent in the current stage counted
  /// at the pace of the stages before it.
  double fraction_done() const;

 private:
  using Clock = std::chrono::steady_clock;
  void tick();
  double done_work_locked(Clock::time_point now) const;

  std::map<std::string, double> work_;
  double total_work_ = 0;
  double finished_work_ = 0;   // of the stages finished
  std::string running_stage_;  // "<domain>: <stage>" expected to be running, or ""
  double running_work_ = 0;    // its expected work
  Clock::time_point start_ = Clock::now(), last_event_ = start_;
  double interval_s_;
  std::function<void(const PrecomputeProgressReport&)> on_progress_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread ticker_;
};

/// "1 min 20 s", "45 s", "2 h 5 min": a duration for people.
std::string human_duration(double seconds);
/// "progress     40 %, 12 s spent, about 18 s left, now trunk: basis": the report as a line.
std::string progress_line(const PrecomputeProgressReport& progress);

}  // namespace ramus
