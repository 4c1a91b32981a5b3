#include "ramus/precompute/contact/collider_spec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

#include "ramus/error.h"
#include "ramus/precompute/contact/grid_level_set.h"
#include "ramus/precompute/formats/surface_mesh_io.h"

namespace ramus {

namespace {

constexpr double kDefaultDeltaOfDiagonal = 1e-3;  // IPC's default activation distance
constexpr double kReferenceGravity = 9.81;        // m/s², as the automatic barrier stiffness
constexpr double kWeightsHeldAtDelta = 10;        // a penalty's default: its depth at delta

constexpr double kDefaultVoxelsPerSide = 64;  // a mesh collider's grid, along its largest side
constexpr double kMostVoxelPerDelta = 2;      // coarser, and distances within delta are lost

// A mesh collider's grid level set; `delta` (m) is set to its default when the spec gave none,
// and a voxel the spec does not give is at most `finest_default_voxel` (m).
std::shared_ptr<const GridLevelSet> mesh_collider_grid(const ColliderSpec& s,
                                                       const std::string& spec_path,
                                                       double diagonal, double& delta,
                                                       double finest_default_voxel) {
  SurfaceMesh surface;
  try {
    surface = read_surface_mesh(s.mesh_file);
  } catch (const Error& e) {
    throw InputError(spec_path, 0, s.key + ".file: " + e.what());
  }
  surface.vertices *= s.length_unit;
  const double largest_side =
      surface.num_vertices() > 0
          ? (surface.vertices.colwise().maxCoeff() - surface.vertices.colwise().minCoeff())
                .maxCoeff()
          : 0.0;
  const double voxel =
      s.voxel_size.value_or(std::min(largest_side / kDefaultVoxelsPerSide, finest_default_voxel));
  if (!s.delta) delta = std::max(kDefaultDeltaOfDiagonal * diagonal, voxel);
  if (voxel > kMostVoxelPerDelta * delta) {
    std::ostringstream message;
    message << s.key << ".voxel_size: the grid (voxel " << voxel << " m) is too coarse for delta "
            << delta << " m: at most " << kMostVoxelPerDelta
            << " delta, or distances within delta are lost";
    throw InputError(spec_path, 0, message.str());
  }
  try {
    return std::make_shared<const GridLevelSet>(
        grid_level_set_from_surface(surface, voxel, std::max(4 * delta, 3 * voxel), s.mesh_file));
  } catch (const Error& e) {
    throw InputError(spec_path, 0, s.key + ": " + e.what());
  }
}

}  // namespace

std::shared_ptr<const GridLevelSet> runtime_collider_grid(const ColliderSpec& spec,
                                                          const std::string& spec_path,
                                                          double contact_distance) {
  ColliderSpec given = spec;
  double delta = std::max(contact_distance, spec.delta.value_or(0.0));
  given.delta = delta;
  return mesh_collider_grid(given, spec_path, 0.0, delta, delta);
}

std::string collider_keys_markdown_table() {
  std::string table = "\n| key | unit | meaning |\n|---|---|---|\n";
#define RAMUS_COLLIDER_ROW(json_key, unit, doc) \
  table += std::string("| `") + json_key + "` | " + unit + " | " + doc + " |\n";
  RAMUS_COLLIDER_KEYS(RAMUS_COLLIDER_ROW)
#undef RAMUS_COLLIDER_ROW
  return table + "\n";
}

ContactOptions resolve_contact_options(const ContactSpec& spec, const std::string& spec_path,
                                       const Eigen::MatrixX3d& rest_positions,
                                       const Eigen::VectorXd& vertex_masses,
                                       std::vector<std::string>& warnings) {
  ContactOptions options;
  options.friction_speed = spec.friction_speed;
  options.friction_model = spec.friction_model;
  const double diagonal =
      rest_positions.rows() > 0
          ? (rest_positions.colwise().maxCoeff() - rest_positions.colwise().minCoeff()).norm()
          : 1.0;
  const double average_mass = vertex_masses.size() > 0 ? vertex_masses.mean() : 1.0;
  for (const ColliderSpec& s : spec.colliders) {
    ColliderContact c = s.contact;
    c.delta = s.delta.value_or(kDefaultDeltaOfDiagonal * diagonal);
    if (c.collider.shape == ColliderShape::kMesh)
      c.collider.grid = mesh_collider_grid(s, spec_path, diagonal, c.delta,
                                           std::numeric_limits<double>::infinity());
    // Barrier: 0 asks StepContact for its automatic, adaptive kappa; penalty: depth delta holds
    // ten average vertex weights, 3 k delta² = 10 m g.
    c.stiffness = s.stiffness.value_or(c.model == ContactModel::kBarrier
                                           ? 0.0
                                           : kWeightsHeldAtDelta * average_mass *
                                                 kReferenceGravity / (3 * c.delta * c.delta));
    // At t = 0 no vertex may be at or inside a barrier (it could never leave); a penalty may
    // start overlapping, with a warning, and a constraint too (on its surface is no overlap).
    int inside = 0, deepest = -1;
    double depth = 0;
    for (Eigen::Index v = 0; v < rest_positions.rows(); ++v) {
      const double phi = sample_level_set(c.collider, rest_positions.row(v).transpose(), 0).value;
      if (phi > 0 || (c.model == ContactModel::kConstraint && phi >= 0)) continue;
      ++inside;
      if (-phi >= depth) {
        depth = -phi;
        deepest = static_cast<int>(v);
      }
    }
    if (inside > 0) {
      std::ostringstream message;
      message << s.key << ": " << inside << " vertices start at or inside this collider (vertex "
              << deepest << " " << depth << " m deep)";
      if (c.model == ContactModel::kConstraint) {
        warnings.push_back(message.str() + ": the constraint projects them onto its surface");
        options.colliders.push_back(c);
        continue;
      }
      if (c.model == ContactModel::kBarrier)
        throw InputError(spec_path, 0,
                         message.str() +
                             ": a barrier cannot start overlapping the object; move "
                             "it, or use \"contact\": \"penalty\"");
      warnings.push_back(message.str() + ": the penalty pushes them out in the first steps");
    }
    options.colliders.push_back(c);
  }
  // Self-collision: k d sqrt(d) ~ k depth³, 3 k depth² = 10 m g at self_depth.
  options.self_collision.enabled = spec.self_collision;
  options.self_collision.friction = spec.self_friction;
  const double self_depth = spec.self_depth.value_or(kDefaultDeltaOfDiagonal * diagonal);
  options.self_collision.stiffness = spec.self_stiffness.value_or(
      kWeightsHeldAtDelta * average_mass * kReferenceGravity / (3 * self_depth * self_depth));
  return options;
}

}  // namespace ramus
