#include "ramus/precompute/fem/local_global_integrator.h"

#include <Eigen/CholmodSupport>
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "energy_blend.h"
#include "ramus/error.h"
#include "ramus/precompute/cloth/cloth_self_repulsion.h"
#include "ramus/precompute/contact/coulomb_impulse.h"
#include "ramus/precompute/fem/momentum_preserving_damping.h"

namespace ramus {

namespace {

using Cholesky = Eigen::CholmodSimplicialLLT<Eigen::SparseMatrix<double>, Eigen::Lower>;

// ½ Σ m_i |v_i|² (J) of velocities v (3#V) and masses (#V, kg).
double kinetic_energy(const Eigen::VectorXd& masses, const Eigen::VectorXd& v) {
  double kinetic = 0;
  for (Eigen::Index i = 0; i < masses.size(); ++i)
    kinetic += 0.5 * masses(i) * v.segment<3>(3 * i).squaredNorm();
  return kinetic;
}

Eigen::Map<const VertexRows> rows_of(const Eigen::VectorXd& flat) {
  return {flat.data(), flat.size() / 3, 3};
}

}  // namespace

// The two system matrices (over every vertex, for the fixed vertices' columns) and the Cholesky
// factors of their free block; which vertices are free.
// The active collision terms (collider c, vertex v at c n + v) whose weights the factors hold.
struct LocalGlobalIntegrator::Factors {
  Eigen::SparseMatrix<double> laplacian, backward_euler, midpoint;
  Eigen::SparseMatrix<double> backward_euler_free, midpoint_free;  // without collision terms
  Cholesky backward_euler_factor, midpoint_factor;
  std::vector<int> free;  // free vertex k -> vertex
  std::vector<char> active;
};

LocalGlobalIntegrator::LocalGlobalIntegrator(const ProjectiveEnergy& energy, Eigen::VectorXd masses,
                                             std::vector<int> fixed, Eigen::VectorXd rest_positions,
                                             LocalGlobalOptions options)
    : energy_(energy),
      masses_(std::move(masses)),
      fixed_(std::move(fixed)),
      rest_(std::move(rest_positions)),
      options_(options),
      factors_(std::make_unique<Factors>()) {
  // Options, masses, fixed vertices.
  const int n = energy_.num_vertices();
  const double h = options_.time_step;
  if (!(h > 0) || !std::isfinite(h))
    throw OptionError("local/global: the time step must be positive, got " + std::to_string(h));
  if (options_.iterations < 1 || options_.stabilization_iterations < 1)
    throw OptionError("local/global: iterations must be at least 1");
  if (!(options_.energy_tolerance > 0 && options_.energy_tolerance <= 1))
    throw OptionError("local/global: the energy tolerance must lie in (0, 1]");
  if (!(options_.momentum_damping >= 0 && options_.momentum_damping <= 1))
    throw OptionError("local/global: the momentum damping must lie in [0, 1]");
  if (masses_.size() != n || rest_.size() != 3 * n || !rest_.allFinite())
    throw OptionError("local/global: masses or rest positions do not match the energy's " +
                      std::to_string(n) + " vertices");
  std::sort(fixed_.begin(), fixed_.end());
  fixed_.erase(std::unique(fixed_.begin(), fixed_.end()), fixed_.end());
  std::vector<int> free_index(static_cast<size_t>(n), 0);
  for (int v : fixed_) {
    if (v < 0 || v >= n)
      throw OptionError("local/global: fixed vertex " + std::to_string(v) + " does not exist");
    free_index[static_cast<size_t>(v)] = -1;
  }
  for (int v = 0; v < n; ++v)
    if (free_index[static_cast<size_t>(v)] == 0) {
      if (!(masses_(v) > 0))
        throw OptionError("local/global: vertex " + std::to_string(v) + " has no mass");
      free_index[static_cast<size_t>(v)] = static_cast<int>(factors_->free.size());
      factors_->free.push_back(v);
    }

  // M + h² L and M + h²/4 L, their free blocks factored once.
  Factors& f = *factors_;
  f.laplacian = energy_.laplacian();
  Eigen::SparseMatrix<double> mass(n, n);
  mass.reserve(Eigen::VectorXi::Constant(n, 1));
  for (int v = 0; v < n; ++v) mass.insert(v, v) = masses_(v);
  if (!(options_.collision_stiffness > 0) || !std::isfinite(options_.collision_stiffness))
    throw OptionError("local/global: the collision stiffness must be positive");
  if (!options_.collider_friction.empty() &&
      options_.collider_friction.size() != options_.colliders.size())
    throw OptionError("local/global: " + std::to_string(options_.collider_friction.size()) +
                      " friction coefficients for " + std::to_string(options_.colliders.size()) +
                      " colliders");
  if (options_.self_contact)
    for (Eigen::Index t = 0; t < options_.self_contact->triangles.rows(); ++t)
      for (int k = 0; k < 3; ++k)
        if (options_.self_contact->triangles(t, k) < 0 ||
            options_.self_contact->triangles(t, k) >= n)
          throw OptionError(
              "local/global: self-contact triangle " + std::to_string(t) + " names vertex " +
              std::to_string(options_.self_contact->triangles(t, k)) + " of " + std::to_string(n));
  for (std::size_t c = 0; c < options_.collider_friction.size(); ++c)
    if (!(options_.collider_friction[c] >= 0) || !std::isfinite(options_.collider_friction[c]))
      throw OptionError("local/global: collider " + std::to_string(c) +
                        "'s friction must be a finite mu >= 0");
  f.backward_euler = mass + h * h * f.laplacian;
  f.midpoint = mass + 0.25 * h * h * f.laplacian;
  const auto free_block = [&](const Eigen::SparseMatrix<double>& A) {
    std::vector<Eigen::Triplet<double>> entries;
    for (int col = 0; col < A.outerSize(); ++col)
      for (Eigen::SparseMatrix<double>::InnerIterator it(A, col); it; ++it) {
        const int r = free_index[static_cast<size_t>(it.row())];
        const int c = free_index[static_cast<size_t>(col)];
        if (r >= 0 && c >= 0) entries.emplace_back(r, c, it.value());
      }
    const int m = static_cast<int>(f.free.size());
    Eigen::SparseMatrix<double> block(m, m);
    block.setFromTriplets(entries.begin(), entries.end());
    return block;
  };
  f.backward_euler_free = free_block(f.backward_euler);
  f.midpoint_free = free_block(f.midpoint);
  f.backward_euler_factor.analyzePattern(f.backward_euler_free);
  f.midpoint_factor.analyzePattern(f.midpoint_free);
  f.active.assign(options_.colliders.size() * static_cast<size_t>(n), 0);
  factor(f.active);
}

void LocalGlobalIntegrator::factor(const std::vector<char>& active) {
  // Each active collision term adds w = c m / h² to its vertex's diagonal (h² w = c m); the
  // symbolic analysis is kept.
  Factors& f = *factors_;
  Eigen::SparseMatrix<double> backward_euler = f.backward_euler_free, midpoint = f.midpoint_free;
  const std::size_t n = static_cast<std::size_t>(masses_.size());
  for (std::size_t k = 0; k < f.free.size(); ++k) {
    const auto v = static_cast<std::size_t>(f.free[k]);
    double terms = 0;
    for (std::size_t c = 0; c < options_.colliders.size(); ++c) terms += active[c * n + v];
    const double added = terms * options_.collision_stiffness * masses_(f.free[k]);
    const auto i = static_cast<Eigen::Index>(k);
    backward_euler.coeffRef(i, i) += added;
    midpoint.coeffRef(i, i) += 0.25 * added;
  }
  f.backward_euler_factor.factorize(backward_euler);
  f.midpoint_factor.factorize(midpoint);
  if (f.backward_euler_factor.info() != Eigen::Success ||
      f.midpoint_factor.info() != Eigen::Success)
    throw NumericalError("local/global: the system matrix M + h^2 L could not be factored");
  f.active = active;
}

LocalGlobalIntegrator::~LocalGlobalIntegrator() = default;

FullSpaceState LocalGlobalIntegrator::rest_state() const {
  FullSpaceState state;
  state.positions = rest_;
  state.velocities = Eigen::VectorXd::Zero(rest_.size());
  state.accelerations = Eigen::VectorXd::Zero(rest_.size());
  return state;
}

Eigen::VectorXd LocalGlobalIntegrator::step_forces(const Eigen::VectorXd& external_forces) const {
  const int n = energy_.num_vertices();
  if (external_forces.size() != 0 && external_forces.size() != 3 * n)
    throw OptionError("local/global: external forces must have 3#V = " + std::to_string(3 * n) +
                      " entries, got " + std::to_string(external_forces.size()));
  Eigen::VectorXd f = external_forces.size() ? external_forces : Eigen::VectorXd::Zero(3 * n);
  for (int v = 0; v < n; ++v) f.segment<3>(3 * v) += masses_(v) * options_.gravity;
  return f;
}

void LocalGlobalIntegrator::solve(const Eigen::VectorXd& x_n, const Eigen::VectorXd& v_n,
                                  const Eigen::VectorXd& f, bool midpoint, int iterations,
                                  double time, Eigen::VectorXd& x) const {
  // The constant part of the right-hand side: M (x_n + h v_n) + c_f f (- h²/4 L x_n), less the
  // fixed vertices' columns of the system matrix times their positions.
  const Factors& F = *factors_;
  const double h = options_.time_step;
  const auto X_n = rows_of(x_n);
  VertexRows base = masses_.asDiagonal() * (X_n + h * rows_of(v_n));
  base += (midpoint ? 0.5 * h * h : h * h) * rows_of(f);
  if (midpoint) {
    // The x_n half of (L + W)(x + x_n)/2, W the active collision terms' weights (h² w = c m).
    base -= 0.25 * h * h * (F.laplacian * X_n);
    const std::size_t n = static_cast<std::size_t>(masses_.size());
    for (std::size_t c = 0; c < options_.colliders.size(); ++c)
      for (std::size_t v = 0; v < n; ++v)
        if (F.active[c * n + v])
          base.row(static_cast<Eigen::Index>(v)) -= 0.25 * options_.collision_stiffness *
                                                    masses_(static_cast<Eigen::Index>(v)) *
                                                    X_n.row(static_cast<Eigen::Index>(v));
  }
  VertexRows fixed_positions = VertexRows::Zero(X_n.rows(), 3);
  for (int v : fixed_) fixed_positions.row(v) = X_n.row(v);
  base -= (midpoint ? F.midpoint : F.backward_euler) * fixed_positions;
  const double projection_scale = midpoint ? 0.5 * h * h : h * h;
  const Cholesky& factor = midpoint ? F.midpoint_factor : F.backward_euler_factor;

  // Local step (projections at x, or at (x + x_n) / 2), then the global solve over free vertices.
  VertexRows X = rows_of(x), jp;
  for (int v : fixed_) X.row(v) = X_n.row(v);
  const auto m = static_cast<Eigen::Index>(F.free.size());
  Eigen::MatrixX3d rhs(m, 3);
  for (int iteration = 0; iteration < iterations; ++iteration) {
    const VertexRows at = midpoint ? VertexRows(0.5 * (X + X_n)) : X;
    energy_.projected_forces(at, jp);
    if (!options_.colliders.empty()) add_collision_projections(at, time, &jp);
    for (Eigen::Index k = 0; k < m; ++k) {
      const int v = F.free[static_cast<size_t>(k)];
      rhs.row(k) = base.row(v) + projection_scale * jp.row(v);
    }
    const Eigen::MatrixX3d solution = factor.solve(rhs);
    for (Eigen::Index k = 0; k < m; ++k) X.row(F.free[static_cast<size_t>(k)]) = solution.row(k);
  }
  x = Eigen::Map<const Eigen::VectorXd>(X.data(), X.size());
}

double LocalGlobalIntegrator::add_collision_projections(const VertexRows& x, double time,
                                                        VertexRows* jp, double* deepest) const {
  // Per collider and vertex: P = x - phi grad phi / |grad phi|² inside (phi < 0), x outside. The
  // local step (jp given) projects the step's active terms; the energy counts every vertex inside.
  const double h = options_.time_step;
  const std::size_t n = static_cast<std::size_t>(x.rows());
  double energy = 0, depth = 0;
  for (std::size_t c = 0; c < options_.colliders.size(); ++c)
    for (std::size_t v = 0; v < n; ++v) {
      const bool active = factors_->active[c * n + v] != 0;
      if (jp && !active) continue;
      const auto row = static_cast<Eigen::Index>(v);
      const double w = options_.collision_stiffness * masses_(row) / (h * h);
      const Eigen::Vector3d point = x.row(row).transpose();
      const LevelSetSample sample = sample_level_set(options_.colliders[c], point, time);
      Eigen::Vector3d projected = point;
      if (sample.value < 0 && sample.gradient.squaredNorm() > 0) {
        projected -= sample.value / sample.gradient.squaredNorm() * sample.gradient;
        energy += 0.5 * w * (point - projected).squaredNorm();
        depth = std::max(depth, -sample.value);
      }
      if (jp) jp->row(row) += w * projected.transpose();
    }
  if (deepest) *deepest = depth;
  return energy;
}

double LocalGlobalIntegrator::apply_collider_friction(const Eigen::VectorXd& x, double time,
                                                      Eigen::VectorXd& v) const {
  // Per collider with mu > 0 and vertex inside: the term's force w |x - P(x)|, its impulse over
  // the step slowing the slip against the collider (Coulomb, to rest at most).
  const double h = options_.time_step;
  double taken = 0;
  for (std::size_t c = 0; c < options_.collider_friction.size(); ++c) {
    const double mu = options_.collider_friction[c];
    if (!(mu > 0)) continue;
    for (Eigen::Index i = 0; i < masses_.size(); ++i) {
      const Eigen::Vector3d point = x.segment<3>(3 * i);
      const LevelSetSample sample = sample_level_set(options_.colliders[c], point, time);
      const double gradient = sample.gradient.norm();
      if (!(sample.value < 0) || !(gradient > 0) || !(masses_(i) > 0) ||
          std::binary_search(fixed_.begin(), fixed_.end(), static_cast<int>(i)))
        continue;
      const double force =
          options_.collision_stiffness * masses_(i) / (h * h) * (-sample.value / gradient);
      taken += apply_coulomb_impulse(v.segment<3>(3 * i), sample.gradient / gradient,
                                     options_.colliders[c].motion.velocity_at(point, time),
                                     mu * force * h / masses_(i), masses_(i));
    }
  }
  return taken;
}

VertexRows LocalGlobalIntegrator::collision_gradient(const VertexRows& x, double time) const {
  // Σ w (x - P(x)) over every vertex inside a collider.
  VertexRows gradient = VertexRows::Zero(x.rows(), 3);
  const double h = options_.time_step;
  for (const LevelSetCollider& collider : options_.colliders)
    for (Eigen::Index v = 0; v < x.rows(); ++v) {
      const LevelSetSample sample = sample_level_set(collider, x.row(v).transpose(), time);
      if (sample.value < 0 && sample.gradient.squaredNorm() > 0)
        gradient.row(v) += options_.collision_stiffness * masses_(v) / (h * h) * sample.value /
                           sample.gradient.squaredNorm() * sample.gradient.transpose();
    }
  return gradient;
}

std::vector<char> LocalGlobalIntegrator::active_terms(const Eigen::VectorXd& x_n,
                                                      const Eigen::VectorXd& guess,
                                                      double time) const {
  // A term is active for the step when its vertex starts inside the collider or would end inside
  // it moving by inertia alone.
  const std::size_t n = static_cast<std::size_t>(masses_.size());
  std::vector<char> active(options_.colliders.size() * n, 0);
  const double h = options_.time_step;
  for (std::size_t c = 0; c < options_.colliders.size(); ++c)
    for (std::size_t v = 0; v < n; ++v) {
      const auto i = static_cast<Eigen::Index>(3 * v);
      active[c * n + v] =
          sample_level_set(options_.colliders[c], x_n.segment<3>(i), time).value < 0 ||
          sample_level_set(options_.colliders[c], guess.segment<3>(i), time + h).value < 0;
    }
  for (int v : fixed_)
    for (std::size_t c = 0; c < options_.colliders.size(); ++c)
      active[c * n + static_cast<std::size_t>(v)] = 0;
  return active;
}

double LocalGlobalIntegrator::energy_at(const Eigen::VectorXd& x, const Eigen::VectorXd& v,
                                        const Eigen::VectorXd& f, double time,
                                        double* scale) const {
  const double kinetic = kinetic_energy(masses_, v);
  double elastic = energy_.energy(rows_of(x));
  if (!options_.colliders.empty()) elastic += add_collision_projections(rows_of(x), time, nullptr);
  const double work = f.dot(x - rest_);
  if (scale) *scale = kinetic + std::abs(elastic) + std::abs(work);
  return kinetic + elastic - work;
}

double LocalGlobalIntegrator::total_energy(const FullSpaceState& state,
                                           const Eigen::VectorXd& external_forces) const {
  return energy_at(state.positions, state.velocities, step_forces(external_forces), state.time);
}

LocalGlobalReport LocalGlobalIntegrator::step(FullSpaceState& state, LocalGlobalMethod method,
                                              const Eigen::VectorXd& external_forces) {
  if (options_.self_contact && method != LocalGlobalMethod::kBackwardEuler)
    throw OptionError(
        "local/global: the cloth's repulsion (self-contact) steps with backward Euler only; the "
        "midpoint turns its inelastic impulses into bounces and diverged (docs/LOCAL_GLOBAL.md)");
  const double h = options_.time_step;
  const Eigen::VectorXd f = step_forces(external_forces);
  const Eigen::VectorXd x_n = state.positions, v_n = state.velocities;
  // The inertial guess y = x_n + h v_n + h² M⁻¹ f (fixed vertices in place).
  Eigen::VectorXd guess = x_n + h * v_n;
  for (Eigen::Index i = 0; i < masses_.size(); ++i)
    if (masses_(i) > 0) guess.segment<3>(3 * i) += h * h / masses_(i) * f.segment<3>(3 * i);
  if (!options_.colliders.empty())
    if (std::vector<char> active = active_terms(x_n, guess, state.time); active != factors_->active)
      factor(active);
  const auto backward_euler_from = [&](Eigen::VectorXd x, int iterations) {
    solve(x_n, v_n, f, false, iterations, state.time + h, x);
    Eigen::VectorXd v = (x - x_n) / h;
    return Motion{std::move(x), std::move(v), {}};
  };
  const auto midpoint_from = [&](Eigen::VectorXd x) {
    solve(x_n, v_n, f, true, options_.iterations, state.time + h / 2, x);
    Eigen::VectorXd v = 2 * (x - x_n) / h - v_n;
    return Motion{std::move(x), std::move(v), {}};
  };

  LocalGlobalReport report;
  Motion end;
  double target = std::numeric_limits<double>::quiet_NaN();
  // The step, redone (at most 4 times) with the terms of vertices that ended inside a
  // collider without one: a vertex the elastic motion, not inertia, carried in.
  for (int pass = 0;; ++pass) {
    report = LocalGlobalReport{};
    if (method == LocalGlobalMethod::kBackwardEuler) {
      end = backward_euler_from(guess, options_.iterations);
      report.iterations = options_.iterations;
    } else if (method == LocalGlobalMethod::kImplicitMidpoint) {
      end = midpoint_from(guess);
      report.iterations = options_.iterations;
    } else {
      // H_total, plus H_added: what the forces' change between steps did to H at the start.
      double start_scale = 0, midpoint_scale = 0;
      const double start_energy = energy_at(x_n, v_n, f, state.time, &start_scale);
      target = start_energy;
      if (std::isfinite(state.energy_target) && std::isfinite(state.energy_at_end))
        target = state.energy_target + (start_energy - state.energy_at_end);
      const double t_end = state.time + h;
      const auto energy_error = [&](const Motion& m) {
        return energy_at(m.x, m.v, f, t_end) - target;
      };

      // The midpoint, then its energy error against ε times the start's energy scale (Eq. 24; the
      // midpoint's from rest, where the start's is 0).
      const Motion midpoint = midpoint_from(guess);
      report.iterations = options_.iterations;
      const double midpoint_error =
          energy_at(midpoint.x, midpoint.v, f, t_end, &midpoint_scale) - target;
      const double tolerance =
          options_.energy_tolerance * (start_scale > 0 ? start_scale : midpoint_scale);
      end = midpoint;
      if (midpoint_error > tolerance) {
        // Too much: backward Euler from the midpoint's end; blend IM (α = 0) to BE (α = 1). When
        // backward Euler gains energy too (it may, where the energy is not convex: a buckling
        // cloth), the paper takes it whole; Ramus keeps the lower of the two ends.
        const Motion euler = backward_euler_from(midpoint.x, options_.stabilization_iterations);
        report.iterations += options_.stabilization_iterations;
        report.blend = 1;
        report.alpha = 1;
        if (energy_error(euler) <= 0)
          end = bisect_blend(midpoint, euler, tolerance, energy_error, &report.alpha);
        else if (energy_error(euler) < midpoint_error)
          end = euler;
        else
          report.alpha = 0;
      } else if (midpoint_error < -tolerance) {
        // Too little: forward Euler with the forces at x_n; blend FE (α = 0) to IM (α = 1).
        VertexRows acceleration = rows_of(f) - energy_.gradient(rows_of(x_n));
        if (!options_.colliders.empty()) {
          // The collision terms' gradient: Σ w (x - P(x)) over the colliders at t_n.
          acceleration -= collision_gradient(rows_of(x_n), state.time);
        }
        for (Eigen::Index i = 0; i < masses_.size(); ++i)
          acceleration.row(i) /= masses_(i) > 0 ? masses_(i) : 1.0;
        Motion forward{
            x_n + h * v_n,
            v_n + h * Eigen::Map<const Eigen::VectorXd>(acceleration.data(), acceleration.size()),
            {}};
        for (int v : fixed_) forward.x.segment<3>(3 * v) = x_n.segment<3>(3 * v);
        report.blend = -1;
        double alpha = 0;
        if (energy_error(forward) > 0)
          end = bisect_blend(forward, midpoint, tolerance, energy_error, &alpha);
        else
          end = forward;
        report.alpha = 1 - alpha;
      }
    }
    if (options_.colliders.empty() || pass == 3) break;
    std::vector<char> active = factors_->active;
    bool grew = false;
    const std::size_t n = static_cast<std::size_t>(masses_.size());
    for (std::size_t c = 0; c < options_.colliders.size(); ++c)
      for (std::size_t v = 0; v < n; ++v)
        if (!active[c * n + v] &&
            sample_level_set(options_.colliders[c],
                             end.x.segment<3>(static_cast<Eigen::Index>(3 * v)), state.time + h)
                    .value < 0)
          active[c * n + v] = grew = true;
    for (int v : fixed_)
      for (std::size_t c = 0; c < options_.colliders.size(); ++c)
        active[c * n + static_cast<std::size_t>(v)] = 0;
    if (!grew || active == factors_->active) break;
    factor(active);
  }

  // Fixed vertices at rest, the damping and the colliders' friction (their losses leave the
  // tracked total), the state.
  for (int v : fixed_) end.v.segment<3>(3 * v).setZero();
  report.damping_loss =
      damp_non_rigid_velocity(masses_, fixed_, end.x, options_.momentum_damping, end.v);
  // A change of v after the solve (the colliders' friction) moves x as the method does
  // (x_n + h v, or + h (v_n + v) / 2); its loss is the kinetic energy it took, or for the blend
  // the change of H, which it tracks.
  const auto change_after_solve = [&](const auto& change) {
    const bool blend = method == LocalGlobalMethod::kEnergyStabilizedMidpoint;
    const Eigen::VectorXd before = end.v;
    const double energy_before = blend ? energy_at(end.x, end.v, f, state.time + h) : 0.0;
    double loss = change(end.v);
    end.x += (method == LocalGlobalMethod::kBackwardEuler ? h : h / 2) * (end.v - before);
    if (blend) loss = energy_before - energy_at(end.x, end.v, f, state.time + h);
    return loss;
  };
  if (!options_.collider_friction.empty())
    report.friction_loss = change_after_solve(
        [&](Eigen::VectorXd& v) { return apply_collider_friction(end.x, state.time + h, v); });
  if (options_.self_contact) {
    // Fixed vertices, and those within a fifth of the thickness of a collider at the step's
    // start, take none of the repulsion (from x_n, as its pairs).
    std::vector<double> movable(static_cast<std::size_t>(masses_.size()), 1.0);
    for (int v : fixed_) movable[static_cast<std::size_t>(v)] = 0;
    for (const LevelSetCollider& collider : options_.colliders)
      for (Eigen::Index v = 0; v < masses_.size(); ++v)
        if (sample_level_set(collider, x_n.segment<3>(3 * v), state.time).value <=
            0.2 * options_.self_contact->repulsion.thickness)
          movable[static_cast<std::size_t>(v)] = 0;
    // It acts on the step's displacement (x - x_n) / h, which its gap rule bounds (backward
    // Euler: the velocity); its change Δ moves x by h Δ and v by Δ.
    const double energy_before = kinetic_energy(masses_, end.v);
    const Eigen::VectorXd displacement = (end.x - x_n) / h;
    Eigen::VectorXd repelled = displacement;
    report.self_impulses =
        apply_cloth_self_repulsion(options_.self_contact->triangles, masses_.maxCoeff(), x_n, h,
                                   options_.self_contact->repulsion, movable, repelled)
            .impulses;
    end.x += h * (repelled - displacement);
    end.v += repelled - displacement;
    report.self_repulsion_loss = energy_before - kinetic_energy(masses_, end.v);
  }
  state.accelerations = (end.v - v_n) / h;
  state.positions = std::move(end.x);
  state.velocities = std::move(end.v);
  state.time += h;
  if (!options_.colliders.empty())
    add_collision_projections(rows_of(state.positions), state.time, nullptr, &report.deepest);
  if (method == LocalGlobalMethod::kEnergyStabilizedMidpoint) {
    state.energy_target = target - report.damping_loss - report.friction_loss;
    state.energy_at_end = energy_at(state.positions, state.velocities, f, state.time);
  }
  return report;
}

}  // namespace ramus
