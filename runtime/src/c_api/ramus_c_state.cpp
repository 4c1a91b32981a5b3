// The C interface's domain tree, per-domain motion, threads and state snapshots
// (ramus/ramus.h): the Model's domains and parts, the Simulator's frames and q in world axes
// through the object's placement, and model/state_snapshot.h's blobs.
#include <Eigen/Core>
#include <atomic>
#include <string>

#include "../dynamics/parallel_for.h"
#include "c_object.h"
#include "ramus/ramus.h"
#include "ramus/runtime/model/state_snapshot.h"

using ramus::c_api::check_vector;
using ramus::c_api::fail;
using ramus::c_api::guarded;
using ramus::c_api::succeed;

namespace {

static_assert(static_cast<unsigned>(RAMUS_STATE_TIME) == ramus::kStateTime &&
                  static_cast<unsigned>(RAMUS_STATE_COORDINATES) == ramus::kStateCoordinates &&
                  static_cast<unsigned>(RAMUS_STATE_VELOCITIES) == ramus::kStateVelocities &&
                  static_cast<unsigned>(RAMUS_STATE_INTEGRATOR) == ramus::kStateIntegrator &&
                  static_cast<unsigned>(RAMUS_STATE_FORCES) == ramus::kStateForces &&
                  static_cast<unsigned>(RAMUS_STATE_COLLIDERS) == ramus::kStateColliders &&
                  static_cast<unsigned>(RAMUS_STATE_SETTINGS) == ramus::kStateSettings &&
                  static_cast<unsigned>(RAMUS_STATE_PHYSICS) == ramus::kStatePhysics &&
                  static_cast<unsigned>(RAMUS_STATE_ALL) == ramus::kStateAll,
              "the C state parts are the runtime's");

// A domain index checked against the model ("<what>: domain 7 does not exist (5 domains)").
ramus_status check_domain(const ramus::Model& model, int domain, const char* what) {
  if (domain >= 0 && domain < model.num_domains()) return RAMUS_OK;
  return fail(RAMUS_INVALID_ARGUMENT, std::string(what) + ": domain " + std::to_string(domain) +
                                          " does not exist (" +
                                          std::to_string(model.num_domains()) + " domains)");
}

// A snapshot's outcome as a C status: the blob's own faults are file errors.
ramus_status from_snapshot(ramus::SnapshotStatus status, const char* what) {
  using S = ramus::SnapshotStatus;
  if (status == S::kOk) return succeed();
  const bool blob_fault = status == S::kTooShort || status == S::kNotASnapshot ||
                          status == S::kVersion || status == S::kChecksum ||
                          status == S::kInvalidValue || status == S::kInvalidParts;
  return fail(blob_fault ? RAMUS_FILE_ERROR : RAMUS_INVALID_ARGUMENT,
              std::string(what) + ": " + ramus::to_string(status));
}

// After a restore: the object's world gravity and wind are its restored model-axes ones turned
// by its placement.
void world_vectors_from_settings(ramus_object& o) {
  o.world_gravity = o.rotation * o.simulator.settings().gravity;
  o.world_wind = o.rotation * o.simulator.settings().wind.mean_velocity;
}

}  // namespace

extern "C" {

int ramus_model_num_parts(const ramus_model* model) {
  return model ? static_cast<int>(model->model->parts.size()) : 0;
}

const char* ramus_model_part_name(const ramus_model* model, int part) {
  if (!model || part < 0 || part >= static_cast<int>(model->model->parts.size())) return nullptr;
  return model->model->parts[static_cast<std::size_t>(part)].name.c_str();
}

ramus_status ramus_model_domain_info(const ramus_model* model, int domain, ramus_domain_info* out) {
  if (!model || !out) return fail(RAMUS_INVALID_ARGUMENT, "domain info: NULL model or output");
  const ramus::Model& m = *model->model;
  if (ramus_status s = check_domain(m, domain, "domain info"); s != RAMUS_OK) return s;
  const ramus::Domain& d = m.domains[static_cast<std::size_t>(domain)];
  out->name = d.name.c_str();
  out->parent = d.parent;
  out->part = d.part;
  out->num_coordinates = d.r;
  out->num_children = d.num_children;
  out->num_vertices = static_cast<int>(m.part_of(domain).rest_positions.rows());
  return succeed();
}

ramus_status ramus_object_get_time_step(const ramus_object* object, double* time_step) {
  if (!object || !time_step) return fail(RAMUS_INVALID_ARGUMENT, "time step: NULL argument");
  *time_step = object->simulator.settings().time_step;
  return succeed();
}

ramus_status ramus_object_get_gravity(const ramus_object* object, double gravity[3]) {
  if (!object || !gravity) return fail(RAMUS_INVALID_ARGUMENT, "gravity: NULL argument");
  Eigen::Map<Eigen::Vector3d> out(gravity);
  out = object->world_gravity;
  return succeed();
}

ramus_status ramus_object_set_threads(ramus_object* object, int threads) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "threads: object is NULL");
  if (threads < 1)
    return fail(RAMUS_INVALID_ARGUMENT,
                "threads: " + std::to_string(threads) + " (must be at least 1)");
  return guarded([&] {
    object->simulator.set_threads(threads);
    return succeed();
  });
}

int ramus_object_threads(const ramus_object* object) {
  return object ? object->simulator.workspace().threads() : 0;
}

ramus_status ramus_object_move_placement(ramus_object* object, const double rotation[9],
                                         const double translation[3], double seconds) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "move placement: object is NULL");
  if (ramus_status s = check_vector(rotation, 9, "move placement: rotation"); s != RAMUS_OK)
    return s;
  if (ramus_status s = check_vector(translation, 3, "move placement: translation"); s != RAMUS_OK)
    return s;
  // The target placement's root frame in the object's model axes (its placement the reference).
  const ramus::Domain& root = object->simulator.model().domains.front();
  const Eigen::Matrix3d R_target =
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(rotation);
  ramus::RigidPose target;
  target.rotation = object->rotation.transpose() * R_target * root.rest_rotation;
  target.translation = object->rotation.transpose() *
                       (R_target * root.rest_origin +
                        Eigen::Map<const Eigen::Vector3d>(translation) - object->translation);
  return guarded([&] {
    object->simulator.move_anchor(target, seconds);
    return succeed();
  });
}

ramus_status ramus_object_domain_frame(const ramus_object* object, int domain, double rotation[9],
                                       double origin[3]) {
  if (!object || !rotation || !origin)
    return fail(RAMUS_INVALID_ARGUMENT, "domain frame: NULL argument");
  const ramus::State& s = object->simulator.state();
  if (ramus_status st = check_domain(object->simulator.model(), domain, "domain frame");
      st != RAMUS_OK)
    return st;
  // World = placement ∘ the frame in model axes.
  Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(rotation);
  Eigen::Map<Eigen::Vector3d> x(origin);
  R = object->rotation * s.frame_rotation.middleCols<3>(3 * domain);
  x = object->rotation * s.frame_origin.col(domain) + object->translation;
  return succeed();
}

ramus_status ramus_object_domain_velocity(const ramus_object* object, int domain,
                                          double velocity[3], double angular_velocity[3]) {
  if (!object || !velocity || !angular_velocity)
    return fail(RAMUS_INVALID_ARGUMENT, "domain velocity: NULL argument");
  const ramus::State& s = object->simulator.state();
  if (ramus_status st = check_domain(object->simulator.model(), domain, "domain velocity");
      st != RAMUS_OK)
    return st;
  // The State keeps them in the frame's own axes.
  const Eigen::Matrix3d to_world = object->rotation * s.frame_rotation.middleCols<3>(3 * domain);
  Eigen::Map<Eigen::Vector3d> v(velocity), w(angular_velocity);
  v = to_world * s.frame_velocity.col(domain);
  w = to_world * s.frame_angular_velocity.col(domain);
  return succeed();
}

ramus_status ramus_object_domain_coordinates(const ramus_object* object, int domain, double* q,
                                             double* qdot, size_t count) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "domain coordinates: object is NULL");
  const ramus::Model& m = object->simulator.model();
  if (ramus_status st = check_domain(m, domain, "domain coordinates"); st != RAMUS_OK) return st;
  const ramus::Domain& d = m.domains[static_cast<std::size_t>(domain)];
  if (count != static_cast<size_t>(d.r))
    return fail(RAMUS_INVALID_ARGUMENT, "domain coordinates: count " + std::to_string(count) +
                                            ", the domain has r = " + std::to_string(d.r));
  const ramus::State& s = object->simulator.state();
  if (q) Eigen::VectorXd::Map(q, d.r) = s.q.segment(d.dof_offset, d.r);
  if (qdot) Eigen::VectorXd::Map(qdot, d.r) = s.qdot.segment(d.dof_offset, d.r);
  return succeed();
}

ramus_status ramus_object_reset(ramus_object* object) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "reset: object is NULL");
  if (object->simulator.reset() != ramus::StepStatus::kOk)
    return fail(RAMUS_INTERNAL_ERROR, "reset: the rest state does not initialize");
  return succeed();
}

size_t ramus_object_state_size(const ramus_object* object, unsigned parts) {
  return object ? object->simulator.state_size(parts) : 0;
}

ramus_status ramus_object_save_state(const ramus_object* object, unsigned parts, void* buffer,
                                     size_t capacity, size_t* written) {
  if (written) *written = 0;
  if (!object || !buffer) return fail(RAMUS_INVALID_ARGUMENT, "save state: NULL argument");
  const size_t size = object->simulator.state_size(parts);
  if (size == 0)
    return fail(RAMUS_INVALID_ARGUMENT, "save state: unknown parts " + std::to_string(parts));
  if (capacity < size)
    return fail(RAMUS_INVALID_ARGUMENT, "save state: the buffer holds " + std::to_string(capacity) +
                                            " bytes, the snapshot " + std::to_string(size));
  object->simulator.save_state(parts, buffer, capacity);
  if (written) *written = size;
  return succeed();
}

ramus_status ramus_object_restore_state(ramus_object* object, const void* buffer, size_t size) {
  if (!object || !buffer) return fail(RAMUS_INVALID_ARGUMENT, "restore state: NULL argument");
  return guarded([&] {
    const ramus_status s =
        from_snapshot(object->simulator.restore_state(buffer, size), "restore state");
    if (s == RAMUS_OK) world_vectors_from_settings(*object);
    return s;
  });
}

ramus_status ramus_object_copy_state(ramus_object* to, const ramus_object* from, unsigned parts) {
  if (!to || !from) return fail(RAMUS_INVALID_ARGUMENT, "copy state: NULL object");
  return guarded([&] {
    const ramus_status s =
        from_snapshot(to->simulator.copy_state_from(from->simulator, parts), "copy state");
    if (s == RAMUS_OK) world_vectors_from_settings(*to);
    return s;
  });
}

}  // extern "C"

// Many objects: each task steps one object and records its status; the caller's thread then
// names the first failure.
namespace {

struct Batch {
  ramus_object* const* objects;
  ramus_status* statuses;
  std::atomic<int> failed{0};
};

ramus_status batch_status(ramus::StepStatus status) {
  switch (status) {
    case ramus::StepStatus::kOk:
      return RAMUS_OK;
    case ramus::StepStatus::kNonFinite:
      return RAMUS_NON_FINITE;
    case ramus::StepStatus::kDiverged:
      return RAMUS_DIVERGED;
    case ramus::StepStatus::kSolverFailed:
      return RAMUS_SOLVER_FAILED;
    case ramus::StepStatus::kInvalidSettings:
    case ramus::StepStatus::kWrongModel:
      return RAMUS_INVALID_ARGUMENT;
  }
  return RAMUS_INTERNAL_ERROR;
}

void step_task(void* context, int k) {
  Batch& batch = *static_cast<Batch*>(context);
  ramus_object* object = batch.objects[k];
  const ramus_status s = object ? batch_status(object->simulator.step()) : RAMUS_INVALID_ARGUMENT;
  if (batch.statuses) batch.statuses[k] = s;
  if (s != RAMUS_OK) batch.failed.fetch_add(1, std::memory_order_relaxed);
}

int finish_batch(Batch& batch, size_t count) {
  const int failed = batch.failed.load();
  if (failed == 0) return succeed(), 0;
  std::string first = " (statuses name them)";
  for (size_t k = 0; batch.statuses && k < count; ++k)
    if (batch.statuses[k] != RAMUS_OK) {
      first = " (first: object " + std::to_string(k) + ", " + ramus_status_name(batch.statuses[k]) +
              ")";
      break;
    }
  fail(RAMUS_INVALID_ARGUMENT, "step objects: " + std::to_string(failed) + " of " +
                                   std::to_string(count) + " failed" + first);
  return failed;
}

}  // namespace

extern "C" {

int ramus_step_objects(ramus_object* const* objects, size_t count, int threads,
                       ramus_status* statuses) {
  if (!objects && count > 0)
    return (void)fail(RAMUS_INVALID_ARGUMENT, "step objects: objects are NULL"),
           static_cast<int>(count);
  Batch batch{objects, statuses};
  ramus::parallel_for(static_cast<int>(count), threads, [&batch](int k) { step_task(&batch, k); });
  return finish_batch(batch, count);
}

int ramus_step_objects_on(ramus_object* const* objects, size_t count,
                          ramus_parallel_for parallel_for, void* job_system,
                          ramus_status* statuses) {
  if (!objects && count > 0)
    return (void)fail(RAMUS_INVALID_ARGUMENT, "step objects: objects are NULL"),
           static_cast<int>(count);
  if (!parallel_for) return ramus_step_objects(objects, count, 1, statuses);
  Batch batch{objects, statuses};
  parallel_for(job_system, static_cast<int>(count), step_task, &batch);
  return finish_batch(batch, count);
}

}  // extern "C"
