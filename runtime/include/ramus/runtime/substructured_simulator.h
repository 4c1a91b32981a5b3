// Real-time simulation of a tree of reduced domains coupled by inertia (Barbič & Zhao 2011,
// "Real-time Large-deformation Substructuring", Algorithm 1). Each domain i is reduced StVK in
// its own frame F_i; a child's frame follows the polar rotation of the best-fit transform of its
// interface (Eq. 1-9); each domain feels the system forces of its accelerating frame (Eq. 14)
// and the lumped inertia and external forces of its subtrees (Eq. 15-16), and is advanced by
// implicit Newmark on Eq. 17. One step costs O(Σ r_i^2 + Σ r_i^3 / 3): linear in the number of
// domains. step() allocates nothing and never throws.
#pragma once

#include <Eigen/Core>
#include <Eigen/Dense>
#include <memory>
#include <utility>
#include <vector>

#include "ramus/runtime/polar_decomposition.h"
#include "ramus/runtime/reduced_model.h"
#include "ramus/runtime/reduced_simulator.h"
#include "ramus/runtime/reduced_stvk_polynomial.h"
#include "ramus/runtime/system_force.h"

namespace ramus {

/// Where the inertia of a child's subtree is lumped (paper §5).
enum class InterfaceLumping {
  kInterface,     ///< L1: at the interface centroid x_ij (Eq. 16)
  kCenterOfMass,  ///< L2: at the subtree's rest centre of mass, carried by the child frame
  kRigidSubtree,  ///< L3: the subtree as a rigid body on the child frame: mass at its centre of
                  ///< mass plus its rotational inertia, and the torque of its external forces
};

/// Per-domain material tuning at runtime (paper §5).
struct DomainRuntimeOptions {
  double rayleigh_mass = 0;       ///< alpha (1/s): damping alpha M
  double rayleigh_stiffness = 0;  ///< beta (s): damping beta K(q)
  double stiffness_scale = 1;     ///< scales the reduced internal forces: frequencies by sqrt
};

/// Options of the substructured simulator.
struct SubstructuredOptions {
  double time_step = 1.0 / 60.0;                      ///< h (s)
  double beta = 0.25;                                 ///< Newmark beta
  double gamma = 0.5;                                 ///< Newmark gamma
  int newton_iterations = 1;                          ///< 1: semi-implicit Newmark, as in the paper
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< world (m/s^2)
  InterfaceLumping lumping = InterfaceLumping::kInterface;
  DomainRuntimeOptions all_domains;           ///< used for every domain not in `domains`
  std::vector<DomainRuntimeOptions> domains;  ///< empty, or one per domain
  double max_coordinate = 1e6;                ///< |q|_inf beyond this counts as divergence
  bool profile = false;  ///< measure frame/coupling vs domain-step time (profile())
};

/// World placement and motion of a domain frame F_i. Velocities and accelerations are those of
/// the frame in the world, expressed in F_i's own axes (as Eq. 11-12 use them).
struct DomainFrame {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();          ///< F_i axes in the world
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();                ///< F_i origin in the world (m)
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();              ///< v_i
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();      ///< ω_i
  Eigen::Vector3d acceleration = Eigen::Vector3d::Zero();          ///< a_i
  Eigen::Vector3d angular_acceleration = Eigen::Vector3d::Zero();  ///< α_i
};

/// Time spent in the last steps, when SubstructuredOptions::profile is set (the paper's rt:core
/// = frames, polar decomposition and its derivatives, system and interface forces; rt:StVK =
/// the reduced internal forces and the Newmark solve of every domain).
struct SubstructuredProfile {
  double core_seconds = 0;
  double domain_seconds = 0;
  long steps = 0;
};

class SubstructuredSimulator {
 public:
  /// Simulates `model` (shared, immutable; domain 0 is the root, parents before children). A
  /// root without fixed vertices flies freely. Throws OptionError for invalid options or a model
  /// without substructuring data. Allocates every buffer the step needs.
  SubstructuredSimulator(std::shared_ptr<const ReducedModel> model, SubstructuredOptions options);

  const ReducedModel& model() const { return *model_; }
  const SubstructuredOptions& options() const { return options_; }
  int num_domains() const { return static_cast<int>(domains_.size()); }
  bool free_root() const { return free_root_; }
  double time() const { return time_; }

  /// Reduced state of domain d (q, qdot, qddot: r_d each).
  const ReducedState& domain_state(int d) const;
  /// Replaces domain d's state (sizes must be r_d; throws OptionError otherwise). Call
  /// initialize() after changing states.
  void set_domain_state(int d, const ReducedState& state);
  /// Places a free root: origin and rotation of F_0, its world velocity and angular velocity.
  /// Throws OptionError for an anchored root or a non-rotation.
  void set_root_motion(const Eigen::Vector3d& origin, const Eigen::Matrix3d& rotation,
                       const Eigen::Vector3d& velocity, const Eigen::Vector3d& angular_velocity);
  /// Sets every q̇ so that the model's velocity best matches a world velocity field given at
  /// the global vertices (global_vertex_count by 3), root to leaves: each domain fits (least
  /// squares over its vertices) what its frame's motion leaves over. The root's frame motion is
  /// kept. Then initialize(). Not real-time (allocates).
  StepStatus set_velocity_field(const Eigen::MatrixX3d& global_velocities);
  /// Frame of domain d after the last step (or initialize()).
  const DomainFrame& frame(int d) const;

  /// Adds a constant world-space force (N) at vertex v of domain d for the following steps (may
  /// allocate beyond reserve_vertex_forces; throws OptionError for a bad domain or vertex).
  void add_vertex_force(int d, int vertex, const Eigen::Vector3d& world_force);
  void clear_vertex_forces();
  void reserve_vertex_forces(int count);
  /// Frequency scaling of domain d at runtime (1: as precomputed).
  void set_stiffness_scale(int d, double scale);

  /// Brings frames and child kinematics in line with the current states and, when
  /// `solve_accelerations`, solves Eq. 17 root to leaves for accelerations consistent with the
  /// current q, qdot and forces (use it when starting from a non-rest state).
  StepStatus initialize(bool solve_accelerations = true);
  /// One step of Algorithm 1. Allocates nothing, never throws; on failure the state is
  /// unchanged.
  StepStatus step() noexcept;

  /// World positions of domain d's vertices (#V_d by 3; resized if needed).
  void domain_world_positions(int d, Eigen::MatrixX3d& positions) const;
  /// World positions of the undivided mesh (global_vertex_count by 3): the copies of each
  /// interface vertex averaged (C0). Allocation-free when `positions` is already sized.
  void global_positions(Eigen::MatrixX3d& positions) const;
  /// The embedded surface's world vertices (#S by 3) from the C0 positions; empty model surface:
  /// 0 rows.
  void embedded_surface_positions(Eigen::MatrixX3d& positions) const;
  /// Total linear momentum Σ_i ∫ρ v(X) dV of all domains with the world velocity of Eq. 11
  /// (world axes, kg m/s).
  Eigen::Vector3d linear_momentum() const;
  /// A free root's rigid-body momentum and angular momentum about the centre of mass (world):
  /// changed only by external forces and torques. Zero for an anchored root.
  const Eigen::Vector3d& root_momentum() const { return root_momentum_; }
  const Eigen::Vector3d& root_angular_momentum() const { return root_angular_momentum_; }
  /// Elastic energy of all domains, stiffness scales included (J).
  double elastic_energy() const;
  const SubstructuredProfile& profile() const { return profile_; }
  void reset_profile() { profile_ = {}; }

 private:
  // Relative kinematics of child j in its parent's frame (computed from the parent's state).
  struct ChildKinematics {
    Eigen::Vector3d x, v, a;              // x_ij, v_ij, a_ij
    Eigen::Matrix3d R;                    // R_ij
    Eigen::Vector3d omega, alpha;         // ω_ij, α_ij (= ω̇ of Eq. 9)
    Eigen::Vector3d alpha_without_qddot;  // α_ij with q̈_i = 0 (L2)
    Eigen::MatrixXd jacobian;             // 3 by r_i: d(lumping point)/dq_i
    Eigen::MatrixXd rotation_jacobian;    // 3 by r_i: dω_ij/dq̇_i (L3)
    Eigen::MatrixXd inertia_jacobian;     // 3 by r_i: I_w dω_ij/dq̇_i (L3 scratch)
    Eigen::Vector3d point, point_velocity, point_acceleration_rest;  // L2 point p, ṗ, p̈ - J q̈
  };
  struct Domain {
    const ReducedDomain* data = nullptr;
    int r = 0;
    int parent = -1;
    std::vector<int> children;
    DomainRuntimeOptions options;
    mutable ReducedStvkForces forces;
    Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();  // ∫ρ X_rest dV of this domain, F_i
    ReducedState state, trial;
    DomainFrame frame;
    ChildKinematics relative;              // this domain's frame relative to its parent
    Eigen::Vector3d subtree_force_local;   // Σ external forces of the subtree, F_i axes
    Eigen::Vector3d subtree_torque_local;  // their torque about the subtree's rest centre of
                                           // mass, F_i axes (L3)
    Eigen::Vector3d own_force_world;       // Σ vertex forces on this domain (world)
    Eigen::VectorXd vertex_force_reduced;  // Uᵀ R_iᵀ f (r), vertex forces only
    Eigen::VectorXd rhs, system, gradient, residual, delta, scratch;
    Eigen::MatrixXd mass, stiffness, jacobian, factor;
    Eigen::LDLT<Eigen::MatrixXd> solver;
    SystemForceScratch system_scratch;
    Eigen::VectorXi global_vertices;  // #V: global index of each vertex
  };

  void compute_child_kinematics(int child) noexcept;
  void update_frame(int d) noexcept;
  void integrate_root(double h) noexcept;
  void accumulate_subtree_forces() noexcept;
  void assemble_domain_system(int d) noexcept;
  StepStatus newmark_step(int d) noexcept;
  StepStatus solve_acceleration(int d) noexcept;
  void evaluate_internal(Domain& domain, const Eigen::VectorXd& q) noexcept;

  std::shared_ptr<const ReducedModel> model_;
  SubstructuredOptions options_;
  std::vector<Domain> domains_;
  bool free_root_ = false;
  double time_ = 0;
  // Free root rigid body: world linear and angular momentum, inertia about the centre of mass.
  double total_mass_ = 0;
  Eigen::Vector3d root_center_ = Eigen::Vector3d::Zero();  // centre of mass in F_0
  Eigen::Matrix3d root_inertia_ = Eigen::Matrix3d::Identity(), root_inertia_inverse_;
  Eigen::Vector3d root_momentum_ = Eigen::Vector3d::Zero();          // world
  Eigen::Vector3d root_angular_momentum_ = Eigen::Vector3d::Zero();  // world, about the centre
  Eigen::Vector3d root_torque_ = Eigen::Vector3d::Zero();            // world, about the centre
  std::vector<std::pair<std::pair<int, int>, Eigen::Vector3d>> vertex_forces_;
  int num_global_vertices_ = 0;
  Eigen::VectorXi global_copy_count_;
  // Scratch for saving the state on failure.
  std::vector<ReducedState> saved_states_;
  std::vector<DomainFrame> saved_frames_;
  SubstructuredProfile profile_;
  mutable Eigen::VectorXd energy_gradient_;
  mutable Eigen::MatrixXd energy_hessian_;
};

}  // namespace ramus
