// E(y) = E'(P(y)) for the full-space simulator's constraint colliders (optimization paper §3.2,
// §5.1): every evaluation projects the violated and active vertices first, so the line search
// runs along a curved path; each Newton iteration starts by projecting the iterate and choosing
// the active set from grad E'; the Hessian, taken there (feasible, phi = 0 on the active
// vertices), is Jᵀ H' J plus each active vertex's curvature term, plus c n nᵀ along the normal
// that E does not see (c the block's own scale), so the Newton step keeps active vertices on
// their surfaces to first order.
#pragma once

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <vector>

#include "ramus/precompute/contact/step_contact.h"
#include "ramus/precompute/fem/dof_map.h"
#include "ramus/precompute/fem/newton_minimizer.h"

namespace ramus {

class ConstrainedObjective : public MinimizationObjective {
 public:
  /// `inner` is E' over the free DOFs of `dofs`; `contact` holds the constraints (its time set).
  ConstrainedObjective(MinimizationObjective& inner, const DofMap& dofs, StepContact& contact,
                       const Eigen::VectorXd& fixed_positions)
      : inner_(inner), dofs_(dofs), contact_(contact), x_(fixed_positions) {}

  double value(const Eigen::VectorXd& y) override { return inner_.value(projected(y)); }

  double value_and_gradient(const Eigen::VectorXd& y, Eigen::VectorXd& gradient) override {
    const double energy = inner_.value_and_gradient(projected(y), gradient);
    // Jᵀ grad E' at P(x), with J taken at the unprojected x.
    full_.setZero(x_.size());
    dofs_.scatter_free(gradient, full_);
    dofs_.scatter_free(y, x_);
    contact_.pull_back_constraint_gradient(x_, full_);
    gradient = dofs_.restrict_to_free(full_);
    return energy;
  }

  const Eigen::SparseMatrix<double>& hessian(const Eigen::VectorXd& y, bool project) override {
    const Eigen::SparseMatrix<double>& inner = inner_.hessian(y, project);
    dofs_.scatter_free(y, x_);
    // J over the free DOFs: identity, with I - n nᵀ on the active vertices (full 3 by 3 blocks
    // there, so the product keeps the inner pattern).
    jacobian_entries_.clear();
    std::vector<bool> active(static_cast<std::size_t>(x_.size() / 3), false);
    blocks_.clear();
    contact_.for_each_active_constraint(
        x_, unconstrained_full_,
        [&](int v, const Eigen::Matrix3d& jacobian, const Eigen::Matrix3d& curvature) {
          if (dofs_.free_index(3 * v) < 0) return;
          active[static_cast<std::size_t>(v)] = true;
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
              jacobian_entries_.emplace_back(dofs_.free_index(3 * v + a),
                                             dofs_.free_index(3 * v + b), jacobian(a, b));
          blocks_.push_back({v, curvature, jacobian});
        });
    if (blocks_.empty()) return inner;
    for (int k = 0; k < dofs_.num_free_dofs(); ++k)
      if (!active[static_cast<std::size_t>(dofs_.free_dofs()[static_cast<std::size_t>(k)] / 3)])
        jacobian_entries_.emplace_back(k, k, 1.0);
    jacobian_.resize(inner.rows(), inner.cols());
    jacobian_.setFromTriplets(jacobian_entries_.begin(), jacobian_entries_.end());
    hessian_ = jacobian_ * inner * jacobian_;
    // Each active vertex: its curvature term (projected to PSD when asked), and c n nᵀ.
    for (const ActiveBlock& b : blocks_) {
      const int first = dofs_.free_index(3 * b.vertex);
      Eigen::Matrix3d own;
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) own(a, c) = inner.coeff(first + a, first + c);
      const Eigen::Matrix3d normal_part = Eigen::Matrix3d::Identity() - b.jacobian;  // n nᵀ
      Eigen::Matrix3d added = b.curvature;
      if (project) added = psd_part(added);
      added += (own.trace() / 3) * normal_part;
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) hessian_.coeffRef(first + a, first + c) += added(a, c);
    }
    return hessian_;
  }

  double largest_feasible_step(const Eigen::VectorXd& y, const Eigen::VectorXd& direction,
                               double alpha_max) override {
    const double alpha = inner_.largest_feasible_step(y, direction, alpha_max);
    dofs_.scatter_free(y, x_);
    full_.setZero(x_.size());
    dofs_.scatter_free(direction, full_);
    return contact_.largest_shallow_step(x_, full_, alpha);
  }

  bool begin_iteration(Eigen::VectorXd& y) override {
    // Project (E unchanged), then the active set from grad E' there.
    y = projected(y);
    inner_.value_and_gradient(y, unconstrained_);
    unconstrained_full_.setZero(x_.size());
    dofs_.scatter_free(unconstrained_, unconstrained_full_);
    dofs_.scatter_free(y, x_);
    contact_.update_active_constraints(x_, unconstrained_full_);
    return true;
  }

  /// After the solve: y projected (the last line search's point may not be), and the active
  /// constraints' forces there recorded in the contact.
  void finish(Eigen::VectorXd& y) {
    begin_iteration(y);
    contact_.record_constraint_forces(x_, unconstrained_full_);
  }

 private:
  struct ActiveBlock {
    int vertex;
    Eigen::Matrix3d curvature, jacobian;
  };
  static Eigen::Matrix3d psd_part(const Eigen::Matrix3d& m) {
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(0.5 * (m + m.transpose()));
    return eigen.eigenvectors() * eigen.eigenvalues().cwiseMax(0.0).asDiagonal() *
           eigen.eigenvectors().transpose();
  }
  // P(y): the free DOFs with the violated and active vertices on their surfaces.
  const Eigen::VectorXd& projected(const Eigen::VectorXd& y) {
    dofs_.scatter_free(y, x_);
    contact_.project_onto_constraints(x_);
    projected_ = dofs_.restrict_to_free(x_);
    return projected_;
  }

  MinimizationObjective& inner_;
  const DofMap& dofs_;
  StepContact& contact_;
  Eigen::VectorXd x_, full_, projected_, unconstrained_, unconstrained_full_;
  std::vector<Eigen::Triplet<double>> jacobian_entries_;
  std::vector<ActiveBlock> blocks_;
  Eigen::SparseMatrix<double> jacobian_, hessian_;
};

}  // namespace ramus
