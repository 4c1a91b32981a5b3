// A sphere or an upright capsule (a character) the viewer's user drives through the model
// (keys), a kinematic collider of the Simulator (runtime/contact): its triangles for drawing, its
// motion from the keys, and the scripted sweep of `ramus view --collider-screenshot`.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/runtime/simulator.h"

struct GLFWwindow;

namespace ramus::viewer {

struct DrivenCollider {
  bool wanted = false;         ///< the panel's checkbox
  bool capsule = false;        ///< an upright capsule (else a sphere); the panel's other checkbox
  int id = -1;                 ///< the Simulator's collider id; -1: not in the scene
  bool id_is_capsule = false;  ///< the shape of the collider in the scene
  double radius = 0;           ///< m
  double half_length = 0;      ///< the capsule's, between its end spheres' centres (m)
  Eigen::Vector3d start = Eigen::Vector3d::Zero();  ///< where it enters the scene (world, m)
  /// A unit sphere split at its equator: position, normal, colour (9 floats a vertex), and
  /// whether each vertex lies on the upper half (+1) or the lower (-1).
  std::vector<float> unit, side;
  std::vector<float> buffer;  ///< the same, placed where the collider is
  std::vector<unsigned> index;
};

/// A collider of `radius` (m), as a capsule `half_length` (m) long each way from its centre,
/// that enters at `start`, with its unit mesh (orange, 17 by 32 quads) and buffers sized.
DrivenCollider make_driven_collider(double radius, double half_length,
                                    const Eigen::Vector3d& start);

/// Adds it to (wanted, not in) or removes it from (not wanted, in, or of the other shape) the
/// simulator; one the simulator refuses (it starts inside the model) is left out and its reason
/// returned.
const char* sync_driven_collider(Simulator& simulator, DrivenCollider& driven);

/// Sets its velocity (m/s, world) for the next steps (kept pose: no teleport).
void drive_collider(Simulator& simulator, const DrivenCollider& driven,
                    const Eigen::Vector3d& velocity);

/// The keys' velocity: arrows forward / back / sideways in the camera's ground plane (`yaw`),
/// Page Up / Page Down up and down, at `speed` m/s.
Eigen::Vector3d key_velocity(GLFWwindow* window, float yaw, double speed);

/// Its buffer at the collider's current pose.
void place_driven_collider(const Simulator& simulator, DrivenCollider& driven);

}  // namespace ramus::viewer
