// The step's scratch: every part's buffers, the children's lumping, the saved state, sized
// once when a Workspace is made for a Model (step.h), its threads and its bytes per domain.
#include <algorithm>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "../data/heap_bytes.h"
#include "lane_group_step.h"
#include "ramus/runtime/dynamics/step.h"
#include "workspace_data.h"

namespace ramus {

PartScratch::PartScratch(int r, bool lane_buffers, int samples)
    : IntegratorScratch(r),
      system(r),
      load(Eigen::VectorXd::Zero(r)),
      system_force(Eigen::VectorXd::Zero(r)),
      contact_allowance(static_cast<std::size_t>(samples), 0.0) {
  if (lane_buffers) lanes = LaneScratch(r);
}

ChildLumping::ChildLumping(int r, int children)
    : mass(Eigen::MatrixXd::Identity(r, r)),
      jacobians(static_cast<std::size_t>(children), Eigen::MatrixXd::Zero(3, r)),
      rotation_jacobians(static_cast<std::size_t>(children), Eigen::MatrixXd::Zero(3, r)),
      inertia_jacobian(Eigen::MatrixXd::Zero(3, r)),
      transposed(Eigen::MatrixX3d::Zero(r, 3)) {}

namespace {

// Every sample of every domain (one candidate each at most), up to kDefaultContactCapacity.
int default_contact_capacity(const Model& model) {
  long samples = 0;
  for (const Part& part : model.parts)
    samples += static_cast<long>(part.contact.size()) * static_cast<long>(part.domains.size());
  return static_cast<int>(std::min<long>(samples, kDefaultContactCapacity));
}

}  // namespace

WorkspaceData::WorkspaceData(const Model& model)
    : reduced_vertex_force(Eigen::VectorXd::Zero(model.num_dofs)),
      own_force_world(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      subtree_force(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      subtree_torque(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      wind_force(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      wind_torque(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      step_colliders(static_cast<std::size_t>(kMaxColliders)),
      contact_candidates(static_cast<std::size_t>(default_contact_capacity(model))),
      contact_count(model.domains.size(), 0),
      contact_start(model.domains.size(), 0),
      barrier_force(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      barrier_moment(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      friction_force(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      friction_moment(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      subtree_link_offset(model.domains.size() + 1, 0),
      start_origins(Eigen::Matrix3Xd::Zero(3, model.num_domains())),
      saved_q(Eigen::MatrixXd::Zero(model.num_dofs, kHistoryCapacity)),
      saved_qdot(Eigen::MatrixXd::Zero(model.num_dofs, kHistoryCapacity)),
      saved_qddot(Eigen::VectorXd::Zero(model.num_dofs)),
      saved_root_origin(Eigen::Vector3d::Zero()),
      saved_root_momentum(Eigen::Vector3d::Zero()),
      saved_root_angular_momentum(Eigen::Vector3d::Zero()),
      saved_root_contact_force(Eigen::Vector3d::Zero()),
      saved_energy_target(Eigen::VectorXd::Zero(model.num_domains())),
      saved_energy_at_end(Eigen::VectorXd::Zero(model.num_domains())),
      thread_failures(1),
      thread_seconds(Eigen::MatrixXd::Zero(2, 1)) {
  // Room for a link from every domain to each of its ancestors.
  std::size_t links = 0;
  for (const Domain& domain : model.domains)
    for (int a = domain.parent; a >= 0; a = model.domains[static_cast<std::size_t>(a)].parent)
      ++links;
  subtree_links.resize(links);
  stage_offset.assign(model.domains.size(), -1);
  stage_ready.assign(model.domains.size(), 0);
  Eigen::Index stage_size = 0;
  for (const int i : model.parent_lane_domains) {
    const Eigen::Index r = model.domains[static_cast<std::size_t>(i)].r;
    stage_offset[static_cast<std::size_t>(i)] = static_cast<int>(stage_size);
    stage_size += 2 * r + r * r;
  }
  stage_data.setZero(stage_size);
  parts.reserve(model.parts.size());
  lumping.reserve(model.parent_domains.size());
  for (const int i : model.parent_domains) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    lumping.emplace_back(domain.r, domain.num_children);
  }
  for (const Part& p : model.parts) {
    parts.emplace_back(p.r, p.batched, p.contact.size());
    render_blocks.emplace_back(Eigen::MatrixXd::Zero(
        3 * p.rest_positions.rows(),
        std::min<Eigen::Index>(kRenderBlock, static_cast<Eigen::Index>(p.domains.size()))));
  }
  Eigen::Index piece_rows = 0;
  for (const RenderPiece& piece : model.render.pieces)
    piece_rows = std::max<Eigen::Index>(piece_rows, 3 * piece.size());
  render_coordinates.setZero(model.max_r);
  render_normal_coordinates.setZero(model.max_r);
  render_local_vertices.setZero(2 * piece_rows);
}

Workspace::Workspace(const Model& model) : data_(std::make_unique<WorkspaceData>(model)) {
  data_->model_identity = model.identity;
}

bool Workspace::made_for(const Model& model) const noexcept {
  // The identity, and the sizes that every pass indexes by (a hand-built Model has identity 0).
  return data_ && data_->model_identity == model.identity &&
         data_->parts.size() == model.parts.size() && data_->saved_q.rows() == model.num_dofs &&
         data_->own_force_world.cols() == model.num_domains();
}
Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

void Workspace::set_threads(int threads) {
#if defined(_OPENMP)
  threads_ = std::clamp(threads, 1, kMaxStepThreads);
#else
  threads_ = 1;
  (void)threads;
#endif
  WorkspaceData& w = *data_;
  w.thread_parts.clear();
  for (int t = 1; t < threads_; ++t) {
    std::vector<PartScratch> set;
    set.reserve(w.parts.size());
    for (const PartScratch& p : w.parts)
      set.emplace_back(static_cast<int>(p.load.size()), !p.lanes.q.empty(),
                       static_cast<int>(p.contact_allowance.size()));
    w.thread_parts.push_back(std::move(set));
  }
  w.thread_failures.assign(static_cast<std::size_t>(threads_), {});
  w.thread_seconds.setZero(2, threads_);
}

void Workspace::set_contact_capacity(int candidates) {
  data_->contact_candidates =
      std::vector<ContactCandidate>(static_cast<std::size_t>(std::max(0, candidates)));
}

int Workspace::contact_capacity() const noexcept {
  return static_cast<int>(data_->contact_candidates.size());
}

int Workspace::contact_dropped() const noexcept {
  return data_->contact_dropped;
}

std::size_t domain_workspace_bytes(const Model& model, const Workspace& workspace, int i) {
  const WorkspaceData& w = workspace.data();
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  const auto n = static_cast<std::size_t>(model.num_domains());
  const auto r = static_cast<std::size_t>(domain.r);
  // r-long slices: the reduced vertex force and the saved q, q̇ (history columns) and q̈.
  std::size_t doubles =
      r * static_cast<std::size_t>(1 + w.saved_q.cols() + w.saved_qdot.cols() + 1);
  // Its columns of the 3 by N and N-long buffers.
  for (const Eigen::Matrix3Xd* m :
       {&w.own_force_world, &w.subtree_force, &w.subtree_torque, &w.wind_force, &w.wind_torque,
        &w.barrier_force, &w.barrier_moment, &w.friction_force, &w.friction_moment,
        &w.start_origins})
    doubles += static_cast<std::size_t>(m->size()) / n;
  doubles +=
      static_cast<std::size_t>(w.saved_energy_target.size() + w.saved_energy_at_end.size()) / n;
  if (w.stage_offset[static_cast<std::size_t>(i)] >= 0) doubles += 2 * r + r * r;
  // A domain with children: its lumping scratch (blocks of its own). Its stage slot's bookkeeping.
  std::size_t lumping_bytes = 0;
  if (domain.num_children > 0) {
    const ChildLumping& lumping = lumping_of(w, model, i);
    lumping_bytes = sizeof(ChildLumping) + eigen_heap_bytes(lumping.mass) +
                    eigen_heap_bytes(lumping.inertia_jacobian) +
                    eigen_heap_bytes(lumping.transposed);
    for (const auto* jacobians : {&lumping.jacobians, &lumping.rotation_jacobians})
      for (const Eigen::MatrixXd& J : *jacobians)
        lumping_bytes += sizeof(Eigen::MatrixXd) + eigen_heap_bytes(J);
  }
  // Its contact candidates' count and place in the shared pool (the pool itself is the
  // object's: contact_capacity); its links to its ancestors (one each) and its offset among them.
  std::size_t depth = 0;
  for (int a = domain.parent; a >= 0; a = model.domains[static_cast<std::size_t>(a)].parent)
    ++depth;
  const std::size_t contact_bytes =
      2 * sizeof(int) + depth * sizeof(SubtreeContactLink) + sizeof(int);
  return sizeof(double) * doubles + lumping_bytes + contact_bytes + sizeof(int) + sizeof(char);
}

}  // namespace ramus
