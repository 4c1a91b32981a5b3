#include "ramus/precompute/pipeline/precompute_progress.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "printf_text.h"

namespace ramus {

namespace {

// Each stage's share of a domain's work, from a 400k-tet single-domain precompute at r = 30
// (docs/PERFORMANCE.md): an estimate, good enough for "about how long".
double stage_share(const std::string& stage) {
  static const std::map<std::string, double> kShares = {
      {"mesh", 0.005},      {"linear modes", 0.34}, {"modal derivatives", 0.27},
      {"basis", 0.26},      {"polynomial", 0.10},   {"system force integrals", 0.025},
      {"rigid domain", 1.0}};
  const auto found = kShares.find(stage);
  return found == kShares.end() ? 0.0 : found->second;
}

// The stage that follows `stage` in a domain's reduction ("" after the last).
std::string next_stage(const std::string& stage) {
  static const std::map<std::string, std::string> kNext = {
      {"mesh", "linear modes"},
      {"linear modes", "modal derivatives"},
      {"modal derivatives", "basis"},
      {"basis", "polynomial"},
      {"polynomial", "system force integrals"}};
  const auto found = kNext.find(stage);
  return found == kNext.end() ? "" : found->second;
}

}  // namespace

std::string human_duration(double seconds) {
  const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  char text[64];
  if (s < 60)
    std::snprintf(text, sizeof text, "%lld s", s);
  else if (s < 3600)
    std::snprintf(text, sizeof text, "%lld min %lld s", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lld h %lld min", s / 3600, (s % 3600) / 60);
  return text;
}

std::string progress_line(const PrecomputeProgressReport& progress) {
  const std::string running = progress.running.empty() ? "" : ", now " + progress.running;
  if (progress.left_s >= 0)
    return printf_text("progress     %3.0f %%, %s spent, about %s left%s",
                       100 * progress.fraction_done, human_duration(progress.spent_s).c_str(),
                       human_duration(progress.left_s).c_str(), running.c_str());
  return printf_text("progress     %s spent, no estimate yet%s",
                     human_duration(progress.spent_s).c_str(), running.c_str());
}

PrecomputeProgress::PrecomputeProgress(std::map<std::string, double> work,
                                       const PrecomputeListener& listener)
    : work_(std::move(work)),
      interval_s_(listener.progress_interval_s),
      on_progress_(listener.on_progress) {
  for (const auto& [name, w] : work_) total_work_ += std::max(0.0, w);
  if (interval_s_ > 0 && on_progress_) ticker_ = std::thread([this] { tick(); });
}

PrecomputeProgress::~PrecomputeProgress() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (ticker_.joinable()) ticker_.join();
}

void PrecomputeProgress::stage_done(const std::string& stage) {
  const auto colon = stage.rfind(": ");
  if (colon == std::string::npos) return;  // a whole-model stage (interface areas, placement)
  const std::lock_guard<std::mutex> lock(mutex_);
  const std::string domain = stage.substr(0, colon), name = stage.substr(colon + 2);
  const auto found = work_.find(domain);
  const double work = found != work_.end() ? found->second : 0.0;
  finished_work_ += work * stage_share(name);
  const std::string next = next_stage(name);
  running_stage_ = next.empty() ? "" : domain + ": " + next;
  running_work_ = work * stage_share(next);
  last_event_ = Clock::now();
}

double PrecomputeProgress::done_work_locked(Clock::time_point now) const {
  if (total_work_ <= 0) return 0;
  // Time since the last finished stage counts at the pace so far, short of the running stage's
  // expected share (or 5 % when it is not known).
  const double elapsed = std::chrono::duration<double>(last_event_ - start_).count();
  double running = 0;
  if (finished_work_ > 0 && elapsed > 0)
    running = std::min(
        finished_work_ / elapsed * std::chrono::duration<double>(now - last_event_).count(),
        running_work_ > 0 ? 0.9 * running_work_ : 0.05 * total_work_);
  return std::min(finished_work_ + running, 0.99 * total_work_);
}

double PrecomputeProgress::fraction_done() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return total_work_ > 0 ? done_work_locked(Clock::now()) / total_work_ : 0.0;
}

void PrecomputeProgress::tick() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto interval = std::chrono::duration<double>(interval_s_);
  while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
    const auto now = Clock::now();
    const double spent = std::chrono::duration<double>(now - start_).count();
    const double fraction = total_work_ > 0 ? done_work_locked(now) / total_work_ : 0.0;
    // (Until 2 % is done the pace is unknown: the first stages are the mesh's, a few ms.)
    PrecomputeProgressReport report{fraction, spent, -1.0, running_stage_};
    if (finished_work_ > 0.02 * total_work_) report.left_s = spent * (1 - fraction) / fraction;
    on_progress_(report);
  }
}

}  // namespace ramus
