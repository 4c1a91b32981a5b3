// Many objects in one call (a forest, a crowd of plants): each object's step runs whole on one
// thread — Ramus's OpenMP threads or the workers of a game's job system, handed in as a
// parallel-for callback — so every object's result equals its lone single-threaded step to the
// last bit, whatever the thread count or the order the jobs run in. Objects may belong to
// different models; each needs its own State and Workspace (a Workspace is one thread's scratch).
#pragma once

#include <cstddef>

#include "ramus/runtime/dynamics/step.h"

namespace ramus {

/// One object of a batch: its model, state and workspace, and the status its step returned.
struct ObjectStep {
  const Model* model = nullptr;
  State* state = nullptr;
  Workspace* workspace = nullptr;
  StepStatus status = StepStatus::kOk;
};

/// A game's parallel-for (Jolt's JobSystem, a task graph, a thread pool): calls task(context, i)
/// once for every i in [0, count), on any of its threads and in any order, and returns when every
/// call has returned. Plain function pointers: no allocation on either side.
struct JobSystem {
  void (*parallel_for)(void* job_system, int count, void (*task)(void* context, int index),
                       void* context) = nullptr;
  void* job_system = nullptr;  ///< handed back as parallel_for's first argument
};

/// Steps every object once (step.h's step on each), the objects spread over `threads` OpenMP
/// threads (1: the calling thread alone). Leave each object's Workspace at one thread (the
/// default): inside the batch an object's own threads would only nest. Allocation-free after the
/// first call on a thread count; never throws. Returns the number of objects whose step failed
/// (each status says why; a failed object is as before its step).
int step_objects(ObjectStep* objects, std::size_t count, int threads) noexcept;

/// The same on a game's job system (one task per object).
int step_objects(ObjectStep* objects, std::size_t count, const JobSystem& jobs) noexcept;

}  // namespace ramus
