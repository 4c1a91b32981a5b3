// The viewer's shading, shared by its programs (the CPU's mesh and the GPU's skinning): the lit
// fragment shader and compiling a program around it.
#pragma once

namespace ramus::viewer {

/// Two-sided Lambert from the camera's direction plus ambient: inputs shade_normal and
/// shade_color, uniforms light (unit, world) and lit (0: flat colour, 1: shaded).
extern const char* const kLitFragmentShader;

/// A linked OpenGL program of `vertex_source` and kLitFragmentShader (a 3.3 context is
/// current). Throws ramus::Error with the compiler's log.
unsigned lit_program(const char* vertex_source);

}  // namespace ramus::viewer
