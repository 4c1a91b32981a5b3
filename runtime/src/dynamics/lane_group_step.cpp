// Eight childless domains of one part through lines 6-9 of Algorithm 1, one per lane: the
// batched execution of the domain-by-domain step (step.cpp's assemble_domain_equation,
// system_force.cpp, reduced_stvk_forces.cpp) for eight, with the integrators' own semi-implicit
// stage (integrators/semi_implicit_stage.h: its start, matrix, right-hand side, factor, solves
// and end, the same templates the domain-by-domain SI and SBDF2 run on doubles); their
// kinematics are lane_kinematics.cpp's. An indefinite stage matrix runs per domain as there
// (pivoted LDLT).
#include <Eigen/Cholesky>

#include <algorithm>
#include <cmath>
#include <limits>

#include "../integrators/semi_implicit_stage.h"
#include "../kernels/vector_sine.h"
#include "frame_kinematics.h"
#include "lane_group_step.h"
#include "lane_ops.h"
#include "ramus/runtime/kernels/polar_decomposition.h"
#include "workspace_data.h"

namespace ramus {

using namespace lane_ops;

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

// f = Uᵀ R_iᵀ f_vertices + G R_iᵀ g + f_sys (assemble_domain_equation; Eq. 14 as B z).
void load_lanes(const Model& model, const State& state, const WorkspaceData& w, const Part& proto,
                const int* index, const int* offset, LaneScratch& L) {
  const int r = proto.r;
  const Mat3 R = gather_matrix(state.frame_rotation, index);
  Vec3 gravity;
  for (int d = 0; d < 3; ++d) gravity[d] = Lane::Constant(state.settings.gravity(d));
  const Lane load_scale =
      per_domain(model, index, [](const Domain& n, int) { return n.scale.load; });
  const Lane moment = per_domain(model, index, [](const Domain& n, int) { return n.scale.moment; });
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

// q̃ = s^-5/2 q and its pair monomials of each lane's domain (ReducedStvkForces::evaluate and
// integrate_domain.cpp's scale factors), into L.q_tilde and L.monomials.
void monomials_lanes(const Model& model, int r, const int* index, LaneScratch& L) {
  const Lane coordinate =
      per_domain(model, index, [](const Domain& n, int) { return n.scale.coordinate; });
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
void gradient_and_stiffness_lanes(const Part& proto, LaneScratch& L) {
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

// s g(q) and s K(q) (packed, before the domain's factors) of each lane's domain at its q, all in
// lanes.
void stvk_lanes(const Model& model, const Part& proto, const int* index, LaneScratch& L) {
  const int p = num_pairs(proto.r);
  monomials_lanes(model, proto.r, index, L);
  lanes::multiply_shared(proto.forces.quartic_full()->data(), p, p, 1, p, L.monomials.data(),
                         L.k4.data());
  gradient_and_stiffness_lanes(proto, L);
}

// The domain's stiffness scale times its scale's gradient and stiffness factors, per lane: s g and
// s K of the domain from g and K of its part (integrate_domain.cpp's domain_factors).
void scale_gradient_and_stiffness(const Model& model, const RuntimeSettings& settings, int r,
                                  const int* index, LaneScratch& L) {
  const Lane gradient_factor = per_domain(model, index, [&](const Domain& n, int i) {
    return settings.domains[static_cast<std::size_t>(i)].stiffness_scale * n.scale.gradient;
  });
  const Lane stiffness_factor = per_domain(model, index, [&](const Domain& n, int i) {
    return settings.domains[static_cast<std::size_t>(i)].stiffness_scale * n.scale.stiffness;
  });
  for (int l = 0; l < r; ++l) L.gradient[static_cast<std::size_t>(l)] *= gradient_factor;
  const int p = num_pairs(r);
  for (int k = 0; k < p; ++k) L.stiffness[static_cast<std::size_t>(k)] *= stiffness_factor;
}

// Each lane's domain's Rayleigh α and β.
void rayleigh_lanes(const Model& model, const RuntimeSettings& settings, const int* index,
                    Lane& alpha, Lane& beta) {
  const auto domain_settings = [&settings](int i) -> const DomainSettings& {
    return settings.domains[static_cast<std::size_t>(i)];
  };
  alpha = per_domain(model, index,
                     [&](const Domain&, int i) { return domain_settings(i).rayleigh_mass; });
  beta = per_domain(model, index,
                    [&](const Domain&, int i) { return domain_settings(i).rayleigh_stiffness; });
}

// K(i, j) of the packed stiffness in L.
const Lane& packed_stiffness(const LaneScratch& L, int r, int i, int j) {
  const int a = std::min(i, j), b = std::max(i, j);
  return L.stiffness[static_cast<std::size_t>(a * r - a * (a - 1) / 2 + (b - a))];
}

}  // namespace

bool lane_integrators_fit(const State& state, const int* domains, int count) noexcept {
  // (One integrator for all: the lanes run the first domain's.)
  const Integrator first = state.settings.domains[static_cast<std::size_t>(domains[0])].integrator;
  if (!semi_implicit::takes_stage(first, state.history_size > 0)) return false;
  for (int k = 1; k < count; ++k)
    if (state.settings.domains[static_cast<std::size_t>(domains[k])].integrator != first)
      return false;
  return true;
}
void advance_lane_group(const Model& model, State& state, const WorkspaceData& w,
                        const int* domains, int count, PartScratch& scratch,
                        StepStatus* status) noexcept {
  int index[kLanes];
  lane_domains(domains, count, index);
  const Part& proto =
      model.parts[static_cast<std::size_t>(model.domains[static_cast<std::size_t>(index[0])].part)];
  const int r = proto.r;
  LaneScratch& L = scratch.lanes;
  const RuntimeSettings& settings = state.settings;

  // q, q̇ in lanes; lines 6-8: the load (no children: M' = I).
  int offset[kLanes];
  for (int lane = 0; lane < kLanes; ++lane)
    offset[lane] = model.domains[static_cast<std::size_t>(index[lane])].dof_offset;
  gather(state.q.data(), offset, r, L.q.data());
  gather(state.qdot.data(), offset, r, L.qdot.data());
  load_lanes(model, state, w, proto, index, offset, L);

  // Line 9, the semi-implicit stage: s g, s K at q_n.
  stvk_lanes(model, proto, index, L);
  scale_gradient_and_stiffness(model, settings, r, index, L);
  Lane alpha, beta;
  rayleigh_lanes(model, settings, index, alpha, beta);

  // q̂, v̂ and c h of the domains' integrator (semi_implicit_stage.h); SBDF2 gathers q_-1, q̇_-1
  // into q̂, v̂ and combines them in place.
  const semi_implicit::Method method = semi_implicit::method_of(
      settings.domains[static_cast<std::size_t>(index[0])].integrator, settings.time_step);
  const double ch = method.ch;
  if (method.bdf2) {
    gather(state.q_history.col(0).data(), offset, r, L.q_hat.data());
    gather(state.qdot_history.col(0).data(), offset, r, L.v_hat.data());
  }
  for (int l = 0; l < r; ++l) {
    const std::size_t sl = static_cast<std::size_t>(l);
    L.q_hat[sl] = semi_implicit::start(method, L.q[sl], L.q_hat[sl]);
    L.v_hat[sl] = semi_implicit::start(method, L.qdot[sl], L.v_hat[sl]);
  }
  // The stage's right-hand side (M' = I: momentum v̂) and its matrix H (lower part).
  const auto K = [&](int i, int j) -> const Lane& { return packed_stiffness(L, r, i, j); };
  const auto stage_rhs = [&](int i) -> Lane {
    const std::size_t si = static_cast<std::size_t>(i);
    if (!method.bdf2)
      return semi_implicit::right_hand_side(ch, L.v_hat[si], L.load[si], L.gradient[si]);
    Lane K_delta = Lane::Zero();
    for (int j = 0; j < r; ++j)
      K_delta +=
          K(i, j) * (L.q_hat[static_cast<std::size_t>(j)] - L.q[static_cast<std::size_t>(j)]);
    return semi_implicit::right_hand_side(ch, L.v_hat[si], L.load[si], L.gradient[si], K_delta);
  };
  for (int i = 0; i < r; ++i) L.rhs[static_cast<std::size_t>(i)] = stage_rhs(i);
  Lane* H = L.factor.data();
  const Lane diagonal = 1.0 + ch * alpha;
  const auto stage_matrix = [&](int i, int j) -> Lane {
    return semi_implicit::matrix_entry(ch, K(i, j), (beta * K(i, j)).eval(),
                                       i == j ? diagonal : Lane::Zero().eval());
  };
  for (int j = 0; j < r; ++j)
    for (int i = j; i < r; ++i) H[i + r * j] = stage_matrix(i, j);
  // Cholesky in lanes, then the solves (v in rhs); a lane whose pivot is not positive is solved
  // with the pivoted LDLT below.
  const Lane smallest_pivot = semi_implicit::factor_inverse_diagonal(H, r);
  Lane* y = L.rhs.data();
  semi_implicit::solve_inverse_diagonal(static_cast<const Lane*>(H), r, y);
  for (int lane = 0; lane < count; ++lane) {
    if (!(smallest_pivot(lane) <= 0)) continue;
    // The domain-by-domain stage's fallback for this lane: pivoted LDLT of H, rhs rebuilt.
    for (int i = 0; i < r; ++i) {
      scratch.delta(i) = stage_rhs(i)(lane);
      for (int j = 0; j < r; ++j) scratch.jacobian(i, j) = stage_matrix(i, j)(lane);
    }
    scratch.ldlt.compute(scratch.jacobian);
    scratch.residual = scratch.ldlt.solve(scratch.delta);
    for (int i = 0; i < r; ++i) y[i](lane) = scratch.residual(i);
  }

  // q = q̂ + c h v, q̈ = (v - v̂) / (c h); the domain-by-domain step's checks.
  // (x - x is NaN exactly when x is not finite.)
  // (The new q into L.q, q̈ into L.load: neither is read again.)
  Lane largest = Lane::Zero(), squared = Lane::Zero(), not_finite = Lane::Zero();
  for (int l = 0; l < r; ++l) {
    const std::size_t sl = static_cast<std::size_t>(l);
    const Lane& v = y[l];
    Lane& q = L.q[sl];
    Lane& qddot = L.load[sl];
    q = semi_implicit::position(ch, L.q_hat[sl], v);
    qddot = semi_implicit::acceleration(ch, L.v_hat[sl], v);
    not_finite += (q - q) + (v - v) + (qddot - qddot);
    largest = largest.max(q.abs());
    squared += q * q;
  }
  scatter(L.q.data(), offset, r, count, state.q.data());
  scatter(y, offset, r, count, state.qdot.data());
  scatter(L.load.data(), offset, r, count, state.qddot.data());
  const Lane bound = per_domain(
      model, index, [&](const Domain& n, int) { return proto.divergence_norm * n.scale.moment; });
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
                              const int* domains, int count, PartScratch& scratch) noexcept {
  int index[kLanes];
  lane_domains(domains, count, index);
  const Part& proto = model.part_of(index[0]);
  const int r = proto.r, p = num_pairs(r);
  LaneScratch& L = scratch.lanes;
  const RuntimeSettings& settings = state.settings;
  // Each lane's q, and its slot: g at +0, K (q̂ - q) at +r, the factor at +2r.
  int offset[kLanes], slot[kLanes], delta_slot[kLanes], factor_slot[kLanes];
  for (int lane = 0; lane < kLanes; ++lane) {
    const std::size_t i = static_cast<std::size_t>(index[lane]);
    offset[lane] = model.domains[i].dof_offset;
    slot[lane] = w.stage_offset[i];
    delta_slot[lane] = slot[lane] + r;
    factor_slot[lane] = slot[lane] + 2 * r;
  }
  gather(state.q.data(), offset, r, L.q.data());
  monomials_lanes(model, r, index, L);

  // The quartic product domain by domain in the symmetric panel kernel (as the domain's integrator
  // computes it: a group shares too few coefficients to pay for the full p by p), each into its
  // factor slot, then into lanes; g and K in lanes.
  for (int lane = 0; lane < count; ++lane) {
    const Domain& domain = model.domains[static_cast<std::size_t>(index[lane])];
    scratch.scaled_q = domain.scale.coordinate * state.q.segment(domain.dof_offset, r);
    proto.forces.quartic_product(scratch.scaled_q, scratch.polynomial);
    w.stage_data.segment(factor_slot[lane], p) = scratch.polynomial.padded_k4.head(p);
  }
  gather(w.stage_data.data(), factor_slot, p, L.k4.data());
  gradient_and_stiffness_lanes(proto, L);
  scale_gradient_and_stiffness(model, settings, r, index, L);

  // c h and K (q̂ - q) of the domains' integrator (semi_implicit_stage.h), into L.rhs.
  const semi_implicit::Method method = semi_implicit::method_of(
      settings.domains[static_cast<std::size_t>(index[0])].integrator, settings.time_step);
  const double ch = method.ch;
  Lane* K_delta = L.rhs.data();
  if (method.bdf2) {
    gather(state.q_history.col(0).data(), offset, r, L.q_hat.data());
    for (int l = 0; l < r; ++l) {
      const std::size_t sl = static_cast<std::size_t>(l);
      L.q_hat[sl] = semi_implicit::start(method, L.q[sl], L.q_hat[sl]) - L.q[sl];
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
                     ? model.domains[i].interface_lumped_mass.data()
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
      H[i + r * j] = semi_implicit::matrix_entry(ch, K, (beta * K).eval(),
                                                 (mass_factor * mass_column[i - j]).eval());
    }
  }
  const Lane smallest_pivot = semi_implicit::factor_inverse_diagonal(H, r);

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
