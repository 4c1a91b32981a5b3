#include "ramus/precompute/contact/smoothed_friction.h"

namespace ramus {

void LaggedFrictionPotential::begin_step(std::vector<FrictionContact> contacts,
                                         const Eigen::VectorXd& start_positions, double time_step,
                                         double epsilon) {
  contacts_ = std::move(contacts);
  start_ = start_positions;
  h_ = time_step;
  epsilon_ = epsilon;
}

Eigen::Vector3d LaggedFrictionPotential::slip_velocity(const Eigen::VectorXd& x,
                                                       const FrictionContact& c) const {
  const Eigen::Vector3d relative =
      (x.segment<3>(3 * c.vertex) - start_.segment<3>(3 * c.vertex)) / h_ - c.collider_velocity;
  return relative - c.normal * c.normal.dot(relative);
}

double LaggedFrictionPotential::value(const Eigen::VectorXd& x) const {
  double energy = 0;
  for (const FrictionContact& c : contacts_)
    energy += c.coefficient * c.normal_force * h_ *
              friction_smoothing(slip_velocity(x, c).norm(), epsilon_).integral;
  return energy;
}

double LaggedFrictionPotential::add_gradient(const Eigen::VectorXd& x,
                                             Eigen::VectorXd& gradient) const {
  // dD/dx_v = mu lambda (s(y)/y) v_T: the friction force's negative.
  double energy = 0;
  for (const FrictionContact& c : contacts_) {
    const Eigen::Vector3d slip = slip_velocity(x, c);
    const FrictionSmoothing s = friction_smoothing(slip.norm(), epsilon_);
    const double scale = c.coefficient * c.normal_force;
    energy += scale * h_ * s.integral;
    gradient.segment<3>(3 * c.vertex) += scale * s.value_over_y * slip;
  }
  return energy;
}

Eigen::Matrix3d LaggedFrictionPotential::hessian_block(const Eigen::VectorXd& x,
                                                       const FrictionContact& c) const {
  // mu lambda / h [s' u uᵀ + (s/y) (P_T - u uᵀ)], u the unit slip direction: PSD as s' >= 0.
  const Eigen::Vector3d slip = slip_velocity(x, c);
  const double y = slip.norm();
  const FrictionSmoothing s = friction_smoothing(y, epsilon_);
  const Eigen::Matrix3d tangent = Eigen::Matrix3d::Identity() - c.normal * c.normal.transpose();
  const Eigen::Matrix3d along =
      y > 0 ? Eigen::Matrix3d(slip * slip.transpose() / (y * y)) : Eigen::Matrix3d::Zero();
  return c.coefficient * c.normal_force / h_ *
         (s.slope * along + s.value_over_y * (tangent - along));
}

}  // namespace ramus
