// A reduced model's static deflection and lowest natural frequencies against the full FEM of its
// undivided mesh (docs/VALIDATION.md, "Static and modal checks"): model error apart from the
// phase drift that dominates a trajectory's difference. The full side: Newton on the static
// equilibrium and shift-invert Lanczos on K and M. The reduced side is the runtime as a game
// steps it (the whole domain tree, its lumping and frames): settled under the load with
// critical Rayleigh damping, and set ringing along each full mode.
#pragma once

#include <Eigen/Core>

#include <functional>

#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/data/runtime_settings.h"

namespace ramus {

struct StaticModalOptions {
  /// The runtime's settings: domains sized for every domain (their lumping, stiffness scale and,
  /// for the modal runs, integrators are kept); gravity is the static load (zero: 9.81 m/s²
  /// along -z).
  RuntimeSettings settings;
  int num_frequencies = 3;  ///< lowest frequencies compared (0: the static check alone)
  /// A one-domain model's frequencies from its own linear modes (the undivided mesh's
  /// eigenproblem, solved in its reduction) against its basis's Ritz values (the reduced model's
  /// small-amplitude frequencies), instead of a second eigen-solve and a ringing run per mode.
  bool one_domain_shortcut = true;
  /// Called with (run, runs) as the reduced runs finish: progress of long checks.
  std::function<void(int, int)> progress;
};

/// The static deflection under gravity: largest vertex displacements and their difference (m).
struct StaticCheck {
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< the load (m/s²)
  double load_scale = 1;  ///< the load over the options' gravity (FullSpaceReference)
  double full_max_displacement = 0, reduced_max_displacement = 0, max_difference = 0;
  double relative_error = 0;  ///< max_difference / full_max_displacement
  int full_newton_iterations = 0;
  int settle_steps = 0;  ///< the runtime's steps to rest
  bool settled = false;  ///< no vertex moved by 1e-7 of the deflection in 3 steps running
};

struct StaticModalCheck {
  bool anchored = true;  ///< false: a free body, not checked (no static deflection)
  StaticCheck static_deflection;
  Eigen::VectorXd full_hz;     ///< the undivided mesh's lowest frequencies (Hz), ascending
  Eigen::VectorXd reduced_hz;  ///< the tree's, ringing along each full mode (NaN: no period seen)
  double full_seconds = 0, reduced_seconds = 0;  ///< wall-clock time of each side
};

/// The full FEM's side, computed once for any number of reduced models of the same mesh (their
/// lumpings, say).
struct FullSpaceReference {
  bool anchored = true;  ///< false: a free body (nothing else is set)
  /// The load (m/s²): the options' gravity times load_scale.
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();
  /// 1, or the tenth (down to 1e-3) at which the full static solve converged where it did not
  /// at the whole load (StVK under a large sag).
  double load_scale = 1;
  Eigen::MatrixX3d static_displacement;  ///< #V by 3 (m), global numbering
  int newton_iterations = 0;
  Eigen::VectorXd omegas;  ///< the lowest circular frequencies (rad/s), at least one
  /// The omegas are a one-domain model's own (StaticModalOptions::one_domain_shortcut): no modes.
  bool one_domain_omegas = false;
  Eigen::MatrixXd modes;       ///< 3#V by num_frequencies, mass-normalized
  Eigen::MatrixXd mass_modes;  ///< M times each
  double size = 0;             ///< the rest mesh's bounding-box diagonal (m)
  double seconds = 0;
};

/// The full side. Throws OptionError for a model with no undivided mesh (an assembly of
/// separate meshes) or num_frequencies outside [0, 20], NumericalError when a solve fails.
FullSpaceReference full_space_reference(const ReducedModel& model,
                                        const StaticModalOptions& options);

/// The reduced side against `reference` (made from the same mesh and options).
StaticModalCheck check_against_reference(const ReducedModel& model,
                                         const FullSpaceReference& reference,
                                         const StaticModalOptions& options);

/// Both sides (see the file's comment); the errors of the two calls above.
StaticModalCheck check_static_and_modal(const ReducedModel& model,
                                        const StaticModalOptions& options);

}  // namespace ramus
