// The viewer (viewer.h): one Simulator stepped at the display's pace with a fixed time step,
// its surface drawn with OpenGL 3.3 core (Mesa, GLFW), a Dear ImGui panel, the mouse's spring.
#define GLFW_INCLUDE_NONE
#define GL_GLEXT_PROTOTYPES
#include "viewer.h"

#include <GL/gl.h>
#include <GL/glext.h>
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>
#include <stb_image_write.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"
#include "viewer_collider.h"
#include "viewer_gpu_skinning.h"
#include "viewer_shader.h"
#include "viewer_surface.h"

namespace ramus::viewer {

namespace {

using Matrix4f = Eigen::Matrix4f;
using Vector3f = Eigen::Vector3f;

const char* kVertexShader = R"(#version 330 core
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec3 color;
uniform mat4 view_projection;
out vec3 shade_normal;
out vec3 shade_color;
void main() {
  gl_Position = view_projection * vec4(position, 1.0);
  shade_normal = normal;
  shade_color = color;
})";

Matrix4f perspective(float fovy, float aspect, float near, float far) {
  const float f = 1.0f / std::tan(fovy / 2);
  Matrix4f m = Matrix4f::Zero();
  m(0, 0) = f / aspect;
  m(1, 1) = f;
  m(2, 2) = (far + near) / (near - far);
  m(2, 3) = 2 * far * near / (near - far);
  m(3, 2) = -1;
  return m;
}

Matrix4f look_at(const Vector3f& eye, const Vector3f& target, const Vector3f& up) {
  const Vector3f f = (target - eye).normalized();
  const Vector3f s = f.cross(up).normalized();
  const Vector3f u = s.cross(f);
  Matrix4f m = Matrix4f::Identity();
  m.block<1, 3>(0, 0) = s.transpose();
  m.block<1, 3>(1, 0) = u.transpose();
  m.block<1, 3>(2, 0) = -f.transpose();
  m(0, 3) = -s.dot(eye);
  m(1, 3) = -u.dot(eye);
  m(2, 3) = f.dot(eye);
  return m;
}

// A vertex array of interleaved position, normal and colour.
struct Mesh {
  GLuint array = 0, vertices = 0, indices = 0;
  GLsizei count = 0;
  GLenum mode = GL_TRIANGLES;
  void create(const std::vector<float>& data, const std::vector<unsigned>& index, GLenum m) {
    mode = m;
    count = static_cast<GLsizei>(index.size());
    glGenVertexArrays(1, &array);
    glBindVertexArray(array);
    glGenBuffers(1, &vertices);
    glBindBuffer(GL_ARRAY_BUFFER, vertices);
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(data.size() * sizeof(float)), data.data(),
                 GL_DYNAMIC_DRAW);
    glGenBuffers(1, &indices);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, indices);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(index.size() * sizeof(unsigned)),
                 index.data(), GL_STATIC_DRAW);
    for (GLuint k = 0; k < 3; ++k) {
      glEnableVertexAttribArray(k);
      glVertexAttribPointer(k, 3, GL_FLOAT, GL_FALSE, 9 * sizeof(float),
                            reinterpret_cast<void*>(3 * k * sizeof(float)));
    }
  }
  void update(const std::vector<float>& data) const {
    glBindBuffer(GL_ARRAY_BUFFER, vertices);
    glBufferSubData(GL_ARRAY_BUFFER, 0, static_cast<GLsizeiptr>(data.size() * sizeof(float)),
                    data.data());
  }
  void draw() const {
    glBindVertexArray(array);
    glDrawElements(mode, count, GL_UNSIGNED_INT, nullptr);
  }
};

// Ground grid lines at height z over a square of half-width `half` around (cx, cy).
Mesh make_grid(float cx, float cy, float z, float half) {
  std::vector<float> data;
  std::vector<unsigned> index;
  const int lines = 20;
  for (int k = 0; k <= lines; ++k) {
    const float t = -half + 2 * half * static_cast<float>(k) / lines;
    const float ends[2][6] = {{cx + t, cy - half, z, cx + t, cy + half, z},
                              {cx - half, cy + t, z, cx + half, cy + t, z}};
    for (const auto& e : ends)
      for (int p = 0; p < 2; ++p) {
        data.insert(data.end(), {e[3 * p], e[3 * p + 1], e[3 * p + 2], 0, 0, 1, 0.6f, 0.6f, 0.6f});
        index.push_back(static_cast<unsigned>(index.size()));
      }
  }
  Mesh grid;
  grid.create(data, index, GL_LINES);
  return grid;
}

void write_png(const std::string& path, int width, int height) {
  std::vector<unsigned char> pixels(3 * static_cast<std::size_t>(width) * height);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels.data());
  stbi_flip_vertically_on_write(1);
  if (!stbi_write_png(path.c_str(), width, height, 3, pixels.data(), 3 * width))
    throw Error("view: cannot write '" + path + "'");
  std::printf("screenshot %s (%d by %d)\n", path.c_str(), width, height);
}

struct GlfwSession {
  GlfwSession() {
    if (!glfwInit()) throw Error("view: no display (GLFW could not start; is DISPLAY set?)");
  }
  ~GlfwSession() { glfwTerminate(); }
};

}  // namespace

namespace {

// The camera orbiting the scene's centre.
struct Camera {
  Vector3f center = Vector3f::Zero();
  float size = 1;  ///< the scene's diagonal, m
  float yaw = -1.2f, pitch = 0.35f, distance = 1;
};

// One frame's view: the framebuffer, the eye and the projection, screen <-> world.
struct FrameView {
  int width = 0, height = 0;
  Vector3f eye = Vector3f::Zero();
  Matrix4f view_projection = Matrix4f::Identity();
  Vector3f to_screen(const Vector3f& x) const {
    const Eigen::Vector4f c = view_projection * x.homogeneous();
    return Vector3f((c(0) / c(3) + 1) * 0.5f * width, (1 - c(1) / c(3)) * 0.5f * height,
                    c(2) / c(3));
  }
  Vector3f from_screen(float px, float py, float depth) const {
    const Eigen::Vector4f ndc(2 * px / width - 1, 1 - 2 * py / height, depth, 1);
    const Eigen::Vector4f x = view_projection.inverse() * ndc;
    return Vector3f(x.head<3>() / x(3));
  }
};

FrameView frame_view(GLFWwindow* window, const Camera& camera) {
  FrameView v;
  glfwGetFramebufferSize(window, &v.width, &v.height);
  v.eye = camera.center + camera.distance * Vector3f(std::cos(camera.pitch) * std::cos(camera.yaw),
                                                     std::cos(camera.pitch) * std::sin(camera.yaw),
                                                     std::sin(camera.pitch));
  v.view_projection = perspective(0.8f, static_cast<float>(v.width) / std::max(1, v.height),
                                  0.01f * camera.size, 20 * camera.size) *
                      look_at(v.eye, camera.center, Vector3f::UnitZ());
  return v;
}

// The spring the mouse (or the script) pulls a surface vertex with.
struct Pull {
  bool dragging = false;
  int vertex = -1;  ///< surface vertex, or -1
  float depth = 0;
  Vector3f target = Vector3f::Zero();
  double last_cursor[2] = {0, 0};
};

// Mouse: right drag orbits, wheel zooms (ImGui's own events excepted), left drag pulls the
// nearest surface vertex within 20 px, front-most.
void handle_mouse(GLFWwindow* window, const ViewerOptions& options, const FrameView& view,
                  const Surface& surface, Camera& camera, Pull& pull) {
  ImGuiIO& io = ImGui::GetIO();
  double cursor[2];
  glfwGetCursorPos(window, &cursor[0], &cursor[1]);
  const float scale = static_cast<float>(view.width) / std::max(1, options.width);
  if (!io.WantCaptureMouse) {
    if (glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS) {
      camera.yaw -= 0.01f * static_cast<float>(cursor[0] - pull.last_cursor[0]);
      camera.pitch = std::clamp(
          camera.pitch + 0.01f * static_cast<float>(cursor[1] - pull.last_cursor[1]), -1.5f, 1.5f);
    }
    camera.distance *= std::pow(0.9f, io.MouseWheel);
    const bool left = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
    if (left && !pull.dragging) {
      float best = 400;
      for (Eigen::Index v = 0; v < surface.positions.rows(); ++v) {
        const Vector3f p = view.to_screen(surface.positions.row(v).transpose().cast<float>());
        const float dx = p(0) - static_cast<float>(cursor[0]) * scale;
        const float dy = p(1) - static_cast<float>(cursor[1]) * scale;
        const float score = dx * dx + dy * dy + 100 * p(2);
        if (dx * dx + dy * dy < 400 && score < best + 100) {
          best = score - 100;
          pull.vertex = static_cast<int>(v);
          pull.depth = p(2);
        }
      }
      pull.dragging = true;
    }
    if (!left) {
      pull.dragging = false;
      if (options.frames == 0) pull.vertex = -1;
    }
    if (pull.dragging && pull.vertex >= 0)
      pull.target = view.from_screen(static_cast<float>(cursor[0]) * scale,
                                     static_cast<float>(cursor[1]) * scale, pull.depth);
  }
  pull.last_cursor[0] = cursor[0];
  pull.last_cursor[1] = cursor[1];
}

// The spring at the pulled vertex (capped at 20 times the model's weight), spread over the
// corners of the tet that carries it as its barycentric weights.
void apply_pull(Simulator& simulator, const Surface& surface, const Pull& pull, double stiffness,
                double total_mass) {
  const Eigen::Vector3d x = surface.positions.row(pull.vertex).transpose();
  Eigen::Vector3d f = stiffness * (pull.target.cast<double>() - x);
  const double cap = 20 * total_mass * 9.81;
  if (f.norm() > cap) f *= cap / f.norm();
  const auto k = static_cast<std::size_t>(pull.vertex);
  for (int c = 0; c < 4; ++c)
    if (surface.weights[k](c) != 0)
      simulator.add_vertex_force(surface.domain[k], surface.corners[k](c),
                                 surface.weights[k](c) * f);
}

// What the panel shows and sets.
struct Panel {
  bool paused = false, color_domains = false;
  int integrator = 0, lumping = 0, domain = 0;
  float wind_speed = 0, wind_angle = 0, time_step = 0;
  std::vector<float> stiffness_scale;
  std::string status_text = "ok";
  double step_ms = 0, frame_ms = 0, accumulator = 0;
  int screenshots = 0;
};

// Fixed steps for `elapsed` seconds (at most 8 a frame: behind, time is dropped rather than
// spiral); a failed step pauses. Returns the seconds spent stepping.
double advance(Simulator& simulator, const RuntimeSettings& settings, Panel& panel,
               double elapsed) {
  if (!panel.paused) panel.accumulator += elapsed;
  const auto step_start = std::chrono::steady_clock::now();
  int steps = 0;
  for (; panel.accumulator >= settings.time_step && steps < 8; ++steps) {
    panel.accumulator -= settings.time_step;
    const StepStatus status = simulator.step();
    if (status != StepStatus::kOk) {
      panel.status_text = std::string(to_string(status)) + " (paused; the state is as before)";
      panel.paused = true;
      break;
    }
  }
  if (steps == 8) panel.accumulator = 0;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count();
  if (steps > 0) panel.step_ms = 0.9 * panel.step_ms + 0.1 * 1000 * seconds / steps;
  panel.frame_ms = 0.9 * panel.frame_ms + 0.1 * 1000 * elapsed;
  return seconds;
}

// The panel: status, pause / step / reset, colours, time step, integrator, lumping, wind, a
// domain's stiffness scale; changed settings applied (refused ones named). Returns whether the
// screenshot button was pressed.
bool draw_panel(std::unique_ptr<Simulator>& simulator, const std::shared_ptr<const Model>& model,
                RuntimeSettings& settings, Panel& panel, DrivenCollider& driven) {
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_Once);
  ImGui::Begin("Ramus");
  ImGui::Text("%d domains, %d DOFs, t = %.2f s", model->num_domains(), model->num_dofs,
              simulator->time());
  ImGui::Text("%.3f ms per step, %.0f fps; %s", panel.step_ms,
              1000 / std::max(1e-3, panel.frame_ms), panel.status_text.c_str());
  ImGui::Checkbox("pause", &panel.paused);
  ImGui::SameLine();
  if (ImGui::Button("step")) panel.accumulator += settings.time_step;
  ImGui::SameLine();
  if (ImGui::Button("reset")) {
    simulator = std::make_unique<Simulator>(model, settings);
    simulator->reserve_vertex_forces(1);
    simulator->initialize();
    panel.status_text = "ok";
    driven.id = -1;  // (added again below when wanted)
  }
  ImGui::Checkbox("collider (arrow keys, Page Up / Down)", &driven.wanted);
  ImGui::SameLine();
  ImGui::Checkbox("capsule", &driven.capsule);
  if (const char* refused = sync_driven_collider(*simulator, driven)) panel.status_text = refused;
  ImGui::Checkbox("colour domains", &panel.color_domains);
  bool changed = ImGui::SliderFloat("time step (s)", &panel.time_step, 0.0005f, 0.05f, "%.4f",
                                    ImGuiSliderFlags_Logarithmic);
  const char* integrators[kNumIntegrators];
  for (int k = 0; k < kNumIntegrators; ++k) integrators[k] = to_string(Integrator(k + 1));
  changed |= ImGui::Combo("integrator", &panel.integrator, integrators, kNumIntegrators);
  const char* lumpings[] = {"L1 interface", "L2 centre of mass", "L3 rigid subtree"};
  changed |= ImGui::Combo("lumping", &panel.lumping, lumpings, 3);
  changed |= ImGui::SliderFloat("wind (m/s)", &panel.wind_speed, 0, 20);
  changed |= ImGui::SliderFloat("wind from (deg)", &panel.wind_angle, 0, 360);
  ImGui::SliderInt("domain", &panel.domain, 0, model->num_domains() - 1);
  ImGui::SameLine();
  ImGui::TextUnformatted(model->domains[static_cast<std::size_t>(panel.domain)].name.c_str());
  float& scale = panel.stiffness_scale[static_cast<std::size_t>(panel.domain)];
  if (ImGui::SliderFloat("stiffness scale", &scale, 0.1f, 10, "%.2f", ImGuiSliderFlags_Logarithmic))
    simulator->set_stiffness_scale(panel.domain, scale);
  const bool screenshot = ImGui::Button("screenshot (PNG)");
  ImGui::TextUnformatted("right drag: orbit, wheel: zoom, left drag: pull, keys: the collider");
  ImGui::End();
  if (!changed) return screenshot;
  settings = simulator->settings();
  settings.time_step = panel.time_step;
  for (DomainSettings& n : settings.domains) n.integrator = Integrator(panel.integrator + 1);
  settings.lumping = InterfaceLumping(panel.lumping + 1);
  const float a = panel.wind_angle * static_cast<float>(M_PI) / 180;
  settings.wind.mean_velocity = panel.wind_speed * Eigen::Vector3d(-std::cos(a), -std::sin(a), 0);
  try {
    simulator->set_settings(settings);
  } catch (const Error& e) {
    panel.status_text = e.what();
    settings = simulator->settings();
  }
  return screenshot;
}

// The ground grid and the surface (the CPU's mesh, or the GPU's skinning), lit from the eye.
void draw_scene(GLuint program, const Mesh& grid, const Mesh& mesh, const GpuSkinning* skinning,
                bool color_domains, const Mesh* collider, const FrameView& view,
                const Camera& camera) {
  glViewport(0, 0, view.width, view.height);
  glClearColor(0.93f, 0.94f, 0.96f, 1);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glEnable(GL_DEPTH_TEST);
  glUseProgram(program);
  glUniformMatrix4fv(glGetUniformLocation(program, "view_projection"), 1, GL_FALSE,
                     view.view_projection.data());
  const Vector3f light = (view.eye - camera.center).normalized();
  glUniform3f(glGetUniformLocation(program, "light"), light(0), light(1), light(2));
  glUniform1f(glGetUniformLocation(program, "lit"), 0);
  grid.draw();
  glUniform1f(glGetUniformLocation(program, "lit"), 1);
  if (!skinning) mesh.draw();
  if (collider) collider->draw();
  if (skinning) skinning->draw(view.view_projection, light, color_domains);
}

// Window and OpenGL 3.3 core, Dear ImGui on it.
GLFWwindow* open_window(const ViewerOptions& options) {
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  GLFWwindow* window = glfwCreateWindow(options.width, options.height,
                                        ("ramus view " + options.model).c_str(), nullptr, nullptr);
  if (!window) throw Error("view: no OpenGL 3.3 window on this display");
  glfwMakeContextCurrent(window);
  glfwSwapInterval(options.frames > 0 ? 0 : 1);  // the display's rate when interactive
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  return window;
}

}  // namespace

void run_viewer(const ViewerOptions& options) {
  const std::shared_ptr<const Model> model = load_model(options.model);
  auto simulator = std::make_unique<Simulator>(model);
  simulator->reserve_vertex_forces(1);
  if (simulator->initialize() != StepStatus::kOk) throw Error("view: the model does not start");
  RuntimeSettings settings = simulator->settings();
  const GlfwSession session;
  GLFWwindow* window = open_window(options);
  const GLuint program = lit_program(kVertexShader);

  // The surface and the scene's size.
  Surface surface = make_surface(*model);
  update_surface(*simulator, surface, false);
  const Eigen::Vector3d low = surface.positions.colwise().minCoeff();
  const Eigen::Vector3d high = surface.positions.colwise().maxCoeff();
  Camera camera;
  camera.center = (0.5 * (low + high)).cast<float>();
  camera.size = static_cast<float>((high - low).norm());
  camera.distance = 1.6f * camera.size;
  std::vector<unsigned> index;
  for (Eigen::Index f = 0; f < surface.triangles.rows(); ++f)
    for (int k = 0; k < 3; ++k) index.push_back(static_cast<unsigned>(surface.triangles(f, k)));
  Mesh mesh;
  mesh.create(surface.buffer, index, GL_TRIANGLES);
  std::unique_ptr<GpuSkinning> skinning;
  if (options.gpu_skinning) skinning = std::make_unique<GpuSkinning>(*model);
  const Mesh grid =
      make_grid(camera.center(0), camera.center(1), static_cast<float>(low(2)), camera.size);

  // The driven collider: it enters beside the model, level with a point between its centre and
  // its farthest vertex, and crosses there, across the line from the centre to that vertex on
  // the ground (across the view when that line is vertical).
  Eigen::Index far = 0;
  (surface.positions.rowwise() - low.transpose()).rowwise().squaredNorm().maxCoeff(&far);
  const Eigen::Vector3d aim =
      0.7 * surface.positions.row(far).transpose() + 0.3 * camera.center.cast<double>();
  Eigen::Vector3d across = Eigen::Vector3d::UnitZ().cross(aim - camera.center.cast<double>());
  if (across.norm() < 0.05 * camera.size)
    across = Eigen::Vector3d(-std::sin(camera.yaw), std::cos(camera.yaw), 0);
  across.normalize();
  // (A capsule is a character: as tall as a third of the model, standing where the sphere
  // would be.)
  const double radius = 0.08 * camera.size, sweep = camera.size + 2 * radius;
  DrivenCollider driven = make_driven_collider(radius, std::max(0.0, 0.17 * camera.size - radius),
                                               aim - 0.5 * sweep * across);
  driven.capsule = options.capsule;
  Mesh collider_mesh;
  collider_mesh.create(driven.buffer, driven.index, GL_TRIANGLES);

  // Pull and panel state.
  Pull pull;
  const double stiffness = 40.0 * model->total_mass;  // N/m: the spring's (2 Hz for the whole)
  Panel panel;
  panel.integrator = static_cast<int>(settings.domains.front().integrator) - 1;
  panel.lumping = static_cast<int>(settings.lumping) - 1;  // (L1 = 1)
  panel.wind_speed = static_cast<float>(settings.wind.mean_velocity.norm());
  panel.stiffness_scale.assign(static_cast<std::size_t>(model->num_domains()), 1.0f);
  panel.time_step = static_cast<float>(settings.time_step);
  auto last = std::chrono::steady_clock::now();

  const auto run_start = std::chrono::steady_clock::now();
  double steps_seconds = 0, surface_seconds = 0;  // totals over the run, for the summary
  int drawn = 0;
  for (int frame = 1; !glfwWindowShouldClose(window); ++frame, ++drawn) {
    glfwPollEvents();
    const FrameView view = frame_view(window, camera);
    handle_mouse(window, options, view, surface, camera, pull);
    // Scripted runs: at rest, then the farthest vertex pulled sideways, then (or instead) the
    // collider driven across.
    const int pull_phase = options.pulled_screenshot.empty() ? 0 : 1;
    const int collider_phase = options.collider_screenshot.empty() ? 0 : 1 + pull_phase;
    const int phase = options.frames > 0 ? (frame - 1) / options.frames : 0;
    const bool scripted_pull = pull_phase > 0 && phase == pull_phase;
    if (options.frames > 0 && collider_phase > 0) driven.wanted = phase == collider_phase;
    if (options.frames > 0 && frame == options.frames + 1 && pull_phase > 0) {
      pull.vertex = static_cast<int>(far);
      const Vector3f right = (camera.center - view.eye).cross(Vector3f::UnitZ()).normalized();
      pull.target =
          surface.positions.row(far).transpose().cast<float>() + 0.3f * camera.size * right;
    }
    // The spring at the pulled vertex, then fixed steps for the elapsed time.
    simulator->clear_vertex_forces();
    if (pull.vertex >= 0 && (pull.dragging || scripted_pull))
      apply_pull(*simulator, surface, pull, stiffness, model->total_mass);
    // The collider's velocity for this frame's steps: the keys', or the scripted sweep's (its
    // centre reaches the aim point at the screenshot, pushing the model aside).
    if (const char* refused = sync_driven_collider(*simulator, driven)) {
      if (collider_phase > 0) throw Error(std::string("view: the scripted collider: ") + refused);
      panel.status_text = refused;
    }
    drive_collider(*simulator, driven,
                   collider_phase > 0 ? 0.5 * sweep * 60.0 / options.frames * across
                                      : key_velocity(window, camera.yaw, 0.6 * camera.size));
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = options.frames > 0
                               ? 1.0 / 60
                               : std::min(0.1, std::chrono::duration<double>(now - last).count());
    last = now;
    steps_seconds += advance(*simulator, settings, panel, elapsed);
    const bool screenshot = draw_panel(simulator, model, settings, panel, driven);

    // Draw; screenshots of the scene without the panel (scripted), or with it (button).
    const auto surface_start = std::chrono::steady_clock::now();
    // (With the GPU's skinning, the CPU's positions only for picking and pulling.)
    if (skinning) skinning->update(*simulator);
    if (!skinning || pull.vertex >= 0 ||
        glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS)
      update_surface(*simulator, surface, panel.color_domains);
    if (!skinning) mesh.update(surface.buffer);
    place_driven_collider(*simulator, driven);
    if (driven.id >= 0) collider_mesh.update(driven.buffer);
    surface_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - surface_start).count();
    draw_scene(program, grid, mesh, skinning.get(), panel.color_domains,
               driven.id >= 0 ? &collider_mesh : nullptr, view, camera);
    if (options.frames > 0 && frame == options.frames && !options.screenshot.empty())
      write_png(options.screenshot, view.width, view.height);
    if (options.frames > 0 && frame == 2 * options.frames && pull_phase > 0)
      write_png(options.pulled_screenshot, view.width, view.height);
    if (options.frames > 0 && frame == (1 + collider_phase) * options.frames && collider_phase > 0)
      write_png(options.collider_screenshot, view.width, view.height);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (screenshot)
      write_png("ramus_view_" + std::to_string(++panel.screenshots) + ".png", view.width,
                view.height);
    glfwSwapBuffers(window);
    const int last_frame = (1 + std::max(pull_phase, collider_phase)) * options.frames;
    if (options.frames > 0 && frame >= last_frame) break;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  const double per_frame = 1000.0 / (drawn + 1);
  std::printf(
      "view      %d frames in %.2f s: %.2f ms per frame: steps %.2f, surface (positions, "
      "normals, upload) %.2f, drawing and the rest %.2f (%.3f ms per step)\n",
      drawn + 1, seconds, per_frame * seconds, per_frame * steps_seconds,
      per_frame * surface_seconds, per_frame * (seconds - steps_seconds - surface_seconds),
      panel.step_ms);
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
}

}  // namespace ramus::viewer
