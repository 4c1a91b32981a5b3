// The survey's smoothed Coulomb friction (Eq. 31-32) as a potential inside the implicit step,
// lagged as in incremental potential contact: each contact's normal force lambda, normal n and
// the collider's velocity are frozen at the start of the step, and the friction force
// f = -mu lambda s(|v_T|; eps) v_T / |v_T| on the tangential slip velocity v_T = P_T (x - x_n)/h
// - P_T v_c is the negative gradient of D(x) = mu lambda h F(|v_T|) with F' = s.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/runtime/contact/contact_response.h"

namespace ramus {

/// One vertex's frozen contact for the step: the collider's outward normal, the normal force
/// magnitude (N), the friction coefficient and the collider's velocity at the contact (m/s).
struct FrictionContact {
  int vertex = 0;
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();
  double normal_force = 0;
  double coefficient = 0;
  Eigen::Vector3d collider_velocity = Eigen::Vector3d::Zero();
};

/// The lagged friction potential of one step of length h (s) from x_n (3#V), smoothing speed eps
/// (m/s): D(x) = sum over contacts of mu lambda h F(|P_T ((x_v - x_n,v)/h - v_c)|).
class LaggedFrictionPotential {
 public:
  void begin_step(std::vector<FrictionContact> contacts, const Eigen::VectorXd& start_positions,
                  double time_step, double epsilon);
  bool empty() const { return contacts_.empty(); }
  const std::vector<FrictionContact>& contacts() const { return contacts_; }

  /// D(x) in J.
  double value(const Eigen::VectorXd& x) const;
  /// Adds dD/dx (3#V) to gradient; returns D.
  double add_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) const;
  /// Adds each contact's 3 by 3 Hessian block (PSD by construction) through add(vertex, block).
  template <typename AddBlock>
  void add_hessian_blocks(const Eigen::VectorXd& x, AddBlock&& add) const {
    for (const FrictionContact& c : contacts_) add(c.vertex, hessian_block(x, c));
  }
  /// The tangential slip velocity of a contact at x (m/s).
  Eigen::Vector3d slip_velocity(const Eigen::VectorXd& x, const FrictionContact& c) const;

 private:
  Eigen::Matrix3d hessian_block(const Eigen::VectorXd& x, const FrictionContact& c) const;
  std::vector<FrictionContact> contacts_;
  Eigen::VectorXd start_;
  double h_ = 1, epsilon_ = 1e-3;
};

}  // namespace ramus
