#include "viewer_surface.h"

#include <Eigen/Geometry>
#include <cmath>

#include "ramus/runtime/model/model_geometry.h"

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
  const EmbeddedSurface& e = model.embedded_surface;
  s.embedded = static_cast<int>(e.rest_positions.rows());
  std::vector<char> covered(static_cast<std::size_t>(model.num_domains()), 0);
  for (int v = 0; v < s.embedded; ++v) {
    const int domain = e.domain(v);
    covered[static_cast<std::size_t>(domain)] = 1;
    s.domain.push_back(domain);
    s.corners.push_back(model.part_of(domain).tets.row(e.tet(v)).transpose());
    s.weights.push_back(e.barycentric.row(v).transpose());
  }
  for (int g = 0; g < model.num_global_vertices; ++g) {
    const auto [domain, vertex] = vertex_copy(model, g);
    s.domain.push_back(domain);
    s.corners.push_back(Eigen::Vector4i::Constant(vertex));
    s.weights.push_back(Eigen::Vector4d(1, 0, 0, 0));
  }
  std::vector<Eigen::Vector3i> triangles;
  for (Eigen::Index f = 0; f < e.triangles.rows(); ++f) triangles.push_back(e.triangles.row(f));
  const Eigen::MatrixX3i& boundary = model.global_surface_triangles;
  for (Eigen::Index f = 0; f < boundary.rows(); ++f)
    if (!covered[static_cast<std::size_t>(
            s.domain[static_cast<std::size_t>(s.embedded + boundary(f, 0))])])
      triangles.push_back(boundary.row(f).transpose().array() + s.embedded);
  s.triangles.resize(static_cast<Eigen::Index>(triangles.size()), 3);
  for (std::size_t f = 0; f < triangles.size(); ++f)
    s.triangles.row(static_cast<Eigen::Index>(f)) = triangles[f].transpose();
  s.positions.resize(static_cast<Eigen::Index>(s.domain.size()), 3);
  s.buffer.resize(9 * s.domain.size());
  return s;
}

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
    const Vector3f color = color_domains ? domain_color(s.domain[static_cast<std::size_t>(v)])
                                         : Vector3f(0.45f, 0.62f, 0.32f);
    const Vector3f normal = normals.row(v).transpose().normalized();
    for (int c = 0; c < 3; ++c) {
      out[c] = static_cast<float>(s.positions(v, c));
      out[3 + c] = std::isfinite(normal(c)) ? normal(c) : 0.0f;
      out[6 + c] = color(c);
    }
  }
}

}  // namespace ramus::viewer
