// SIERE in full space (stiff-and-soft-integrators-survey.txt Eq. 18-25), for comparison with the
// runtime's reduced SIERE on the same object (docs/INTEGRATORS.md): exponential Rosenbrock Euler
// on the s lowest modes of (K(x_n), M), semi-implicit Euler on the rest. The s modes come from
// Spectra's shift-invert Lanczos with the step's own CHOLMOD factorization of the SI matrix
// A = (1 + hα) M + (hβ + h²) K (a shift of K - σM with σ = -(1 + hα)/(hβ + h²)); the s-rank
// correction of Eq. 25 is applied by Sherman-Morrison-Woodbury on that factor: no dense n by n
// matrix anywhere.
#pragma once

#include <Eigen/Core>
#include <memory>

#include "ramus/precompute/fem/dof_map.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/fem/stvk_fem_model.h"

namespace ramus {

/// The low-mode split of full-space SIERE.
struct FullSpaceSiereOptions {
  int modes = 5;          ///< s, the lowest modes integrated exponentially (>= 1)
  int refresh_steps = 1;  ///< recompute them every k steps (Rayleigh-Ritz in their span between)
};

class FullSpaceSiere {
 public:
  /// `model` must outlive this. Damping: α M + β K (K lagged at x_n and made PSD, as the
  /// full-space BE's). Throws OptionError for s < 1 or s >= #free DOFs.
  FullSpaceSiere(const StvkFemModel& model, DofMap dofs, FullSpaceOptions options,
                 FullSpaceSiereOptions siere);
  ~FullSpaceSiere();

  /// One SIERE step of options().time_step under gravity and `external_forces` (3#V or empty);
  /// fixed vertices keep their positions. Throws NumericalError when the factorization or the
  /// eigen-solver fails.
  void step(FullSpaceState& state, const Eigen::VectorXd& external_forces = {});

  /// λ of the current split modes (rad²/s², ascending).
  const Eigen::VectorXd& eigenvalues() const;

 private:
  struct Data;
  const StvkFemModel& model_;
  DofMap dofs_;
  FullSpaceOptions options_;
  FullSpaceSiereOptions siere_;
  std::unique_ptr<Data> data_;
};

}  // namespace ramus
