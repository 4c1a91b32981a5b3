#include "ramus/precompute/contact/step_contact.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ramus {

namespace {

constexpr double kReferenceGravity = 9.81;      // m/s², for the automatic barrier stiffness
constexpr double kWeightsHeldAtHalfDelta = 10;  // vertex weights a barrier holds at delta/2
constexpr double kMaximumStiffnessGrowth = 100;
constexpr double kClosingFraction = 0.1;  // of delta: closer than this, kappa may double

bool is_active(const ColliderContact& c, double phi) {
  return c.model == ContactModel::kBarrier ? phi < c.delta : phi < 0;
}

// The recorded constraint forces of collider `c`, per vertex (N; 0 where it does not push).
std::vector<double> forces_of(const std::vector<ConstraintForce>& forces, int c,
                              std::size_t num_vertices) {
  std::vector<double> per_vertex(num_vertices, 0.0);
  for (const ConstraintForce& f : forces)
    if (f.collider == c) per_vertex[static_cast<std::size_t>(f.vertex)] = f.force;
  return per_vertex;
}

}  // namespace

StepContact::StepContact(ContactOptions options, const Eigen::VectorXd& vertex_masses,
                         const Eigen::MatrixX4i& tets)
    : options_(std::move(options)),
      potential_(options_.colliders),
      self_(tets, static_cast<int>(vertex_masses.size()), options_.self_collision),
      constraints_(potential_.colliders(), static_cast<int>(vertex_masses.size())),
      vertex_masses_(vertex_masses) {
  // Automatic barriers: kappa_min from the average vertex mass, raised later by end_step.
  const double average_mass = vertex_masses.size() > 0 ? vertex_masses.mean() : 1.0;
  for (ColliderContact& c : potential_.colliders()) {
    const bool automatic = c.model == ContactModel::kBarrier && !(c.stiffness > 0);
    automatic_.push_back(automatic);
    const double pull = -log_barrier(0.5 * c.delta, c.delta).first;  // |b'(delta/2)|, m
    minimum_stiffness_.push_back(kWeightsHeldAtHalfDelta * average_mass * kReferenceGravity / pull);
    if (automatic) c.stiffness = minimum_stiffness_.back();
  }
  previous_smallest_ = std::numeric_limits<double>::infinity();
}

void StepContact::begin_step(const Eigen::VectorXd& start_positions, double time_next,
                             double time_step) {
  time_ = time_next;
  time_step_ = time_step;
  potential_.set_time(time_next);
  // Friction of each active pair, its normal force and normal frozen at x_n (none when friction
  // acts after the solve).
  // A constraint's normal force is the multiplier its last solve recorded (lagged, as the
  // potentials' are).
  std::vector<FrictionContact> contacts;
  const std::size_t num_vertices = static_cast<std::size_t>(start_positions.size() / 3);
  for (std::size_t k = 0; k < potential_.colliders().size(); ++k) {
    const ColliderContact& c = potential_.colliders()[k];
    if (!(c.friction > 0) || options_.friction_model != FrictionModel::kSmoothedPotential) continue;
    const std::vector<double> constraint_force =
        c.model == ContactModel::kConstraint
            ? forces_of(constraint_forces_, static_cast<int>(k), num_vertices)
            : std::vector<double>();
    for (int v = 0; v < static_cast<int>(num_vertices); ++v) {
      const Eigen::Vector3d x = start_positions.segment<3>(3 * v);
      const LevelSetSample s = sample_level_set(c.collider, x, time_next);
      const double force = c.model == ContactModel::kConstraint
                               ? constraint_force[static_cast<std::size_t>(v)]
                           : is_active(c, s.value) ? std::abs(potential_.response(c, s.value).first)
                                                   : 0.0;
      if (!std::isfinite(force) || force == 0) continue;
      contacts.push_back({v, s.gradient.normalized(), force, c.friction,
                          c.collider.motion.velocity_at(x, time_next)});
    }
  }
  friction_.begin_step(std::move(contacts), start_positions, time_step, options_.friction_speed);
}

Eigen::VectorXd StepContact::feasible_start(const Eigen::VectorXd& start_positions) const {
  Eigen::VectorXd x = start_positions;
  for (const ColliderContact& c : potential_.colliders()) {
    if (c.model != ContactModel::kBarrier) continue;
    for (Eigen::Index v = 0; v < x.size() / 3; ++v)
      for (int pass = 0; pass < 4; ++pass) {
        const LevelSetSample s = sample_level_set(c.collider, x.segment<3>(3 * v), time_);
        if (s.value > 0) break;
        x.segment<3>(3 * v) += (0.5 * c.delta - s.value) * s.gradient.normalized();
      }
  }
  return x;
}

void StepContact::set_time(double time) {
  time_ = time;
  potential_.set_time(time);
}

double StepContact::potential_energy(const Eigen::VectorXd& x) const {
  return potential_.value(x) + self_.value(x);
}

double StepContact::add_potential_gradient(const Eigen::VectorXd& x,
                                           Eigen::VectorXd& gradient) const {
  return potential_.add_gradient(x, gradient) + self_.add_gradient(x, gradient);
}

double StepContact::value(const Eigen::VectorXd& x) const {
  return potential_.value(x) + self_.value(x) + friction_.value(x);
}

double StepContact::add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) const {
  return potential_.add_gradient(x, gradient) + self_.add_gradient(x, gradient) +
         friction_.add_gradient(x, gradient);
}

double StepContact::largest_feasible_step(const Eigen::VectorXd& x, const Eigen::VectorXd& dx,
                                          double alpha_max) const {
  // Conservative advancement: phi is L-Lipschitz, so a move of (phi - target) / (L |dx_v|) along
  // the path cannot bring the vertex below the target distance.
  double alpha_feasible = alpha_max;
  for (const ColliderContact& c : potential_.colliders()) {
    if (c.model != ContactModel::kBarrier) continue;
    for (Eigen::Index v = 0; v < x.size() / 3; ++v) {
      const double speed = level_set_lipschitz(c.collider) * dx.segment<3>(3 * v).norm();
      if (speed == 0) continue;
      const auto phi = [&](double alpha) {
        return sample_level_set(c.collider, x.segment<3>(3 * v) + alpha * dx.segment<3>(3 * v),
                                time_)
            .value;
      };
      const double start = phi(0);
      if (start - c.delta > alpha_feasible * speed) continue;  // cannot come within delta
      const double target = kClosingFraction * start;
      double alpha = 0;
      for (int k = 0; k < 64 && alpha < alpha_feasible; ++k) {
        const double advance = (phi(alpha) - target) / speed;
        if (advance <= 1e-12 * alpha_max) break;
        alpha += advance;
      }
      alpha_feasible = std::min(alpha_feasible, alpha);
    }
  }
  return alpha_feasible;
}

void StepContact::apply_friction_after_solve(const Eigen::VectorXd& positions,
                                             Eigen::VectorXd& velocities) {
  statistics_.friction_work += self_.apply_friction(positions, vertex_masses_, time_step_,
                                                    velocities, statistics_.friction_force);
  if (options_.friction_model != FrictionModel::kAfterSolve) return;
  const std::size_t num_vertices = static_cast<std::size_t>(positions.size() / 3);
  for (std::size_t k = 0; k < potential_.colliders().size(); ++k) {
    const ColliderContact& c = potential_.colliders()[k];
    if (!(c.friction > 0)) continue;
    const std::vector<double> constraint_force =
        c.model == ContactModel::kConstraint
            ? forces_of(constraint_forces_, static_cast<int>(k), num_vertices)
            : std::vector<double>();
    for (Eigen::Index v = 0; v < positions.size() / 3; ++v) {
      const Eigen::Vector3d x = positions.segment<3>(3 * v);
      const LevelSetSample s = sample_level_set(c.collider, x, time_);
      const double force = c.model == ContactModel::kConstraint
                               ? constraint_force[static_cast<std::size_t>(v)]
                           : is_active(c, s.value) ? std::abs(potential_.response(c, s.value).first)
                                                   : 0.0;
      if (!(force > 0) || !std::isfinite(force)) continue;
      // The tangential velocity relative to the collider, reduced by at most mu |f| h / m.
      const Eigen::Vector3d normal = s.gradient.normalized();
      const Eigen::Vector3d relative =
          velocities.segment<3>(3 * v) - c.collider.motion.velocity_at(x, time_);
      const Eigen::Vector3d slip = relative - normal * normal.dot(relative);
      const double speed = slip.norm(), mass = vertex_masses_(v);
      if (!(speed > 0) || !(mass > 0)) continue;
      const double change = std::min(speed, c.friction * force * time_step_ / mass);
      const Eigen::Vector3d before = velocities.segment<3>(3 * v);
      velocities.segment<3>(3 * v) -= change * slip / speed;
      statistics_.friction_force += mass * change / time_step_;
      statistics_.friction_work +=
          0.5 * mass * (before.squaredNorm() - velocities.segment<3>(3 * v).squaredNorm());
    }
  }
}

double StepContact::friction_work(const Eigen::VectorXd& x, double duration) const {
  double work = 0;
  for (const FrictionContact& c : friction_.contacts()) {
    const double slip = friction_.slip_velocity(x, c).norm();
    work += c.coefficient * c.normal_force *
            friction_smoothing(slip, options_.friction_speed).value * slip * duration;
  }
  return work;
}

const ContactStatistics& StepContact::end_step(const Eigen::VectorXd& positions) {
  ContactStatistics s;
  s.smallest_distance = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < potential_.colliders().size(); ++k) {
    ColliderContact& c = potential_.colliders()[k];
    double smallest = std::numeric_limits<double>::infinity();
    for (Eigen::Index v = 0; v < positions.size() / 3; ++v) {
      const LevelSetSample sample =
          sample_level_set(c.collider, positions.segment<3>(3 * v), time_);
      const double phi = sample.value;
      smallest = std::min(smallest, phi);
      if (c.model == ContactModel::kConstraint || !is_active(c, phi)) continue;
      const ScalarDerivatives psi = potential_.response(c, phi);
      ++s.active_contacts;
      s.normal_force += std::abs(psi.first);
      s.collider_force -= psi.first * sample.gradient;
      s.contact_energy += psi.value;
    }
    s.smallest_distance = std::min(s.smallest_distance, smallest);
    // Adaptive kappa: vertices that stay within delta/10 and keep closing in double it.
    if (automatic_[k] && smallest < kClosingFraction * c.delta &&
        previous_smallest_ < kClosingFraction * c.delta && smallest < previous_smallest_)
      c.stiffness = std::min(2 * c.stiffness, kMaximumStiffnessGrowth * minimum_stiffness_[k]);
  }
  // The constraints' recorded forces.
  for (const ConstraintForce& f : constraint_forces_) {
    ++s.active_contacts;
    s.normal_force += f.force;
    s.collider_force +=
        f.force *
        sample_level_set(potential_.colliders()[static_cast<std::size_t>(f.collider)].collider,
                         positions.segment<3>(3 * f.vertex), time_)
            .gradient;
  }
  // The mesh against itself.
  for (const SelfContact& c : self_.find_contacts(positions, false)) {
    const ScalarDerivatives phi = self_penalty(c.distance.squared_distance,
                                               self_.options().stiffness, self_.options().epsilon);
    ++s.self_contacts;
    s.deepest_self_contact =
        std::max(s.deepest_self_contact, std::sqrt(c.distance.squared_distance));
    s.normal_force += phi.first * c.distance.gradient.head<3>().norm();
    s.contact_energy += phi.value;
  }
  for (const FrictionContact& c : friction_.contacts()) {
    const double slip = friction_.slip_velocity(positions, c).norm();
    s.friction_force +=
        c.coefficient * c.normal_force * friction_smoothing(slip, options_.friction_speed).value;
  }
  s.friction_work = friction_work(positions, time_step_);
  previous_smallest_ = s.smallest_distance;
  statistics_ = s;
  return statistics_;
}

}  // namespace ramus
