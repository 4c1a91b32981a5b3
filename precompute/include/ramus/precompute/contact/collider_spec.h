// A spec's colliders (docs/SPEC.md, "Colliders"): the keys of one entry of "colliders", declared
// once here (the parser accepts exactly these, and a test checks that SPEC.md documents each),
// the parsed colliders, and their defaults resolved against the simulated mesh.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "ramus/precompute/contact/step_contact.h"

namespace ramus {

/// X(json_key, unit, doc) for every key of a "colliders" entry. Lengths are in the spec's units
/// (converted to metres with its "units", like every position of a spec).
#define RAMUS_COLLIDER_KEYS(X)                                                                     \
  X("shape", "", "half_space, sphere, capsule, box, cylinder, bowl or mesh (required)")            \
  X("position", "length", "its origin at t = 0 (a half-space: a point of its surface)")            \
  X("rotation", "", "its orientation: rows of a matrix, or {\"axis\": [x, y, z], \"degrees\": a}") \
  X("normal", "", "half_space: the outward normal (in place of rotation)")                         \
  X("radius", "length", "sphere, capsule, cylinder: the radius")                                   \
  X("half_length", "length", "capsule: half the axis segment along its local z")                   \
  X("half_size", "length", "box: half its sizes [x, y, z]")                                        \
  X("half_height", "length", "cylinder: half its height along its local z")                        \
  X("edge_radius", "length", "box, cylinder: the rounding of its edges (default 0)")               \
  X("inner_radius", "length", "bowl: the radius of its inside (opening towards local +z)")         \
  X("thickness", "length", "bowl: its wall's thickness")                                           \
  X("file", "", "mesh: a closed triangle surface (.obj, .off, .ply, .stl; in the spec's units)")   \
  X("voxel_size", "length",                                                                        \
    "mesh: its grid level set's spacing (default 1/64 of the mesh's largest side; at most 2 "      \
    "delta)")                                                                                      \
  X("velocity", "length/s", "its linear velocity (default 0)")                                     \
  X("angular_velocity", "rad/s", "its angular velocity about its origin, world axes")              \
  X("keyframes", "",                                                                               \
    "[{\"time\", \"position\", \"rotation\" or \"normal\"}, ...]: poses at times (s), two or "     \
    "more, interpolated (slerp) and held outside them; in place of the velocities")                \
  X("contact", "",                                                                                 \
    "barrier (default: never reached), penalty (-k phi^3 where phi < 0) or constraint (phi >= "    \
    "0 kept exactly by projection; analytic shapes)")                                              \
  X("delta", "length",                                                                             \
    "barrier: the activation distance; penalty: the depth at which it holds ten vertex "           \
    "weights; constraint: the deepest a line-search trial takes a vertex before projecting it "    \
    "(default 1e-3 of the mesh's bounding-box diagonal)")                                          \
  X("stiffness", "J/m^2 or J/m^3",                                                                 \
    "barrier kappa or penalty k (default: automatic, from the vertex masses)")                     \
  X("friction", "", "Coulomb's mu (default 0: frictionless)")

/// The keys of RAMUS_COLLIDER_KEYS as the Markdown table of docs/SPEC.md ("Colliders"; a test
/// checks it matches; `ramus settings --collider-table` prints it).
std::string collider_keys_markdown_table();

/// One "colliders" entry: the collider, and which defaults are still to resolve.
struct ColliderSpec {
  ColliderContact contact;
  std::optional<double> delta;       ///< m; absent: 1e-3 of the mesh's diagonal
  std::optional<double> stiffness;   ///< absent: automatic
  std::string key;                   ///< "colliders[i]", for messages
  std::string mesh_file;             ///< a mesh collider's surface (resolved path)
  std::optional<double> voxel_size;  ///< m; absent: 1/64 of the mesh's largest side
  double length_unit = 1;            ///< metres per unit of the mesh file's coordinates
};

/// A spec's contact: its colliders and the "contact" block's friction smoothing speed.
struct ContactSpec {
  std::vector<ColliderSpec> colliders;
  double friction_speed = 1e-3;  ///< m/s ("contact.friction_speed")
  FrictionModel friction_model = FrictionModel::kSmoothedPotential;  ///< "contact.friction_model"
  bool self_collision = false;                                       ///< "contact.self_collision"
  std::optional<double> self_depth;      ///< m, the depth holding ten vertex weights; absent: delta
  std::optional<double> self_stiffness;  ///< J/m³; absent: from self_depth
  double self_friction = 0;              ///< mu of the after-solve impulse
};

/// Contact options for a run of `rest_positions` (#V by 3, m) with lumped `vertex_masses` (#V,
/// kg): delta defaults to 1e-3 of the bounding-box diagonal; a penalty's default k makes depth
/// delta hold ten average vertex weights. Throws InputError (file `spec_path`, the collider's
/// key) when a barrier collider has a vertex at or inside its surface at t = 0; a penalty
/// collider that starts overlapping gets a warning in `warnings`. Self-collision's k defaults
/// likewise: depth self_depth (default 1e-3 of the diagonal) holds ten average vertex weights.
/// A mesh collider's grid level set is built here (OpenVDB); its delta defaults to the larger
/// of 1e-3 of the diagonal and its voxel size, and a voxel larger than 2 delta is refused.
/// A mesh collider's grid level set for the runtime's barrier of activation distance
/// `contact_distance` (m): the spec's voxel (by default at most that distance) and an exterior
/// band of at least 4 times the larger of it and the spec's delta. Throws InputError as above.
std::shared_ptr<const GridLevelSet> runtime_collider_grid(const ColliderSpec& spec,
                                                          const std::string& spec_path,
                                                          double contact_distance);

ContactOptions resolve_contact_options(const ContactSpec& spec, const std::string& spec_path,
                                       const Eigen::MatrixX3d& rest_positions,
                                       const Eigen::VectorXd& vertex_masses,
                                       std::vector<std::string>& warnings);

}  // namespace ramus
