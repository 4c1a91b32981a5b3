#define GLFW_INCLUDE_NONE
#include "viewer_collider.h"

#include <GLFW/glfw3.h>

#include <cmath>

namespace ramus::viewer {

DrivenSphere make_driven_sphere(double radius, const Eigen::Vector3d& start) {
  DrivenSphere sphere;
  sphere.radius = radius;
  sphere.start = start;
  // Latitude by longitude: (rings + 1) by (segments + 1) vertices, two triangles a quad.
  constexpr int rings = 16, segments = 32;
  for (int i = 0; i <= rings; ++i) {
    const double theta = M_PI * i / rings;
    for (int j = 0; j <= segments; ++j) {
      const double phi = 2 * M_PI * j / segments;
      const float n[3] = {static_cast<float>(std::sin(theta) * std::cos(phi)),
                          static_cast<float>(std::sin(theta) * std::sin(phi)),
                          static_cast<float>(std::cos(theta))};
      sphere.unit.insert(sphere.unit.end(),
                         {n[0], n[1], n[2], n[0], n[1], n[2], 0.95f, 0.5f, 0.1f});
    }
  }
  for (int i = 0; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const auto a = static_cast<unsigned>(i * (segments + 1) + j), b = a + segments + 1;
      sphere.index.insert(sphere.index.end(), {a, b, a + 1, a + 1, b, b + 1});
    }
  sphere.buffer = sphere.unit;
  return sphere;
}

const char* sync_driven_sphere(Simulator& simulator, DrivenSphere& sphere) {
  if (!sphere.wanted && sphere.id >= 0) {
    simulator.colliders().remove(sphere.id);
    sphere.id = -1;
  }
  if (!sphere.wanted || sphere.id >= 0) return nullptr;
  Collider collider;
  collider.shape = ColliderShape::kSphere;
  collider.size(0) = sphere.radius;
  collider.pose.translation = sphere.start;
  collider.friction = 0.3;
  static ColliderResult added;
  added = simulator.add_collider(collider);
  if (added.status != ColliderStatus::kOk) {
    sphere.wanted = false;
    return added.message;
  }
  sphere.id = added.id;
  return nullptr;
}

void drive_sphere(Simulator& simulator, const DrivenSphere& sphere,
                  const Eigen::Vector3d& velocity) {
  if (sphere.id < 0) return;
  Collider moved = simulator.colliders()[sphere.id];
  moved.velocity = velocity;
  simulator.colliders().replace(sphere.id, moved);
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

void place_driven_sphere(const Simulator& simulator, DrivenSphere& sphere) {
  if (sphere.id < 0) return;
  const Eigen::Vector3f c = simulator.colliders()[sphere.id].pose.translation.cast<float>();
  const auto r = static_cast<float>(sphere.radius);
  for (std::size_t v = 0; v < sphere.unit.size(); v += 9)
    for (int k = 0; k < 3; ++k)
      sphere.buffer[v + static_cast<std::size_t>(k)] =
          c(k) + r * sphere.unit[v + static_cast<std::size_t>(k)];
}

}  // namespace ramus::viewer
