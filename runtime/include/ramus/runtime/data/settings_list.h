// The one list of Ramus's settings, in the spirit of MuJoCo's mjxmacro.h: for each setting its
// type, member name, default, bounds, spec (JSON) key, command-line flag, unit and a one-line
// doc. Everything else is made from it: the members of RuntimeSettings / WindSettings /
// DomainSettings / ScenarioSettings (runtime_settings.h), the validation (find_settings_problem and
// the step's own check), the model file's /runtime fields, the spec parser, the CLI options,
// `ramus inspect`, the C API's get/set by name and the settings tables of docs/SPEC.md (checked by
// a test). Adding a setting is one line here plus its use.
//
// X(Type, member, default, bounds, json_key, cli_flag, unit, doc)
//   bounds:   SettingBounds made by positive(), at_least(lo), closed(lo, hi), open_closed(lo, hi)
//             or named() (an enumeration: any of its names); for a vector, on its norm
//   json_key: where the spec gives it ("simulation.time_step"); a per-domain setting may also be
//             given per domain ("domains.per_domain.<name>.<last part of the key>")
//   cli_flag: the option of `ramus simulate`, `compare`, `audit` (and `simulate-full` for the
//             scenario and time step)
// Values are stored in model files by member name: never rename one.
#pragma once

/// Whole-object settings (RuntimeSettings): how the object is stepped.
#define RAMUS_OBJECT_SETTINGS(X)                                                                   \
  X(double, time_step, 1.0 / 60.0, open_closed(0, 1), "simulation.time_step", "--dt", "s",         \
    "time step h")                                                                                 \
  X(Eigen::Vector3d, gravity, Eigen::Vector3d(0, 0, -9.81), closed(0, 1e4), "simulation.gravity",  \
    "--gravity", "m/s^2", "gravity, world axes")                                                   \
  X(InterfaceLumping, lumping, InterfaceLumping::kInterface, named(), "domains.lumping",           \
    "--lumping", "",                                                                               \
    "subtree inertia: L1 at the interface, L2 at the subtree's centre of mass, L3 the subtree "    \
    "as a rigid body")                                                                             \
  X(double, newmark_beta, 0.25, open_closed(0, 1), "simulation.newmark_beta", "--newmark-beta",    \
    "", "newmark: beta (0.25: trapezoidal rule)")                                                  \
  X(double, newmark_gamma, 0.5, open_closed(0, 1), "simulation.newmark_gamma", "--newmark-gamma",  \
    "", "newmark: gamma")                                                                          \
  X(int, newton_iterations, 1, closed(1, 100), "simulation.newton_iterations", "--newton", "",     \
    "newmark: Newton iterations per step (1: semi-implicit, linearized at q_n)")                   \
  X(double, newton_tolerance, 0, at_least(0), "simulation.newton_tolerance", "--newton-tolerance", \
    "", "newmark: stop early when |residual|_inf <= this (0: never)")                              \
  X(double, max_coordinate, 1e6, positive(), "simulation.max_coordinate", "--max-coordinate", "",  \
    "|q|_inf beyond this counts as divergence")                                                    \
  X(int, implicit_iterations, 20, closed(1, 1000), "simulation.implicit_iterations",               \
    "--implicit-iterations", "",                                                                   \
    "be, bdf2, tr-bdf2, sdirk, im-blend: Newton iterations per stage (si, sbdf2: on the "          \
    "barrier, in contact)")                                                                        \
  X(double, implicit_tolerance, 1e-10, at_least(0), "simulation.implicit_tolerance",               \
    "--implicit-tolerance", "",                                                                    \
    "... a stage has converged when |dq|_inf / max(|q|_inf, 1e-12) is below this (an ancestor "    \
    "held by its descendants' contacts alone: below max(this, 1e-5))")                             \
  X(double, energy_tolerance, 0.01, open_closed(0, 1), "simulation.energy_tolerance",              \
    "--energy-tolerance", "", "im-blend: relative energy error the blend aims within")             \
  X(double, contact_distance, 0.005, closed(1e-6, 10), "simulation.contact_distance",              \
    "--contact-distance", "m", "colliders: the barrier's activation distance delta")               \
  X(double, contact_stiffness, 1e8, closed(1e-3, 1e15), "simulation.contact_stiffness",            \
    "--contact-stiffness", "Pa/m",                                                                 \
    "colliders: barrier stiffness kappa per unit of sample area (pressure kappa |b'(d)|)")         \
  X(double, contact_friction_speed, 0.01, closed(1e-9, 1e3), "simulation.contact_friction_speed",  \
    "--contact-friction-speed", "m/s", "colliders: slip speed below which friction is smoothed")

/// The wind (RuntimeSettings::wind, docs/WIND.md): a mean velocity with gusts and four eddies,
/// acting as drag on every domain's surface; off while mean and turbulence are zero.
#define RAMUS_WIND_SETTINGS(X)                                                                    \
  X(Eigen::Vector3d, mean_velocity, Eigen::Vector3d::Zero(), closed(0, 1e3),                      \
    "simulation.wind.velocity", "--wind", "m/s", "mean wind velocity, world axes")                \
  X(double, gust, 0, closed(0, 10), "simulation.wind.gust", "--wind-gust", "",                    \
    "relative gust amplitude")                                                                    \
  X(double, gust_period, 4, positive(), "simulation.wind.gust_period", "--wind-gust-period", "s", \
    "gust period")                                                                                \
  X(double, turbulence, 0, closed(0, 1e3), "simulation.wind.turbulence", "--wind-turbulence",     \
    "m/s", "eddy speed")                                                                          \
  X(double, turbulence_length, 2, positive(), "simulation.wind.turbulence_length",                \
    "--wind-turbulence-length", "m", "eddy wavelength")                                           \
  X(int, seed, 1, closed(0, 2147483647), "simulation.wind.seed", "--wind-seed", "",               \
    "draws the eddies' directions and phases")                                                    \
  X(double, drag, 0.6, closed(0, 1e3), "simulation.wind.drag", "--wind-drag", "kg/m^3",           \
    "1/2 rho_air C_d: traction drag |w| (n n^T) w")

/// Per-domain settings (DomainSettings, RuntimeSettings::domains): one value per domain.
#define RAMUS_DOMAIN_SETTINGS(X)                                                                   \
  X(Integrator, integrator, Integrator::kSemiImplicitBdf2, named(), "simulation.integrator",       \
    "--integrator", "", "the domain's time integrator (docs/INTEGRATORS.md)")                      \
  X(double, rayleigh_mass, 0, at_least(0), "simulation.rayleigh_mass", "--damping-mass", "1/s",    \
    "Rayleigh damping alpha M'")                                                                   \
  X(double, rayleigh_stiffness, 0, at_least(0), "simulation.rayleigh_stiffness",                   \
    "--damping-stiffness", "s",                                                                    \
    "Rayleigh damping beta K(q) (a spec that gives none: 2 % of critical at omega_1)")             \
  X(double, stiffness_scale, 1, positive(), "simulation.stiffness_scale", "--stiffness-scale", "", \
    "scales the reduced internal forces (frequencies by its square root)")                         \
  X(int, split_modes, 5, closed(0, 32), "simulation.split_modes", "--modes", "",                   \
    "siere, sbdf2ere, str-sbdf2ere: s, the lowest modes treated exponentially")                    \
  X(int, split_refresh_steps, 60, closed(1, 1000000000), "simulation.split_refresh_steps",         \
    "--modes-refresh", "", "... recomputed every k steps (1: exact; tracked in between)")          \
  X(double, split_drift_tolerance, 0.05, at_least(0), "simulation.split_drift_tolerance",          \
    "--modes-drift", "", "... and when a tracking step moves them more than this (0: never)")      \
  X(double, momentum_damping, 0, closed(0, 1), "simulation.momentum_damping",                      \
    "--momentum-damping", "",                                                                      \
    "im-blend (full space: lg-be, lg-im, lg-im-blend): share of the non-rigid velocity removed "   \
    "per step")

/// The scenario a run takes (ScenarioSettings): what `ramus simulate`, `compare`, `audit` and
/// `simulate-full` do with a model, besides its forces.
#define RAMUS_SCENARIO_SETTINGS(X)                                                                \
  X(int, steps, 100, closed(0, 1000000000), "simulation.steps", "--steps", "",                    \
    "time steps of a run")                                                                        \
  X(int, output_every, 1, closed(1, 1000000000), "simulation.output_every", "--output-every", "", \
    "write every n-th frame")

/// The mass-spring cloth (ClothSettings) of `ramus simulate-full` for a spec with "model":
/// "mass_spring": the springs of "Implementing the implicit Euler method for mass-spring systems"
/// (2004), its step-halving rule and its Jacobi-preconditioned conjugate gradients.
#define RAMUS_CLOTH_SETTINGS(X)                                                                  \
  X(double, areal_density, 0.2, positive(), "cloth.areal_density", "--cloth-density", "kg/m^2",  \
    "mass per unit area; every particle gets an equal share of the total (the paper's m / n)")   \
  X(double, stretch_stiffness, 1000, positive(), "cloth.stretch_stiffness", "--cloth-stretch",   \
    "N/m", "k of the stretch spring along each edge")                                            \
  X(double, bend_stiffness, 10, at_least(0), "cloth.bend_stiffness", "--cloth-bend", "N/m",      \
    "k of the bending spring across each edge two triangles share (far below stretch)")          \
  X(double, spring_damping, 0.002, at_least(0), "cloth.spring_damping", "--cloth-damping",       \
    "N s/m", "kd of every spring: the force kd (v_i - v_j) on particle j")                       \
  X(double, strain_limit, 0.1, open_closed(0, 10), "cloth.strain_limit", "--cloth-strain-limit", \
    "",                                                                                          \
    "a step changing a stretch spring's length by more than this (of its rest length) is "       \
    "redone at half the size; two good steps double it again")                                   \
  X(int, max_halvings, 10, closed(0, 30), "cloth.max_halvings", "--cloth-max-halvings", "",      \
    "... at most this many times (h / 2^k), then the step is kept and counted")                  \
  X(double, cg_tolerance, 1e-3, open_closed(0, 1), "cloth.cg_tolerance", "--cg-tolerance", "",   \
    "conjugate gradients stop at |r| <= this |b|")                                               \
  X(int, cg_iterations, 200, closed(1, 1000000), "cloth.cg_iterations", "--cg-iterations", "",   \
    "... or after this many iterations")                                                         \
  X(double, thickness, 0.005, positive(), "cloth.thickness", "--cloth-thickness", "m",           \
    "with contact.self_collision: the gap the cloth keeps between its layers (repulsion "        \
    "impulses)")

/// The full-space reference's own solvers (FullSpaceSettings) in `ramus simulate-full`: the
/// local/global solver of "Stabilizing integrators for real-time physics" (2018) for tets and
/// cloth (docs/LOCAL_GLOBAL.md), and substeps.
#define RAMUS_FULL_SPACE_SETTINGS(X)                                                               \
  X(int, local_global_iterations, 10, closed(1, 100000), "simulation.local_global_iterations",     \
    "--lg-iterations", "",                                                                         \
    "lg-be, lg-im, lg-im-blend: local/global iterations of a step's solve (backward Euler or the " \
    "midpoint)")                                                                                   \
  X(int, local_global_stabilization_iterations, 1, closed(1, 100000),                              \
    "simulation.local_global_stabilization_iterations", "--lg-stabilization-iterations", "",       \
    "lg-im-blend: ... of the backward-Euler solve that stabilizes the midpoint, started from its " \
    "end")                                                                                         \
  X(double, local_global_collision_stiffness, 100, closed(1e-3, 1e9),                              \
    "simulation.local_global_collision_stiffness", "--lg-collision-stiffness", "",                 \
    "lg-*: a collider's projective weight on a vertex, in units of its mass / h^2 (a resting "     \
    "vertex sinks about g h^2 / this)")                                                            \
  X(int, substeps, 1, closed(1, 100000), "simulation.substeps", "--substeps", "",                  \
    "lg-be, lg-im, lg-im-blend: steps of h / n taken per time step h (the midpoint paper's "       \
    "Tab. 2: 10, 100)")
