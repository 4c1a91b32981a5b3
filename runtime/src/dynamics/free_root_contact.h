// The barrier on a free root's rigid body, implicit (runtime internals; docs/CONTACT.md "Reduced
// contact"): the body's step as a minimization over its centre's displacement u and its rotation
// vector θ (world), y = (u, θ):
//   Φ(y) = ½ m |u - û|² / h² + ½ (θ - θ̂)ᵀ I_w (θ - θ̂) / h² + Σ_k κ s² a_k b(φ(x_k(y))),
//   x_k(y) = x_k,start + u + θ × r_k   (r_k from the centre at the start; first order in θ),
// over every contact candidate of every domain. û, θ̂ are the step without the barrier; the
// stationary point gives p₁ = p̂ + h f_b and L₁ = L̂ + h τ_b, the barrier's force and torque
// taken at the step's end.
#pragma once

#include <Eigen/Core>

#include "../contact/domain_contact.h"
#include "ramus/runtime/model/model.h"

namespace ramus {

using Vector6d = Eigen::Matrix<double, 6, 1>;
using Matrix6d = Eigen::Matrix<double, 6, 6>;

struct FreeRootContactStep {
  const Model* model = nullptr;
  const int* counts = nullptr;  ///< per domain: how many candidates
  const int* starts = nullptr;  ///< per domain: where its candidates start in `candidates`
  const ContactCandidate* candidates = nullptr;
  const StepCollider* colliders = nullptr;                   ///< by the candidates' collider ids
  double stiffness = 0, distance = 0;                        ///< kappa (Pa/m) and delta (m)
  Eigen::Vector3d center = Eigen::Vector3d::Zero();          ///< at the start (world, m)
  Vector6d predicted = Vector6d::Zero();                     ///< (û, θ̂): m, rad
  double mass_weight = 0;                                    ///< m / h² (kg/s²)
  Eigen::Matrix3d inertia_weight = Eigen::Matrix3d::Zero();  ///< I_w / h² (kg m²/s²)

  /// Φ(y) (J), with its gradient (6) and Gauss-Newton Hessian (6 by 6, PSD) when asked.
  double evaluate(const Vector6d& y, Vector6d* gradient, Matrix6d* hessian) const noexcept;
};

/// Newton on Φ with an Armijo backtracking line search from the prediction, at most `iterations`
/// steps; returns y = (u, θ).
Vector6d solve_free_root_contact_step(const FreeRootContactStep& step, int iterations) noexcept;

}  // namespace ramus
