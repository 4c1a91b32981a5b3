// One time step of a domain tree: Algorithm 1 of Barbič & Zhao 2011 ("Real-time
// Large-deformation Substructuring"), linear in the number of domains. Each domain is reduced StVK
// in its own frame F_i; a child's frame follows the polar rotation of its interface's best-fit
// transform (Eq. 1-9); each domain feels the system forces of its accelerating frame (Eq. 14) and
// the lumped inertia and external forces of its subtrees (Eq. 15-16), and is advanced by its
// integrator on Eq. 17. A single-domain model is the tree of one domain, through the same code.
#pragma once

#include <memory>

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

struct WorkspaceData;  // defined in the runtime's sources: scratch only

/// The most threads a Workspace steps with (Workspace::set_threads).
constexpr int kMaxStepThreads = 64;

/// Contact candidates a Workspace holds at most by default (Workspace::set_contact_capacity):
/// 8,192 (832 kB), room for 227 leaves of the oak with all 36 samples each in contact.
constexpr int kDefaultContactCapacity = 8192;

/// All scratch memory of a step, sized for one Model (one set of buffers per part). Any
/// Workspace of a model steps any State of that model; a thread needs its own.
class Workspace {
 public:
  /// Allocates every buffer a step of `model` needs.
  explicit Workspace(const Model& model);
  ~Workspace();
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  /// Time spent in the step's core (frames, polar decompositions, system and interface forces:
  /// the paper's rt:core) and in the domain integrators (rt:StVK), when profiling is on.
  struct Profile {
    double core_seconds = 0, domain_seconds = 0;
    long steps = 0;
  };
  bool profiling = false;
  Profile profile;
  /// On (the default): childless domains of a part placed kMinBatchedInstances times or more
  /// step eight at a time in SIMD lanes when their integrator is SI, or SBDF2 after its first
  /// step (Model::childless_groups; relative kinematics, frames, system force, StVK forces and
  /// the stage's solve in lanes: src/dynamics/lane_group_step.h), and the stage matrices of
  /// such a part's domains with children are factored in lanes before the pass
  /// (Model::parent_lane_groups); off: domain by domain. Equal to rounding (1e-12 relative over 200
  /// steps, tested); about 2.1x faster on the oak.
  bool batched_evaluation = true;

  /// Threads a step uses (each level of Model::step_levels, the childless domains and line 3's
  /// wind drag split among them; 1, the default: the calling thread only), clamped to [1,
  /// kMaxStepThreads]; always 1 in a build without OpenMP. Every domain's arithmetic is the same on
  /// any thread: the result equals one thread's to the last bit. Allocates one scratch set per
  /// extra thread; the first multithreaded step starts OpenMP's thread pool. Later steps allocate
  /// nothing, unless a parallel region on another thread count (another Workspace's) ran since:
  /// libgomp keeps only its last team, and such a switch allocates one (1.8 kB for two threads).
  void set_threads(int threads);
  int threads() const { return threads_; }

  /// Contact candidates a step can hold: one pool the domains near a collider share, filled in
  /// domain order (the same for any thread count). A domain whose candidates no longer fit gets
  /// none that step and contact_dropped() counts them. Default: every sample of every domain, at
  /// most kDefaultContactCapacity. Allocates (call it between steps).
  void set_contact_capacity(int candidates);
  int contact_capacity() const noexcept;
  /// Candidates the last step had no room for (0: none).
  int contact_dropped() const noexcept;

  /// True when this Workspace was made for `model` (Model::identity).
  bool made_for(const Model& model) const noexcept;

  WorkspaceData& data() { return *data_; }
  const WorkspaceData& data() const { return *data_; }

 private:
  std::unique_ptr<WorkspaceData> data_;
  int threads_ = 1;
};

/// Advances `state` by one time step (state.settings.time_step). Allocates nothing, never
/// throws; on failure the state is unchanged and the status says why (kWrongModel, before any
/// memory is touched, for a State or Workspace made for another model).
StepStatus step(const Model& model, State& state, Workspace& workspace) noexcept;

/// Brings frames, child kinematics and the free root's motion in line with the current q, q̇
/// and momenta (after the user changed them) and, when `solve_accelerations`, solves Eq. 17
/// root to leaves for q̈ consistent with the current q, q̇ and forces. Clears the integrator
/// history. Allocates nothing, never throws.
StepStatus initialize(const Model& model, State& state, Workspace& workspace,
                      bool solve_accelerations = true) noexcept;

/// Bytes `workspace` holds for domain i: its share of the per-domain buffers (vertex and wind
/// forces, subtree sums, the step's saved start for a rollback), its child-lumping scratch and
/// its slot of the parents' stage factors: the bytes asked of the heap (Eigen's alignment
/// padding included; per-part and per-thread scratch not counted).
std::size_t domain_workspace_bytes(const Model& model, const Workspace& workspace, int i);

}  // namespace ramus
