// Ground truth for a reduced model: the same mesh, materials, anchors and loads simulated in full
// space (implicit Newmark solved to tolerance) and by the runtime (reduced implicit Newmark),
// compared frame by frame.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/simulator.h"

namespace ramus {

/// The full-space model of a reduced part at uniform scale `scale`: its mesh (positions times
/// `scale`) and per-tet materials.
StvkFemModel full_space_model(const ReducedPart& part, double scale = 1);

struct ComparisonOptions {
  RuntimeSettings settings;  ///< time step, gravity, Newton iterations (settings.domains unused)
  DomainSettings domain;     ///< the domain's Rayleigh damping, stiffness scale, integrator
  int steps = 100;
  std::vector<PointForce> forces;    ///< vertex forces with their time windows
  Eigen::VectorXd initial_velocity;  ///< 3#V initial velocities (empty: at rest); the reduced
                                     ///< run starts from its M-orthogonal projection Uᵀ M v
  /// Kinematic colliders at t = 0, moving at their constant velocities in both runs: the
  /// runtime's barrier at its samples, the full FEM's at every vertex (the same distance).
  std::vector<Collider> colliders;
};

/// Per frame: largest vertex displacement of each run and the largest vertex distance between
/// them (m).
struct ComparisonFrame {
  double time = 0;
  double full_max_displacement = 0;
  double reduced_max_displacement = 0;
  double max_difference = 0;
  /// The colliders' force on the object (N, world; zero without colliders) and the smallest
  /// distance of a contact point to a collider (m; +inf without), full (every vertex) and
  /// reduced (the samples).
  Eigen::Vector3d full_contact_force = Eigen::Vector3d::Zero();
  Eigen::Vector3d reduced_contact_force = Eigen::Vector3d::Zero();
  double full_smallest_distance = std::numeric_limits<double>::infinity();
  double reduced_smallest_distance = std::numeric_limits<double>::infinity();
};

struct Comparison {
  std::vector<ComparisonFrame> frames;           ///< steps + 1 frames, the first at t = 0
  double max_difference = 0;                     ///< over all frames (m)
  double max_full_displacement = 0;              ///< over all frames (m)
  double relative_error = 0;                     ///< max_difference / max_full_displacement
  double full_seconds = 0, reduced_seconds = 0;  ///< wall-clock time of each run
  Eigen::MatrixXd full_trajectory;               ///< 3#V by frames, displacements (for plots/tests)
  Eigen::MatrixXd reduced_trajectory;            ///< 3#V by frames
};

/// Runs both simulations of domain 0 of `model`. Throws OptionError for inconsistent options and
/// NumericalError if either run fails.
Comparison compare_reduced_to_full(std::shared_ptr<const ReducedModel> model,
                                   const ComparisonOptions& options);

struct TreeComparisonOptions {
  RuntimeSettings settings;  ///< the runtime's, domains sized for every domain; the full FEM takes
                             ///< h, gravity and the root domain's Rayleigh damping
  int steps = 100;
  std::vector<PointForce> forces;   ///< at global vertices (the undivided mesh's numbering)
  std::vector<Collider> colliders;  ///< as ComparisonOptions::colliders
  /// A moving anchor (empty: none): the anchor's displacement d(t) (m, world; d(0) = 0, at rest
  /// at t = 0). The reduced root is carried there each step (Simulator::move_anchor); the full
  /// FEM runs in the anchor's frame under the inertial body force -M d̈, d̈ differenced from d as
  /// the runtime differences it; both trajectories are recorded in the anchor's frame.
  std::function<Eigen::Vector3d(double)> anchor_displacement;
  /// Called after every step with (step, steps): progress of long ground-truth runs.
  std::function<void(int, int)> progress;
};

/// The undivided mesh of a model whose domains share their interface vertices (one mesh cut
/// into domains, or parts cut into domains placed once): global_rest_positions, global_tets and
/// per-tet materials, anchored at the root's fixed vertices. Throws OptionError naming the
/// domain whose part is placed at a scale or attached by embedding (an assembly of separate
/// meshes has no undivided one).
StvkFemModel undivided_full_space_model(const ReducedModel& model,
                                        std::vector<int>* fixed_vertices);

/// The whole domain tree (Algorithm 1, every domain's integrator) against the full FEM of the
/// undivided mesh (implicit Newmark to tolerance); trajectories over the global vertices.
Comparison compare_tree_to_full(std::shared_ptr<const ReducedModel> model,
                                const TreeComparisonOptions& options);

}  // namespace ramus
