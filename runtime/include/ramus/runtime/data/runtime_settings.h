// How a model is stepped: time step, gravity, lumping and, per domain, the integrator, Rayleigh
// damping and stiffness scale (the one list: settings_list.h). Stored in the model file
// (/runtime, docs/FORMAT.md) as the model's defaults; every simulated object (State) carries its
// own copy, which the CLI and the API may override. Plain data: validate with
// find_settings_problem before stepping.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ramus/runtime/data/settings_list.h"

namespace ramus {

/// Where the inertia of a child's subtree is lumped in its parent's equation (paper §5).
enum class InterfaceLumping : std::int32_t {
  kInterface = 1,     ///< L1: at the interface centroid x_ij (Eq. 16)
  kCenterOfMass = 2,  ///< L2: at the subtree's rest centre of mass, carried by the child frame
  kRigidSubtree = 3,  ///< L3: the subtree as a rigid body on the child frame: mass at its centre
                      ///< of mass plus its rotational inertia, and the torque of its forces
};

/// The per-domain time integrator (Algorithm 1, line 9). A closed set: the step dispatches on it
/// with a switch, no virtual call. Values are stored in model files: never renumber.
/// Sources: stiff-and-soft-integrators-survey.txt §3 (Eq. 5-9, 17-26) and
/// stabilizing-integrators-real-time.txt §4; docs/INTEGRATORS.md derives each in reduced form.
enum class Integrator : std::int32_t {
  kNewmark = 1,  ///< implicit Newmark (beta, gamma), Newton from q_n (1 iteration: semi-implicit)
  kBackwardEuler = 2,       ///< BE: minimization of the incremental potential, Newton + line search
  kSemiImplicitEuler = 3,   ///< SI: one Newton step of BE from q_n (Eq. 6)
  kBdf2 = 4,                ///< BDF2 (Eq. 7), fully implicit; TR-BDF2 on the first step
  kSemiImplicitBdf2 = 5,    ///< SBDF2: one Newton step of BDF2
  kTrBdf2 = 6,              ///< TR-BDF2 (Eq. 8), both stages fully implicit
  kSemiImplicitTrBdf2 = 7,  ///< STR-BDF2: each stage one Newton step (Eq. 26a-b unsplit)
  kSdirk = 8,               ///< 2-stage L-stable SDIRK of order 2 (Eq. 9), fully implicit
  kExponentialRosenbrockEuler = 9,  ///< ERE (Eq. 17): exact φ1 on all r modes
  kSiere = 10,                  ///< SIERE (Eq. 18-24): ERE on the s lowest modes, SI on the rest
  kSbdf2Ere = 11,               ///< SBDF2ERE (Eq. 22)
  kStrSbdf2Ere = 12,            ///< STR-SBDF2ERE (Eq. 26)
  kImplicitMidpointBlend = 13,  ///< implicit midpoint blended with BE / forward Euler by energy
};

/// Number of Integrator values (they run from 1 to kNumIntegrators).
constexpr int kNumIntegrators = 13;

/// The most low modes an exponential split (SIERE and siblings) may treat: its small dense
/// matrices live in fixed storage so the step allocates nothing.
constexpr int kMaxSplitModes = 32;

/// True for the integrators that treat low modes exponentially (SIERE, SBDF2ERE, STR-SBDF2ERE):
/// they keep the s lowest modes of K(q) in the State between steps.
bool uses_split_modes(Integrator integrator);

/// Name of a lumping ("L1", "L2", "L3") / integrator ("newmark", "be", "si", "bdf2", "sbdf2",
/// "tr-bdf2", "str-bdf2", "sdirk", "ere", "siere", "sbdf2ere", "str-sbdf2ere", "im-blend"), as the
/// CLI and docs spell it.
const char* to_string(InterfaceLumping lumping);
const char* to_string(Integrator integrator);
/// Inverse of to_string (also "interface", "center_of_mass", "rigid_subtree" for lumpings);
/// nullopt for an unknown name.
std::optional<InterfaceLumping> lumping_from_string(const std::string& name);
std::optional<Integrator> integrator_from_string(const std::string& name);
/// All integrator names, comma separated, in enum order (for messages and --help).
std::string integrator_names();

// The settings' members are made from the one list, settings_list.h (type, default, bounds,
// spec key, CLI flag and doc of each); docs/SPEC.md "Settings" tabulates them.
#define RAMUS_SETTING_MEMBER(Type, member, value, ...) Type member = value;

/// Per-domain settings (paper §5): the integrator, Rayleigh damping, stiffness scale, and the
/// exponential split's and im-blend's tuning. SBDF2 by default: one linear solve per step as
/// semi-implicit Newmark, second order, and it never gained energy in the 10,000-step soft-object
/// audit where semi-implicit Newmark gains 2-4 % (docs/INTEGRATORS.md, "The default").
struct DomainSettings {
  RAMUS_DOMAIN_SETTINGS(RAMUS_SETTING_MEMBER)
};

/// The wind (docs/WIND.md): w(x, t) = mean (1 + gust(t)) + turbulence(x, t), a deterministic gust
/// of relative amplitude `gust` and period `gust_period`, and four frozen sinusoidal eddies of
/// wavelength `turbulence_length` carried along by the mean wind, of speed `turbulence`, with
/// directions and phases from `seed`; drag |w| (n nᵀ) w on a surface element of normal n.
struct WindSettings {
  RAMUS_WIND_SETTINGS(RAMUS_SETTING_MEMBER)
  bool active() const { return mean_velocity.squaredNorm() > 0 || turbulence > 0; }
};

/// Everything that decides how a model is stepped (defaults: SBDF2 at 60 Hz, Earth's gravity
/// along -z, L1 lumping, no wind).
struct RuntimeSettings {
  RAMUS_OBJECT_SETTINGS(RAMUS_SETTING_MEMBER)
  WindSettings wind;                    ///< none by default
  std::vector<DomainSettings> domains;  ///< one per domain of the model's domain tree
};

/// A mass-spring cloth's springs, masses, step halving and conjugate gradients (`ramus
/// simulate-full` with "model": "mass_spring"; docs/CLOTH.md).
struct ClothSettings {
  RAMUS_CLOTH_SETTINGS(RAMUS_SETTING_MEMBER)
};

/// The full-space reference's local/global solver and substeps (`ramus simulate-full`;
/// docs/LOCAL_GLOBAL.md).
struct FullSpaceSettings {
  RAMUS_FULL_SPACE_SETTINGS(RAMUS_SETTING_MEMBER)
};

/// What a run of a model does unless told otherwise (the tools' runs, not the step): its steps,
/// its output cadence and its point forces, stored in the file's /runtime/scenario.
struct ScenarioSettings {
  RAMUS_SCENARIO_SETTINGS(RAMUS_SETTING_MEMBER)
  /// #F: force k pushes global vertex force_vertices(k) (the model's global numbering).
  Eigen::VectorXi force_vertices;
  Eigen::MatrixX3d forces;         ///< #F by 3: force k, N, in world axes
  Eigen::MatrixX2d force_windows;  ///< #F by 2: it acts from column 0 to column 1, s
  /// #C kinematic colliders (the spec's colliders with a constant motion), row c each:
  /// ColliderShape's number (half-space 0 to bowl 5, a grid 6), sizes (m, by shape), pose at
  /// t = 0 (the rotation's rows, the origin in m), velocity (m/s) and angular velocity (rad/s,
  /// world), mu.
  Eigen::VectorXi collider_shapes;
  Eigen::MatrixX4d collider_sizes;
  Eigen::Matrix<double, Eigen::Dynamic, 9> collider_rotations;
  Eigen::MatrixX3d collider_positions;
  Eigen::MatrixX3d collider_velocities;
  Eigen::MatrixX3d collider_angular_velocities;
  Eigen::VectorXd collider_friction;
  /// The grids of the mesh colliders (shape 6; GridDistanceField): #C by 3 first samples (m, the
  /// collider's frame), #C spacings (m) and #C by 3 sample counts, zero in an analytic collider's
  /// row (all three empty when no collider is a grid); every grid's signed distances (m, i
  /// fastest), one after another in collider order.
  Eigen::MatrixX3d collider_grid_origins;
  Eigen::VectorXd collider_grid_spacings;
  Eigen::MatrixX3i collider_grid_samples;
  Eigen::VectorXf collider_grid_values;
};

#undef RAMUS_SETTING_MEMBER

/// The first problem of `settings` for a model of `num_domains` domains, by the list's bounds
/// ("time_step: must lie in (0, 1] s, got -1", "domains[3].stiffness_scale: must be positive, got
/// 0"), or "" (settings_table.h).
std::string find_settings_problem(const RuntimeSettings& settings, int num_domains);

/// The first problem of `scenario` for a model of `num_global_vertices` vertices ("steps: must
/// lie in [0, 1000000000], got -1", "forces[2]: vertex 90 does not exist (the model has 80)",
/// "forces[0]: its window starts at 2 s, after its end 1 s"), or "".
std::string find_scenario_problem(const ScenarioSettings& scenario, int num_global_vertices);

}  // namespace ramus
