#include "ramus/precompute/cloth/cloth_self_repulsion.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <unsupported/Eigen/BVH>

#include "ramus/precompute/contact/point_triangle_distance.h"

namespace ramus {

namespace {

using Box = Eigen::AlignedBox3d;
using Tree = Eigen::KdBVH<double, 3, int>;

// A particle and the closest point of a triangle it is not a corner of.
struct Proximity {
  int particle = 0;
  int corners[3] = {0, 0, 0};
  Eigen::Vector3d weights = Eigen::Vector3d::Zero();  // the closest point's, on the corners
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  // from the closest point to the particle
  double gap = 0;                                     // m, at the step's start
};

// 1 for a particle the impulses may move, 0 for one they may not.
double can_move(const std::vector<double>& movable, int p) {
  return movable.empty() ? 1.0 : movable[static_cast<std::size_t>(p)];
}

// The triangles whose boxes meet a query box.
struct TrianglesInBox {
  const Box& query;
  std::vector<int>& found;
  bool intersectVolume(const Box& box) { return box.intersects(query); }
  bool intersectObject(const int& t) {
    found.push_back(t);
    return false;
  }
};

// Every particle-triangle pair within the thickness plus what the speeds cover in the step.
std::vector<Proximity> find_proximities(const Eigen::MatrixX3i& triangles, const Eigen::VectorXd& x,
                                        const Eigen::VectorXd& v, double h, double thickness) {
  const auto at = [&](int p) -> Eigen::Vector3d { return x.segment<3>(3 * p); };
  std::vector<int> ids(static_cast<std::size_t>(triangles.rows()));
  std::iota(ids.begin(), ids.end(), 0);
  std::vector<Box> boxes(ids.size());
  for (Eigen::Index t = 0; t < triangles.rows(); ++t)
    for (int k = 0; k < 3; ++k) boxes[static_cast<std::size_t>(t)].extend(at(triangles(t, k)));
  const Tree tree(ids.begin(), ids.end(), boxes.begin(), boxes.end());
  double fastest = 0;
  for (Eigen::Index p = 0; p < v.size() / 3; ++p)
    fastest = std::max(fastest, v.segment<3>(3 * p).norm());

  std::vector<Proximity> pairs;
  std::vector<int> found;
  for (int p = 0; p < static_cast<int>(x.size() / 3); ++p) {
    // The triangles within reach of the particle, then each one's closest point.
    const double reach = thickness + h * (v.segment<3>(3 * p).norm() + fastest);
    const Box query(at(p).array() - reach, at(p).array() + reach);
    found.clear();
    TrianglesInBox search{query, found};
    Eigen::BVIntersect(tree, search);
    for (const int t : found) {
      if ((triangles.row(t).array() == p).any()) continue;
      const Eigen::Vector3d a = at(triangles(t, 0)), b = at(triangles(t, 1)),
                            c = at(triangles(t, 2));
      Proximity pair;
      pair.weights = closest_point_weights(at(p), a, b, c);
      const Eigen::Vector3d offset =
          at(p) - (pair.weights(0) * a + pair.weights(1) * b + pair.weights(2) * c);
      pair.gap = offset.norm();
      if (pair.gap > reach) continue;
      // The triangle's normal on the particle's side (Bridson's n̂), or the offset's direction
      // for a particle in the triangle's plane.
      const Eigen::Vector3d face = (b - a).cross(c - a).normalized();
      const double side = face.dot(offset);
      if (std::abs(side) > 1e-9 * pair.gap && face.allFinite())
        pair.normal = side > 0 ? face : Eigen::Vector3d(-face);
      else if (pair.gap > 0)
        pair.normal = offset / pair.gap;
      pair.particle = p;
      for (int k = 0; k < 3; ++k) pair.corners[k] = triangles(t, k);
      pairs.push_back(pair);
    }
  }
  return pairs;
}

// The pair's relative velocity (particle minus the triangle's closest point).
Eigen::Vector3d relative_velocity(const Proximity& pair, const Eigen::VectorXd& v) {
  Eigen::Vector3d closest = Eigen::Vector3d::Zero();
  for (int k = 0; k < 3; ++k) closest += pair.weights(k) * v.segment<3>(3 * pair.corners[k]);
  return v.segment<3>(3 * pair.particle) - closest;
}

// Changes the pair's relative velocity by `change` (m/s) with one impulse J along it: the
// particle by J a_p, corner k by -w_k J a_k (a = can_move), so the relative velocity by
// J (a_p + Σ w_k² a_k); momentum is kept where every side can move (Σ w = 1).
void share_change(const Proximity& pair, const Eigen::Vector3d& change,
                  const std::vector<double>& movable, Eigen::VectorXd& v) {
  double along = can_move(movable, pair.particle);
  for (int k = 0; k < 3; ++k)
    along += pair.weights(k) * pair.weights(k) * can_move(movable, pair.corners[k]);
  if (!(along > 0)) return;
  const Eigen::Vector3d impulse = change / along;
  v.segment<3>(3 * pair.particle) += can_move(movable, pair.particle) * impulse;
  for (int k = 0; k < 3; ++k)
    v.segment<3>(3 * pair.corners[k]) -=
        pair.weights(k) * can_move(movable, pair.corners[k]) * impulse;
}

// Kinetic energy of the pair's four particles (J).
double pair_kinetic_energy(const Proximity& pair, double mass, const Eigen::VectorXd& v) {
  double e = v.segment<3>(3 * pair.particle).squaredNorm();
  for (int k = 0; k < 3; ++k) e += v.segment<3>(3 * pair.corners[k]).squaredNorm();
  return 0.5 * mass * e;
}

}  // namespace

ClothSelfRepulsionReport apply_cloth_self_repulsion(const Eigen::MatrixX3i& triangles, double mass,
                                                    const Eigen::VectorXd& x, double h,
                                                    const ClothSelfRepulsionOptions& options,
                                                    const std::vector<double>& movable,
                                                    Eigen::VectorXd& v) {
  ClothSelfRepulsionReport report;
  const std::vector<Proximity> pairs = find_proximities(triangles, x, v, h, options.thickness);
  report.pairs = static_cast<int>(pairs.size());
  report.closest = std::numeric_limits<double>::infinity();
  for (const Proximity& pair : pairs) report.closest = std::min(report.closest, pair.gap);
  for (int sweep = 0; sweep < options.sweeps; ++sweep) {
    int applied = 0;
    for (const Proximity& pair : pairs) {
      // The normal velocity the pair may have: closing at most to the thickness within the step;
      // inside it, not closing, and (first sweep) pushed apart by h k d / m, up to 0.1 d / h.
      const Eigen::Vector3d relative = relative_velocity(pair, v);
      const double normal_speed = relative.dot(pair.normal);
      double target = normal_speed;
      if (pair.gap > options.thickness) {
        target = std::max(normal_speed, -(pair.gap - options.thickness) / h);
      } else {
        const double overlap = options.thickness - pair.gap;
        target = std::max(normal_speed, 0.0);
        if (sweep == 0 && target < 0.1 * overlap / h)
          target = std::min(0.1 * overlap / h, target + h * options.stiffness * overlap / mass);
      }
      if (!(target > normal_speed)) continue;
      ++applied;
      share_change(pair, (target - normal_speed) * pair.normal, movable, v);
      const double before = options.friction > 0 ? pair_kinetic_energy(pair, mass, v) : 0.0;
      // Coulomb friction on the impulse: the slip slowed by mu times the normal change.
      if (options.friction > 0) {
        const Eigen::Vector3d slip = relative - normal_speed * pair.normal;
        const double speed = slip.norm();
        if (speed > 0)
          share_change(pair,
                       -std::min(speed, options.friction * (target - normal_speed)) / speed * slip,
                       movable, v);
        report.friction_work += std::max(0.0, before - pair_kinetic_energy(pair, mass, v));
      }
    }
    report.impulses += applied;
    if (applied == 0) break;
  }
  return report;
}

}  // namespace ramus
