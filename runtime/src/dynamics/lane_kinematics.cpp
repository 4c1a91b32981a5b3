// The lane groups' kinematics and own loads: Eq. 1-12 for up to eight childless domains of one
// part, one per lane (compute_relative_kinematics, polar_decomposition and
// update_child_frame written once for eight), and line 3's per-domain half (the wind's drag, own
// and subtree forces).
#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <limits>

#include "../kernels/vector_sine.h"
#include "frame_kinematics.h"
#include "lane_group_step.h"
#include "lane_ops.h"
#include "ramus/runtime/kernels/polar_decomposition.h"
#include "workspace_data.h"

namespace ramus {

using namespace lane_ops;

namespace {

// polar_decomposition_lanes on the lanes of L.
template <class L>
int polar_lanes(const Mat3T<L>& A, Mat3T<L>& R, Mat3T<L>& S) noexcept {
  // Higham's scaled Newton iteration (polar_decomposition.cpp's newton_polar) on all lanes
  // until each has settled; a lane's R is its iterate where it settled, as the scalar
  // iteration returns it. (L conditions are tested one lane at a time: Eigen's masks and
  // selects run lane by lane anyway.)
  Mat3T<L> X = A;
  bool settled[kWidth<L>] = {}, failed[kWidth<L>] = {};
  int remaining = kWidth<L>;
  for (int iteration = 0; iteration < 20 && remaining > 0; ++iteration) {
    const L det = lanes::determinant(X);
    // γ = 1 once det X is within 1e-3 of 1, else |det X|^-1/3 (no vector cube root). (Every
    // lane within, none settled: one vector test, a sum that is NaN if any lane is.)
    L gamma = L::Ones();
    const bool all_near_one = remaining == kWidth<L> && (det - 1.0).abs().sum() < 1e-3;
    for (int k = 0; k < kWidth<L> && !all_near_one; ++k) {
      if (settled[k]) continue;
      if (!(det(k) > 0) || !std::isfinite(det(k))) {
        settled[k] = failed[k] = true;
        --remaining;
      } else if (!(std::abs(det(k) - 1.0) < 1e-3)) {
        gamma(k) = 1.0 / std::cbrt(det(k));
      }
    }
    Mat3T<L> cofactor;
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3, l = (i + 2) % 3;
      cofactor(0, i) = X(1, j) * X(2, l) - X(2, j) * X(1, l);
      cofactor(1, i) = X(2, j) * X(0, l) - X(0, j) * X(2, l);
      cofactor(2, i) = X(0, j) * X(1, l) - X(1, j) * X(0, l);
    }
    const L inverse_gamma_det = 1.0 / (gamma * det);
    L change = L::Zero();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const L next = 0.5 * (gamma * X(i, j) + cofactor(i, j) * inverse_gamma_det);
        change = change.max((next - X(i, j)).abs());
        X(i, j) = next;
      }
    // Every lane settles at once (the usual case): R is the iterate, in one copy.
    if (remaining == kWidth<L> && change.sum() <= 1e-9) {
      R = X;
      for (bool& lane_settled : settled) lane_settled = true;
      remaining = 0;
      break;
    }
    for (int k = 0; k < kWidth<L>; ++k)
      if (!settled[k] && change(k) <= 1e-9) {
        settled[k] = true;
        --remaining;
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) R(i, j)(k) = X(i, j)(k);
      }
  }
  for (int k = 0; k < kWidth<L>; ++k) failed[k] = failed[k] || !settled[k];
  S = lanes::transpose_multiply(R, A);
  L asymmetry = L::Zero(), size = L::Zero();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      asymmetry = asymmetry.max((S(i, j) - S(j, i)).abs());
      size = size.max(S(i, j).abs());
    }
  Mat3T<L> symmetric;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) symmetric(i, j) = 0.5 * (S(i, j) + S(j, i));
  S = symmetric;
  // A lane the iteration does not settle, or leaves too asymmetric: the scalar
  // polar_decomposition (the SVD).
  int scalar = 0;
  for (int k = 0; k < kWidth<L>; ++k)
    if (failed[k] || !(asymmetry(k) <= 2e-15 * size(k))) {
      const PolarDecomposition RS = polar_decomposition(lane_matrix(A, k));
      set_lane(R, k, RS.R);
      set_lane(S, k, RS.S);
      ++scalar;
    }
  return scalar;
}

// ω̇ = G⁻¹ (2 skew(Rᵀ (Ä - ω~ Ȧ)) - (tr(Ṡ) I - Ṡ) Rᵀ ω) given W = ω~ Ȧ (Eq. 9).
template <class L>
Vec3T<L> angular_acceleration(const Mat3T<L>& G_inverse, const Mat3T<L>& R,
                              const Mat3T<L>& A_ddot_minus_W, const Mat3T<L>& S_dot_term,
                              const Vec3T<L>& Rt_omega) {
  const Vec3T<L> s = lanes::skew_vector(lanes::transpose_multiply(R, A_ddot_minus_W));
  const Vec3T<L> t = lanes::multiply(S_dot_term, Rt_omega);
  Vec3T<L> rhs;
  for (int d = 0; d < 3; ++d) rhs[d] = 2.0 * s[d] - t[d];
  return lanes::multiply(G_inverse, rhs);
}

// The relative kinematics of each lane's domain (compute_relative_kinematics): R, x, v, a, ω, ω̇.
template <class L>
struct RelativeKinematics {
  Vec3T<L> x, v, a, omega, alpha;
  Mat3T<L> R;
};

template <class L>
RelativeKinematics<L> relative_kinematics_lanes(const Model& model, State& state, const int* index,
                                                int count, bool need_partial_alpha) {
  // y = (x̂ displacement, vec ΔA) and its derivatives per domain (one pass over the parent's
  // float columns), then into lanes.
  // Per lane the row (x, A, v, Ȧ, a, Ä) with x = x̂ + y_0:3 and A = R̂ + y_3:12 (column-major).
  alignas(64) double rows[kWidth<L>][36];
  const double* row_pointers[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) {
    const DomainInterface& itf = model.domains[static_cast<std::size_t>(index[lane])].interface;
    Eigen::Map<Eigen::Matrix<double, 12, 1>> y(rows[lane]), y_dot(rows[lane] + 12),
        y_ddot(rows[lane] + 24);
    Eigen::Matrix<double, 12, 1> rest;
    rest << itf.centroid, Eigen::Map<const Eigen::Matrix<double, 9, 1>>(itf.rest_rotation.data());
    Eigen::Matrix<double, 12, 1> y_value, y_dot_value, y_ddot_value;
    interface_motion(model, state, index[lane], y_value, y_dot_value, y_ddot_value);
    y = rest + y_value;
    y_dot = y_dot_value;
    y_ddot = y_ddot_value;
    row_pointers[lane] = rows[lane];
  }
  L motion[36];
  lanes::load_transposed(row_pointers, 36, motion);
  RelativeKinematics<L> k;
  Mat3T<L> A, A_dot, A_ddot;
  for (int d = 0; d < 3; ++d) {
    k.x[d] = motion[d];
    k.v[d] = motion[12 + d];
    k.a[d] = motion[24 + d];
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      A(i, j) = motion[3 + i + 3 * j];
      A_dot(i, j) = motion[15 + i + 3 * j];
      A_ddot(i, j) = motion[27 + i + 3 * j];
    }
  // Polar rotation and its derivatives (Eq. 5-9; polar_rotation_derivatives).
  Mat3T<L> S;
  polar_lanes(A, k.R, S);
  const Mat3T<L> G_inverse = lanes::multiply(k.R, lanes::inverse(lanes::trace_minus(S)));
  const Vec3T<L> s = lanes::skew_vector(lanes::transpose_multiply(k.R, A_dot));
  Vec3T<L> twice_s;
  for (int d = 0; d < 3; ++d) twice_s[d] = 2.0 * s[d];
  k.omega = lanes::multiply(G_inverse, twice_s);
  const Mat3T<L> R_dot = lanes::skew_multiply(k.omega, k.R);
  const Mat3T<L> R_dot_S = lanes::multiply(R_dot, S);
  Mat3T<L> difference;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) difference(i, j) = A_dot(i, j) - R_dot_S(i, j);
  const Mat3T<L> S_dot_raw = lanes::transpose_multiply(k.R, difference);
  Mat3T<L> S_dot;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) S_dot(i, j) = 0.5 * (S_dot_raw(i, j) + S_dot_raw(j, i));
  const Mat3T<L> S_dot_term = lanes::trace_minus(S_dot);
  const Vec3T<L> Rt_omega = lanes::transpose_multiply(k.R, k.omega);
  const Mat3T<L> W = lanes::skew_multiply(k.omega, A_dot);
  Mat3T<L> A_ddot_minus_W, minus_W;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      A_ddot_minus_W(i, j) = A_ddot(i, j) - W(i, j);
      minus_W(i, j) = -W(i, j);
    }
  k.alpha = angular_acceleration(G_inverse, k.R, A_ddot_minus_W, S_dot_term, Rt_omega);
  const Vec3T<L> alpha_without_qddot =
      need_partial_alpha ? angular_acceleration(G_inverse, k.R, minus_W, S_dot_term, Rt_omega)
                         : k.alpha;
  scatter_vector(k.x, index, count, state.relative_position);
  scatter_vector(k.v, index, count, state.relative_velocity);
  scatter_vector(k.a, index, count, state.relative_acceleration);
  scatter_matrix(k.R, index, count, state.relative_rotation);
  scatter_matrix(S, index, count, state.relative_stretch);
  scatter_vector(k.omega, index, count, state.relative_angular_velocity);
  scatter_vector(k.alpha, index, count, state.relative_angular_acceleration);
  scatter_vector(alpha_without_qddot, index, count,
                 state.relative_angular_acceleration_without_qddot);
  return k;
}

// The world frame of each lane's domain from its parent's (update_child_frame, Eq. 10-12).
template <class L>
void frames_lanes(const Model& model, State& state, const int* index, int count,
                  const RelativeKinematics<L>& k) {
  int parent[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane)
    parent[lane] = model.domains[static_cast<std::size_t>(index[lane])].parent;
  const Mat3T<L> P_rotation = gather_matrix<L>(state.frame_rotation, parent);
  const Vec3T<L> P_origin = gather_vector<L>(state.frame_origin, parent);
  const Vec3T<L> P_omega = gather_vector<L>(state.frame_angular_velocity, parent);
  const Vec3T<L> P_velocity = gather_vector<L>(state.frame_velocity, parent);
  const Vec3T<L> P_acceleration = gather_vector<L>(state.frame_acceleration, parent);
  const Vec3T<L> P_alpha = gather_vector<L>(state.frame_angular_acceleration, parent);
  const Vec3T<L> omega_cross_x = lanes::cross(P_omega, k.x);
  const Vec3T<L> alpha_cross_x = lanes::cross(P_alpha, k.x);
  const Vec3T<L> centripetal = lanes::cross(P_omega, omega_cross_x);
  const Vec3T<L> coriolis = lanes::cross(P_omega, k.v);
  const Vec3T<L> omega_cross_omega = lanes::cross(P_omega, k.omega);
  Vec3T<L> velocity, acceleration, angular_velocity, angular_acceleration;
  for (int d = 0; d < 3; ++d) {
    angular_velocity[d] = P_omega[d] + k.omega[d];
    velocity[d] = P_velocity[d] + omega_cross_x[d] + k.v[d];
    acceleration[d] =
        P_acceleration[d] + alpha_cross_x[d] + centripetal[d] + 2.0 * coriolis[d] + k.a[d];
    angular_acceleration[d] = P_alpha[d] + k.alpha[d] + omega_cross_omega[d];
  }
  scatter_matrix(lanes::multiply(P_rotation, k.R), index, count, state.frame_rotation);
  scatter_vector(lanes::add(P_origin, lanes::multiply(P_rotation, k.x)), index, count,
                 state.frame_origin);
  scatter_vector(lanes::transpose_multiply(k.R, angular_velocity), index, count,
                 state.frame_angular_velocity);
  scatter_vector(lanes::transpose_multiply(k.R, velocity), index, count, state.frame_velocity);
  scatter_vector(lanes::transpose_multiply(k.R, acceleration), index, count,
                 state.frame_acceleration);
  scatter_vector(lanes::transpose_multiply(k.R, angular_acceleration), index, count,
                 state.frame_angular_acceleration);
}

}  // namespace

int polar_decomposition_lanes(const Mat3& A, Mat3& R, Mat3& S) noexcept {
  int scalar = 0;
  // Each half of the lanes on its own (Half: registers, not the stack).
  for (int half = 0; half < 2; ++half) {
    lanes::Mat3T<lanes::Half> A_half, R_half, S_half;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) A_half(i, j) = A(i, j).segment<4>(4 * half);
    scalar += polar_lanes(A_half, R_half, S_half);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        R(i, j).segment<4>(4 * half) = R_half(i, j);
        S(i, j).segment<4>(4 * half) = S_half(i, j);
      }
  }
  return scalar;
}

bool lane_kinematics_fit(const Model& model, const int* domains, int count) noexcept {
  // (The rest holds for a Model::childless_groups group by construction: checking it domain by
  // domain touched eight Domain structs a group, 1 % of the oak's step.)
  if (count < 2 || count > kLanes) return false;
  const Part& proto = model.part_of(domains[0]);
  return proto.batched && proto.forces.quartic_full() && proto.r > 0;
}

void lane_group_kinematics(const Model& model, State& state, const int* domains, int count,
                           bool need_partial_alpha) noexcept {
  int index[kLanes];
  lane_domains(domains, count, index);
  // Half by half (no coefficients to share: registers, not the stack, hold a Half's matrices).
  for (int first = 0; first < count; first += 4) {
    const RelativeKinematics<lanes::Half> kinematics = relative_kinematics_lanes<lanes::Half>(
        model, state, index + first, std::min(4, count - first), need_partial_alpha);
    frames_lanes(model, state, index + first, std::min(4, count - first), kinematics);
  }
}

void lane_group_own_loads(const Model& model, const State& state, WorkspaceData& w,
                          const int* domains, int count, const WindField& field,
                          const WindField::Instant& now) noexcept {
  int index[kLanes];
  lane_domains(domains, count, index);
  const Part& proto =
      model.parts[static_cast<std::size_t>(model.domains[static_cast<std::size_t>(index[0])].part)];
  const RuntimeSettings& settings = state.settings;
  const Mat3 R = gather_matrix(state.frame_rotation, index);
  Vec3 own = gather_vector(w.own_force_world, index);
  Vec3 wind_force, wind_torque;
  const bool wind = settings.wind.active();
  if (wind) {
    // The wind at each frame's origin (WindField::velocity): the gusty mean plus four eddies.
    const Vec3 origin = gather_vector(state.frame_origin, index);
    Vec3 velocity;
    for (int d = 0; d < 3; ++d) velocity[d] = Lane::Constant(now.mean(d));
    if (settings.wind.turbulence > 0) {
      Vec3 carried;
      for (int d = 0; d < 3; ++d) carried[d] = origin[d] - now.drift(d);
      for (int k = 0; k < 4; ++k) {
        const Eigen::Vector3d kappa = field.wave_vectors().col(k);
        const Lane argument = kappa(0) * carried[0] + kappa(1) * carried[1] +
                              kappa(2) * carried[2] + field.phases()(k);
        Lane sine;
        sine.head<4>() = sine4(argument.head<4>());
        sine.tail<4>() = sine4(argument.tail<4>());
        const Lane amplitude = (0.5 * settings.wind.turbulence) * sine;
        for (int d = 0; d < 3; ++d) velocity[d] += amplitude * field.directions()(d, k);
      }
    }
    // Drag |w| P w in the domain's axes (scaled: area s², reduced s^½, torque s³).
    const Vec3 local = lanes::transpose_multiply(R, velocity);
    const Lane c =
        settings.wind.drag *
        (velocity[0] * velocity[0] + velocity[1] * velocity[1] + velocity[2] * velocity[2]).sqrt();
    const Lane s = per_domain(model, index, [](const Domain& n, int) { return n.scale.length; });
    const Lane area = c * s * s, moment = area * s;
    Mat3 P, W;  // the part's wind_area and wind_moment, the same in every lane
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        P(i, j) = Lane::Constant(proto.wind_area(i, j));
        W(i, j) = Lane::Constant(proto.wind_moment(i, j));
      }
    wind_force = lanes::multiply(P, local);
    wind_torque = lanes::multiply(W, local);
    for (int d = 0; d < 3; ++d) {
      wind_force[d] *= area;
      wind_torque[d] *= moment;
    }
    // Uᵀ-side: the reduced drag (c s^½) B_w local added to each domain's reduced vertex force,
    // eight coordinates at a time.
    const Lane gradient =
        c * per_domain(model, index, [](const Domain& n, int) { return n.scale.gradient; });
    Vec3 scaled;
    for (int d = 0; d < 3; ++d) scaled[d] = gradient * local[d];
    double* rows[kLanes];
    for (int lane = 0; lane < kLanes; ++lane)
      rows[lane] = w.reduced_vertex_force.data() +
                   model.domains[static_cast<std::size_t>(index[lane])].dof_offset;
    const Eigen::MatrixXd& B = proto.wind_basis;
    for (int l = 0; l < proto.r; l += kLanes) {
      const int n = std::min(kLanes, proto.r - l);
      Lane chunk[kLanes];
      lanes::load_transposed(rows, n, chunk);
      for (int k = 0; k < n; ++k)
        chunk[k] += scaled[0] * B(l + k, 0) + scaled[1] * B(l + k, 1) + scaled[2] * B(l + k, 2);
      lanes::store_transposed(chunk, n, rows, count);
      for (int lane = 0; lane < kLanes; ++lane) rows[lane] += n;
    }
    own = lanes::add(own, lanes::multiply(R, wind_force));
    scatter_vector(wind_force, index, count, w.wind_force);
    scatter_vector(wind_torque, index, count, w.wind_torque);
    scatter_vector(own, index, count, w.own_force_world);
  }
  // The subtree force Rᵀ (f_own + m g) in the domain's axes (a childless domain: its own).
  const Lane mass =
      proto.mass * per_domain(model, index, [](const Domain& n, int) { return n.scale.mass; });
  Vec3 total;
  for (int d = 0; d < 3; ++d) total[d] = own[d] + mass * settings.gravity(d);
  scatter_vector(lanes::transpose_multiply(R, total), index, count, w.subtree_force);
  if (settings.lumping != InterfaceLumping::kRigidSubtree) return;
  // L3: its torque about the subtree's rest centre of mass c: (s⁴ ∫ρX - m c) × Rᵀ g, plus the
  // wind's torque moved to c.
  Vec3 gravity;
  for (int d = 0; d < 3; ++d) gravity[d] = Lane::Constant(settings.gravity(d));
  const Vec3 weight = lanes::transpose_multiply(R, gravity);
  const Lane first_moment =
      per_domain(model, index, [](const Domain& n, int) { return n.scale.first_moment; });
  Vec3 center, arm;
  for (int d = 0; d < 3; ++d) {
    center[d] =
        per_domain(model, index, [d](const Domain& n, int) { return n.subtree_center_of_mass(d); });
    arm[d] = first_moment * proto.first_moment(d) - mass * center[d];
  }
  Vec3 torque = lanes::cross(arm, weight);
  if (proto.mass <= 0)
    for (int d = 0; d < 3; ++d) torque[d] = Lane::Zero();
  if (wind) {
    const Vec3 moved = lanes::cross(center, wind_force);
    for (int d = 0; d < 3; ++d) torque[d] += wind_torque[d] - moved[d];
  }
  scatter_vector(torque, index, count, w.subtree_torque);
}
}  // namespace ramus
