// Penalty self-collision of a tet mesh, or between several meshes merged into one (the
// optimization paper's §5.3): a surface vertex inside a tet that is not its own is colliding;
// its depth is the distance d to the closest surface triangle it is not a corner of, and its
// energy k d² sqrt(d² + eps) (about k depth³). Detection by bounding-volume hierarchies (Eigen's
// KdBVH, rebuilt at every evaluation in O(n log n)); after the solve, the paper's friction impulse
// that minimizes the kinetic energy of the vertex and the triangle's corners.
#pragma once

#include <Eigen/Core>
#include <array>
#include <vector>

#include "ramus/precompute/contact/contact_potentials.h"
#include "ramus/precompute/contact/point_triangle_distance.h"

namespace ramus {

/// The self-collision penalty's settings.
struct SelfCollisionOptions {
  bool enabled = false;
  double stiffness = 0;    ///< k (J/m³): depth z costs about k z³
  double friction = 0;     ///< Coulomb's mu of the after-solve friction impulse
  double epsilon = 1e-15;  ///< eps (m²) in sqrt(d² + eps), the paper's value
};

/// One colliding surface vertex and the triangle closest to it.
struct SelfContact {
  int vertex = -1;
  std::array<int, 3> triangle{};   ///< its corners (mesh vertex indices)
  PointTriangleDistance distance;  ///< in the coordinates (vertex, corner 0, 1, 2)
};

/// k d sqrt(d + eps) of a squared distance d (J, J/m², J/m⁴), the paper's Φ.
ScalarDerivatives self_penalty(double squared_distance, double stiffness, double epsilon);

class SelfCollisionPenalty {
 public:
  SelfCollisionPenalty() = default;
  /// `tets` (#T by 4) over `num_vertices` vertices; surface = the tets' boundary triangles.
  SelfCollisionPenalty(const Eigen::MatrixX4i& tets, int num_vertices,
                       SelfCollisionOptions options);

  bool enabled() const { return options_.enabled; }
  const SelfCollisionOptions& options() const { return options_; }
  int num_surface_triangles() const { return static_cast<int>(triangles_.rows()); }

  /// The colliding surface vertices at x (3#V, m), each with its closest triangle (Hessians of
  /// the distances when asked).
  std::vector<SelfContact> find_contacts(const Eigen::VectorXd& x, bool with_hessian) const;

  /// Sum of k d sqrt(d + eps) over the contacts at x (J).
  double value(const Eigen::VectorXd& x) const;
  /// Adds its gradient (3#V) and returns its value.
  double add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) const;
  /// Calls add(vertices, 12 by 12 block) for each contact (vertex, triangle corners), the block
  /// projected to PSD when asked.
  template <typename AddBlock>
  void add_hessian_blocks(const Eigen::VectorXd& x, bool project_psd, AddBlock&& add) const {
    for (const SelfContact& c : find_contacts(x, true))
      add(std::array<int, 4>{c.vertex, c.triangle[0], c.triangle[1], c.triangle[2]},
          contact_hessian(c, project_psd));
  }
  /// The penalty's Hessian of one contact (12 by 12).
  Eigen::Matrix<double, 12, 12> contact_hessian(const SelfContact& c, bool project_psd) const;

  /// The paper's friction after the solve: for each contact at `positions`, the tangential
  /// impulse that minimizes the kinetic energy of the vertex and the triangle's corners, capped
  /// at mu |f| h. Changes `velocities` (3#V) only; returns the kinetic energy it removed (J) and
  /// adds the friction forces' magnitudes (N) to `friction_force`.
  double apply_friction(const Eigen::VectorXd& positions, const Eigen::VectorXd& vertex_masses,
                        double time_step, Eigen::VectorXd& velocities,
                        double& friction_force) const;

 private:
  SelfCollisionOptions options_;
  Eigen::MatrixX4i tets_;
  Eigen::MatrixX3i triangles_;  // boundary triangles, outward
  std::vector<int> surface_vertices_;
};

}  // namespace ramus
