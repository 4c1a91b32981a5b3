#include "interface_lumping.h"

#include <Eigen/Geometry>

#include "contact_loads.h"
#include "frame_kinematics.h"
#include "lane_group_step.h"
#include "parallel_for.h"

namespace ramus {

void accumulate_subtree_forces(const Model& model, const State& state, WorkspaceData& workspace,
                               int threads, bool lanes) noexcept {
  WorkspaceData& w = workspace;
  const RuntimeSettings& settings = state.settings;
  const bool l3 = settings.lumping == InterfaceLumping::kRigidSubtree;
  // The reduced vertex forces are zeroed only when some were applied (a num_dofs pass).
  const bool wind = settings.wind.active();
  if (w.vertex_forces_applied) w.reduced_vertex_force.setZero();
  w.vertex_forces_applied = !state.forces.empty() || wind;
  w.root_torque.setZero();
  w.own_force_world.setZero();
  const Eigen::Vector3d center =
      state.frame_origin.col(0) + state.frame_rotation.leftCols<3>() * model.root_center_of_mass;
  // Each vertex force: the domain's own sum, its reduced force and the free root's torque.
  for (const AppliedForce& applied : state.forces) {
    const Domain& domain = model.domains[static_cast<std::size_t>(applied.domain)];
    const Part& proto = model.parts[static_cast<std::size_t>(domain.part)];
    const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * applied.domain);
    w.own_force_world.col(applied.domain) += applied.force;
    const Eigen::Vector3d local = R.transpose() * applied.force;
    // (A scaled domain: rest positions s X, basis s^-3/2 U.)
    Eigen::Vector3d x = domain.scale.length * proto.rest_positions.row(applied.vertex).transpose();
    if (domain.r > 0) {
      const auto rows = proto.basis.middleRows<3>(3 * static_cast<Eigen::Index>(applied.vertex));
      w.reduced_vertex_force.segment(domain.dof_offset, domain.r).noalias() +=
          rows.transpose() * (domain.scale.basis * local);
      if (model.free_root)
        x.noalias() += domain.scale.basis * (rows * state.q.segment(domain.dof_offset, domain.r));
    }
    if (model.free_root)
      w.root_torque +=
          (state.frame_origin.col(applied.domain) + R * x - center).cross(applied.force);
  }
  // Per domain, independent across domains (on `threads` threads): its wind drag |w| P w at its
  // frame's wind (docs/WIND.md), force and torque about the part origin in the domain's axes
  // (scaled: area s², reduced s^½, torque s³); then its own external force (vertex forces, wind
  // and weight) and, for L3, its own torque about the subtree's rest centre of mass c_i (its
  // weight at its own centre of mass, the wind moved to c_i), in the domain's axes. Subtree sums
  // feed the parents' lumping and the free root only: none for an anchored domain alone.
  const WindField field(settings.wind);
  const WindField::Instant now = wind ? field.at(state.time) : WindField::Instant{};
  const bool subtrees = model.num_domains() > 1 || model.free_root;
  const auto own_loads = [&](int i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    const Part& proto = model.parts[static_cast<std::size_t>(domain.part)];
    const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * i);
    if (wind) {
      const Eigen::Vector3d velocity = field.velocity(state.frame_origin.col(i), now);
      const Eigen::Vector3d local = R.transpose() * velocity;
      const double c = settings.wind.drag * velocity.norm();
      const double s = domain.scale.length;
      w.wind_force.col(i) = (c * s * s) * (proto.wind_area * local);
      w.wind_torque.col(i) = (c * s * s * s) * (proto.wind_moment * local);
      // The r by 3 product column by column (a fused pass: an r by 3 GEMV's dispatch costs
      // more at a leaf's r).
      if (domain.r > 0) {
        const Eigen::Vector3d scaled = (c * domain.scale.gradient) * local;
        w.reduced_vertex_force.segment(domain.dof_offset, domain.r) +=
            scaled(0) * proto.wind_basis.col(0) + scaled(1) * proto.wind_basis.col(1) +
            scaled(2) * proto.wind_basis.col(2);
      }
      w.own_force_world.col(i) += R * w.wind_force.col(i);
    }
    if (!subtrees) return;
    const double mass = domain.scale.mass * proto.mass;
    w.subtree_force.col(i) = R.transpose() * (w.own_force_world.col(i) + mass * settings.gravity);
    if (!l3) return;
    const Eigen::Vector3d weight = R.transpose() * settings.gravity;
    w.subtree_torque.col(i) =
        mass > 0 ? Eigen::Vector3d((domain.scale.first_moment * proto.first_moment -
                                    mass * domain.subtree_center_of_mass)
                                       .cross(weight))
                 : Eigen::Vector3d::Zero();
    if (wind)
      w.subtree_torque.col(i) +=
          w.wind_torque.col(i) - domain.subtree_center_of_mass.cross(w.wind_force.col(i));
  };
  // Units: a childless root, the domains with children one by one, then the childless domains by
  // lane group (in lanes where the group fits, else one by one).
  const int root_unit = model.domains.front().num_children == 0 ? 1 : 0;
  const int parents = static_cast<int>(model.parent_domains.size());
  const int groups = static_cast<int>(model.childless_groups.size()) - 1;
  const auto unit_loads = [&](int u) {
    if (u < root_unit) return own_loads(0);
    if (u < root_unit + parents)
      return own_loads(model.parent_domains[static_cast<std::size_t>(u - root_unit)]);
    const std::size_t g = static_cast<std::size_t>(u - root_unit - parents);
    const int* group = model.childless_domains.data() + model.childless_groups[g];
    const int count = model.childless_groups[g + 1] - model.childless_groups[g];
    if (lanes && lane_kinematics_fit(model, group, count))
      return lane_group_own_loads(model, state, w, group, count, field, now);
    for (int k = 0; k < count; ++k) own_loads(group[k]);
  };
  parallel_for(root_unit + parents + std::max(groups, 0), threads, unit_loads);
  // The free root's torque about the centre of mass from the wind, summed in domain order.
  if (wind && model.free_root)
    for (int i = 0; i < model.num_domains(); ++i) {
      const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * i);
      w.root_torque += (state.frame_origin.col(i) - center).cross(R * w.wind_force.col(i)) +
                       R * w.wind_torque.col(i);
    }
  // The colliders' forces at the step's start, as the domains' external forces.
  gather_contact_loads(model, state, w, threads, subtrees, l3, center);
  if (!subtrees) return;
  if (l3) {
    // The vertex forces' torques at their deformed positions (children's come below).
    for (const AppliedForce& applied : state.forces) {
      const Domain& domain = model.domains[static_cast<std::size_t>(applied.domain)];
      const Part& proto = model.parts[static_cast<std::size_t>(domain.part)];
      Eigen::Vector3d x =
          domain.scale.length * proto.rest_positions.row(applied.vertex).transpose();
      if (domain.r > 0)
        x.noalias() += domain.scale.basis *
                       (proto.basis.middleRows<3>(3 * static_cast<Eigen::Index>(applied.vertex)) *
                        state.q.segment(domain.dof_offset, domain.r));
      w.subtree_torque.col(applied.domain) +=
          (x - domain.subtree_center_of_mass)
              .cross(state.frame_rotation.middleCols<3>(3 * applied.domain).transpose() *
                     applied.force);
    }
  }
  // Leaves to root: children's sums into their parents.
  for (int i = model.num_domains() - 1; i > 0; --i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    const Eigen::Matrix3d R = state.relative_rotation.middleCols<3>(3 * i);
    const Eigen::Vector3d force = R * w.subtree_force.col(i);
    w.subtree_force.col(domain.parent) += force;
    if (l3) {
      const Domain& parent = model.domains[static_cast<std::size_t>(domain.parent)];
      const Eigen::Vector3d child_center =
          state.relative_position.col(i) + R * domain.subtree_center_of_mass;
      w.subtree_torque.col(domain.parent) +=
          R * w.subtree_torque.col(i) + (child_center - parent.subtree_center_of_mass).cross(force);
    }
  }
  // A free root's rigid body: the colliders' barrier too (explicit).
  if (model.free_root)
    w.subtree_force.col(0) += state.frame_rotation.leftCols<3>().transpose() * w.root_barrier_force;
}

namespace {

// M += w Aᵀ B for 3 by r A, B with Aᵀ B symmetric: the lower triangle only (mirrored by the
// caller), column by column from Aᵀ (r by 3, contiguous columns). A rank-3 update, cheaper than
// a general product at these sizes.
void add_symmetric_rank3(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, double w,
                         Eigen::MatrixXd& M, Eigen::MatrixX3d& A_transposed) noexcept {
  const Eigen::Index r = M.rows();
  A_transposed = A.transpose();
  for (Eigen::Index c = 0; c < r; ++c)
    M.col(c).tail(r - c).noalias() +=
        A_transposed.bottomRows(r - c) * (w * Eigen::Vector3d(B(0, c), B(1, c), B(2, c)));
}

// load += âᵀ f: â the interface's 3 by r centroid columns (each column's first three 16-bit
// values times its centroid scale): f's dot product with the integers, then the scale.
void add_centroid_columns_transposed(const InterfaceBases& bases, const Eigen::Vector3d& f,
                                     Eigen::VectorXd& load) noexcept {
  const Eigen::Index r = bases.cols();
  for (Eigen::Index l = 0; l < r; ++l) {
    const InterfaceColumn& c = bases.columns[l];
    load(l) +=
        double(c.centroid_scale) * (f(0) * c.values[0] + f(1) * c.values[1] + f(2) * c.values[2]);
  }
}

}  // namespace

// The frame-independent half of lines 7-8: with J the Jacobian of the lumping point p_j (L1: the
// interface centroid, J = â_ij, and M' constant: Domain::interface_lumped_mass, nothing to do;
// L2, L3: the subtree's centre of mass carried by the child frame, p = x_ij + R_ij c_j,
// J = â_ij - (R c)~ J_ω), M_ij = m_j Jᵀ J; L3 adds the subtree's rotational inertia
// J_ωᵀ I_w J_ω (J_ω = dω_ij/dq̇_i).
void lump_children_inertia(const Model& model, const State& state, int domain,
                           ChildLumping& lumping) noexcept {
  const Domain& parent = model.domains[static_cast<std::size_t>(domain)];
  const RuntimeSettings& settings = state.settings;
  if (settings.lumping == InterfaceLumping::kInterface) return;
  const bool l3 = settings.lumping == InterfaceLumping::kRigidSubtree;
  const Eigen::Index r = parent.r;
  lumping.mass.setIdentity();
  for (int k = 0; k < parent.num_children; ++k) {
    const int c = model.children[static_cast<std::size_t>(parent.first_child + k)];
    const Domain& child = model.domains[static_cast<std::size_t>(c)];
    Eigen::MatrixXd& J = lumping.jacobians[static_cast<std::size_t>(k)];
    {
      Eigen::MatrixXd& J_omega = lumping.rotation_jacobians[static_cast<std::size_t>(k)];
      const Eigen::Vector3d Rc =
          state.relative_rotation.middleCols<3>(3 * c) * child.subtree_center_of_mass;
      relative_rotation_jacobian(model, state, c, J_omega);
      const InterfaceBases bases = model.interface_bases_of(c);
      for (Eigen::Index l = 0; l < r; ++l)
        J.col(l) = centroid_column(bases, l) - Rc.cross(Eigen::Vector3d(J_omega.col(l)));
      if (l3) {
        const Eigen::Matrix3d R = state.relative_rotation.middleCols<3>(3 * c);
        lumping.inertia_jacobian.noalias() = (R * child.subtree_inertia * R.transpose()) * J_omega;
        add_symmetric_rank3(J_omega, lumping.inertia_jacobian, 1.0, lumping.mass,
                            lumping.transposed);
      }
    }
    add_symmetric_rank3(J, J, child.subtree_mass, lumping.mass, lumping.transposed);
  }
  lumping.mass.triangularView<Eigen::StrictlyUpper>() = lumping.mass.transpose();
}

// The rest of lines 7-8, with the domain's frame at t + h: f0_ij = Jᵀ (R_ij f_j - m_j p̈ without
// J q̈) and, for L3, J_ωᵀ of the subtree's inertial torque.
void add_lumped_children_load(const Model& model, const State& state,
                              const WorkspaceData& workspace, int domain,
                              const ChildLumping& lumping, Eigen::VectorXd& load) noexcept {
  const Domain& parent = model.domains[static_cast<std::size_t>(domain)];
  const RuntimeSettings& settings = state.settings;
  const bool l1 = settings.lumping == InterfaceLumping::kInterface;
  const bool l3 = settings.lumping == InterfaceLumping::kRigidSubtree;
  const Eigen::Vector3d f_acceleration = state.frame_acceleration.col(domain);
  const Eigen::Vector3d f_omega = state.frame_angular_velocity.col(domain);
  const Eigen::Vector3d f_alpha = state.frame_angular_acceleration.col(domain);
  for (int k = 0; k < parent.num_children; ++k) {
    const int c = model.children[static_cast<std::size_t>(parent.first_child + k)];
    const Domain& child = model.domains[static_cast<std::size_t>(c)];
    const double m = child.subtree_mass;
    const Eigen::Matrix3d R = state.relative_rotation.middleCols<3>(3 * c);
    const Eigen::Vector3d omega = state.relative_angular_velocity.col(c);
    const Eigen::Vector3d alpha0 = state.relative_angular_acceleration_without_qddot.col(c);
    // Lumping point p, its velocity ṗ and the part of p̈ without J q̈.
    Eigen::Vector3d point = state.relative_position.col(c),
                    point_velocity = state.relative_velocity.col(c),
                    point_acceleration_rest = Eigen::Vector3d::Zero();
    if (!l1) {
      const Eigen::Vector3d Rc = R * child.subtree_center_of_mass;
      point += Rc;
      point_velocity += omega.cross(Rc);
      point_acceleration_rest = alpha0.cross(Rc) + omega.cross(omega.cross(Rc));
    }
    const Eigen::Vector3d point_acceleration =
        f_acceleration + f_alpha.cross(point) + f_omega.cross(f_omega.cross(point)) +
        2.0 * f_omega.cross(point_velocity) + point_acceleration_rest;
    const Eigen::Vector3d force = R * workspace.subtree_force.col(c) - m * point_acceleration;
    if (l1) {  // J = â, read from the interface's float columns
      add_centroid_columns_transposed(model.interface_bases_of(c), force, load);
    } else {
      load.noalias() += lumping.jacobians[static_cast<std::size_t>(k)].transpose() * force;
    }
    if (l3) {
      // The subtree's rotational inertia about its centre of mass (F_i axes) and its angular
      // velocity Ω = ω_i + ω_ij, Ω̇ = α_i + α_ij + ω_i × ω_ij with α_ij = J_ω q̈ + α0: torque
      // I_w Ω̇ + Ω × I_w Ω, by virtual work J_ωᵀ on q_i.
      const Eigen::Matrix3d inertia = R * child.subtree_inertia * R.transpose();
      const Eigen::Vector3d spin = f_omega + omega;
      const Eigen::Vector3d spin_rate = f_alpha + alpha0 + f_omega.cross(omega);
      const Eigen::Vector3d torque =
          R * workspace.subtree_torque.col(c) - inertia * spin_rate - spin.cross(inertia * spin);
      load.noalias() +=
          lumping.rotation_jacobians[static_cast<std::size_t>(k)].transpose() * torque;
    }
  }
}

}  // namespace ramus
