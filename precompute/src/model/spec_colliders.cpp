// The spec's "colliders" array and "contact" block (docs/SPEC.md, "Colliders"): shapes with the
// sizes each needs, poses, motions, contact models and friction, each value checked by key.
#include <Eigen/Geometry>
#include <cmath>
#include <map>

#include "ramus/precompute/contact/collider_spec.h"
#include "spec_reader.h"

namespace ramus::spec {

namespace {

// A shape's name in the spec, and the size keys it needs (the rest of RAMUS_COLLIDER_KEYS'
// size keys do not apply to it).
struct ShapeKeys {
  ColliderShape shape;
  std::vector<const char*> required, optional;
};

const std::map<std::string, ShapeKeys>& shape_keys() {
  static const std::map<std::string, ShapeKeys> shapes = {
      {"half_space", {ColliderShape::kHalfSpace, {}, {"normal"}}},
      {"sphere", {ColliderShape::kSphere, {"radius"}, {}}},
      {"capsule", {ColliderShape::kCapsule, {"radius", "half_length"}, {}}},
      {"box", {ColliderShape::kRoundedBox, {"half_size"}, {"edge_radius"}}},
      {"cylinder", {ColliderShape::kCylinder, {"radius", "half_height"}, {"edge_radius"}}},
      {"bowl", {ColliderShape::kBowl, {"inner_radius", "thickness"}, {}}},
      {"mesh", {ColliderShape::kMesh, {"file"}, {"voxel_size"}}}};
  return shapes;
}

const std::vector<std::string>& shape_specific_keys() {
  static const std::vector<std::string> keys = {
      "normal",      "radius",       "half_length", "half_size", "half_height",
      "edge_radius", "inner_radius", "thickness",   "file",      "voxel_size"};
  return keys;
}

// The sizes vector of ColliderShape's convention, in metres.
Eigen::Vector4d collider_sizes(const SpecReader& r, const json& c, const std::string& key,
                               ColliderShape shape, double unit) {
  const auto length = [&](const char* name) {
    return c.contains(name) ? unit * r.number(c[name], key + "." + name) : 0.0;
  };
  switch (shape) {
    case ColliderShape::kHalfSpace:
      return Eigen::Vector4d::Zero();
    case ColliderShape::kSphere:
      return {length("radius"), 0, 0, 0};
    case ColliderShape::kCapsule:
      return {length("radius"), length("half_length"), 0, 0};
    case ColliderShape::kRoundedBox: {
      const Eigen::Vector3d half = unit * r.vector3(c["half_size"], key + ".half_size");
      return {half(0), half(1), half(2), length("edge_radius")};
    }
    case ColliderShape::kCylinder:
      return {length("radius"), length("half_height"), length("edge_radius"), 0};
    case ColliderShape::kBowl:
      return {length("inner_radius"), length("thickness"), 0, 0};
    case ColliderShape::kMesh:
      return Eigen::Vector4d::Zero();
  }
  return Eigen::Vector4d::Zero();
}

// The rotation taking local +z to `normal` (the shortest turn).
Eigen::Matrix3d rotation_to_normal(const SpecReader& r, const json& j, const std::string& key) {
  const Eigen::Vector3d normal = r.vector3(j, key);
  const double length = normal.norm();
  if (!(length > 0)) r.fail(key, "must be non-zero");
  return Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), normal / length)
      .toRotationMatrix();
}

// "keyframes": [{"time": t, "position": [...], "rotation" or "normal": ...}, ...], two or more
// in increasing time; a key without a position or rotation takes the collider's own. The
// constant velocities do not combine with them.
std::vector<PoseKeyframe> parse_keyframes(const SpecReader& r, const json& c,
                                          const std::string& key, double unit,
                                          const RigidPose& own) {
  const std::string sub = key + ".keyframes";
  const json& list = c["keyframes"];
  if (!list.is_array() || list.size() < 2)
    r.fail(sub, "expected an array of two or more {\"time\", \"position\", \"rotation\"}");
  for (const char* constant : {"velocity", "angular_velocity"})
    if (c.contains(constant))
      r.fail(key + "." + constant, "give keyframes or a constant motion, not both");
  std::vector<PoseKeyframe> keys;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string at = sub + "[" + std::to_string(i) + "]";
    r.only_keys(list[i], at, {"time", "position", "rotation", "normal"});
    PoseKeyframe k;
    k.pose = own;
    k.time = r.number(r.required(list[i], "time", at), at + ".time");
    if (!keys.empty() && !(k.time > keys.back().time))
      r.fail(at + ".time", "keyframes must be in increasing time");
    if (list[i].contains("position"))
      k.pose.translation = unit * r.vector3(list[i]["position"], at + ".position");
    if (list[i].contains("normal") && list[i].contains("rotation"))
      r.fail(at, "give \"normal\" or \"rotation\", not both");
    if (list[i].contains("normal"))
      k.pose.rotation = rotation_to_normal(r, list[i]["normal"], at + ".normal");
    if (list[i].contains("rotation"))
      k.pose.rotation = parse_rotation(r, list[i]["rotation"], at + ".rotation");
    keys.push_back(k);
  }
  return keys;
}

ColliderSpec parse_collider(const SpecReader& r, const json& c, const std::string& key,
                            double unit) {
  std::vector<std::string> allowed;
#define RAMUS_ALLOWED_KEY(json_key, unit_name, doc) allowed.push_back(json_key);
  RAMUS_COLLIDER_KEYS(RAMUS_ALLOWED_KEY)
#undef RAMUS_ALLOWED_KEY
  r.only_keys(c, key, allowed);
  // The shape, and the size keys it takes.
  const json& shape_json = r.required(c, "shape", key);
  const auto found = shape_json.is_string() ? shape_keys().find(shape_json.get<std::string>())
                                            : shape_keys().end();
  if (found == shape_keys().end())
    r.fail(key + ".shape",
           "expected half_space, sphere, capsule, box, cylinder, bowl or mesh; got " +
               shown(shape_json));
  const ShapeKeys& keys = found->second;
  for (const std::string& name : shape_specific_keys()) {
    const bool takes =
        std::find(keys.required.begin(), keys.required.end(), name) != keys.required.end() ||
        std::find(keys.optional.begin(), keys.optional.end(), name) != keys.optional.end();
    if (c.contains(name) && !takes) r.fail(key + "." + name, "does not apply to a " + found->first);
  }
  for (const char* name : keys.required) r.required(c, name, key);
  ColliderSpec spec;
  spec.key = key;
  LevelSetCollider& collider = spec.contact.collider;
  collider.shape = keys.shape;
  collider.size = collider_sizes(r, c, key, keys.shape, unit);
  if (const char* problem = collider_size_problem(keys.shape, collider.size))
    r.fail(key, std::string(problem) + " (" + found->first + ")");
  // A mesh: its file, read and turned into a grid when the run's options are resolved.
  if (keys.shape == ColliderShape::kMesh) {
    const json& file = c["file"];
    if (!file.is_string() || file.get<std::string>().empty())
      r.fail(key + ".file", "expected a surface file name (.obj, .off, .ply or .stl)");
    spec.mesh_file = resolve_path(file.get<std::string>(), r.file());
    spec.length_unit = unit;
    if (c.contains("voxel_size"))
      spec.voxel_size = unit * r.positive(c["voxel_size"], key + ".voxel_size");
  }
  // Pose and motion.
  if (c.contains("normal") && c.contains("rotation"))
    r.fail(key, "give \"normal\" or \"rotation\", not both");
  if (c.contains("normal"))
    collider.motion.initial.rotation = rotation_to_normal(r, c["normal"], key + ".normal");
  if (c.contains("rotation"))
    collider.motion.initial.rotation = parse_rotation(r, c["rotation"], key + ".rotation");
  if (c.contains("position"))
    collider.motion.initial.translation = unit * r.vector3(c["position"], key + ".position");
  if (c.contains("velocity"))
    collider.motion.linear_velocity = unit * r.vector3(c["velocity"], key + ".velocity");
  if (c.contains("angular_velocity"))
    collider.motion.angular_velocity = r.vector3(c["angular_velocity"], key + ".angular_velocity");
  if (c.contains("keyframes"))
    collider.motion.keyframes = parse_keyframes(r, c, key, unit, collider.motion.initial);
  // Contact model, its distance and stiffness, friction.
  if (c.contains("contact")) {
    const json& model = c["contact"];
    if (model == "barrier")
      spec.contact.model = ContactModel::kBarrier;
    else if (model == "penalty")
      spec.contact.model = ContactModel::kPenalty;
    else if (model == "constraint")
      spec.contact.model = ContactModel::kConstraint;
    else
      r.fail(key + ".contact", "expected barrier, penalty or constraint; got " + shown(model));
  }
  // A constraint projects onto the surface x - phi grad phi: exact for the analytic shapes'
  // distances only; and it has no stiffness.
  if (spec.contact.model == ContactModel::kConstraint) {
    if (keys.shape == ColliderShape::kMesh)
      r.fail(key + ".contact",
             "a constraint needs an analytic shape (its projection x - phi grad phi is exact only "
             "for exact distances); use barrier or penalty for a mesh");
    if (c.contains("stiffness"))
      r.fail(key + ".stiffness",
             "a constraint collider has no stiffness (it keeps every vertex exactly outside)");
  }
  if (c.contains("delta")) spec.delta = unit * r.positive(c["delta"], key + ".delta");
  if (c.contains("stiffness")) spec.stiffness = r.positive(c["stiffness"], key + ".stiffness");
  if (c.contains("friction")) {
    spec.contact.friction = r.number(c["friction"], key + ".friction");
    if (!(spec.contact.friction >= 0 && spec.contact.friction <= 100))
      r.fail(key + ".friction", "must lie in [0, 100], got " + shown(c["friction"]));
  }
  return spec;
}

}  // namespace

ContactSpec parse_contact(const SpecReader& r, const json& root, double unit) {
  ContactSpec contact;
  if (root.contains("colliders")) {
    const json& colliders = root["colliders"];
    if (!colliders.is_array()) r.fail("colliders", "expected an array of colliders");
    for (std::size_t i = 0; i < colliders.size(); ++i)
      contact.colliders.push_back(
          parse_collider(r, colliders[i], "colliders[" + std::to_string(i) + "]", unit));
  }
  if (root.contains("contact")) {
    const json& block = root["contact"];
    r.only_keys(block, "contact",
                {"friction_speed", "friction_model", "self_collision", "self_depth",
                 "self_stiffness", "self_friction"});
    if (block.contains("friction_speed"))
      contact.friction_speed = unit * r.positive(block["friction_speed"], "contact.friction_speed");
    if (block.contains("friction_model")) {
      const json& model = block["friction_model"];
      if (model == "smoothed")
        contact.friction_model = FrictionModel::kSmoothedPotential;
      else if (model == "after_solve")
        contact.friction_model = FrictionModel::kAfterSolve;
      else
        r.fail("contact.friction_model", "expected smoothed or after_solve; got " + shown(model));
    }
    // The mesh against itself (and its copies against each other).
    if (block.contains("self_collision")) {
      if (!block["self_collision"].is_boolean())
        r.fail("contact.self_collision",
               "expected true or false; got " + shown(block["self_collision"]));
      contact.self_collision = block["self_collision"].get<bool>();
    }
    for (const char* name : {"self_depth", "self_stiffness", "self_friction"})
      if (block.contains(name) && !contact.self_collision)
        r.fail(std::string("contact.") + name, "needs \"self_collision\": true");
    if (block.contains("self_depth"))
      contact.self_depth = unit * r.positive(block["self_depth"], "contact.self_depth");
    if (block.contains("self_stiffness"))
      contact.self_stiffness = r.positive(block["self_stiffness"], "contact.self_stiffness");
    if (block.contains("self_friction")) {
      contact.self_friction = r.number(block["self_friction"], "contact.self_friction");
      if (!(contact.self_friction >= 0 && contact.self_friction <= 100))
        r.fail("contact.self_friction",
               "must lie in [0, 100], got " + shown(block["self_friction"]));
    }
    if (contact.self_depth && contact.self_stiffness)
      r.fail("contact", "give \"self_depth\" or \"self_stiffness\", not both");
  }
  return contact;
}

}  // namespace ramus::spec
