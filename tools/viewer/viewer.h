// `ramus view model.h5`: an interactive window over the runtime (GLFW, OpenGL 3.3, Dear ImGui):
// the shaded surface, domains coloured on demand, a ground grid, an orbit camera, the mouse
// pulling a picked surface point with a spring, and a panel of runtime settings and timings.
#pragma once

#include <string>

namespace ramus::viewer {

struct ViewerOptions {
  std::string model;  ///< model file (.h5)
  int width = 1024, height = 768;
  int frames = 0;          ///< > 0: render this many frames, then close (scripted runs, tests)
  std::string screenshot;  ///< with frames: a PNG of the last frame at rest
  /// with frames: then pull the farthest surface vertex sideways for as many frames and write
  /// this PNG (the image must differ from the rest's)
  std::string pulled_screenshot;
  /// with frames: then drive a sphere through the model, across the view near its farthest
  /// vertex, for as many frames and write this PNG (the model must differ from its rest)
  std::string collider_screenshot;
  bool capsule = false;  ///< the driven collider is an upright capsule (a character)
  /// the render mesh rebuilt in the vertex shader from q and the domains' transforms
  /// (docs/RENDERING.md), not on the CPU
  bool gpu_skinning = false;
};

/// Opens the window and runs until it is closed (or options.frames are drawn). Throws
/// ramus::Error for a model that does not load or a display without OpenGL 3.3.
void run_viewer(const ViewerOptions& options);

}  // namespace ramus::viewer
