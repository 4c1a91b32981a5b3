#include "ramus/precompute/contact/contact_potentials.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>

namespace ramus {

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
