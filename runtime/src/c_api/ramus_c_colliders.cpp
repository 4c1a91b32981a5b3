// The C interface's kinematic colliders (ramus/ramus.h): world poses and velocities turned into
// the object's model axes through its placement, then the Simulator's ColliderSet.
#include <Eigen/Geometry>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>

#include "c_object.h"
#include "ramus/ramus.h"

using ramus::c_api::check_vector;
using ramus::c_api::fail;
using ramus::c_api::succeed;

namespace {

static_assert(static_cast<int>(ramus::ColliderShape::kMesh) == RAMUS_GRID &&
                  static_cast<int>(ramus::ColliderShape::kBowl) == RAMUS_BOWL,
              "the C shapes are the runtime's, in its order");

// A C collider in the object's model axes; RAMUS_INVALID_ARGUMENT for nulls, non-finite values
// or an unknown shape (the rest is collider_problem's).
ramus_status to_model(const ramus_object& o, const ramus_collider* c, ramus::Collider& out) {
  if (!c) return fail(RAMUS_INVALID_ARGUMENT, "collider: NULL");
  if (!(c->shape >= RAMUS_HALF_SPACE && c->shape <= RAMUS_GRID))
    return fail(RAMUS_INVALID_ARGUMENT,
                "collider: unknown shape " + std::to_string(static_cast<int>(c->shape)));
  for (const auto& [values, n, what] :
       {std::tuple{c->size, 4, "collider: size"}, std::tuple{c->rotation, 9, "collider: rotation"},
        std::tuple{c->position, 3, "collider: position"},
        std::tuple{c->velocity, 3, "collider: velocity"},
        std::tuple{c->angular_velocity, 3, "collider: angular_velocity"}})
    if (ramus_status s = check_vector(values, n, what); s != RAMUS_OK) return s;
  out.shape = static_cast<ramus::ColliderShape>(c->shape);
  out.size = Eigen::Map<const Eigen::Vector4d>(c->size);
  const Eigen::Matrix3d R_world =
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(c->rotation);
  out.pose.rotation = o.rotation.transpose() * R_world;
  out.pose.translation =
      o.rotation.transpose() * (Eigen::Map<const Eigen::Vector3d>(c->position) - o.translation);
  out.velocity = o.rotation.transpose() * Eigen::Map<const Eigen::Vector3d>(c->velocity);
  out.angular_velocity =
      o.rotation.transpose() * Eigen::Map<const Eigen::Vector3d>(c->angular_velocity);
  out.friction = c->friction;
  if (c->shape == RAMUS_GRID) {
    if (ramus_status s = check_vector(c->grid_origin, 3, "collider: grid_origin"); s != RAMUS_OK)
      return s;
    out.grid.values = c->grid_values;
    out.grid.samples = Eigen::Map<const Eigen::Vector3i>(c->grid_samples);
    out.grid.origin = Eigen::Map<const Eigen::Vector3d>(c->grid_origin);
    out.grid.spacing = c->grid_spacing;
  }
  if (const char* problem = ramus::collider_problem(out))
    return fail(RAMUS_INVALID_ARGUMENT, std::string("collider: ") + problem);
  return RAMUS_OK;
}

ramus_status unknown_id(int id) {
  return fail(RAMUS_INVALID_ARGUMENT, "collider " + std::to_string(id) + " does not exist");
}

}  // namespace

extern "C" {

int ramus_object_add_collider(ramus_object* object, const ramus_collider* collider,
                              ramus_status* status) {
  ramus_status result = RAMUS_INVALID_ARGUMENT;
  int id = -1;
  ramus::Collider c;
  if (!object)
    result = fail(RAMUS_INVALID_ARGUMENT, "add collider: object is NULL");
  else if ((result = to_model(*object, collider, c)) == RAMUS_OK) {
    const ramus::ColliderResult added = object->simulator.add_collider(c);
    if (added.status == ramus::ColliderStatus::kOk) {
      id = added.id;
      result = succeed();
    } else
      result = fail(RAMUS_INVALID_ARGUMENT, std::string("add collider: ") + added.message);
  }
  if (status) *status = result;
  return id;
}

ramus_status ramus_object_set_collider(ramus_object* object, int id,
                                       const ramus_collider* collider) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "set collider: object is NULL");
  ramus::Collider c;
  if (ramus_status s = to_model(*object, collider, c); s != RAMUS_OK) return s;
  if (object->simulator.colliders().replace(id, c) != ramus::ColliderStatus::kOk)
    return unknown_id(id);
  return succeed();
}

ramus_status ramus_object_move_collider(ramus_object* object, int id, const double rotation[9],
                                        const double position[3], double seconds) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "move collider: object is NULL");
  if (ramus_status s = check_vector(rotation, 9, "move collider: rotation"); s != RAMUS_OK)
    return s;
  if (ramus_status s = check_vector(position, 3, "move collider: position"); s != RAMUS_OK)
    return s;
  if (!object->simulator.colliders().contains(id)) return unknown_id(id);
  ramus::RigidPose target;
  target.rotation = object->rotation.transpose() *
                    Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(rotation);
  target.translation = object->rotation.transpose() *
                       (Eigen::Map<const Eigen::Vector3d>(position) - object->translation);
  if (object->simulator.colliders().move_kinematic(id, target, seconds) !=
      ramus::ColliderStatus::kOk)
    return fail(RAMUS_INVALID_ARGUMENT,
                "move collider: seconds must be positive and the pose a rotation and a position");
  return succeed();
}

ramus_status ramus_object_remove_collider(ramus_object* object, int id) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "remove collider: object is NULL");
  if (object->simulator.colliders().remove(id) != ramus::ColliderStatus::kOk) return unknown_id(id);
  return succeed();
}

ramus_status ramus_object_contact(const ramus_object* object, double force[3], int* active,
                                  double* smallest_distance) {
  if (!object) return fail(RAMUS_INVALID_ARGUMENT, "contact: object is NULL");
  const ramus::ContactReport report = object->simulator.contact();
  if (force) {
    Eigen::Map<Eigen::Vector3d> out(force);
    out = object->rotation * report.force;
  }
  if (active) *active = report.active;
  if (smallest_distance) *smallest_distance = report.smallest_distance;
  return succeed();
}

}  // extern "C"
