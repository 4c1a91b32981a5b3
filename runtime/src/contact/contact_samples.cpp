#include "ramus/runtime/contact/contact_samples.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <limits>
#include <vector>

namespace ramus {

namespace {

// Each vertex's share of the surface: a third of every triangle's area at each corner (m²).
Eigen::VectorXd surface_vertex_areas(const Eigen::MatrixX3d& x, const Eigen::MatrixX3i& triangles) {
  Eigen::VectorXd area = Eigen::VectorXd::Zero(x.rows());
  for (Eigen::Index f = 0; f < triangles.rows(); ++f) {
    const Eigen::Vector3d a = x.row(triangles(f, 0)), b = x.row(triangles(f, 1)),
                          c = x.row(triangles(f, 2));
    const double third = (b - a).cross(c - a).norm() / 6;
    for (int k = 0; k < 3; ++k) area(triangles(f, k)) += third;
  }
  return area;
}

}  // namespace

ContactSampleChoice choose_contact_samples(const Eigen::MatrixX3d& rest_positions,
                                           const Eigen::MatrixX3i& surface_triangles, int count,
                                           const Eigen::VectorXi& excluded) {
  ContactSampleChoice choice;
  // The surface vertices (those of some triangle; 2: excluded), their areas, and which may be
  // chosen (`surface`, the first `n` of it) before the excluded ones.
  std::vector<char> on_surface(static_cast<std::size_t>(rest_positions.rows()), 0);
  for (Eigen::Index f = 0; f < surface_triangles.rows(); ++f)
    for (int k = 0; k < 3; ++k) on_surface[static_cast<std::size_t>(surface_triangles(f, k))] = 1;
  for (const int v : excluded)
    if (on_surface[static_cast<std::size_t>(v)]) on_surface[static_cast<std::size_t>(v)] = 2;
  std::vector<int> surface;
  for (const char kind : {1, 2})
    for (std::size_t v = 0; v < on_surface.size(); ++v)
      if (on_surface[v] == kind) surface.push_back(static_cast<int>(v));
  const Eigen::VectorXd area = surface_vertex_areas(rest_positions, surface_triangles);
  const int n = static_cast<int>(std::count(on_surface.begin(), on_surface.end(), 1));
  const int all = static_cast<int>(surface.size());
  if (n == 0 || count <= 0) {
    choice.vertices.resize(0);
    choice.weights.resize(0);
    return choice;
  }
  // Farthest-point sampling from the vertex farthest from the centroid; `nearest` tracks each
  // surface vertex's closest sample so far and `gap` its distance (squared).
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  for (const int v : surface) centroid += rest_positions.row(v).transpose();
  centroid /= all;
  std::vector<double> gap(static_cast<std::size_t>(all), std::numeric_limits<double>::infinity());
  std::vector<int> nearest(static_cast<std::size_t>(all), 0);
  std::vector<int> chosen;
  int next = 0;
  double far = -1;
  for (int k = 0; k < n; ++k) {
    const double d =
        (rest_positions.row(surface[static_cast<std::size_t>(k)]).transpose() - centroid)
            .squaredNorm();
    if (d > far) far = d, next = k;
  }
  const int samples = std::min(count, n);
  for (int s = 0; s < samples; ++s) {
    chosen.push_back(next);
    const Eigen::Vector3d p = rest_positions.row(surface[static_cast<std::size_t>(next)]);
    int farthest = 0;
    double farthest_gap = -1;
    for (int k = 0; k < all; ++k) {
      const double d =
          (rest_positions.row(surface[static_cast<std::size_t>(k)]).transpose() - p).squaredNorm();
      if (d < gap[static_cast<std::size_t>(k)]) {
        gap[static_cast<std::size_t>(k)] = d;
        nearest[static_cast<std::size_t>(k)] = s;
      }
      if (k < n && gap[static_cast<std::size_t>(k)] > farthest_gap)
        farthest_gap = gap[static_cast<std::size_t>(k)], farthest = k;
    }
    next = farthest;
  }
  // Weights: the areas of the surface vertices nearest each sample; then in ascending vertex order.
  Eigen::VectorXd weight = Eigen::VectorXd::Zero(samples);
  for (int k = 0; k < all; ++k)
    weight(nearest[static_cast<std::size_t>(k)]) += area(surface[static_cast<std::size_t>(k)]);
  std::vector<int> order(static_cast<std::size_t>(samples));
  for (int s = 0; s < samples; ++s) order[static_cast<std::size_t>(s)] = s;
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    return surface[static_cast<std::size_t>(chosen[static_cast<std::size_t>(a)])] <
           surface[static_cast<std::size_t>(chosen[static_cast<std::size_t>(b)])];
  });
  choice.vertices.resize(samples);
  choice.weights.resize(samples);
  for (int s = 0; s < samples; ++s) {
    const int k = order[static_cast<std::size_t>(s)];
    choice.vertices(s) = surface[static_cast<std::size_t>(chosen[static_cast<std::size_t>(k)])];
    choice.weights(s) = weight(k);
  }
  return choice;
}

void attach_contact_samples(ReducedPart& part, int count) {
  const ContactSampleChoice choice =
      choose_contact_samples(part.rest_positions, part.surface_triangles, count);
  part.contact.vertices = choice.vertices;
  part.contact.weights = choice.weights;
  const Eigen::Index r = part.basis.cols();
  part.contact.basis.resize(3 * choice.vertices.size(), r);
  for (Eigen::Index k = 0; k < choice.vertices.size(); ++k)
    part.contact.basis.middleRows<3>(3 * k) = part.basis.middleRows<3>(3 * choice.vertices(k));
}

}  // namespace ramus
