#define GLFW_INCLUDE_NONE
#define GL_GLEXT_PROTOTYPES
#include "viewer_shader.h"

#include <GL/gl.h>
#include <GL/glext.h>

#include <string>

#include "ramus/error.h"

namespace ramus::viewer {

const char* const kLitFragmentShader = R"(#version 330 core
in vec3 shade_normal;
in vec3 shade_color;
uniform vec3 light;
uniform float lit;
out vec4 out_color;
void main() {
  float d = abs(dot(normalize(shade_normal), light));
  out_color = vec4(shade_color * mix(1.0, 0.3 + 0.7 * d, lit), 1.0);
})";

namespace {

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

}  // namespace

unsigned lit_program(const char* vertex_source) {
  const GLuint program = glCreateProgram();
  glAttachShader(program, compile(GL_VERTEX_SHADER, vertex_source));
  glAttachShader(program, compile(GL_FRAGMENT_SHADER, kLitFragmentShader));
  glLinkProgram(program);
  GLint linked = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &linked);
  if (!linked) throw Error("view: a shader program does not link");
  return program;
}

}  // namespace ramus::viewer
