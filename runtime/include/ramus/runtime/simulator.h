// One simulated object with everything it needs in one place: a shared immutable Model, the
// object's State and a Workspace, behind checked setters (they throw OptionError) and the
// noexcept step. For many objects of one model, or full control, use model/model.h,
// dynamics/state.h and dynamics/step.h directly.
#pragma once

#include <Eigen/Core>
#include <memory>

#include "ramus/runtime/contact/reduced_contact.h"
#include "ramus/runtime/dynamics/anchor_motion.h"
#include "ramus/runtime/dynamics/reconstruction.h"
#include "ramus/runtime/dynamics/render_vertices.h"
#include "ramus/runtime/dynamics/step.h"
#include "ramus/runtime/dynamics/step_objects.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"
#include "ramus/runtime/model/state_snapshot.h"

namespace ramus {

/// A domain's reduced coordinates, velocities and accelerations (r each).
struct DomainState {
  Eigen::VectorXd q, qdot, qddot;
};

/// World placement and motion of a domain frame F_i; velocities and accelerations are the
/// frame's in the world, expressed in F_i's own axes (as Eq. 11-12 use them).
struct FrameMotion {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();          ///< F_i axes in the world
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();                ///< m
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();              ///< v_i (m/s)
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();      ///< ω_i (rad/s)
  Eigen::Vector3d acceleration = Eigen::Vector3d::Zero();          ///< a_i (m/s^2)
  Eigen::Vector3d angular_acceleration = Eigen::Vector3d::Zero();  ///< α_i (rad/s^2)
};

class Simulator {
 public:
  /// An object of `model` at rest, stepped with the model's settings, or with `settings`
  /// (OptionError naming the problem when find_settings_problem finds one). Allocates all.
  explicit Simulator(std::shared_ptr<const Model> model);
  Simulator(std::shared_ptr<const Model> model, RuntimeSettings settings);

  const Model& model() const { return *model_; }
  const std::shared_ptr<const Model>& shared_model() const { return model_; }
  const State& state() const { return state_; }
  /// The step's buffers (read-only: their sizes, domain_workspace_bytes).
  const Workspace& workspace() const { return workspace_; }
  const RuntimeSettings& settings() const { return state_.settings; }
  /// Replaces the settings (checked; OptionError). Takes effect at the next step.
  void set_settings(RuntimeSettings settings);
  /// Changes the settings in place: edit(RuntimeSettings&) on a copy, checked as set_settings,
  /// then kept. Allocation-free (the copy is a member of the same sizes) unless the check fails
  /// or a split integrator needs more memory.
  template <class Edit>
  void edit_settings(Edit&& edit) {
    settings_scratch_ = state_.settings;
    edit(settings_scratch_);
    commit_settings();
  }
  /// Replaces one domain's settings, e.g. its integrator (checked; OptionError naming the domain).
  void set_domain_settings(int domain, const DomainSettings& settings);
  /// Frequency scaling of one domain at runtime (1: as precomputed).
  void set_stiffness_scale(int domain, double scale);

  int num_domains() const { return model_->num_domains(); }
  bool free_root() const { return model_->free_root; }
  double time() const { return state_.time; }

  /// Copy of domain i's q, q̇, q̈ / replaces them (sizes r_i; OptionError otherwise). Call
  /// initialize() after changing states.
  DomainState domain_state(int domain) const;
  void set_domain_state(int domain, const DomainState& state);
  /// Places a free root: origin and rotation of F_0 and its world velocity and angular
  /// velocity. OptionError for an anchored root, a non-rotation or non-finite values.
  void set_root_motion(const Eigen::Vector3d& origin, const Eigen::Matrix3d& rotation,
                       const Eigen::Vector3d& velocity, const Eigen::Vector3d& angular_velocity);
  /// Drives an anchored root (dynamics/anchor_motion.h, model axes): its pose and motion now (a
  /// changed pose is a teleport: the frames follow, the integrator history restarts), or the
  /// accelerations that carry it to `target` in one step of `seconds` (> 0; the velocity and
  /// acceleration differenced from the poses). OptionError for a free root, a non-rotation or
  /// non-finite values. Allocation-free.
  void set_anchor_motion(const AnchorMotion& motion);
  void move_anchor(const RigidPose& target, double seconds);
  AnchorMotion anchor_motion() const { return ramus::anchor_motion(*model_, state_); }
  /// Sets every q̇ so that the object's velocity best matches a world velocity field at the
  /// global vertices (num_global_vertices by 3), root to leaves (least squares per domain over
  /// what its frame's motion leaves over; the root's frame motion is kept), then initialize().
  /// Not real-time (allocates).
  StepStatus set_velocity_field(const Eigen::MatrixX3d& global_velocities);
  /// Frame of domain i after the last step (or initialize()).
  FrameMotion frame(int domain) const;

  /// Adds a constant world-space force (N) at vertex v of domain i for the following steps
  /// (allocates beyond reserve_vertex_forces; OptionError for a bad domain, vertex or force).
  void add_vertex_force(int domain, int vertex, const Eigen::Vector3d& world_force);
  void clear_vertex_forces() { state_.forces.clear(); }
  void reserve_vertex_forces(int count);

  /// The object's kinematic colliders (contact/reduced_contact.h): add (checked against the
  /// object), then move or remove by id through colliders(); none of it allocates.
  ColliderResult add_collider(const Collider& collider) noexcept {
    return ramus::add_collider(*model_, state_, collider);
  }
  ColliderSet& colliders() { return state_.colliders; }
  const ColliderSet& colliders() const { return state_.colliders; }
  /// The contact at the current configuration.
  ContactReport contact() const noexcept { return measure_contact(*model_, state_); }

  /// Back at rest (reset_state: time 0, no deformation, the rest placement, no applied forces;
  /// settings and colliders kept), initialized. Allocation-free.
  StepStatus reset() noexcept;
  /// The bytes of a snapshot of `parts` (StatePart bits, model/state_snapshot.h) / writes one
  /// into `out` and returns its size (0 when `capacity` is too small). Allocation-free.
  std::size_t state_size(unsigned parts) const noexcept;
  std::size_t save_state(unsigned parts, void* out, std::size_t capacity) const noexcept;
  /// Restores a snapshot (nothing changes unless kOk); a snapshot without all of
  /// kStatePhysics is followed by initialize(), which derives the frames and accelerations from
  /// what it set. Allocation-free unless restored settings need more integrator memory.
  SnapshotStatus restore_state(const void* data, std::size_t size);
  /// Copies `parts` of another object's state (the same model); as restore_state.
  SnapshotStatus copy_state_from(const Simulator& other, unsigned parts);

  /// This object as an entry of a batch that dynamics/step_objects.h steps with others (build
  /// the entries once; step_objects each frame).
  ObjectStep batch_entry() noexcept { return {model_.get(), &state_, &workspace_}; }

  /// The Workspace's shared pool of contact candidates (Workspace::set_contact_capacity) and
  /// what the last step dropped for want of room.
  void set_contact_capacity(int candidates) { workspace_.set_contact_capacity(candidates); }
  int contact_dropped() const noexcept { return workspace_.contact_dropped(); }

  /// dynamics/step.h's initialize and step on this object.
  StepStatus initialize(bool solve_accelerations = true);
  StepStatus step() noexcept;

  /// World positions of domain i's vertices and of the undivided mesh (C0) (reconstruction.h);
  /// allocation-free when the output has its size.
  void domain_world_positions(int domain, Eigen::MatrixX3d& positions) const;
  void domain_world_velocities(int domain, Eigen::MatrixX3d& velocities) const;  ///< (m/s, world)
  void global_positions(Eigen::MatrixX3d& positions) const;
  void global_velocities(Eigen::MatrixX3d& velocities) const;  ///< (m/s, world)
  /// All global vertices' world positions into a caller's buffer of 3 num_global_vertices values
  /// (ramus::render_positions: batched per part, allocation-free).
  void render_positions(double* out) noexcept {
    ramus::render_positions(*model_, state_, workspace_, out);
  }
  void render_positions(float* out) noexcept {
    ramus::render_positions(*model_, state_, workspace_, out);
  }
  /// The render mesh's world vertices (dynamics/render_vertices.h): model().render.num_vertices
  /// by 3 floats, or 6 with normals; in double, positions only. Allocation-free.
  void render_vertices(float* out, bool normals, const RenderPlacement& placement = {}) noexcept {
    ramus::render_vertices(*model_, state_, workspace_, out, normals, placement);
  }
  void render_vertices(double* out, const RenderPlacement& placement = {}) noexcept {
    ramus::render_vertices(*model_, state_, workspace_, out, placement);
  }

  /// How far domain i's interface with its parent is from a rigid motion after the last step:
  /// |A - R|_F / |A|_F of Eq. 5 (analysis/interface_diagnostics.h); 0 for the root.
  double interface_nonrigidity(int domain) const;

  /// Elastic energy (J, stiffness scales included) and Σ q̇ᵀq̇ / 2; allocation-free.
  double elastic_energy() const;
  double kinetic_energy() const { return deformation_kinetic_energy(state_); }
  Eigen::Vector3d linear_momentum() const { return ramus::linear_momentum(*model_, state_); }
  /// A free root's momentum and angular momentum about the centre of mass (world).
  const Eigen::Vector3d& root_momentum() const { return state_.root_momentum; }
  const Eigen::Vector3d& root_angular_momentum() const { return state_.root_angular_momentum; }

  /// Time split of the steps while profiling is on (Workspace::Profile).
  void set_profiling(bool on) { workspace_.profiling = on; }
  /// Same-part childless domains eight at a time in SIMD lanes (the default) or domain by domain
  /// (Workspace::batched_evaluation).
  void set_batched_evaluation(bool on) { workspace_.batched_evaluation = on; }
  /// Threads of the step (Workspace::set_threads); results equal one thread's bit for bit.
  void set_threads(int threads) { workspace_.set_threads(threads); }
  const Workspace::Profile& profile() const { return workspace_.profile; }
  void reset_profile() { workspace_.profile = {}; }

 private:
  void check_domain(int domain) const;
  void commit_settings();  // checks settings_scratch_ and swaps it in (OptionError)

  std::shared_ptr<const Model> model_;
  State state_;
  mutable Workspace workspace_;
  RuntimeSettings settings_scratch_;  // edit_settings' copy
};

}  // namespace ramus
