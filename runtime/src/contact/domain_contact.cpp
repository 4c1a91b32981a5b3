#include "domain_contact.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

#include "ramus/runtime/contact/contact_response.h"

namespace ramus {

namespace {

// The lagged friction of one candidate at world position x: the tangential slip velocity
// v_T = P_T ((x - x_start)/h - v_c) and mu lambda.
struct Slip {
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();
  double scale = 0;  // mu lambda (N)
};

Slip candidate_slip(const ContactCandidate& c, double friction, const Eigen::Vector3d& x,
                    double h) noexcept {
  Slip slip;
  slip.scale = friction * c.normal_force;
  if (slip.scale == 0) return slip;
  const Eigen::Vector3d relative = (x - c.start) / h - c.collider_velocity;
  slip.velocity = relative - c.normal * c.normal.dot(relative);
  return slip;
}

// K += s_B² U_kᵀ (Rᵀ H R) U_k without temporaries: one column of H U_k at a time.
void add_sample_hessian(const Eigen::Ref<const Eigen::MatrixXd>& rows, const Eigen::Matrix3d& H,
                        Eigen::Ref<Eigen::MatrixXd> stiffness) noexcept {
  const Eigen::Index r = rows.cols();
  for (Eigen::Index b = 0; b < r; ++b) {
    const Eigen::Vector3d hu = H * rows.col(b);
    for (Eigen::Index a = 0; a < r; ++a) stiffness(a, b) += rows.col(a).dot(hu);
  }
}

}  // namespace

LevelSetSample collider_level_set(const Collider& collider, const RigidPose& pose,
                                  const Eigen::Vector3d& x, bool with_hessian) noexcept {
  const Eigen::Vector3d local = pose.rotation.transpose() * (x - pose.translation);
  LevelSetSample s =
      collider.shape == ColliderShape::kMesh
          ? sample_grid_distance(collider.grid, local, with_hessian)
          : sample_local_level_set(collider.shape, collider.size, local, with_hessian);
  s.gradient = pose.rotation * s.gradient;
  if (with_hessian) s.hessian = pose.rotation * s.hessian * pose.rotation.transpose();
  return s;
}

Eigen::Vector3d sample_local_position(const PartContact& samples, const UniformScale& scale, int k,
                                      const Eigen::Ref<const Eigen::VectorXd>& q) noexcept {
  Eigen::Vector3d x = scale.length * samples.rest.col(k);
  if (q.size() > 0) x.noalias() += scale.basis * (samples.basis.middleRows<3>(3 * k) * q);
  return x;
}

namespace {

// f(candidate, its collider, its sample's world position at q, kappa a, its allowance) for each
// candidate.
template <class Visit>
void visit_candidates(const DomainContact& d, const Eigen::Ref<const Eigen::VectorXd>& q,
                      const Visit& visit) noexcept {
  const double area_scale = d.scale->length * d.scale->length;
  for (int n = 0; n < d.count; ++n) {
    const ContactCandidate& c = d.candidates[n];
    const Eigen::Vector3d x =
        d.origin + d.rotation * sample_local_position(*d.samples, *d.scale, c.sample, q);
    visit(c, d.colliders[c.collider], x, d.stiffness * area_scale * d.samples->weights(c.sample),
          d.allowance ? d.allowance[n] : 0.0);
  }
}

}  // namespace

double DomainContact::energy(const Eigen::Ref<const Eigen::VectorXd>& q) const noexcept {
  double total = 0;
  visit_candidates(*this, q,
                   [&](const ContactCandidate& c, const StepCollider& col, const Eigen::Vector3d& x,
                       double weight, double forgiven) {
                     const double phi = collider_level_set(col.collider, col.end, x).value;
                     total += weight * continued_log_barrier(phi + forgiven, distance).value;
                     const Slip slip = candidate_slip(c, col.collider.friction, x, time_step);
                     if (slip.scale > 0)
                       total += slip.scale * time_step *
                                friction_smoothing(slip.velocity.norm(), friction_speed).integral;
                   });
  return total;
}

double DomainContact::add_derivatives(const Eigen::Ref<const Eigen::VectorXd>& q,
                                      Eigen::Ref<Eigen::VectorXd> gradient,
                                      Eigen::Ref<Eigen::MatrixXd> hessian,
                                      bool gauss_newton) const noexcept {
  double total = 0;
  visit_candidates(
      *this, q,
      [&](const ContactCandidate& c, const StepCollider& col, const Eigen::Vector3d& x,
          double weight, double forgiven) {
        // (Beyond the barrier's reach by the Lipschitz bound from the start, and pushed by
        // nothing there: nothing to add, and no distance to evaluate.)
        const bool rubs = col.collider.friction * c.normal_force > 0;
        if (!rubs && c.end_distance - 2 * (x - c.start).norm() >= distance) return;
        const LevelSetSample phi = collider_level_set(col.collider, col.end, x, !gauss_newton);
        // The barrier: dE/dx = kappa a b' ∇phi, d²E/dx² = kappa a (b'' ∇phi ∇phiᵀ + b' ∇²phi).
        const ScalarDerivatives b = continued_log_barrier(phi.value + forgiven, distance);
        total += weight * b.value;
        // (Beyond the barrier's reach, and pushed by nothing at the start: no friction either.)
        if (b.first == 0 && b.second == 0 && !rubs) return;
        Eigen::Vector3d g = weight * b.first * phi.gradient;
        Eigen::Matrix3d H = weight * b.second * phi.gradient * phi.gradient.transpose();
        if (!gauss_newton) H += weight * b.first * phi.hessian;
        // The lagged friction: dD/dx = mu lambda (s/y) v_T; its Hessian mu lambda / h [s' u uᵀ +
        // (s/y) (P_T - u uᵀ)] (u the slip's direction), PSD as s' >= 0.
        const Slip slip = candidate_slip(c, col.collider.friction, x, time_step);
        if (slip.scale > 0) {
          const double y = slip.velocity.norm();
          const FrictionSmoothing s = friction_smoothing(y, friction_speed);
          total += slip.scale * time_step * s.integral;
          g += slip.scale * s.value_over_y * slip.velocity;
          const Eigen::Matrix3d tangent =
              Eigen::Matrix3d::Identity() - c.normal * c.normal.transpose();
          const Eigen::Matrix3d along =
              y > 0 ? Eigen::Matrix3d(slip.velocity * slip.velocity.transpose() / (y * y))
                    : Eigen::Matrix3d::Zero();
          H += slip.scale / time_step * (s.slope * along + s.value_over_y * (tangent - along));
        }
        // Into q: x = o + R (s X + s_B U_k q).
        if (q.size() == 0) return;
        const auto rows = samples->basis.middleRows<3>(3 * c.sample);
        const double sb = scale->basis;
        gradient.noalias() += rows.transpose() * (sb * (rotation.transpose() * g));
        add_sample_hessian(rows, (sb * sb) * (rotation.transpose() * H * rotation), hessian);
      });
  return total;
}

double feasible_fraction(const StepCollider& collider, const Eigen::Vector3d& x0,
                         const Eigen::Vector3d& dx, double allowance, double delta,
                         double lower_bound) noexcept {
  const double lipschitz = collider.collider.shape == ColliderShape::kMesh ? std::sqrt(3.0) : 1.0;
  const double length = lipschitz * dx.norm();
  // (Too short to reach -delta from outside, or from the bound at x0; or already inside: the
  // barrier's and the allowance's business.)
  if (length <= delta || lower_bound + allowance - length > -delta) return 1;
  double phi = collider_level_set(collider.collider, collider.end, x0).value + allowance;
  if (phi <= 0 || phi - length > -delta) return 1;
  // March along the move by the distance left to -delta, which it cannot cross meanwhile.
  double t = 0;
  for (int march = 0; march < 32; ++march) {
    const double gap = phi + delta;
    if (gap <= 1e-3 * delta) break;
    t += gap / length;
    if (t >= 1) return 1;
    phi = collider_level_set(collider.collider, collider.end, x0 + t * dx).value + allowance;
  }
  return std::max(t, 1e-6);
}

double DomainContact::feasible_step(const Eigen::Ref<const Eigen::VectorXd>& q,
                                    const Eigen::Ref<const Eigen::VectorXd>& dq) const noexcept {
  if (q.size() == 0) return 1;
  // (No sample moves by more than s_B max_k |U_k| |dq|: when that is below delta / √3, none
  // can cross, feasible_fraction's first test, and no candidate is visited.)
  if (std::sqrt(3.0) * scale->basis * samples->basis_norm * dq.norm() <= distance) return 1;
  double fraction = 1;
  visit_candidates(
      *this, q,
      [&](const ContactCandidate& c, const StepCollider& col, const Eigen::Vector3d& x, double,
          double forgiven) {
        const Eigen::Vector3d dx =
            rotation * (scale->basis * (samples->basis.middleRows<3>(3 * c.sample) * dq));
        const double bound = c.end_distance - 2 * (x - c.start).norm();
        fraction = std::min(fraction, feasible_fraction(col, x, dx, forgiven, distance, bound));
      });
  return fraction;
}

void DomainContact::forgive_frame_depth(const Eigen::Ref<const Eigen::VectorXd>& q,
                                        double* room) noexcept {
  allowance = nullptr;
  visit_candidates(*this, q,
                   [&](const ContactCandidate& c, const StepCollider& col, const Eigen::Vector3d& x,
                       double, double) {
                     double& forgiven = room[&c - candidates];
                     forgiven = c.allowance;
                     // (Not evaluated where the frame's motion cannot have taken it 3 delta deep:
                     // a distance is 1-Lipschitz, a grid's interpolant √3.)
                     if (c.end_distance - 2 * (x - c.start).norm() > -3 * distance) return;
                     forgiven = std::max(
                         c.allowance,
                         barrier_allowance(collider_level_set(col.collider, col.end, x).value,
                                           distance, 3 * distance));
                   });
  allowance = room;
}

int gather_domain_contacts(const Model& model, const State& state, int i,
                           const StepCollider* colliders, int num_colliders, ContactCandidate* room,
                           int room_size, ContactLoad* load) noexcept {
  if (load) *load = ContactLoad{};
  const Domain& domain = model.domains[static_cast<std::size_t>(i)];
  const PartContact& samples = model.part_of(i).contact;
  if (samples.size() == 0) return 0;
  const RuntimeSettings& settings = state.settings;
  const double h = settings.time_step, delta = settings.contact_distance;
  const UniformScale& scale = domain.scale;
  const Eigen::Matrix3d R = state.frame_rotation.middleCols<3>(3 * i);
  const Eigen::Vector3d origin = state.frame_origin.col(i);
  const auto q = state.q.segment(domain.dof_offset, domain.r);
  const auto qdot = state.qdot.segment(domain.dof_offset, domain.r);
  const Eigen::Vector3d v_frame = state.frame_velocity.col(i);  // F_i axes
  const Eigen::Vector3d w_frame = state.frame_angular_velocity.col(i);
  const auto qddot = state.qddot.segment(domain.dof_offset, domain.r);

  // Broad phase: the samples' sphere (rest, grown by the deformation bound) against each
  // collider's distance, with the step's motion of both as margin.
  const double deformation = scale.basis * samples.basis_norm * q.norm();
  const double radius = scale.length * samples.radius + deformation;
  const Eigen::Vector3d center = origin + R * (scale.length * samples.center);
  const double reach_arm = scale.length * samples.center.norm() + radius;
  const double domain_speed =
      v_frame.norm() + w_frame.norm() * reach_arm + scale.basis * samples.basis_norm * qdot.norm();
  // (And the step's motion from the accelerations at its start, h² a: a domain at rest that
  // gravity or its parent pulls towards a collider over a long step.)
  const double domain_acceleration =
      state.frame_acceleration.col(i).norm() +
      (state.frame_angular_acceleration.col(i).norm() + w_frame.squaredNorm()) * reach_arm +
      scale.basis * samples.basis_norm * qddot.norm();
  int count = 0;
  const double area_scale = scale.length * scale.length;
  for (int id = 0; id < num_colliders; ++id) {
    const StepCollider& col = colliders[id];
    if (!col.used) continue;
    const Collider& c = col.collider;
    const double collider_speed =
        c.velocity.norm() +
        c.angular_velocity.norm() * ((center - c.pose.translation).norm() + radius);
    const double motion = 2 * h * (domain_speed + collider_speed) + h * h * domain_acceleration;
    const double reach = radius + delta + motion;
    if (collider_level_set(c, c.pose, center).value > reach) continue;
    // Narrow phase, sample by sample: a candidate when within delta plus twice the step's
    // relative motion (and h² a).
    // (A sample beyond the reach its domain's and the collider's speed bounds give is rejected
    // before its velocity is computed.)
    const double sample_reach = delta + motion;
    for (int k = 0; k < samples.size(); ++k) {
      const Eigen::Vector3d local = sample_local_position(samples, scale, k, q);
      const Eigen::Vector3d x = origin + R * local;
      const LevelSetSample phi = collider_level_set(c, c.pose, x);
      if (!(phi.value < sample_reach)) continue;
      Eigen::Vector3d local_velocity = v_frame + w_frame.cross(local);
      if (domain.r > 0)
        local_velocity.noalias() += scale.basis * (samples.basis.middleRows<3>(3 * k) * qdot);
      const Eigen::Vector3d v = R * local_velocity;
      const Eigen::Vector3d v_c = c.velocity + c.angular_velocity.cross(x - c.pose.translation);
      if (!(phi.value < delta + 2 * h * (v - v_c).norm() + h * h * domain_acceleration)) continue;
      if (count == samples.size()) return count;  // (room for one collider per sample)
      if (!room) {                                // (counted only)
        ++count;
        continue;
      }
      if (count == room_size) return count;
      ContactCandidate& candidate = room[count++];
      candidate.sample = k;
      candidate.collider = id;
      candidate.normal = phi.gradient;
      candidate.start = x;
      candidate.collider_velocity = v_c;
      candidate.end_distance = collider_level_set(c, col.end, x).value;
      candidate.allowance = barrier_allowance(phi.value, delta, delta);
      // The force at the start: barrier along the normal, friction against the slip.
      const double weight = settings.contact_stiffness * area_scale * samples.weights(k);
      candidate.normal_force =
          -weight * continued_log_barrier(phi.value + candidate.allowance, delta).first;
      const Eigen::Vector3d arm = R * local, f = candidate.normal_force * phi.gradient;
      load->barrier_force += f;
      load->barrier_moment += arm.cross(f);
      if (c.friction > 0 && candidate.normal_force > 0) {
        const Eigen::Vector3d relative = v - v_c;
        const Eigen::Vector3d slip = relative - phi.gradient * phi.gradient.dot(relative);
        const Eigen::Vector3d friction =
            -c.friction * candidate.normal_force *
            friction_smoothing(slip.norm(), settings.contact_friction_speed).value_over_y * slip;
        load->friction_force += friction;
        load->friction_moment += arm.cross(friction);
      }
    }
  }
  return count;
}

}  // namespace ramus
