// GpuSkinning (viewer_gpu_skinning.h): texture buffers (OpenGL 3.1 core) read by gl_VertexID
// and gl_InstanceID; the vertex shader computes x = o + R (s X + s_b P q) and
// n = R normalize(n_0 + (s_b / s) N q) as render_vertices does on the CPU.
#define GLFW_INCLUDE_NONE
#define GL_GLEXT_PROTOTYPES
#include "viewer_gpu_skinning.h"

#include <GL/gl.h>
#include <GL/glext.h>

#include <algorithm>

#include "ramus/runtime/dynamics/render_vertices.h"
#include "viewer_shader.h"

namespace ramus::viewer {

namespace {

// Texel fetches of a piece's tables, by coordinate: coordinate c of vertex v at c S + v; P and N
// column-major (3S rows): coordinate c of vertex v in column l at l 3S + c S + v.
const char* kSkinningShader = R"(#version 330 core
uniform samplerBuffer rest;
uniform samplerBuffer rest_normals;
uniform samplerBuffer position_basis;
uniform samplerBuffer normal_basis;
uniform isamplerBuffer domains;
uniform samplerBuffer coordinates;
uniform samplerBuffer transforms;
uniform int vertex_count;
uniform int r;
uniform int first_coordinate;
uniform int color_domains;
uniform mat4 view_projection;
out vec3 shade_normal;
out vec3 shade_color;
vec3 fetch3(samplerBuffer b, int k) {
  return vec3(texelFetch(b, k).r, texelFetch(b, k + vertex_count).r,
              texelFetch(b, k + 2 * vertex_count).r);
}
vec3 hue(int domain) {
  float h = fract(0.618034 * float(domain)) * 6.0;
  float x = 1.0 - abs(mod(h, 2.0) - 1.0);
  vec3 rgb = h < 1.0 ? vec3(1, x, 0) : h < 2.0 ? vec3(x, 1, 0) : h < 3.0 ? vec3(0, 1, x)
           : h < 4.0 ? vec3(0, x, 1) : h < 5.0 ? vec3(x, 0, 1) : vec3(1, 0, x);
  return 0.35 + 0.55 * rgb;
}
void main() {
  int v = gl_VertexID, j = gl_InstanceID;
  int domain = texelFetch(domains, j).r;
  vec4 t0 = texelFetch(transforms, 4 * domain), t1 = texelFetch(transforms, 4 * domain + 1);
  vec4 t2 = texelFetch(transforms, 4 * domain + 2), t3 = texelFetch(transforms, 4 * domain + 3);
  mat3 R = mat3(t0.xyz, vec3(t0.w, t1.xy), vec3(t1.zw, t2.x));
  vec3 u = vec3(0), dn = vec3(0);
  for (int l = 0; l < r; ++l) {
    float q = texelFetch(coordinates, first_coordinate + j * r + l).r;
    u += q * fetch3(position_basis, 3 * l * vertex_count + v);
    dn += q * fetch3(normal_basis, 3 * l * vertex_count + v);
  }
  vec3 x = t2.yzw + R * (t3.x * fetch3(rest, v) + t3.y * u);
  shade_normal = R * normalize(fetch3(rest_normals, v) + t3.z * dn);
  shade_color = color_domains != 0 ? hue(domain) : vec3(0.45, 0.62, 0.32);
  gl_Position = view_projection * vec4(x, 1.0);
})";

// A texture buffer of `bytes` bytes read as `format` (GL_R32F, GL_R32I, GL_RGBA32F).
void fill_table(unsigned& buffer, unsigned& texture, const void* data, std::size_t bytes,
                GLenum format, GLenum usage) {
  glGenBuffers(1, &buffer);
  glBindBuffer(GL_TEXTURE_BUFFER, buffer);
  glBufferData(GL_TEXTURE_BUFFER, static_cast<GLsizeiptr>(std::max<std::size_t>(16, bytes)),
               bytes > 0 ? data : nullptr, usage);
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_BUFFER, texture);
  glTexBuffer(GL_TEXTURE_BUFFER, format, buffer);
}

// Bytes of an Eigen table or a vector.
template <typename T>
std::size_t bytes_of(const T& table) {
  return sizeof(*table.data()) * static_cast<std::size_t>(table.size());
}

}  // namespace

GpuSkinning::GpuSkinning(const Model& model) {
  program_ = lit_program(kSkinningShader);
  // Each piece's tables, once.
  for (const RenderPiece& p : model.render.pieces) {
    Piece g;
    g.vertices = p.size();
    g.triangles = static_cast<int>(p.triangles.rows());
    g.instances = static_cast<int>(p.domains.size());
    g.r = model.parts[static_cast<std::size_t>(p.part)].r;
    g.first_coordinate = model.domains[static_cast<std::size_t>(p.domains.front())].dof_offset;
    fill_table(g.rest.buffer, g.rest.texture, p.rest.data(), bytes_of(p.rest), GL_R32F,
               GL_STATIC_DRAW);
    fill_table(g.rest_normals.buffer, g.rest_normals.texture, p.rest_normals.data(),
               bytes_of(p.rest_normals), GL_R32F, GL_STATIC_DRAW);
    fill_table(g.position_basis.buffer, g.position_basis.texture, p.position_basis.data(),
               bytes_of(p.position_basis), GL_R32F, GL_STATIC_DRAW);
    fill_table(g.normal_basis.buffer, g.normal_basis.texture, p.normal_basis.data(),
               bytes_of(p.normal_basis), GL_R32F, GL_STATIC_DRAW);
    fill_table(g.domains.buffer, g.domains.texture, p.domains.data(), bytes_of(p.domains), GL_R32I,
               GL_STATIC_DRAW);
    glGenVertexArrays(1, &g.array);
    glBindVertexArray(g.array);
    glGenBuffers(1, &g.indices);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.indices);
    glBufferData(
        GL_ELEMENT_ARRAY_BUFFER,
        static_cast<GLsizeiptr>(sizeof(int) * static_cast<std::size_t>(p.triangles.size())),
        p.triangles.data(), GL_STATIC_DRAW);
    pieces_.push_back(g);
  }
  glBindVertexArray(0);
  // Per frame: q and the transforms.
  q_.resize(static_cast<std::size_t>(model.num_dofs));
  frames_.resize(kRenderTransformFloats * static_cast<std::size_t>(model.num_domains()));
  fill_table(coordinates_.buffer, coordinates_.texture, q_.data(), bytes_of(q_), GL_R32F,
             GL_STREAM_DRAW);
  fill_table(transforms_.buffer, transforms_.texture, frames_.data(), bytes_of(frames_), GL_RGBA32F,
             GL_STREAM_DRAW);
}

GpuSkinning::~GpuSkinning() {
  for (Piece& g : pieces_) {
    for (Table* t : {&g.rest, &g.rest_normals, &g.position_basis, &g.normal_basis, &g.domains}) {
      glDeleteTextures(1, &t->texture);
      glDeleteBuffers(1, &t->buffer);
    }
    glDeleteBuffers(1, &g.indices);
    glDeleteVertexArrays(1, &g.array);
  }
  for (Table* t : {&coordinates_, &transforms_}) {
    glDeleteTextures(1, &t->texture);
    glDeleteBuffers(1, &t->buffer);
  }
  glDeleteProgram(program_);
}

void GpuSkinning::update(const Simulator& simulator) {
  const Eigen::VectorXd& q = simulator.state().q;
  for (Eigen::Index k = 0; k < q.size(); ++k)
    q_[static_cast<std::size_t>(k)] = static_cast<float>(q(k));
  render_transforms(simulator.model(), simulator.state(), frames_.data());
  glBindBuffer(GL_TEXTURE_BUFFER, coordinates_.buffer);
  glBufferSubData(GL_TEXTURE_BUFFER, 0, static_cast<GLsizeiptr>(sizeof(float) * q_.size()),
                  q_.data());
  glBindBuffer(GL_TEXTURE_BUFFER, transforms_.buffer);
  glBufferSubData(GL_TEXTURE_BUFFER, 0, static_cast<GLsizeiptr>(sizeof(float) * frames_.size()),
                  frames_.data());
}

void GpuSkinning::draw(const Eigen::Matrix4f& view_projection, const Eigen::Vector3f& light,
                       bool color_domains) const {
  glUseProgram(program_);
  glUniformMatrix4fv(glGetUniformLocation(program_, "view_projection"), 1, GL_FALSE,
                     view_projection.data());
  glUniform3f(glGetUniformLocation(program_, "light"), light(0), light(1), light(2));
  glUniform1f(glGetUniformLocation(program_, "lit"), 1);
  glUniform1i(glGetUniformLocation(program_, "color_domains"), color_domains ? 1 : 0);
  // Texture units: 0-4 the piece's tables, 5 q, 6 the transforms.
  const char* names[] = {"rest",    "rest_normals", "position_basis", "normal_basis",
                         "domains", "coordinates",  "transforms"};
  for (int unit = 0; unit < 7; ++unit)
    glUniform1i(glGetUniformLocation(program_, names[unit]), unit);
  const auto bind = [](int unit, unsigned texture) {
    glActiveTexture(GL_TEXTURE0 + static_cast<GLenum>(unit));
    glBindTexture(GL_TEXTURE_BUFFER, texture);
  };
  bind(5, coordinates_.texture);
  bind(6, transforms_.texture);
  for (const Piece& g : pieces_) {
    bind(0, g.rest.texture);
    bind(1, g.rest_normals.texture);
    bind(2, g.position_basis.texture);
    bind(3, g.normal_basis.texture);
    bind(4, g.domains.texture);
    glUniform1i(glGetUniformLocation(program_, "vertex_count"), g.vertices);
    glUniform1i(glGetUniformLocation(program_, "r"), g.r);
    glUniform1i(glGetUniformLocation(program_, "first_coordinate"), g.first_coordinate);
    glBindVertexArray(g.array);
    glDrawElementsInstanced(GL_TRIANGLES, 3 * g.triangles, GL_UNSIGNED_INT, nullptr, g.instances);
  }
  glBindVertexArray(0);
  glActiveTexture(GL_TEXTURE0);
}

}  // namespace ramus::viewer
