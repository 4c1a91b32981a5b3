#include "ramus/precompute/contact/contact_potentials.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>

namespace ramus {

ScalarDerivatives log_barrier(double distance, double delta) {
  ScalarDerivatives b;
  if (distance >= delta) return b;
  if (!(distance > 0)) {
    b.value = std::numeric_limits<double>::infinity();
    b.first = -std::numeric_limits<double>::infinity();
    b.second = std::numeric_limits<double>::infinity();
    return b;
  }
  // b = -(d - δ)² ln(d/δ); b' = -2 (d - δ) ln(d/δ) - (d - δ)²/d;
  // b'' = -2 ln(d/δ) - 4 (d - δ)/d + (d - δ)²/d².
  const double gap = distance - delta, log_ratio = std::log(distance / delta);
  b.value = -gap * gap * log_ratio;
  b.first = -2 * gap * log_ratio - gap * gap / distance;
  b.second = -2 * log_ratio - 4 * gap / distance + gap * gap / (distance * distance);
  return b;
}

ScalarDerivatives cubic_penalty(double phi, double stiffness) {
  ScalarDerivatives p;
  if (phi >= 0) return p;
  p.value = -stiffness * phi * phi * phi;
  p.first = -3 * stiffness * phi * phi;
  p.second = -6 * stiffness * phi;
  return p;
}

VertexColliderPotential::VertexColliderPotential(std::vector<ColliderContact> colliders)
    : colliders_(std::move(colliders)) {}

ScalarDerivatives VertexColliderPotential::response(const ColliderContact& c, double phi) const {
  if (c.model == ContactModel::kPenalty) return cubic_penalty(phi, c.stiffness);
  if (c.model == ContactModel::kConstraint) return {};
  ScalarDerivatives b = log_barrier(phi, c.delta);
  b.value *= c.stiffness;
  b.first *= c.stiffness;
  b.second *= c.stiffness;
  return b;
}

double VertexColliderPotential::value(const Eigen::VectorXd& x) const {
  double energy = 0;
  for (const ColliderContact& c : colliders_)
    for (Eigen::Index v = 0; v < x.size() / 3; ++v)
      energy += response(c, sample_level_set(c.collider, x.segment<3>(3 * v), time_).value).value;
  return energy;
}

double VertexColliderPotential::add_gradient(const Eigen::VectorXd& x,
                                             Eigen::VectorXd& gradient) const {
  double energy = 0;
  for (const ColliderContact& c : colliders_)
    for (Eigen::Index v = 0; v < x.size() / 3; ++v) {
      const LevelSetSample s = sample_level_set(c.collider, x.segment<3>(3 * v), time_);
      const ScalarDerivatives psi = response(c, s.value);
      if (psi.value == 0 && psi.first == 0) continue;
      energy += psi.value;
      gradient.segment<3>(3 * v) += psi.first * s.gradient;
    }
  return energy;
}

Eigen::Matrix3d VertexColliderPotential::vertex_hessian(const Eigen::VectorXd& x, int v,
                                                        bool project_psd) const {
  // d²psi(phi(x))/dx² = psi'' ∇phi ∇phiᵀ + psi' ∇²phi.
  Eigen::Matrix3d hessian = Eigen::Matrix3d::Zero();
  for (const ColliderContact& c : colliders_) {
    const LevelSetSample s = sample_level_set(c.collider, x.segment<3>(3 * v), time_);
    const ScalarDerivatives psi = response(c, s.value);
    if (psi.first == 0 && psi.second == 0) continue;
    hessian += psi.second * s.gradient * s.gradient.transpose() + psi.first * s.hessian;
  }
  if (!project_psd || !hessian.allFinite()) return hessian;
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(hessian);
  return eigen.eigenvectors() * eigen.eigenvalues().cwiseMax(0.0).asDiagonal() *
         eigen.eigenvectors().transpose();
}

double VertexColliderPotential::smallest_distance(const Eigen::VectorXd& x) const {
  double smallest = std::numeric_limits<double>::infinity();
  for (const ColliderContact& c : colliders_)
    for (Eigen::Index v = 0; v < x.size() / 3; ++v)
      smallest = std::min(smallest, sample_level_set(c.collider, x.segment<3>(3 * v), time_).value);
  return smallest;
}

}  // namespace ramus
