// A game loop with Ramus, top to bottom: one model loaded once and shared by several objects,
// a fixed time step advanced by an accumulator (substeps per rendered frame), a pull that starts
// and ends, a capsule character walking past an object and brushing it aside (a kinematic
// collider moved each frame), world positions into a render buffer, and the cost of each frame.
//
//   ./build/release/examples/game_loop out/plant.h5 [frames]
//
// Build against an installed Ramus with find_package(ramus 0.2) and ramus::runtime
// (docs/INSTALL.md); the C interface (ramus/ramus.h) offers the same from C.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "ramus/runtime/simulator.h"

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// One object in the game: its simulation and where the game placed it (a translation here).
struct GameObject {
  ramus::Simulator simulation;
  Eigen::Vector3f offset;
  std::vector<float> render_positions;  // 3 per vertex: what a renderer would upload
};

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: game_loop <model.h5> [frames]\n");
    return 2;
  }
  const int frames = argc > 2 ? std::stoi(argv[2]) : 240;

  // 1. Load once: the model is immutable and shared; each object owns only its state.
  const std::shared_ptr<const ramus::Model> model = ramus::load_model(argv[1]);
  ramus::RuntimeSettings settings = model->settings;  // as precomputed (time step, damping)
  settings.time_step = 1.0 / 120;                     // the game's fixed step: 120 Hz
  std::vector<GameObject> objects;
  objects.reserve(3);
  for (int k = 0; k < 3; ++k) {
    objects.push_back({ramus::Simulator(model, settings), Eigen::Vector3f(1.5f * k, 0, 0), {}});
    objects.back().render_positions.resize(3 *
                                           static_cast<std::size_t>(model->num_global_vertices));
    objects.back().simulation.reserve_vertex_forces(4);  // so that pulling allocates nothing
    if (objects.back().simulation.initialize() != ramus::StepStatus::kOk) return 1;
  }
  std::printf("%s: %d domains, %d vertices; %zu objects share it\n", argv[1], model->num_domains(),
              model->num_global_vertices, objects.size());

  // The character: an upright capsule, 0.9 of the model's height, walking at 1 m/s along x past
  // object 1, half-way between its middle and its side, from one side of it to the other (by the
  // plant's stems; through the oak's crown, bending its branches). Like a physics engine's
  // kinematic body it is moved by its target pose each frame.
  GameObject& brushed = objects[1];
  brushed.simulation.render_positions(brushed.render_positions.data());
  Eigen::Vector3f low = Eigen::Vector3f::Constant(1e30f), high = -low;
  for (std::size_t v = 0; v < brushed.render_positions.size(); v += 3) {
    const Eigen::Vector3f x(brushed.render_positions[v], brushed.render_positions[v + 1],
                            brushed.render_positions[v + 2]);
    low = low.cwiseMin(x);
    high = high.cwiseMax(x);
  }
  const double height = high.z() - low.z(), radius = 0.06 * height;
  ramus::Collider character;
  character.shape = ramus::ColliderShape::kCapsule;
  character.size = Eigen::Vector4d(radius, 0.45 * height - radius, 0, 0);
  character.pose.translation = Eigen::Vector3d(
      low.x() - 2 * radius, 0.75 * high.y() + 0.25 * low.y(), low.z() + 0.5 * height);
  character.friction = 0.3;
  const ramus::ColliderResult added = brushed.simulation.add_collider(character);
  if (added.status != ramus::ColliderStatus::kOk) {
    std::fprintf(stderr, "the character: %s\n", added.message);
    return 1;
  }
  int touching_frames = 0;
  double largest_push = 0;

  // 2. The loop. A real game measures the frame's wall time; here every frame lasts 1/60 s of
  //    game time so that the run is the same on any machine.
  const double frame_time = 1.0 / 60, max_frame_time = 0.25;  // (skip time after a stall)
  const int pulled_domain = model->num_domains() - 1;         // the last domain: a tip or a leaf
  const int pulled_vertex = model->domains.back().global_vertices(0);  // (its index in the mesh)
  double accumulator = 0, game_time = 0, worst_ms = 0, total_ms = 0;
  for (int frame = 1; frame <= frames; ++frame) {
    const Clock::time_point frame_start = Clock::now();
    accumulator += std::min(frame_time, max_frame_time);
    game_time += frame_time;

    // Input: the player drags object 0 between 0.5 s and 1.5 s (1 N up and sideways).
    GameObject& dragged = objects[0];
    if (frame == 30) dragged.simulation.add_vertex_force(pulled_domain, 0, {0.5, 0, 1});
    if (frame == 90) dragged.simulation.clear_vertex_forces();

    // The character's target at the frame's end: the steps carry it there at 1 m/s.
    ramus::RigidPose target = character.pose;
    target.translation.x() += 1.0 * game_time;
    brushed.simulation.colliders().move_kinematic(added.id, target, frame_time);

    // Fixed steps: as many as the accumulated time holds. step() never allocates or throws; a
    // failed step leaves the state as it was and says why.
    int substeps = 0;
    while (accumulator >= settings.time_step) {
      for (GameObject& o : objects) {
        const ramus::StepStatus status = o.simulation.step();
        if (status != ramus::StepStatus::kOk) {
          std::fprintf(stderr, "frame %d: %s\n", frame, ramus::to_string(status));
          return 1;
        }
      }
      accumulator -= settings.time_step;
      ++substeps;
    }
    const Clock::time_point stepped = Clock::now();

    // Render: world positions of every vertex into the object's buffer (no allocation), then
    // the game's placement on top.
    for (GameObject& o : objects) {
      o.simulation.render_positions(o.render_positions.data());
      for (std::size_t v = 0; v < o.render_positions.size(); v += 3)
        for (int c = 0; c < 3; ++c) o.render_positions[v + c] += o.offset(c);
    }
    const Clock::time_point rendered = Clock::now();

    // What the character touched (samples within the contact distance, their push).
    const ramus::ContactReport contact = brushed.simulation.contact();
    touching_frames += contact.active > 0;
    largest_push = std::max(largest_push, contact.force.norm());

    // Per-frame cost.
    const double frame_ms = milliseconds(rendered - frame_start);
    worst_ms = std::max(worst_ms, frame_ms);
    total_ms += frame_ms;
    if (frame % 30 == 0) {
      const float z = dragged.render_positions[3 * static_cast<std::size_t>(pulled_vertex) + 2];
      std::printf(
          "frame %3d  t = %.2f s  %d substeps  simulate %.3f ms  positions %.3f ms  "
          "pulled vertex z = %+.4f m\n",
          frame, game_time, substeps, milliseconds(stepped - frame_start),
          milliseconds(rendered - stepped), z);
    }
  }
  std::printf("%d frames: mean %.3f ms, worst %.3f ms per frame (budget at 60 fps: 16.7 ms)\n",
              frames, total_ms / frames, worst_ms);
  std::printf("the character touched object 1 in %d frames, pushing it with up to %.3g N\n",
              touching_frames, largest_push);
  return 0;
} catch (const std::exception& e) {  // loading and setup throw (a missing or corrupt file)
  std::fprintf(stderr, "game_loop: %s\n", e.what());
  return 1;
}
