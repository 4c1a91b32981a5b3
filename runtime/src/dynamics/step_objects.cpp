#include "ramus/runtime/dynamics/step_objects.h"

#include "parallel_for.h"

namespace ramus {

namespace {

// One object's step on the calling thread.
void step_one(ObjectStep& object) noexcept {
  object.status = object.model && object.state && object.workspace
                      ? step(*object.model, *object.state, *object.workspace)
                      : StepStatus::kWrongModel;
}

int count_failures(const ObjectStep* objects, std::size_t count) noexcept {
  int failed = 0;
  for (std::size_t k = 0; k < count; ++k) failed += objects[k].status != StepStatus::kOk;
  return failed;
}

}  // namespace

int step_objects(ObjectStep* objects, std::size_t count, int threads) noexcept {
  if (!objects) return 0;
  parallel_for(static_cast<int>(count), threads,
               [objects](int k) { step_one(objects[static_cast<std::size_t>(k)]); });
  return count_failures(objects, count);
}

int step_objects(ObjectStep* objects, std::size_t count, const JobSystem& jobs) noexcept {
  if (!objects) return 0;
  if (!jobs.parallel_for) return step_objects(objects, count, 1);
  jobs.parallel_for(
      jobs.job_system, static_cast<int>(count),
      [](void* context, int k) { step_one(static_cast<ObjectStep*>(context)[k]); }, objects);
  return count_failures(objects, count);
}

}  // namespace ramus
