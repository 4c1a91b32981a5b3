// The integrators' scratch sized for r coordinates (integrator_scratch.h).
#include "integrator_scratch.h"

#include <algorithm>

namespace ramus {

ExponentialScratch::ExponentialScratch(int r)
    : mass_factor(Eigen::MatrixXd::Zero(r, r)),
      eigen_matrix(Eigen::MatrixXd::Zero(r, r)),
      eigenvalues(Eigen::VectorXd::Zero(r)),
      eigen(r),
      modal_q(Eigen::VectorXd::Zero(r)),
      modal_v(Eigen::VectorXd::Zero(r)) {
  // The split integrators' Ritz problems: at most kMaxSplitModes columns.
  const int split = std::min(r, kMaxSplitModes);
  split_stiffness.setZero(r, split);
  split_mass.setZero(r, split);
  split_basis.setZero(r, split);
  ritz_stiffness.setIdentity(split, split);
  ritz_mass.setIdentity(split, split);
  ritz_vectors.setIdentity(split, split);
  ritz_values.setZero(split);
}

IntegratorScratch::IntegratorScratch(int r)
    : polynomial(r),
      gradient(Eigen::VectorXd::Zero(r)),
      residual(Eigen::VectorXd::Zero(r)),
      delta(Eigen::VectorXd::Zero(r)),
      scratch(Eigen::VectorXd::Zero(r)),
      q_trial(Eigen::VectorXd::Zero(r)),
      q_predicted(Eigen::VectorXd::Zero(r)),
      qdot_predicted(Eigen::VectorXd::Zero(r)),
      stiffness(Eigen::MatrixXd::Zero(r, r)),
      jacobian(Eigen::MatrixXd::Zero(r, r)),
      factor(Eigen::MatrixXd::Zero(r, r)),
      damping(Eigen::MatrixXd::Zero(r, r)),
      stiffness_linearization(Eigen::MatrixXd::Zero(r, r)),
      exponential(r),
      midpoint(r) {
  // Sizes every internal buffer. (No LDLT(r) + assignment: that copies its uninitialized info.)
  ldlt.compute(Eigen::MatrixXd::Identity(r, r));
  for (Eigen::VectorXd* v :
       {&force, &q_hat, &p_hat, &q_stage, &v_stage, &q_start, &v_start, &q_blend, &v_blend,
        &scaled_q, &q_linearization, &gradient_linearization})
    v->setZero(r);
}

}  // namespace ramus
