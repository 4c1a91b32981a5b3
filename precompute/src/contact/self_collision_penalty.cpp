#include "ramus/precompute/contact/self_collision_penalty.h"

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unsupported/Eigen/BVH>

#include "ramus/precompute/mesh/boundary_surface.h"

namespace ramus {

namespace {

using Box = Eigen::AlignedBox3d;
using Tree = Eigen::KdBVH<double, 3, int>;

Eigen::Vector3d vertex_at(const Eigen::VectorXd& x, int v) {
  return x.segment<3>(3 * v);
}

// A tree over the bounding boxes of `elements` (rows of vertex indices) at x.
template <typename Elements>
Tree box_tree(const Elements& elements, const Eigen::VectorXd& x) {
  std::vector<int> ids(static_cast<std::size_t>(elements.rows()));
  std::iota(ids.begin(), ids.end(), 0);
  std::vector<Box> boxes(ids.size());
  for (Eigen::Index e = 0; e < elements.rows(); ++e)
    for (Eigen::Index k = 0; k < elements.cols(); ++k)
      boxes[static_cast<std::size_t>(e)].extend(vertex_at(x, elements(e, k)));
  return Tree(ids.begin(), ids.end(), boxes.begin(), boxes.end());
}

// Whether p lies inside tet t at x or on its boundary (a point on a face two tets share is in
// both; a flat tet contains nothing).
bool inside_tet(const Eigen::Vector3d& p, const Eigen::MatrixX4i& tets, int t,
                const Eigen::VectorXd& x) {
  const Eigen::Vector3d x0 = vertex_at(x, tets(t, 0));
  Eigen::Matrix3d edges;
  for (int k = 0; k < 3; ++k) edges.col(k) = vertex_at(x, tets(t, k + 1)) - x0;
  const double scale = edges.colwise().norm().maxCoeff();
  if (!(std::abs(edges.determinant()) > 1e-14 * scale * scale * scale)) return false;
  const Eigen::Vector3d lambda = edges.partialPivLu().solve(p - x0);
  return lambda.minCoeff() >= 0 && lambda.sum() <= 1;
}

// The tets whose boxes hold p, then the point-in-tet test; true at the first tet of which
// `vertex` is not a corner.
struct InsideForeignTet {
  const Eigen::Vector3d& p;
  int vertex;
  const Eigen::MatrixX4i& tets;
  const Eigen::VectorXd& x;
  bool found = false;
  bool intersectVolume(const Box& box) { return box.contains(p); }
  bool intersectObject(const int& t) {
    if ((tets.row(t).array() == vertex).any()) return false;
    found = inside_tet(p, tets, t, x);
    return found;
  }
};

// The surface triangle closest to p of which `vertex` is not a corner (branch and bound).
struct NearestForeignTriangle {
  using Scalar = double;
  const Eigen::Vector3d& p;
  int vertex;
  const Eigen::MatrixX3i& triangles;
  const Eigen::VectorXd& x;
  int best = -1;
  double best_squared = std::numeric_limits<double>::max();
  double minimumOnVolume(const Box& box) { return box.squaredExteriorDistance(p); }
  double minimumOnObject(const int& f) {
    if ((triangles.row(f).array() == vertex).any()) return std::numeric_limits<double>::max();
    const Eigen::Vector3d a = vertex_at(x, triangles(f, 0)), b = vertex_at(x, triangles(f, 1)),
                          c = vertex_at(x, triangles(f, 2));
    const Eigen::Vector3d w = closest_point_weights(p, a, b, c);
    const double squared = (p - (w(0) * a + w(1) * b + w(2) * c)).squaredNorm();
    if (squared < best_squared) {
      best_squared = squared;
      best = f;
    }
    return squared;
  }
};

}  // namespace

ScalarDerivatives self_penalty(double d, double k, double epsilon) {
  const double root = std::sqrt(d + epsilon);
  return {k * d * root, k * (root + 0.5 * d / root),
          k * (1 / root - 0.25 * d / ((d + epsilon) * root))};
}

SelfCollisionPenalty::SelfCollisionPenalty(const Eigen::MatrixX4i& tets, int num_vertices,
                                           SelfCollisionOptions options)
    : options_(options), tets_(tets), triangles_(boundary_triangles(tets)) {
  std::vector<char> on_surface(static_cast<std::size_t>(num_vertices), 0);
  for (Eigen::Index f = 0; f < triangles_.rows(); ++f)
    for (int k = 0; k < 3; ++k) on_surface[static_cast<std::size_t>(triangles_(f, k))] = 1;
  for (int v = 0; v < num_vertices; ++v)
    if (on_surface[static_cast<std::size_t>(v)]) surface_vertices_.push_back(v);
}

std::vector<SelfContact> SelfCollisionPenalty::find_contacts(const Eigen::VectorXd& x,
                                                             bool with_hessian) const {
  std::vector<SelfContact> contacts;
  if (!options_.enabled || tets_.rows() == 0) return contacts;
  // Broad phase: the tets' boxes; narrow phase: point in tet.
  const Tree tet_tree = box_tree(tets_, x);
  std::vector<int> colliding;
  for (const int v : surface_vertices_) {
    const Eigen::Vector3d p = vertex_at(x, v);
    InsideForeignTet query{p, v, tets_, x};
    Eigen::BVIntersect(tet_tree, query);
    if (query.found) colliding.push_back(v);
  }
  if (colliding.empty()) return contacts;
  // Each colliding vertex's closest foreign surface triangle, and the distance's derivatives.
  const Tree triangle_tree = box_tree(triangles_, x);
  for (const int v : colliding) {
    const Eigen::Vector3d p = vertex_at(x, v);
    NearestForeignTriangle nearest{p, v, triangles_, x};
    Eigen::BVMinimize(triangle_tree, nearest);
    if (nearest.best < 0) continue;
    SelfContact c;
    c.vertex = v;
    for (int k = 0; k < 3; ++k)
      c.triangle[static_cast<std::size_t>(k)] = triangles_(nearest.best, k);
    c.distance =
        point_triangle_distance(p, vertex_at(x, c.triangle[0]), vertex_at(x, c.triangle[1]),
                                vertex_at(x, c.triangle[2]), with_hessian);
    contacts.push_back(c);
  }
  return contacts;
}

double SelfCollisionPenalty::value(const Eigen::VectorXd& x) const {
  double energy = 0;
  for (const SelfContact& c : find_contacts(x, false))
    energy += self_penalty(c.distance.squared_distance, options_.stiffness, options_.epsilon).value;
  return energy;
}

double SelfCollisionPenalty::add_gradient(const Eigen::VectorXd& x,
                                          Eigen::VectorXd& gradient) const {
  double energy = 0;
  for (const SelfContact& c : find_contacts(x, false)) {
    const ScalarDerivatives phi =
        self_penalty(c.distance.squared_distance, options_.stiffness, options_.epsilon);
    energy += phi.value;
    gradient.segment<3>(3 * c.vertex) += phi.first * c.distance.gradient.head<3>();
    for (int k = 0; k < 3; ++k)
      gradient.segment<3>(3 * c.triangle[static_cast<std::size_t>(k)]) +=
          phi.first * c.distance.gradient.segment<3>(3 + 3 * k);
  }
  return energy;
}

Eigen::Matrix<double, 12, 12> SelfCollisionPenalty::contact_hessian(const SelfContact& c,
                                                                    bool project_psd) const {
  const ScalarDerivatives phi =
      self_penalty(c.distance.squared_distance, options_.stiffness, options_.epsilon);
  Eigen::Matrix<double, 12, 12> hessian =
      phi.second * c.distance.gradient * c.distance.gradient.transpose() +
      phi.first * c.distance.hessian;
  if (!project_psd) return hessian;
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 12, 12>> eigen(hessian);
  return eigen.eigenvectors() * eigen.eigenvalues().cwiseMax(0.0).asDiagonal() *
         eigen.eigenvectors().transpose();
}

double SelfCollisionPenalty::apply_friction(const Eigen::VectorXd& positions,
                                            const Eigen::VectorXd& vertex_masses, double time_step,
                                            Eigen::VectorXd& velocities,
                                            double& friction_force) const {
  if (!(options_.friction > 0)) return 0;
  double removed = 0;
  for (const SelfContact& c : find_contacts(positions, false)) {
    // The vertex (weight -1) and the closest point's corners (its barycentric weights).
    const std::array<int, 4> nodes = {c.vertex, c.triangle[0], c.triangle[1], c.triangle[2]};
    const std::array<double, 4> w = {-1, c.distance.weights(0), c.distance.weights(1),
                                     c.distance.weights(2)};
    const Eigen::Vector3d push = c.distance.gradient.head<3>();  // 2 r: along the normal
    if (!(push.norm() > 0)) continue;
    const Eigen::Vector3d normal = push.normalized();
    const double force =
        self_penalty(c.distance.squared_distance, options_.stiffness, options_.epsilon).first *
        push.norm();
    // j = -m_bar Q v_bar minimizes the kinetic energy; Coulomb caps it at mu |f| h.
    const Eigen::Matrix3d Q = Eigen::Matrix3d::Identity() - normal * normal.transpose();
    Eigen::Vector3d v_bar = Eigen::Vector3d::Zero();
    double inverse_mass = 0, kinetic_before = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      v_bar += w[i] * velocities.segment<3>(3 * nodes[i]);
      inverse_mass += w[i] * w[i] / vertex_masses(nodes[i]);
      kinetic_before +=
          0.5 * vertex_masses(nodes[i]) * velocities.segment<3>(3 * nodes[i]).squaredNorm();
    }
    Eigen::Vector3d j = -(Q * v_bar) / inverse_mass;
    const double cap = options_.friction * force * time_step;
    if (j.norm() > cap) j *= cap / j.norm();
    double kinetic_after = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      velocities.segment<3>(3 * nodes[i]) += w[i] / vertex_masses(nodes[i]) * j;
      kinetic_after +=
          0.5 * vertex_masses(nodes[i]) * velocities.segment<3>(3 * nodes[i]).squaredNorm();
    }
    removed += kinetic_before - kinetic_after;
    friction_force += j.norm() / time_step;
  }
  return removed;
}

}  // namespace ramus
