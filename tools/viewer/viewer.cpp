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

// Two-sided Lambert from the camera's direction, plus ambient.
const char* kFragmentShader = R"(#version 330 core
in vec3 shade_normal;
in vec3 shade_color;
uniform vec3 light;
uniform float lit;
out vec4 out_color;
void main() {
  float d = abs(dot(normalize(shade_normal), light));
  out_color = vec4(shade_color * mix(1.0, 0.3 + 0.7 * d, lit), 1.0);
})";

GLuint compile(GLenum kind, const char* source) {
  const GLuint shader = glCreateShader(kind);
  glShaderSource(shader, 1, &source, nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[1024];
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    throw Error(std::string("view: shader: ") + log);
  }
  return shader;
}

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

// A colour per domain (golden-angle hues), and one for the object.
Vector3f domain_color(int domain) {
  const float h = std::fmod(0.618034f * static_cast<float>(domain), 1.0f) * 6;
  const float x = 1 - std::abs(std::fmod(h, 2.0f) - 1);
  const Vector3f rgb = h < 1   ? Vector3f(1, x, 0)
                       : h < 2 ? Vector3f(x, 1, 0)
                       : h < 3 ? Vector3f(0, 1, x)
                       : h < 4 ? Vector3f(0, x, 1)
                       : h < 5 ? Vector3f(x, 0, 1)
                               : Vector3f(1, 0, x);
  return 0.35f * Vector3f::Ones() + 0.55f * rgb;
}

// What is drawn: the embedded surface (when the model has one) and the tet mesh's boundary
// where no embedded surface covers its domain (the oak: leaf blades, and the wood's tets).
struct Surface {
  int embedded = 0;  // the first `embedded` vertices are the embedded surface's
  Eigen::MatrixX3i triangles;
  // Per drawn vertex: the node, and the node vertices (with weights) a pull there acts on: an
  // embedded vertex's tet corners with its barycentric weights, a mesh vertex itself.
  std::vector<int> node;
  std::vector<Eigen::Vector4i> corners;
  std::vector<Eigen::Vector4d> weights;
  Eigen::MatrixX3d positions;         // current, world
  Eigen::MatrixX3d embedded_scratch;  // the embedded surface's positions
  Eigen::MatrixX3d global_scratch;    // the global vertices' positions
  Eigen::MatrixX3f normals;           // per vertex, area-weighted
  std::vector<float> buffer;          // per vertex: position, normal, colour (9 floats)
};

Surface make_surface(const Model& model) {
  Surface s;
  const EmbeddedSurface& e = model.embedded_surface;
  s.embedded = static_cast<int>(e.rest_positions.rows());
  std::vector<char> covered(static_cast<std::size_t>(model.num_nodes()), 0);
  for (int v = 0; v < s.embedded; ++v) {
    const int node = e.domain(v);
    covered[static_cast<std::size_t>(node)] = 1;
    s.node.push_back(node);
    s.corners.push_back(model.prototype_of(node).tets.row(e.tet(v)).transpose());
    s.weights.push_back(e.barycentric.row(v).transpose());
  }
  for (int g = 0; g < model.num_global_vertices; ++g) {
    const auto [node, vertex] = vertex_copy(model, g);
    s.node.push_back(node);
    s.corners.push_back(Eigen::Vector4i::Constant(vertex));
    s.weights.push_back(Eigen::Vector4d(1, 0, 0, 0));
  }
  std::vector<Eigen::Vector3i> triangles;
  for (Eigen::Index f = 0; f < e.triangles.rows(); ++f) triangles.push_back(e.triangles.row(f));
  const Eigen::MatrixX3i& boundary = model.global_surface_triangles;
  for (Eigen::Index f = 0; f < boundary.rows(); ++f)
    if (!covered[static_cast<std::size_t>(
            s.node[static_cast<std::size_t>(s.embedded + boundary(f, 0))])])
      triangles.push_back(boundary.row(f).transpose().array() + s.embedded);
  s.triangles.resize(static_cast<Eigen::Index>(triangles.size()), 3);
  for (std::size_t f = 0; f < triangles.size(); ++f)
    s.triangles.row(static_cast<Eigen::Index>(f)) = triangles[f].transpose();
  s.positions.resize(static_cast<Eigen::Index>(s.node.size()), 3);
  s.buffer.resize(9 * s.node.size());
  return s;
}

// Positions now, vertex normals from the triangles, colours.
void update_surface(const Simulator& simulator, Surface& s, bool color_domains) {
  // (Buffers of fixed sizes, resized on the first frame only: a frame allocates nothing.)
  if (s.embedded > 0) {
    simulator.embedded_surface_positions(s.embedded_scratch);
    s.positions.topRows(s.embedded) = s.embedded_scratch;
  }
  simulator.global_positions(s.global_scratch);
  s.positions.bottomRows(s.global_scratch.rows()) = s.global_scratch;
  const Eigen::Index n = s.positions.rows();
  Eigen::MatrixX3f& normals = s.normals;
  normals.setZero(n, 3);
  for (Eigen::Index f = 0; f < s.triangles.rows(); ++f) {
    const Eigen::Vector3d a = s.positions.row(s.triangles(f, 0));
    const Eigen::Vector3d b = s.positions.row(s.triangles(f, 1));
    const Eigen::Vector3d c = s.positions.row(s.triangles(f, 2));
    const Vector3f normal = (b - a).cross(c - a).cast<float>();
    for (int k = 0; k < 3; ++k) normals.row(s.triangles(f, k)) += normal.transpose();
  }
  for (Eigen::Index v = 0; v < n; ++v) {
    float* out = s.buffer.data() + 9 * v;
    const Vector3f color = color_domains ? domain_color(s.node[static_cast<std::size_t>(v)])
                                         : Vector3f(0.45f, 0.62f, 0.32f);
    const Vector3f normal = normals.row(v).transpose().normalized();
    for (int c = 0; c < 3; ++c) {
      out[c] = static_cast<float>(s.positions(v, c));
      out[3 + c] = std::isfinite(normal(c)) ? normal(c) : 0.0f;
      out[6 + c] = color(c);
    }
  }
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

void run_viewer(const ViewerOptions& options) {
  const std::shared_ptr<const Model> model = load_model(options.model);
  auto simulator = std::make_unique<Simulator>(model);
  simulator->reserve_vertex_forces(1);
  if (simulator->initialize() != StepStatus::kOk) throw Error("view: the model does not start");
  RuntimeSettings settings = simulator->settings();

  // Window and OpenGL 3.3 core.
  const GlfwSession session;
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

  const GLuint program = glCreateProgram();
  glAttachShader(program, compile(GL_VERTEX_SHADER, kVertexShader));
  glAttachShader(program, compile(GL_FRAGMENT_SHADER, kFragmentShader));
  glLinkProgram(program);

  // The surface and the scene's size.
  Surface surface = make_surface(*model);
  update_surface(*simulator, surface, false);
  const Eigen::Vector3d low = surface.positions.colwise().minCoeff();
  const Eigen::Vector3d high = surface.positions.colwise().maxCoeff();
  const Vector3f center = (0.5 * (low + high)).cast<float>();
  const float size = static_cast<float>((high - low).norm());
  std::vector<unsigned> index;
  for (Eigen::Index f = 0; f < surface.triangles.rows(); ++f)
    for (int k = 0; k < 3; ++k) index.push_back(static_cast<unsigned>(surface.triangles(f, k)));
  Mesh mesh;
  mesh.create(surface.buffer, index, GL_TRIANGLES);
  const Mesh grid = make_grid(center(0), center(1), static_cast<float>(low(2)), size);

  // Camera, pull and panel state.
  float yaw = -1.2f, pitch = 0.35f, distance = 1.6f * size;
  bool paused = false, color_domains = false, dragging = false;
  int pulled = -1;  // surface vertex
  float pull_depth = 0;
  Vector3f pull_target = Vector3f::Zero();
  double last_cursor[2] = {0, 0};
  const double stiffness = 40.0 * model->total_mass;  // N/m: the spring's (2 Hz for the whole)
  int integrator = static_cast<int>(settings.nodes.front().integrator) - 1;
  int lumping = static_cast<int>(settings.lumping) - 1;  // (L1 = 1)
  float wind_speed = static_cast<float>(settings.wind.mean_velocity.norm()), wind_angle = 0;
  int domain = 0;
  std::vector<float> stiffness_scale(static_cast<std::size_t>(model->num_nodes()), 1.0f);
  float time_step = static_cast<float>(settings.time_step);
  std::string status_text = "ok";
  double step_ms = 0, frame_ms = 0, accumulator = 0;
  int screenshots = 0;
  auto last = std::chrono::steady_clock::now();

  const auto run_start = std::chrono::steady_clock::now();
  double steps_seconds = 0, surface_seconds = 0;  // totals over the run, for the summary
  int drawn = 0;
  for (int frame = 1; !glfwWindowShouldClose(window); ++frame, ++drawn) {
    glfwPollEvents();
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    const Vector3f eye =
        center + distance * Vector3f(std::cos(pitch) * std::cos(yaw),
                                     std::cos(pitch) * std::sin(yaw), std::sin(pitch));
    const Matrix4f view_projection =
        perspective(0.8f, static_cast<float>(width) / std::max(1, height), 0.01f * size,
                    20 * size) *
        look_at(eye, center, Vector3f::UnitZ());
    const auto to_screen = [&](const Vector3f& x) {
      const Eigen::Vector4f c = view_projection * x.homogeneous();
      return Vector3f((c(0) / c(3) + 1) * 0.5f * width, (1 - c(1) / c(3)) * 0.5f * height,
                      c(2) / c(3));
    };
    const auto from_screen = [&](float px, float py, float depth) {
      const Eigen::Vector4f ndc(2 * px / width - 1, 1 - 2 * py / height, depth, 1);
      const Eigen::Vector4f x = view_projection.inverse() * ndc;
      return Vector3f(x.head<3>() / x(3));
    };

    // Mouse: right drag orbits, wheel zooms (ImGui's own events excepted), left drag pulls.
    ImGuiIO& io = ImGui::GetIO();
    double cursor[2];
    glfwGetCursorPos(window, &cursor[0], &cursor[1]);
    const float scale = static_cast<float>(width) / std::max(1, options.width);
    if (!io.WantCaptureMouse) {
      if (glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS) {
        yaw -= 0.01f * static_cast<float>(cursor[0] - last_cursor[0]);
        pitch =
            std::clamp(pitch + 0.01f * static_cast<float>(cursor[1] - last_cursor[1]), -1.5f, 1.5f);
      }
      distance *= std::pow(0.9f, io.MouseWheel);
      const bool left = glfwGetMouseButton(window, GLFW_MOUSE_BUTTON_LEFT) == GLFW_PRESS;
      if (left && !dragging) {  // pick: the nearest vertex within 20 px, front-most
        float best = 400;
        for (Eigen::Index v = 0; v < surface.positions.rows(); ++v) {
          const Vector3f p = to_screen(surface.positions.row(v).transpose().cast<float>());
          const float dx = p(0) - static_cast<float>(cursor[0]) * scale;
          const float dy = p(1) - static_cast<float>(cursor[1]) * scale;
          const float score = dx * dx + dy * dy + 100 * p(2);
          if (dx * dx + dy * dy < 400 && score < best + 100) {
            best = score - 100;
            pulled = static_cast<int>(v);
            pull_depth = p(2);
          }
        }
        dragging = true;
      }
      if (!left) {
        dragging = false;
        if (options.frames == 0) pulled = -1;
      }
      if (dragging && pulled >= 0)
        pull_target = from_screen(static_cast<float>(cursor[0]) * scale,
                                  static_cast<float>(cursor[1]) * scale, pull_depth);
    }
    last_cursor[0] = cursor[0];
    last_cursor[1] = cursor[1];

    // Scripted runs: at rest, then the farthest vertex pulled sideways.
    const bool scripted_pull = options.frames > 0 && frame > options.frames;
    if (options.frames > 0 && frame == options.frames + 1 && !options.pulled_screenshot.empty()) {
      Eigen::Index far = 0;
      (surface.positions.rowwise() - low.transpose()).rowwise().squaredNorm().maxCoeff(&far);
      pulled = static_cast<int>(far);
      const Vector3f right = (center - eye).cross(Vector3f::UnitZ()).normalized();
      pull_target = surface.positions.row(far).transpose().cast<float>() + 0.3f * size * right;
    }

    // The spring at the pulled vertex, then fixed steps for the elapsed time.
    simulator->clear_vertex_forces();
    if (pulled >= 0 && (dragging || scripted_pull)) {
      const Eigen::Vector3d x = surface.positions.row(pulled).transpose();
      Eigen::Vector3d f = stiffness * (pull_target.cast<double>() - x);
      const double cap = 20 * model->total_mass * 9.81;
      if (f.norm() > cap) f *= cap / f.norm();
      const auto k = static_cast<std::size_t>(pulled);
      for (int c = 0; c < 4; ++c)  // (an embedded point's force, spread as its barycentric weights)
        if (surface.weights[k](c) != 0)
          simulator->add_vertex_force(surface.node[k], surface.corners[k](c),
                                      surface.weights[k](c) * f);
    }
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = options.frames > 0
                               ? 1.0 / 60
                               : std::min(0.1, std::chrono::duration<double>(now - last).count());
    last = now;
    if (!paused) accumulator += elapsed;
    const auto step_start = std::chrono::steady_clock::now();
    int steps = 0;
    for (; accumulator >= settings.time_step && steps < 8; ++steps) {
      accumulator -= settings.time_step;
      const StepStatus status = simulator->step();
      if (status != StepStatus::kOk) {
        status_text = std::string(to_string(status)) + " (paused; the state is as before)";
        paused = true;
        break;
      }
    }
    if (steps == 8) accumulator = 0;  // behind: drop time rather than spiral
    steps_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count();
    if (steps > 0)
      step_ms = 0.9 * step_ms + 0.1 *
                                    std::chrono::duration<double, std::milli>(
                                        std::chrono::steady_clock::now() - step_start)
                                        .count() /
                                    steps;
    frame_ms = 0.9 * frame_ms + 0.1 * 1000 * elapsed;

    // The panel.
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_Once);
    ImGui::Begin("Ramus");
    ImGui::Text("%d domains, %d DOFs, t = %.2f s", model->num_nodes(), model->num_dofs,
                simulator->time());
    ImGui::Text("%.3f ms per step, %.0f fps; %s", step_ms, 1000 / std::max(1e-3, frame_ms),
                status_text.c_str());
    ImGui::Checkbox("pause", &paused);
    ImGui::SameLine();
    if (ImGui::Button("step")) accumulator += settings.time_step;
    ImGui::SameLine();
    if (ImGui::Button("reset")) {
      simulator = std::make_unique<Simulator>(model, settings);
      simulator->reserve_vertex_forces(1);
      simulator->initialize();
      status_text = "ok";
    }
    ImGui::Checkbox("colour domains", &color_domains);
    bool changed = ImGui::SliderFloat("time step (s)", &time_step, 0.0005f, 0.05f, "%.4f",
                                      ImGuiSliderFlags_Logarithmic);
    const char* integrators[kNumIntegrators];
    for (int k = 0; k < kNumIntegrators; ++k) integrators[k] = to_string(Integrator(k + 1));
    changed |= ImGui::Combo("integrator", &integrator, integrators, kNumIntegrators);
    const char* lumpings[] = {"L1 interface", "L2 centre of mass", "L3 rigid subtree"};
    changed |= ImGui::Combo("lumping", &lumping, lumpings, 3);
    changed |= ImGui::SliderFloat("wind (m/s)", &wind_speed, 0, 20);
    changed |= ImGui::SliderFloat("wind from (deg)", &wind_angle, 0, 360);
    ImGui::SliderInt("domain", &domain, 0, model->num_nodes() - 1);
    ImGui::SameLine();
    ImGui::TextUnformatted(model->nodes[static_cast<std::size_t>(domain)].name.c_str());
    if (ImGui::SliderFloat("stiffness scale", &stiffness_scale[static_cast<std::size_t>(domain)],
                           0.1f, 10, "%.2f", ImGuiSliderFlags_Logarithmic))
      simulator->set_stiffness_scale(domain, stiffness_scale[static_cast<std::size_t>(domain)]);
    const bool screenshot = ImGui::Button("screenshot (PNG)");
    ImGui::TextUnformatted("right drag: orbit, wheel: zoom, left drag: pull");
    ImGui::End();
    if (changed) {
      settings = simulator->settings();
      settings.time_step = time_step;
      for (NodeSettings& n : settings.nodes) n.integrator = Integrator(integrator + 1);
      settings.lumping = InterfaceLumping(lumping + 1);
      const float a = wind_angle * static_cast<float>(M_PI) / 180;
      settings.wind.mean_velocity = wind_speed * Eigen::Vector3d(-std::cos(a), -std::sin(a), 0);
      try {
        simulator->set_settings(settings);
      } catch (const Error& e) {
        status_text = e.what();
        settings = simulator->settings();
      }
    }

    // Draw.
    const auto surface_start = std::chrono::steady_clock::now();
    update_surface(*simulator, surface, color_domains);
    mesh.update(surface.buffer);
    surface_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - surface_start).count();
    glViewport(0, 0, width, height);
    glClearColor(0.93f, 0.94f, 0.96f, 1);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glEnable(GL_DEPTH_TEST);
    glUseProgram(program);
    glUniformMatrix4fv(glGetUniformLocation(program, "view_projection"), 1, GL_FALSE,
                       view_projection.data());
    const Vector3f light = (eye - center).normalized();
    glUniform3f(glGetUniformLocation(program, "light"), light(0), light(1), light(2));
    glUniform1f(glGetUniformLocation(program, "lit"), 0);
    grid.draw();
    glUniform1f(glGetUniformLocation(program, "lit"), 1);
    mesh.draw();
    // Screenshots: the scene without the panel (scripted), or with it (button).
    if (options.frames > 0 && frame == options.frames && !options.screenshot.empty())
      write_png(options.screenshot, width, height);
    if (options.frames > 0 && frame == 2 * options.frames && !options.pulled_screenshot.empty())
      write_png(options.pulled_screenshot, width, height);
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (screenshot)
      write_png("ramus_view_" + std::to_string(++screenshots) + ".png", width, height);
    glfwSwapBuffers(window);
    const int last_frame = options.pulled_screenshot.empty() ? options.frames : 2 * options.frames;
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
      step_ms);
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
}

}  // namespace ramus::viewer
