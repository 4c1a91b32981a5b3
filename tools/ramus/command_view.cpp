// `ramus view model.h5`: the interactive viewer (tools/viewer), when Ramus was built with it.
#include <memory>

#include "commands.h"
#include "ramus/error.h"
#ifdef RAMUS_HAVE_VIEWER
#include "../viewer/viewer.h"
#endif

namespace ramus::cli {

namespace {

struct Args {
  std::string model, screenshot, pulled_screenshot, collider_screenshot;
  std::string collider = "sphere";
  int frames = 0, width = 1024, height = 768;
  bool gpu_skinning = false;
};

void run(const Args& args) {
#ifdef RAMUS_HAVE_VIEWER
  viewer::ViewerOptions options;
  options.model = args.model;
  options.width = args.width;
  options.height = args.height;
  options.frames = args.frames;
  options.screenshot = args.screenshot;
  options.pulled_screenshot = args.pulled_screenshot;
  options.collider_screenshot = args.collider_screenshot;
  options.capsule = args.collider == "capsule";
  options.gpu_skinning = args.gpu_skinning;
  if (options.frames < 0) throw OptionError("--frames must not be negative");
  if (options.width < 64 || options.height < 64 || options.width > 8192 || options.height > 8192)
    throw OptionError("--size: width and height must be in [64, 8192]");
  viewer::run_viewer(options);
#else
  (void)args;
  throw Error(
      "this ramus was built without the viewer: install libglfw3-dev libimgui-dev libstb-dev "
      "(scripts/install-deps.sh) and configure again");
#endif
}

}  // namespace

void add_view_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "view",
      "Interactive viewer: the model's surface, domains coloured on demand, an orbit camera, the "
      "mouse pulling the picked point with a spring, a panel of runtime settings");
  command->add_option("model", args->model, "Model file (.h5)")->required();
  command->add_option("--frames", args->frames,
                      "Draw this many frames, then close (0: until the window is closed)");
  command->add_option("--screenshot", args->screenshot, "With --frames: PNG of the last frame");
  command->add_option("--pulled-screenshot", args->pulled_screenshot,
                      "With --frames: then pull the farthest vertex sideways for as many frames "
                      "and write this PNG");
  command->add_option("--collider-screenshot", args->collider_screenshot,
                      "With --frames: then drive the collider across the model near its "
                      "farthest vertex for as many frames and write this PNG");
  command
      ->add_option("--collider", args->collider,
                   "The driven collider: a sphere, or an upright capsule (a character)")
      ->check(CLI::IsMember({"sphere", "capsule"}))
      ->capture_default_str();
  command->add_flag(
      "--gpu-skinning", args->gpu_skinning,
      "Rebuild the render mesh in the vertex shader from q and the domains' "
      "transforms (uploaded per frame; each part's tables once) instead of on the CPU");
  command->add_option("--width", args->width, "Window width (pixels)")->capture_default_str();
  command->add_option("--height", args->height, "Window height (pixels)")->capture_default_str();
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
