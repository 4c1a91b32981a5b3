// A sphere the viewer's user drives through the model (keys), a kinematic collider of the
// Simulator (runtime/contact): its triangles for drawing, its motion from the keys, and the
// scripted sweep of `ramus view --collider-screenshot`.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/runtime/simulator.h"

struct GLFWwindow;

namespace ramus::viewer {

struct DrivenSphere {
  bool wanted = false;  ///< the panel's checkbox
  int id = -1;          ///< the Simulator's collider id; -1: not in the scene
  double radius = 0;    ///< m
  Eigen::Vector3d start = Eigen::Vector3d::Zero();  ///< where it enters the scene (world, m)
  std::vector<float> unit;    ///< a unit sphere: position, normal, colour (9 floats a vertex)
  std::vector<float> buffer;  ///< the same, placed where the collider is
  std::vector<unsigned> index;
};

/// A sphere of radius `radius` (m) that enters at `start`, with its unit mesh (orange, 16 by 32
/// quads) and buffers sized.
DrivenSphere make_driven_sphere(double radius, const Eigen::Vector3d& start);

/// Adds it to (wanted, not in) or removes it from (not wanted, in) the simulator; a sphere the
/// simulator refuses (it starts inside the model) is left out and its reason returned.
const char* sync_driven_sphere(Simulator& simulator, DrivenSphere& sphere);

/// Sets its velocity (m/s, world) for the next steps (kept pose: no teleport).
void drive_sphere(Simulator& simulator, const DrivenSphere& sphere,
                  const Eigen::Vector3d& velocity);

/// The keys' velocity: arrows forward / back / sideways in the camera's ground plane (`yaw`),
/// Page Up / Page Down up and down, at `speed` m/s.
Eigen::Vector3d key_velocity(GLFWwindow* window, float yaw, double speed);

/// The sphere's buffer at the collider's current pose.
void place_driven_sphere(const Simulator& simulator, DrivenSphere& sphere);

}  // namespace ramus::viewer
