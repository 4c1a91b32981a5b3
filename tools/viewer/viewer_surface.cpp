#include "viewer_surface.h"

#include <Eigen/Geometry>
#include <cmath>

#include "ramus/runtime/dynamics/render_vertices.h"

namespace ramus::viewer {

namespace {

using Vector3f = Eigen::Vector3f;

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

}  // namespace

Surface make_surface(const Model& model) {
  Surface s;
  const RenderMesh& mesh = model.render;
  s.domain.resize(static_cast<std::size_t>(mesh.num_vertices));
  s.corners.resize(s.domain.size());
  s.weights.assign(s.domain.size(), Eigen::Vector4d(1, 0, 0, 0));
  for (const RenderPiece& piece : mesh.pieces)
    for (std::size_t j = 0; j < piece.domains.size(); ++j)
      for (int v = 0; v < piece.size(); ++v) {
        const auto k =
            static_cast<std::size_t>(piece.first_vertex + static_cast<int>(j) * piece.size() + v);
        s.domain[k] = piece.domains[j];
        s.corners[k] = Eigen::Vector4i::Constant(piece.nearest_part_vertex(v));
      }
  Eigen::Matrix<int, Eigen::Dynamic, 3, Eigen::RowMajor> triangles(mesh.num_triangles, 3);
  render_triangles(model, triangles.data());
  s.triangles = triangles;
  s.positions.resize(mesh.num_vertices, 3);
  s.vertices.resize(6 * s.domain.size());
  s.buffer.resize(9 * s.domain.size());
  return s;
}

void update_surface(Simulator& simulator, Surface& s, bool color_domains) {
  // (Buffers of fixed sizes: a frame allocates nothing.)
  simulator.render_vertices(s.vertices.data(), true);
  for (Eigen::Index v = 0; v < s.positions.rows(); ++v) {
    const float* in = s.vertices.data() + 6 * v;
    float* out = s.buffer.data() + 9 * v;
    const Vector3f color = color_domains ? domain_color(s.domain[static_cast<std::size_t>(v)])
                                         : Vector3f(0.45f, 0.62f, 0.32f);
    for (int c = 0; c < 3; ++c) {
      s.positions(v, c) = in[c];
      out[c] = in[c];
      out[3 + c] = std::isfinite(in[3 + c]) ? in[3 + c] : 0.0f;
      out[6 + c] = color(c);
    }
  }
}

}  // namespace ramus::viewer
