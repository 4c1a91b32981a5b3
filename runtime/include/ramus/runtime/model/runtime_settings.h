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
enum class Integrator : std::int32_t {
  kNewmark = 1,  ///< implicit Newmark (beta, gamma), Newton from q_n (1 iteration: semi-implicit)
};

/// Name of a lumping ("L1", "L2", "L3") / integrator ("newmark"), as the CLI and docs spell it.
const char* to_string(InterfaceLumping lumping);
const char* to_string(Integrator integrator);
/// Inverse of to_string (also "interface", "center_of_mass", "rigid_subtree" for lumpings);
/// nullopt for an unknown name.
std::optional<InterfaceLumping> lumping_from_string(const std::string& name);
std::optional<Integrator> integrator_from_string(const std::string& name);

/// Per-node material tuning and integrator (paper §5).
struct NodeSettings {
  Integrator integrator = Integrator::kNewmark;
  double rayleigh_mass = 0;       ///< alpha (1/s): damping alpha M'
  double rayleigh_stiffness = 0;  ///< beta (s): damping beta K(q)
  double stiffness_scale = 1;     ///< scales the reduced internal forces: frequencies by sqrt
};

/// Everything that decides how a model is stepped (defaults: the substructuring paper's
/// semi-implicit Newmark at 60 Hz, no gravity, L1).
struct RuntimeSettings {
  double time_step = 1.0 / 60.0;                      ///< h (s)
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< world (m/s^2)
  InterfaceLumping lumping = InterfaceLumping::kInterface;
  double newmark_beta = 0.25;       ///< Newmark beta (trapezoidal rule)
  double newmark_gamma = 0.5;       ///< Newmark gamma
  int newton_iterations = 1;        ///< per step; 1: semi-implicit (linearized at q_n)
  double newton_tolerance = 0;      ///< stop early when |residual|_inf <= this (0: all iterations)
  double max_coordinate = 1e6;      ///< |q|_inf beyond this counts as divergence
  std::vector<NodeSettings> nodes;  ///< one per node of the model's domain tree
};

/// The first problem of `settings` for a model of `num_nodes` nodes ("time_step = -1 must be
/// positive and finite", "nodes[3].stiffness_scale = 0 must be positive"), or "".
std::string find_settings_problem(const RuntimeSettings& settings, int num_nodes);

}  // namespace ramus
