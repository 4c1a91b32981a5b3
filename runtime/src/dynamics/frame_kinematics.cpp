#include "frame_kinematics.h"

#include <Eigen/Geometry>

#include <Eigen/LU>  // Matrix3d::inverse

#include "ramus/runtime/kernels/polar_decomposition.h"

namespace ramus {

void interface_motion(const Model& model, const State& state, int child,
                      Eigen::Matrix<double, 12, 1>& y, Eigen::Matrix<double, 12, 1>& y_dot,
                      Eigen::Matrix<double, 12, 1>& y_ddot) noexcept {
  const Domain& c = model.domains[static_cast<std::size_t>(child)];
  const Domain& p = model.domains[static_cast<std::size_t>(c.parent)];
  const auto q = state.q.segment(p.dof_offset, p.r);
  const auto qdot = state.qdot.segment(p.dof_offset, p.r);
  const auto qddot = state.qddot.segment(p.dof_offset, p.r);
  // One pass over the parent's r columns (â, A^l): at these sizes cheaper than matrix-vector
  // products (their dispatch dominates). Local sums stay in registers (the outputs' stores
  // would chain every column through memory); the first column starts them (zeros kept for an
  // r = 0 parent made GCC zero three stack copies on every call).
  using Vector12d = Eigen::Matrix<double, 12, 1>;
  if (p.r == 0) {
    y.setZero();
    y_dot.setZero();
    y_ddot.setZero();
    return;
  }
  // Each column's two scales fold into its coordinate's q, q̇, q̈ (the integers convert once).
  const InterfaceBases bases = model.interface_bases_of(child);
  using Vector9d = Eigen::Matrix<double, 9, 1>;
  const auto column_of = [&](Eigen::Index l, double& sc, double& sr) {
    const InterfaceColumn& column = bases.columns[l];
    sc = column.centroid_scale;
    sr = column.rotation_scale;
    return Vector12d(
        Eigen::Map<const Eigen::Matrix<std::int16_t, 12, 1>>(column.values).cast<double>());
  };
  double sc = 0, sr = 0;
  Vector12d column = column_of(0, sc, sr);
  Eigen::Vector3d x = (sc * q(0)) * column.head<3>(), x_dot = (sc * qdot(0)) * column.head<3>(),
                  x_ddot = (sc * qddot(0)) * column.head<3>();
  Vector9d A = (sr * q(0)) * column.tail<9>(), A_dot = (sr * qdot(0)) * column.tail<9>(),
           A_ddot = (sr * qddot(0)) * column.tail<9>();
  for (Eigen::Index l = 1; l < p.r; ++l) {
    column = column_of(l, sc, sr);
    x += (sc * q(l)) * column.head<3>();
    x_dot += (sc * qdot(l)) * column.head<3>();
    x_ddot += (sc * qddot(l)) * column.head<3>();
    A += (sr * q(l)) * column.tail<9>();
    A_dot += (sr * qdot(l)) * column.tail<9>();
    A_ddot += (sr * qddot(l)) * column.tail<9>();
  }
  y << x, A;
  y_dot << x_dot, A_dot;
  y_ddot << x_ddot, A_ddot;
}

void compute_relative_kinematics(const Model& model, State& state, int child,
                                 bool need_partial_alpha) noexcept {
  const Domain& c = model.domains[static_cast<std::size_t>(child)];
  const Domain& p = model.domains[static_cast<std::size_t>(c.parent)];
  const DomainInterface& itf = c.interface;
  // Interface centroid and the linear map A_ij = R̂_ij + Σ_l A^l_ij q_l with its derivatives.
  Eigen::Matrix<double, 12, 1> y, y_dot, y_ddot;
  interface_motion(model, state, child, y, y_dot, y_ddot);
  const Eigen::Vector3d x = itf.centroid + y.head<3>(), v = y_dot.head<3>(), a = y_ddot.head<3>();
  const Eigen::Matrix3d A = itf.rest_rotation + Eigen::Map<const Eigen::Matrix3d>(y.data() + 3);
  const Eigen::Map<const Eigen::Matrix3d> A_dot(y_dot.data() + 3), A_ddot(y_ddot.data() + 3);
  // Polar rotation and its derivatives (Eq. 5-9).
  const PolarDecomposition RS = polar_decomposition(A);
  const PolarRotationDerivatives derivatives = polar_rotation_derivatives(RS, A_dot, A_ddot);
  state.relative_position.col(child) = x;
  state.relative_velocity.col(child) = v;
  state.relative_acceleration.col(child) = a;
  state.relative_rotation.middleCols<3>(3 * child) = RS.R;
  state.relative_stretch.middleCols<3>(3 * child) = RS.S;
  state.relative_angular_velocity.col(child) = derivatives.omega;
  state.relative_angular_acceleration.col(child) = derivatives.omega_dot;
  state.relative_angular_acceleration_without_qddot.col(child) =
      need_partial_alpha && p.r > 0
          ? polar_rotation_derivatives(RS, A_dot, Eigen::Matrix3d::Zero()).omega_dot
          : derivatives.omega_dot;
}

void update_child_frame(const Model& model, State& state, int domain) noexcept {
  const int parent = model.domains[static_cast<std::size_t>(domain)].parent;
  const Eigen::Matrix3d P_rotation = state.frame_rotation.middleCols<3>(3 * parent);
  const Eigen::Vector3d P_origin = state.frame_origin.col(parent);
  const Eigen::Vector3d P_omega = state.frame_angular_velocity.col(parent);
  const Eigen::Vector3d P_velocity = state.frame_velocity.col(parent);
  const Eigen::Vector3d P_acceleration = state.frame_acceleration.col(parent);
  const Eigen::Vector3d P_alpha = state.frame_angular_acceleration.col(parent);
  const Eigen::Matrix3d R = state.relative_rotation.middleCols<3>(3 * domain);
  const Eigen::Vector3d x = state.relative_position.col(domain);
  const Eigen::Vector3d v = state.relative_velocity.col(domain);
  const Eigen::Vector3d a = state.relative_acceleration.col(domain);
  const Eigen::Vector3d omega = state.relative_angular_velocity.col(domain);
  const Eigen::Vector3d alpha = state.relative_angular_acceleration.col(domain);
  const Eigen::Matrix3d Rt = R.transpose();
  state.frame_rotation.middleCols<3>(3 * domain) = P_rotation * R;
  state.frame_origin.col(domain) = P_origin + P_rotation * x;
  state.frame_angular_velocity.col(domain) = Rt * (P_omega + omega);
  state.frame_velocity.col(domain) = Rt * (P_velocity + P_omega.cross(x) + v);
  state.frame_acceleration.col(domain) =
      Rt * (P_acceleration + P_alpha.cross(x) + P_omega.cross(P_omega.cross(x)) +
            2.0 * P_omega.cross(v) + a);
  state.frame_angular_acceleration.col(domain) = Rt * (P_alpha + alpha + P_omega.cross(omega));
}

void relative_rotation_jacobian(const Model& model, const State& state, int child,
                                Eigen::MatrixXd& jacobian) noexcept {
  const Domain& c = model.domains[static_cast<std::size_t>(child)];
  const int r = model.domains[static_cast<std::size_t>(c.parent)].r;
  const Eigen::Matrix3d Rt = state.relative_rotation.middleCols<3>(3 * child).transpose();
  const Eigen::Matrix3d S = state.relative_stretch.middleCols<3>(3 * child);
  // G⁻¹ = R (tr(S) I - S)⁻¹ (as in polar_rotation_derivatives).
  const Eigen::Matrix3d G_inverse =
      Rt.transpose() * (S.trace() * Eigen::Matrix3d::Identity() - S).inverse();
  const InterfaceBases bases = model.interface_bases_of(child);
  for (int l = 0; l < r; ++l) {
    const Eigen::Matrix3d Rt_Al = Rt * rotation_block(bases, l);
    jacobian.col(l) = G_inverse * (2.0 * skew_vector(Rt_Al));
  }
}

}  // namespace ramus
