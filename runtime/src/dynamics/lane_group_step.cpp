// Eight childless nodes of one prototype through lines 5-11 of Algorithm 1, one per lane: the
// node-by-node step's arithmetic (frame_kinematics.cpp, polar_decomposition.cpp, step.cpp's
// assemble_node_equation, system_force.cpp, reduced_stvk_polynomial.cpp, implicit_stage.cpp)
// written once for eight. The rare cases the lanes do not cover run per node as there: an A_ij
// that Higham's iteration cannot settle (the SVD), an indefinite stage matrix (pivoted LDLT).
#include "lane_group_step.h"

#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <limits>

#include "frame_kinematics.h"
#include "ramus/runtime/dynamics/polar_decomposition.h"
#include "vector_sine.h"
#include "workspace_data.h"

namespace ramus {

using lanes::kLanes;
using lanes::Lane;
using lanes::Mat3;
using lanes::Mat3T;
using lanes::Vec3;
using lanes::Vec3T;

static_assert(static_cast<std::size_t>(kLanes) == kLaneGroupSize, "a lane group fills the lanes");

LaneScratch::LaneScratch(int r) {
  const std::size_t n = static_cast<std::size_t>(r), p = static_cast<std::size_t>(num_pairs(r));
  for (lanes::LaneBuffer* b :
       {&q, &qdot, &q_hat, &v_hat, &q_tilde, &gradient, &load, &rhs, &system})
    b->assign(n, Lane::Zero());
  for (lanes::LaneBuffer* b : {&monomials, &k3, &k4, &stiffness}) b->assign(p, Lane::Zero());
  z.assign(13 + 10 * n, Lane::Zero());
  factor.assign(n * n, Lane::Zero());
}

namespace {

bool lane_integrator(Integrator integrator, const State& state) {
  return integrator == Integrator::kSemiImplicitEuler ||
         (integrator == Integrator::kSemiImplicitBdf2 && state.history_size > 0);
}

// The lanes of L: 8 for a Lane, 4 for a Half.
template <class L>
constexpr int kWidth = L::SizeAtCompileTime;

// out[l] = (v[offset[0] + l], ..., v[offset[kWidth<L> - 1] + l]) for l < n.
template <class L>
void gather(const double* v, const int* offset, int n, L* out) {
  const double* rows[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) rows[lane] = v + offset[lane];
  lanes::load_transposed(rows, n, out);
}

// v[offset[lane] + l] = in[l](lane) for l < n, lane < count.
template <class L>
void scatter(const L* in, const int* offset, int n, int count, double* v) {
  double* rows[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) rows[lane] = v + offset[lane];
  lanes::store_transposed(in, n, rows, count);
}

template <class L>
Eigen::Matrix3d lane_matrix(const Mat3T<L>& A, int k) {
  Eigen::Matrix3d M;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) M(i, j) = A(i, j)(k);
  return M;
}

template <class L>
void set_lane(Mat3T<L>& A, int k, const Eigen::Matrix3d& M) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A(i, j)(k) = M(i, j);
}

template <class L = Lane>
Vec3T<L> gather_vector(const Eigen::Matrix3Xd& columns, const int* index) {
  Vec3T<L> v;
  for (int d = 0; d < 3; ++d)
    for (int lane = 0; lane < kWidth<L>; ++lane) v[d](lane) = columns(d, index[lane]);
  return v;
}

// The 3 by 3 block `index` of a 3 by 3N matrix, per lane.
template <class L = Lane>
Mat3T<L> gather_matrix(const Eigen::Matrix3Xd& blocks, const int* index) {
  int offset[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) offset[lane] = 9 * index[lane];
  L column_major[9];
  gather(blocks.data(), offset, 9, column_major);
  Mat3T<L> A;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A(i, j) = column_major[i + 3 * j];
  return A;
}

template <class L>
void scatter_vector(const Vec3T<L>& v, const int* index, int count, Eigen::Matrix3Xd& columns) {
  for (int k = 0; k < count; ++k)
    for (int d = 0; d < 3; ++d) columns(d, index[k]) = v[d](k);
}

template <class L>
void scatter_matrix(const Mat3T<L>& A, const int* index, int count, Eigen::Matrix3Xd& blocks) {
  int offset[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) offset[lane] = 9 * index[lane];
  L column_major[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) column_major[i + 3 * j] = A(i, j);
  scatter(column_major, offset, 9, count, blocks.data());
}

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

// The relative kinematics of each lane's node (compute_relative_kinematics): R, x, v, a, ω, ω̇.
template <class L>
struct RelativeKinematics {
  Vec3T<L> x, v, a, omega, alpha;
  Mat3T<L> R;
};

template <class L>
RelativeKinematics<L> relative_kinematics_lanes(const Model& model, State& state, const int* index,
                                                int count, bool need_partial_alpha) {
  // y = (x̂ displacement, vec ΔA) and its derivatives per node (one pass over the parent's
  // float columns), then into lanes.
  // Per lane the row (x, A, v, Ȧ, a, Ä) with x = x̂ + y_0:3 and A = R̂ + y_3:12 (column-major).
  alignas(64) double rows[kWidth<L>][36];
  const double* row_pointers[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane) {
    const NodeInterface& itf = model.nodes[static_cast<std::size_t>(index[lane])].interface;
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

// The world frame of each lane's node from its parent's (update_child_frame, Eq. 10-12).
template <class L>
void frames_lanes(const Model& model, State& state, const int* index, int count,
                  const RelativeKinematics<L>& k) {
  int parent[kWidth<L>];
  for (int lane = 0; lane < kWidth<L>; ++lane)
    parent[lane] = model.nodes[static_cast<std::size_t>(index[lane])].parent;
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

// L values of a per-node scalar, get(node, its index).
template <class L = Lane, class Get>
L per_node(const Model& model, const int* index, Get get) {
  L value;
  for (int lane = 0; lane < kWidth<L>; ++lane)
    value(lane) = get(model.nodes[static_cast<std::size_t>(index[lane])], index[lane]);
  return value;
}

// f = Uᵀ R_iᵀ f_vertices + G R_iᵀ g + f_sys (assemble_node_equation; Eq. 14 as B z).
void load_lanes(const Model& model, const State& state, const WorkspaceData& w,
                const Prototype& proto, const int* index, const int* offset, LaneScratch& L) {
  const int r = proto.r;
  const Mat3 R = gather_matrix(state.frame_rotation, index);
  Vec3 gravity;
  for (int d = 0; d < 3; ++d) gravity[d] = Lane::Constant(state.settings.gravity(d));
  const Lane load_scale = per_node(model, index, [](const Node& n, int) { return n.scale.load; });
  const Lane moment = per_node(model, index, [](const Node& n, int) { return n.scale.moment; });
  Vec3 g = lanes::transpose_multiply(R, gravity);
  for (int d = 0; d < 3; ++d) g[d] = load_scale * g[d];
  const Eigen::MatrixXd& G = proto.gravity_basis;
  gather(w.reduced_vertex_force.data(), offset, r, L.load.data());
  for (int l = 0; l < r; ++l) {
    Lane& f = L.load[static_cast<std::size_t>(l)];
    f = f + g[0] * G(l, 0) + g[1] * G(l, 1) + g[2] * G(l, 2);
  }
  // z, block by block (SystemForceMatrix::evaluate), then f_sys = B z.
  const Vec3 a = gather_vector(state.frame_acceleration, index);
  const Vec3 omega = gather_vector(state.frame_angular_velocity, index);
  const Vec3 alpha = gather_vector(state.frame_angular_acceleration, index);
  const Lane omega_squared = omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2];
  static constexpr int kPairA[6] = {0, 1, 2, 0, 0, 1};
  static constexpr int kPairB[6] = {0, 1, 2, 1, 2, 2};
  Lane pairs[6];
  for (int k = 0; k < 6; ++k) pairs[k] = omega[kPairA[k]] * omega[kPairB[k]];
  Lane* z = L.z.data();
  for (int d = 0; d < 3; ++d) {
    z[d] = load_scale * a[d];
    z[3 + d] = moment * alpha[d];
  }
  z[6] = moment * omega_squared;
  for (int p = 0; p < r; ++p) z[7 + p] = omega_squared * L.q[static_cast<std::size_t>(p)];
  for (int k = 0; k < 6; ++k) z[7 + r + k] = moment * pairs[k];
  for (int p = 0; p < r; ++p) {
    const Lane& q = L.q[static_cast<std::size_t>(p)];
    const Lane twice_qdot = 2.0 * L.qdot[static_cast<std::size_t>(p)];
    for (int d = 0; d < 3; ++d) z[13 + r + 3 * p + d] = twice_qdot * omega[d] + q * alpha[d];
    for (int k = 0; k < 6; ++k) z[13 + 4 * r + 6 * p + k] = q * pairs[k];
  }
  const Eigen::MatrixXd& Bt = proto.system_force_matrix.transposed();
  lanes::multiply_shared(Bt.data(), r, static_cast<int>(Bt.rows()), Bt.rows(), 1, z,
                         L.system.data());
  for (int l = 0; l < r; ++l)
    L.load[static_cast<std::size_t>(l)] += L.system[static_cast<std::size_t>(l)];
}

// q̃ = s^-5/2 q and its pair monomials of each lane's node (ReducedStvkForces::evaluate and
// integrate_node.cpp's scale factors), into L.q_tilde and L.monomials.
void monomials_lanes(const Model& model, int r, const int* index, LaneScratch& L) {
  const Lane coordinate =
      per_node(model, index, [](const Node& n, int) { return n.scale.coordinate; });
  for (int i = 0; i < r; ++i)
    L.q_tilde[static_cast<std::size_t>(i)] = coordinate * L.q[static_cast<std::size_t>(i)];
  const Lane* q = L.q_tilde.data();
  Lane* m = L.monomials.data();
  for (int i = 0, k = 0; i < r; ++i) {
    m[k++] = 0.5 * q[i] * q[i];
    for (int j = i + 1; j < r; ++j) m[k++] = q[i] * q[j];
  }
}

// g(q̃) and K(q̃) (packed) from L.q_tilde and the quartic product in L.k4: the cubic product,
// then the fused pass K = K2 + K3 + K4, g = (K2 + K3 / 2 + K4 / 3) q̃.
void gradient_and_stiffness_lanes(const Prototype& proto, LaneScratch& L) {
  const int r = proto.r, p = num_pairs(r);
  const Lane* q = L.q_tilde.data();
  const ReducedStvkForces& forces = proto.forces;
  lanes::multiply_shared(forces.cubic().data(), p, r, 1, p, q, L.k3.data());
  const double* k2 = forces.quadratic().data();
  Lane* g = L.gradient.data();
  for (int i = 0; i < r; ++i) g[i] = Lane::Zero();
  for (int i = 0, k = 0; i < r; ++i) {
    Lane gi = Lane::Zero();
    for (int j = i; j < r; ++j, ++k) {
      const Lane& k3 = L.k3[static_cast<std::size_t>(k)];
      const Lane& k4 = L.k4[static_cast<std::size_t>(k)];
      L.stiffness[static_cast<std::size_t>(k)] = k2[k] + k3 + k4;
      const Lane e = k2[k] + 0.5 * k3 + (1.0 / 3.0) * k4;
      gi += e * q[j];
      if (j != i) g[j] += e * q[i];
    }
    g[i] += gi;
  }
}

// s g(q) and s K(q) (packed, before the node's factors) of each lane's node at its q, all in
// lanes.
void stvk_lanes(const Model& model, const Prototype& proto, const int* index, LaneScratch& L) {
  const int p = num_pairs(proto.r);
  monomials_lanes(model, proto.r, index, L);
  lanes::multiply_shared(proto.forces.quartic_full()->data(), p, p, 1, p, L.monomials.data(),
                         L.k4.data());
  gradient_and_stiffness_lanes(proto, L);
}

// The node's stiffness scale times its scale's gradient and stiffness factors, per lane: s g and
// s K of the node from g and K of its prototype (integrate_node.cpp's node_factors).
void scale_gradient_and_stiffness(const Model& model, const RuntimeSettings& settings, int r,
                                  const int* index, LaneScratch& L) {
  const Lane gradient_factor = per_node(model, index, [&](const Node& n, int i) {
    return settings.nodes[static_cast<std::size_t>(i)].stiffness_scale * n.scale.gradient;
  });
  const Lane stiffness_factor = per_node(model, index, [&](const Node& n, int i) {
    return settings.nodes[static_cast<std::size_t>(i)].stiffness_scale * n.scale.stiffness;
  });
  for (int l = 0; l < r; ++l) L.gradient[static_cast<std::size_t>(l)] *= gradient_factor;
  const int p = num_pairs(r);
  for (int k = 0; k < p; ++k) L.stiffness[static_cast<std::size_t>(k)] *= stiffness_factor;
}

// Each lane's node's Rayleigh α and β.
void rayleigh_lanes(const Model& model, const RuntimeSettings& settings, const int* index,
                    Lane& alpha, Lane& beta) {
  const auto node_settings = [&settings](int i) -> const NodeSettings& {
    return settings.nodes[static_cast<std::size_t>(i)];
  };
  alpha =
      per_node(model, index, [&](const Node&, int i) { return node_settings(i).rayleigh_mass; });
  beta = per_node(model, index,
                  [&](const Node&, int i) { return node_settings(i).rayleigh_stiffness; });
}

// K(i, j) of the packed stiffness in L.
const Lane& packed_stiffness(const LaneScratch& L, int r, int i, int j) {
  const int a = std::min(i, j), b = std::max(i, j);
  return L.stiffness[static_cast<std::size_t>(a * r - a * (a - 1) / 2 + (b - a))];
}

// The Cholesky factor of each lane's r by r H (column-major, its lower triangle) in place, in
// Eigen's unblocked left-looking order, with 1 / L_kk on the diagonal (one division a column;
// the solves multiply by it). Returns each lane's smallest pivot: a lane's factor is of use only
// where that is positive (a pivot <= 0 runs on to NaN).
Lane cholesky_lanes(Lane* H, int r) {
  Lane smallest_pivot = Lane::Constant(std::numeric_limits<double>::infinity());
  for (int k = 0; k < r; ++k) {
    Lane sum = Lane::Zero();
    for (int j = 0; j < k; ++j) sum += H[k + r * j] * H[k + r * j];
    const Lane x = H[k + r * k] - sum;
    smallest_pivot = smallest_pivot.min(x);
    const Lane inverse = x.sqrt().inverse();
    H[k + r * k] = inverse;
    for (int i = k + 1; i < r; ++i) {
      Lane s = Lane::Zero();
      for (int j = 0; j < k; ++j) s += H[i + r * j] * H[k + r * j];
      H[i + r * k] = (H[i + r * k] - s) * inverse;
    }
  }
  return smallest_pivot;
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

bool lane_kinematics_fit(const Model& model, const int* nodes, int count) noexcept {
  // (The rest holds for a Model::childless_groups group by construction: checking it node by
  // node touched eight Node structs a group, 1 % of the oak's step.)
  if (count < 2 || count > kLanes) return false;
  const Prototype& proto = model.prototype_of(nodes[0]);
  return proto.batched && proto.forces.quartic_full() && proto.r > 0;
}

bool lane_integrators_fit(const State& state, const int* nodes, int count) noexcept {
  // (One integrator for all: the lanes run the first node's.)
  const Integrator first = state.settings.nodes[static_cast<std::size_t>(nodes[0])].integrator;
  if (!lane_integrator(first, state)) return false;
  for (int k = 1; k < count; ++k)
    if (state.settings.nodes[static_cast<std::size_t>(nodes[k])].integrator != first) return false;
  return true;
}

namespace {

// Lanes past `count` repeat the last node (computed, never stored).
void lane_nodes(const int* nodes, int count, int* index) {
  for (int lane = 0; lane < kLanes; ++lane) index[lane] = nodes[std::min(lane, count - 1)];
}

}  // namespace

void lane_group_kinematics(const Model& model, State& state, const int* nodes, int count,
                           bool need_partial_alpha) noexcept {
  int index[kLanes];
  lane_nodes(nodes, count, index);
  // Half by half (no coefficients to share: registers, not the stack, hold a Half's matrices).
  for (int first = 0; first < count; first += 4) {
    const RelativeKinematics<lanes::Half> kinematics = relative_kinematics_lanes<lanes::Half>(
        model, state, index + first, std::min(4, count - first), need_partial_alpha);
    frames_lanes(model, state, index + first, std::min(4, count - first), kinematics);
  }
}

void lane_group_own_loads(const Model& model, const State& state, WorkspaceData& w,
                          const int* nodes, int count, const WindField& field,
                          const WindField::Instant& now) noexcept {
  int index[kLanes];
  lane_nodes(nodes, count, index);
  const Prototype& proto = model.prototypes[static_cast<std::size_t>(
      model.nodes[static_cast<std::size_t>(index[0])].prototype)];
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
    // Drag |w| P w in the node's axes (scaled: area s², reduced s^½, torque s³).
    const Vec3 local = lanes::transpose_multiply(R, velocity);
    const Lane c =
        settings.wind.drag *
        (velocity[0] * velocity[0] + velocity[1] * velocity[1] + velocity[2] * velocity[2]).sqrt();
    const Lane s = per_node(model, index, [](const Node& n, int) { return n.scale.length; });
    const Lane area = c * s * s, moment = area * s;
    Mat3 P, W;  // the prototype's wind_area and wind_moment, the same in every lane
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
    // Uᵀ-side: the reduced drag (c s^½) B_w local added to each node's reduced vertex force,
    // eight coordinates at a time.
    const Lane gradient =
        c * per_node(model, index, [](const Node& n, int) { return n.scale.gradient; });
    Vec3 scaled;
    for (int d = 0; d < 3; ++d) scaled[d] = gradient * local[d];
    double* rows[kLanes];
    for (int lane = 0; lane < kLanes; ++lane)
      rows[lane] = w.reduced_vertex_force.data() +
                   model.nodes[static_cast<std::size_t>(index[lane])].dof_offset;
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
  // The subtree force Rᵀ (f_own + m g) in the node's axes (a childless node: its own).
  const Lane mass =
      proto.mass * per_node(model, index, [](const Node& n, int) { return n.scale.mass; });
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
      per_node(model, index, [](const Node& n, int) { return n.scale.first_moment; });
  Vec3 center, arm;
  for (int d = 0; d < 3; ++d) {
    center[d] =
        per_node(model, index, [d](const Node& n, int) { return n.subtree_center_of_mass(d); });
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

void advance_lane_group(const Model& model, State& state, const WorkspaceData& w, const int* nodes,
                        int count, PrototypeScratch& scratch, StepStatus* status) noexcept {
  int index[kLanes];
  lane_nodes(nodes, count, index);
  const Prototype& proto = model.prototypes[static_cast<std::size_t>(
      model.nodes[static_cast<std::size_t>(index[0])].prototype)];
  const int r = proto.r;
  LaneScratch& L = scratch.lanes;
  const RuntimeSettings& settings = state.settings;

  // q, q̇ in lanes; lines 6-8: the load (no children: M' = I).
  int offset[kLanes];
  for (int lane = 0; lane < kLanes; ++lane)
    offset[lane] = model.nodes[static_cast<std::size_t>(index[lane])].dof_offset;
  gather(state.q.data(), offset, r, L.q.data());
  gather(state.qdot.data(), offset, r, L.qdot.data());
  load_lanes(model, state, w, proto, index, offset, L);

  // Line 9, the semi-implicit stage: s g, s K at q_n.
  stvk_lanes(model, proto, index, L);
  scale_gradient_and_stiffness(model, settings, r, index, L);
  Lane alpha, beta;
  rayleigh_lanes(model, settings, index, alpha, beta);

  // q̂, v̂ and c: SI q̂ = q, v̂ = q̇, c = 1; SBDF2 q̂ = (4 q - q_-1) / 3, v̂ likewise, c = 2/3.
  const bool bdf2 = settings.nodes[static_cast<std::size_t>(index[0])].integrator ==
                    Integrator::kSemiImplicitBdf2;
  const double ch = (bdf2 ? 2.0 / 3.0 : 1.0) * settings.time_step;
  if (bdf2) {
    // (q_-1 and q̇_-1 gathered into q̂ and v̂, then combined in place.)
    gather(state.q_history.col(0).data(), offset, r, L.q_hat.data());
    gather(state.qdot_history.col(0).data(), offset, r, L.v_hat.data());
  }
  for (int l = 0; l < r; ++l) {
    const std::size_t sl = static_cast<std::size_t>(l);
    if (bdf2) {
      L.q_hat[sl] = (4.0 * L.q[sl] - L.q_hat[sl]) / 3.0;
      L.v_hat[sl] = (4.0 * L.qdot[sl] - L.v_hat[sl]) / 3.0;
    } else {
      L.q_hat[sl] = L.q[sl];
      L.v_hat[sl] = L.qdot[sl];
    }
  }
  // rhs = v̂ + c h (f - g - K (q̂ - q)); H = (c h)² K + c h β K + (1 + c h α) I (lower part).
  const auto K = [&](int i, int j) -> const Lane& { return packed_stiffness(L, r, i, j); };
  // (SI: q̂ = q, no K (q̂ - q) term.)
  const auto stage_rhs = [&](int i) -> Lane {
    const std::size_t si = static_cast<std::size_t>(i);
    if (!bdf2) return L.v_hat[si] + ch * (L.load[si] - L.gradient[si]);
    Lane K_delta = Lane::Zero();
    for (int j = 0; j < r; ++j)
      K_delta +=
          K(i, j) * (L.q_hat[static_cast<std::size_t>(j)] - L.q[static_cast<std::size_t>(j)]);
    return L.v_hat[si] + ch * (L.load[si] - L.gradient[si] - K_delta);
  };
  for (int i = 0; i < r; ++i) L.rhs[static_cast<std::size_t>(i)] = stage_rhs(i);
  Lane* H = L.factor.data();
  const Lane diagonal = 1.0 + ch * alpha;
  for (int j = 0; j < r; ++j)
    for (int i = j; i < r; ++i) {
      Lane h = (ch * ch) * K(i, j) + ch * (beta * K(i, j));
      if (i == j) h += diagonal;
      H[i + r * j] = h;
    }
  // Cholesky in lanes; a lane whose pivot is not positive is solved with the pivoted LDLT below.
  const Lane smallest_pivot = cholesky_lanes(H, r);
  // L y = rhs, Lᵀ v = y (in rhs).
  Lane* y = L.rhs.data();
  for (int i = 0; i < r; ++i) {
    Lane s = Lane::Zero();
    for (int j = 0; j < i; ++j) s += H[i + r * j] * y[j];
    y[i] = (y[i] - s) * H[i + r * i];
  }
  for (int i = r - 1; i >= 0; --i) {
    Lane s = Lane::Zero();
    for (int j = i + 1; j < r; ++j) s += H[j + r * i] * y[j];
    y[i] = (y[i] - s) * H[i + r * i];
  }
  for (int lane = 0; lane < count; ++lane) {
    if (!(smallest_pivot(lane) <= 0)) continue;
    // The node-by-node stage's fallback for this lane: pivoted LDLT of H, rhs rebuilt.
    for (int i = 0; i < r; ++i) {
      scratch.delta(i) = stage_rhs(i)(lane);
      for (int j = 0; j < r; ++j)
        scratch.jacobian(i, j) =
            ((ch * ch) * K(i, j) + ch * (beta * K(i, j)))(lane) + (i == j ? diagonal(lane) : 0.0);
    }
    scratch.ldlt.compute(scratch.jacobian);
    scratch.residual = scratch.ldlt.solve(scratch.delta);
    for (int i = 0; i < r; ++i) y[i](lane) = scratch.residual(i);
  }

  // q = q̂ + c h v, q̈ = (v - v̂) / (c h); the node-by-node step's checks.
  // (x - x is NaN exactly when x is not finite.)
  // (The new q into L.q, q̈ into L.load: neither is read again.)
  Lane largest = Lane::Zero(), squared = Lane::Zero(), not_finite = Lane::Zero();
  for (int l = 0; l < r; ++l) {
    const std::size_t sl = static_cast<std::size_t>(l);
    const Lane& v = y[l];
    Lane& q = L.q[sl];
    Lane& qddot = L.load[sl];
    q = L.q_hat[sl] + ch * v;
    qddot = (v - L.v_hat[sl]) / ch;
    not_finite += (q - q) + (v - v) + (qddot - qddot);
    largest = largest.max(q.abs());
    squared += q * q;
  }
  scatter(L.q.data(), offset, r, count, state.q.data());
  scatter(y, offset, r, count, state.qdot.data());
  scatter(L.load.data(), offset, r, count, state.qddot.data());
  const Lane bound = per_node(
      model, index, [&](const Node& n, int) { return proto.divergence_norm * n.scale.moment; });
  const Lane norm = squared.sqrt();
  for (int lane = 0; lane < count; ++lane)
    status[lane] = std::isnan(not_finite(lane)) ? StepStatus::kNonFinite
                   : largest(lane) > settings.max_coordinate || norm(lane) > bound(lane)
                       ? StepStatus::kDiverged
                       : StepStatus::kOk;
}

}  // namespace ramus

namespace ramus {

void lane_group_stage_factors(const Model& model, const State& state, WorkspaceData& w,
                              const int* nodes, int count, PrototypeScratch& scratch) noexcept {
  int index[kLanes];
  lane_nodes(nodes, count, index);
  const Prototype& proto = model.prototype_of(index[0]);
  const int r = proto.r, p = num_pairs(r);
  LaneScratch& L = scratch.lanes;
  const RuntimeSettings& settings = state.settings;
  // Each lane's q, and its slot: g at +0, K (q̂ - q) at +r, the factor at +2r.
  int offset[kLanes], slot[kLanes], delta_slot[kLanes], factor_slot[kLanes];
  for (int lane = 0; lane < kLanes; ++lane) {
    const std::size_t i = static_cast<std::size_t>(index[lane]);
    offset[lane] = model.nodes[i].dof_offset;
    slot[lane] = w.stage_offset[i];
    delta_slot[lane] = slot[lane] + r;
    factor_slot[lane] = slot[lane] + 2 * r;
  }
  gather(state.q.data(), offset, r, L.q.data());
  monomials_lanes(model, r, index, L);

  // The quartic product node by node in the symmetric panel kernel (as the node's integrator
  // computes it: a group shares too few coefficients to pay for the full p by p), each into its
  // factor slot, then into lanes; g and K in lanes.
  for (int lane = 0; lane < count; ++lane) {
    const Node& node = model.nodes[static_cast<std::size_t>(index[lane])];
    scratch.scaled_q = node.scale.coordinate * state.q.segment(node.dof_offset, r);
    proto.forces.quartic_product(scratch.scaled_q, scratch.polynomial);
    w.stage_data.segment(factor_slot[lane], p) = scratch.polynomial.padded_k4.head(p);
  }
  gather(w.stage_data.data(), factor_slot, p, L.k4.data());
  gradient_and_stiffness_lanes(proto, L);
  scale_gradient_and_stiffness(model, settings, r, index, L);

  // c h and K (q̂ - q): SI c = 1, q̂ = q; SBDF2 c = 2/3, q̂ = (4 q - q_-1) / 3 (into L.rhs).
  const bool bdf2 = settings.nodes[static_cast<std::size_t>(index[0])].integrator ==
                    Integrator::kSemiImplicitBdf2;
  const double ch = (bdf2 ? 2.0 / 3.0 : 1.0) * settings.time_step;
  Lane* K_delta = L.rhs.data();
  if (bdf2) {
    gather(state.q_history.col(0).data(), offset, r, L.q_hat.data());
    for (int l = 0; l < r; ++l) {
      const std::size_t sl = static_cast<std::size_t>(l);
      L.q_hat[sl] = (4.0 * L.q[sl] - L.q_hat[sl]) / 3.0 - L.q[sl];
    }
    for (int i = 0; i < r; ++i) {
      K_delta[i] = Lane::Zero();
      for (int j = 0; j < r; ++j)
        K_delta[i] += packed_stiffness(L, r, i, j) * L.q_hat[static_cast<std::size_t>(j)];
    }
  } else {
    for (int i = 0; i < r; ++i) K_delta[i] = Lane::Zero();
  }

  // H = (c h)² K + c h β K + (1 + c h α) M' (lower triangle), M' column by column into lanes
  // (L1: the model's constant; L2, L3: this step's, filled before).
  Lane alpha, beta;
  rayleigh_lanes(model, settings, index, alpha, beta);
  const Lane mass_factor = 1.0 + ch * alpha;
  const double* mass[kLanes];
  for (int lane = 0; lane < kLanes; ++lane) {
    const std::size_t i = static_cast<std::size_t>(index[lane]);
    mass[lane] = settings.lumping == InterfaceLumping::kInterface
                     ? model.nodes[i].interface_lumped_mass.data()
                     : lumping_of(w, model, index[lane]).mass.data();
  }
  Lane* H = L.factor.data();
  Lane* mass_column = L.system.data();
  for (int j = 0; j < r; ++j) {
    const double* rows[kLanes];
    for (int lane = 0; lane < kLanes; ++lane) rows[lane] = mass[lane] + j * r + j;
    lanes::load_transposed(rows, r - j, mass_column);
    for (int i = j; i < r; ++i) {
      const Lane& K = packed_stiffness(L, r, i, j);
      H[i + r * j] = (ch * ch) * K + ch * (beta * K) + mass_factor * mass_column[i - j];
    }
  }
  const Lane smallest_pivot = cholesky_lanes(H, r);

  // Into the slots: g, K (q̂ - q), the factor's lower triangle column by column.
  double* data = w.stage_data.data();
  scatter(L.gradient.data(), slot, r, count, data);
  scatter(K_delta, delta_slot, r, count, data);
  for (int j = 0; j < r; ++j) {
    int column[kLanes];
    for (int lane = 0; lane < kLanes; ++lane) column[lane] = factor_slot[lane] + j * r + j;
    scatter(H + j + r * j, column, r - j, count, data);
  }
  for (int lane = 0; lane < count; ++lane)
    w.stage_ready[static_cast<std::size_t>(index[lane])] = smallest_pivot(lane) > 0 ? 1 : 0;
}

}  // namespace ramus
