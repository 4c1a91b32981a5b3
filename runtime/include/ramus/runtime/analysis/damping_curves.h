// Damping curves (stiff-and-soft-integrators-survey.txt §3.2, Fig. 3): the artificial damping
// each integrator adds to the undamped test equation q̈ + ω² q = 0. A step of a method on it is a
// linear map u_1 = T u_0 (T its amplification matrix); the method then solves the modified
// equation q̈ + d q̇ + ω² q = 0 with d / ω = -2 ln ρ(T) / (ω h), a function of ω h alone.
#pragma once

#include <Eigen/Core>
#include <memory>

#include "ramus/runtime/data/runtime_settings.h"
#include "ramus/runtime/model/model.h"

namespace ramus {

/// The test equation as a one-domain model with r = 1 and ω = 1 rad/s (one unit-mass tet; the
/// reduced polynomial is E(q) = q² / 2).
std::shared_ptr<const Model> test_equation_model();

/// True for the two-step integrators (bdf2, sbdf2, sbdf2ere), whose T acts on (q, q̇) of the
/// step and of the one before.
bool is_two_step(Integrator integrator);

/// T of `integrator` at ω h > 0 on the test equation, column by column from unit states through
/// the runtime's own step: 2 by 2 on (q, q̇), or 4 by 4 on (q, q̇, q_-1, q̇_-1) for two-step
/// methods. The split methods treat the mode exponentially (s = r = 1); with s = 0 they are their
/// semi-implicit parents. Throws OptionError when a step fails (e.g. ω h not positive).
Eigen::MatrixXd amplification_matrix(Integrator integrator, double omega_h);

/// d / ω = -2 ln ρ(T) / (ω h) (0 for a conservative method, < 0 for one that amplifies).
double numerical_damping(Integrator integrator, double omega_h);

/// d / ω measured instead from the decay of the amplitude sqrt(q² + (q̇/ω)²) (its geometric mean
/// over the last half of `steps` steps from q = 1, q̇ = 0), to check numerical_damping.
double simulated_damping(Integrator integrator, double omega_h, int steps);

}  // namespace ramus
