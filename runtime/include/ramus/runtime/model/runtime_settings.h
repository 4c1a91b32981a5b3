// How a model is stepped: time step, gravity, lumping and, per node, the integrator, Rayleigh
// damping and stiffness scale. Stored in the model file (/runtime, docs/FORMAT.md) as the model's
// defaults; every simulated object (State) carries its own copy, which the CLI and the API may
// override. Plain data: validate with find_settings_problem before stepping.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ramus {

/// Where the inertia of a child's subtree is lumped in its parent's equation (paper §5).
enum class InterfaceLumping : std::int32_t {
  kInterface = 1,     ///< L1: at the interface centroid x_ij (Eq. 16)
  kCenterOfMass = 2,  ///< L2: at the subtree's rest centre of mass, carried by the child frame
  kRigidSubtree = 3,  ///< L3: the subtree as a rigid body on the child frame: mass at its centre
                      ///< of mass plus its rotational inertia, and the torque of its forces
};

/// The per-node time integrator (Algorithm 1, line 9). A closed set: the step dispatches on it
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

/// Per-node material tuning and integrator (paper §5).
struct NodeSettings {
  /// SBDF2 by default: one linear solve per step as semi-implicit Newmark, second order, and it
  /// never gained energy in the 10,000-step soft-object audit where semi-implicit Newmark gains
  /// 2-4 % (docs/INTEGRATORS.md, "The default").
  Integrator integrator = Integrator::kSemiImplicitBdf2;
  double rayleigh_mass = 0;       ///< alpha (1/s): damping alpha M'
  double rayleigh_stiffness = 0;  ///< beta (s): damping beta K(q)
  double stiffness_scale = 1;     ///< scales the reduced internal forces: frequencies by sqrt
  /// SIERE and siblings: s, the lowest modes of K(q) treated exponentially (min(s, r) are used;
  /// 0: the method's semi-implicit parent).
  int split_modes = 5;
  /// Recompute those modes by a full decomposition every k steps (1: every step, the exact
  /// method; 60: once a second at 60 Hz, 1.4x SI's cost instead of 6x at r = 20). In between
  /// they are kept while their Rayleigh quotients move by at most a tenth of the drift
  /// tolerance, else tracked by one step of subspace iteration (Z = K⁻¹ M' X Λ, Rayleigh-Ritz
  /// in span Z).
  int split_refresh_steps = 60;
  /// Also recompute them when a tracking step moved a mode more than this: max_j |z_j - x_j|_M'
  /// (the angle it turned plus the relative change of its eigenvalue; 0: only every k steps,
  /// tracking every step).
  double split_drift_tolerance = 0.05;
  /// im-blend: k of the momentum-preserving damping (stabilizing-integrators Eq. 32-33), in
  /// [0, 1] per step: the share of the non-rigid velocity removed.
  double momentum_damping = 0;
};

/// Everything that decides how a model is stepped (defaults: SBDF2 at 60 Hz, no gravity, L1).
/// Wind (docs/WIND.md): a spatially coherent, time-varying velocity field acting on every node as
/// drag on its surface. w(x, t) = mean (1 + gust(t)) + turbulence(x, t): a deterministic gust of
/// relative amplitude `gust` and period `gust_period`, and four frozen sinusoidal eddies of
/// wavelength `turbulence_length` carried along by the mean wind, of speed `turbulence`, with
/// directions and phases from `seed`. Off when mean and turbulence are zero.
struct WindSettings {
  Eigen::Vector3d mean_velocity = Eigen::Vector3d::Zero();  ///< world (m/s)
  double gust = 0;                                          ///< relative gust amplitude, in [0, 10]
  double gust_period = 4;                                   ///< s
  double turbulence = 0;                                    ///< m/s
  double turbulence_length = 2;                             ///< m
  int seed = 1;                                             ///< >= 0
  /// ½ ρ_air C_d (kg/m³): the traction on a surface element of normal n at wind w is
  /// drag |w| (n nᵀ) w (air 1.2 kg/m³, C_d 1: 0.6).
  double drag = 0.6;
  bool active() const { return mean_velocity.squaredNorm() > 0 || turbulence > 0; }
};

/// A WindSettings' field with its eddies drawn once (cheap to evaluate at many points).
class WindField {
 public:
  explicit WindField(const WindSettings& wind) noexcept;
  /// The wind velocity (m/s, world) at world point x and time t.
  Eigen::Vector3d velocity(const Eigen::Vector3d& x, double t) const noexcept;
  /// What the field is at one time t everywhere: the gusty mean velocity (m/s) and the air's
  /// drift since t = 0 (m); velocity(x, at(t)) = velocity(x, t), the gusts computed once.
  struct Instant {
    Eigen::Vector3d mean = Eigen::Vector3d::Zero(), drift = Eigen::Vector3d::Zero();
  };
  Instant at(double t) const noexcept;
  Eigen::Vector3d velocity(const Eigen::Vector3d& x, const Instant& instant) const noexcept;

  /// The eddies (docs/WIND.md): wave vectors κ_k (1/m, world) and unit directions e_k (columns,
  /// 3 by 4), phases φ_k (rad); eddy k adds turbulence/2 sin(κ_k·(x - drift) + φ_k) e_k.
  const Eigen::Matrix<double, 3, 4>& wave_vectors() const { return wave_vectors_; }
  const Eigen::Matrix<double, 3, 4>& directions() const { return directions_; }
  const Eigen::Vector4d& phases() const { return phases_; }
  const WindSettings& settings() const { return wind_; }

 private:
  WindSettings wind_;
  Eigen::Matrix<double, 3, 4> wave_vectors_, directions_;  ///< κ_k, e_k
  Eigen::Vector4d phases_;
};

/// WindField(wind).velocity(x, t).
Eigen::Vector3d wind_velocity(const WindSettings& wind, const Eigen::Vector3d& x,
                              double t) noexcept;

struct RuntimeSettings {
  double time_step = 1.0 / 60.0;                      ///< h (s)
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< world (m/s^2)
  InterfaceLumping lumping = InterfaceLumping::kInterface;
  double newmark_beta = 0.25;  ///< Newmark beta (trapezoidal rule)
  double newmark_gamma = 0.5;  ///< Newmark gamma
  int newton_iterations = 1;   ///< Newmark's per step; 1: semi-implicit (linearized at q_n)
  double newton_tolerance =
      0;  ///< Newmark: stop early when |residual|_inf <= this (0: all iterations)
  double max_coordinate = 1e6;  ///< |q|_inf beyond this counts as divergence
  /// Fully implicit methods other than Newmark (be, bdf2, tr-bdf2, sdirk, im-blend): Newton
  /// iterations at most per stage, and the relative step |Δq|_inf / max(|q|_inf, 1e-12) below
  /// which a stage has converged.
  int implicit_iterations = 20;
  double implicit_tolerance = 1e-10;
  /// im-blend: the blend stops within this fraction of the tracked total energy (ε of Eq. 24).
  double energy_tolerance = 0.01;
  WindSettings wind;                ///< none by default
  std::vector<NodeSettings> nodes;  ///< one per node of the model's domain tree
};

/// The first problem of `settings` for a model of `num_nodes` nodes ("time_step = -1 must be
/// positive and finite", "nodes[3].stiffness_scale = 0 must be positive"), or "".
std::string find_settings_problem(const RuntimeSettings& settings, int num_nodes);

}  // namespace ramus
