// Many objects in one call (dynamics/step_objects.h): trees and beams of two models stepped as a
// batch on 1, 2 and 3 threads and on a job system equal their lone steps to the last bit; the
// batch allocates nothing after its first call; a failing object is reported, the others step.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include "ramus/runtime/dynamics/step_objects.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/small_trees.h"
#include "support/split_beams.h"

namespace ramus {
namespace {

// Four trees and two beams, each pulled differently.
std::vector<std::unique_ptr<Simulator>> forest() {
  std::vector<std::unique_ptr<Simulator>> sims;
  const auto beam = compile_model(*test::split_beam(3, 6));
  for (int k = 0; k < 6; ++k) {
    sims.push_back(std::make_unique<Simulator>(k < 4 ? test::small_tree() : beam));
    Simulator& s = *sims.back();
    s.add_vertex_force(s.num_domains() - 1, 0, Eigen::Vector3d(0.1 * k, 0.05, 0.2));
    REQUIRE(s.initialize() == StepStatus::kOk);
  }
  return sims;
}

// A job system: every index on a thread of its own, started in reverse order.
void threads_in_reverse(void*, int count, void (*task)(void*, int), void* context) {
  std::vector<std::thread> workers;
  for (int k = count; k-- > 0;) workers.emplace_back([=] { task(context, k); });
  for (std::thread& w : workers) w.join();
}

TEST_CASE("A batch equals its lone steps bit for bit on any threads and on a job system",
          "[runtime][dynamics][batch]") {
  auto lone = forest();
  for (auto& s : lone)
    for (int step = 0; step < 15; ++step) REQUIRE(s->step() == StepStatus::kOk);
  for (const int threads : {1, 2, 3, 0}) {  // (0: the job system)
    auto batch = forest();
    std::vector<ObjectStep> entries;
    for (auto& s : batch) entries.push_back(s->batch_entry());
    const JobSystem jobs{threads_in_reverse, nullptr};
    for (int step = 0; step < 15; ++step)
      REQUIRE((threads > 0 ? step_objects(entries.data(), entries.size(), threads)
                           : step_objects(entries.data(), entries.size(), jobs)) == 0);
    for (std::size_t k = 0; k < batch.size(); ++k) {
      INFO("threads " << threads << ", object " << k);
      CHECK(batch[k]->state().q == lone[k]->state().q);
      CHECK(batch[k]->state().frame_origin == lone[k]->state().frame_origin);
      CHECK(batch[k]->time() == lone[k]->time());
    }
  }
}

TEST_CASE("A batch allocates nothing after its first call, and reports a failing object alone",
          "[runtime][dynamics][batch]") {
  auto sims = forest();
  std::vector<ObjectStep> entries;
  for (auto& s : sims) entries.push_back(s->batch_entry());
  REQUIRE(step_objects(entries.data(), entries.size(), 2) == 0);
  int failed = -1;
  const long allocations = test::count_allocations([&] {
    failed = 0;
    for (int step = 0; step < 10; ++step) failed += step_objects(entries.data(), entries.size(), 2);
  });
  CHECK(failed == 0);
  CHECK(allocations == 0);
  // An entry whose workspace is another model's: kWrongModel, the rest step on.
  std::swap(entries[0].workspace, entries[5].workspace);
  const double time_before = sims[0]->time();
  CHECK(step_objects(entries.data(), entries.size(), 2) == 2);
  CHECK(entries[0].status == StepStatus::kWrongModel);
  CHECK(entries[1].status == StepStatus::kOk);
  CHECK(sims[0]->time() == time_before);
  ObjectStep empty;
  CHECK(step_objects(&empty, 1, 1) == 1);
  CHECK(empty.status == StepStatus::kWrongModel);
}

}  // namespace
}  // namespace ramus
