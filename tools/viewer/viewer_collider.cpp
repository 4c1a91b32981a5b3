#define GLFW_INCLUDE_NONE
#include "viewer_collider.h"

#include <GLFW/glfw3.h>

#include <cmath>

namespace ramus::viewer {

DrivenCollider make_driven_collider(double radius, double half_length,
                                    const Eigen::Vector3d& start) {
  DrivenCollider driven;
  driven.radius = radius;
  driven.half_length = half_length;
  driven.start = start;
  // Latitude by longitude: (rings + 1) by (segments + 1) vertices, two triangles a quad; an odd
  // number of rings puts no ring on the equator, so the quads across it stretch into a capsule's
  // cylinder.
  constexpr int rings = 17, segments = 32;
  for (int i = 0; i <= rings; ++i) {
    const double theta = M_PI * i / rings;
    for (int j = 0; j <= segments; ++j) {
      const double phi = 2 * M_PI * j / segments;
      const float n[3] = {static_cast<float>(std::sin(theta) * std::cos(phi)),
                          static_cast<float>(std::sin(theta) * std::sin(phi)),
                          static_cast<float>(std::cos(theta))};
      driven.unit.insert(driven.unit.end(),
                         {n[0], n[1], n[2], n[0], n[1], n[2], 0.95f, 0.5f, 0.1f});
      driven.side.push_back(2 * i < rings ? 1.0f : -1.0f);
    }
  }
  for (int i = 0; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const auto a = static_cast<unsigned>(i * (segments + 1) + j), b = a + segments + 1;
      driven.index.insert(driven.index.end(), {a, b, a + 1, a + 1, b, b + 1});
    }
  driven.buffer = driven.unit;
  return driven;
}

const char* sync_driven_collider(Simulator& simulator, DrivenCollider& driven) {
  // Out of the scene when unwanted or of the other shape (then in again, where it was).
  Eigen::Vector3d position = driven.start;
  if (driven.id >= 0 && (!driven.wanted || driven.id_is_capsule != driven.capsule)) {
    position = simulator.colliders()[driven.id].pose.translation;
    simulator.colliders().remove(driven.id);
    driven.id = -1;
  }
  if (!driven.wanted || driven.id >= 0) return nullptr;
  Collider collider;
  collider.shape = driven.capsule ? ColliderShape::kCapsule : ColliderShape::kSphere;
  collider.size = Eigen::Vector4d(driven.radius, driven.capsule ? driven.half_length : 0, 0, 0);
  collider.pose.translation = position;
  collider.friction = 0.3;
  static ColliderResult added;
  added = simulator.add_collider(collider);
  if (added.status != ColliderStatus::kOk) {
    driven.wanted = false;
    return added.message;
  }
  driven.id = added.id;
  driven.id_is_capsule = driven.capsule;
  return nullptr;
}

void drive_collider(Simulator& simulator, const DrivenCollider& driven,
                    const Eigen::Vector3d& velocity) {
  if (driven.id < 0) return;
  Collider moved = simulator.colliders()[driven.id];
  moved.velocity = velocity;
  simulator.colliders().replace(driven.id, moved);
}

Eigen::Vector3d key_velocity(GLFWwindow* window, float yaw, double speed) {
  const auto down = [window](int key) { return glfwGetKey(window, key) == GLFW_PRESS ? 1.0 : 0.0; };
  // The camera looks along -(cos yaw, sin yaw) on the ground; right is its perpendicular.
  const Eigen::Vector3d forward(-std::cos(yaw), -std::sin(yaw), 0);
  const Eigen::Vector3d right(-std::sin(yaw), std::cos(yaw), 0);
  const Eigen::Vector3d v =
      (down(GLFW_KEY_UP) - down(GLFW_KEY_DOWN)) * forward +
      (down(GLFW_KEY_RIGHT) - down(GLFW_KEY_LEFT)) * right +
      (down(GLFW_KEY_PAGE_UP) - down(GLFW_KEY_PAGE_DOWN)) * Eigen::Vector3d::UnitZ();
  return speed * v;
}

void place_driven_collider(const Simulator& simulator, DrivenCollider& driven) {
  if (driven.id < 0) return;
  const Eigen::Vector3f c = simulator.colliders()[driven.id].pose.translation.cast<float>();
  const auto r = static_cast<float>(driven.radius);
  const auto l = driven.id_is_capsule ? static_cast<float>(driven.half_length) : 0.0f;
  for (std::size_t v = 0; v < driven.unit.size(); v += 9) {
    for (int k = 0; k < 3; ++k)
      driven.buffer[v + static_cast<std::size_t>(k)] =
          c(k) + r * driven.unit[v + static_cast<std::size_t>(k)];
    driven.buffer[v + 2] += l * driven.side[v / 9];
  }
}

}  // namespace ramus::viewer
