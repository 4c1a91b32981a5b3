// Full-space SIERE (precompute/fem/full_space_siere.h). Over the free DOFs, with u = (y, v),
// F = f - D v - f_el(x) the force, A = M + h D + h² K the SI matrix, and the split modes X
// (K X = M X Λ, Xᵀ M X = I), Eq. 24a in velocity form reads
//   δ        = h φ1(h J_G^r) G^r(u_0)            per mode, G^r = (Xᵀ M v, Xᵀ F)
//   Δv       = A_H⁻¹ (h f_H + M X δ_w - h² K_H v_H - h R δ_y)
//   Δy       = h v_H + X δ_y + h (I - P) Δv
// with P = X Xᵀ M, v_H = (I - P) v, f_H = F - M X Xᵀ F, K_H = K - M X Λ Xᵀ M, R = K X - M X Λ
// (zero for exact modes) and A_H = A - U Vᵀ, U = M X C + h² R, V = M X, C = diag(h(α + β λ) + h²
// λ): Eq. 25's s-rank correction, solved by Sherman-Morrison-Woodbury with A's CHOLMOD factor.
#include "ramus/precompute/fem/full_space_siere.h"

#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>

#include <Eigen/CholmodSupport>
#include <Eigen/Dense>
#include <unsupported/Eigen/MatrixFunctions>

#include <cmath>
#include <string>

#include "ramus/error.h"
#include "ramus/precompute/fem/tet_matrix_assembler.h"

namespace ramus {

namespace {

using SparseMatrix = Eigen::SparseMatrix<double>;
using Cholesky = Eigen::CholmodSupernodalLLT<SparseMatrix, Eigen::Lower>;

// Spectra's shift-invert operation (K - σM)⁻¹ x = (hβ + h²) A⁻¹ x on the step's factor of A.
class FactoredShiftInvert {
 public:
  using Scalar = double;
  FactoredShiftInvert(const Cholesky& factor, Eigen::Index n, double scale)
      : factor_(factor), n_(n), scale_(scale) {}
  Eigen::Index rows() const { return n_; }
  Eigen::Index cols() const { return n_; }
  void set_shift(double) {}  // the shift is A's own
  void perform_op(const double* x_in, double* y_out) const {
    Eigen::Map<Eigen::VectorXd>(y_out, n_) =
        scale_ * factor_.solve(Eigen::Map<const Eigen::VectorXd>(x_in, n_));
  }

 private:
  const Cholesky& factor_;
  Eigen::Index n_;
  double scale_;
};

}  // namespace

struct FullSpaceSiere::Data {
  Data(const StvkFemModel& model, const DofMap& dofs)
      : mass(model.mesh().tets, dofs), stiffness(model.mesh().tets, dofs) {
    model.add_consistent_mass(1.0, mass);
  }
  TetMatrixAssembler mass, stiffness;
  Cholesky factor;
  Eigen::MatrixXd modes;        // X: free DOFs by s
  Eigen::VectorXd eigenvalues;  // Λ
  int age = -1;
};

FullSpaceSiere::FullSpaceSiere(const StvkFemModel& model, DofMap dofs, FullSpaceOptions options,
                               FullSpaceSiereOptions siere)
    : model_(model), dofs_(std::move(dofs)), options_(options), siere_(siere) {
  if (!(options_.time_step > 0) || !std::isfinite(options_.time_step))
    throw OptionError("time step must be positive, got " + std::to_string(options_.time_step));
  if (siere_.modes < 1 || siere_.modes + 2 >= dofs_.num_free_dofs())
    throw OptionError("SIERE: modes = " + std::to_string(siere_.modes) + " must be in [1, " +
                      std::to_string(dofs_.num_free_dofs() - 3) + "] for " +
                      std::to_string(dofs_.num_free_dofs()) + " free DOFs");
  if (siere_.refresh_steps < 1) throw OptionError("SIERE: refresh steps must be at least 1");
  data_ = std::make_unique<Data>(model_, dofs_);
}

FullSpaceSiere::~FullSpaceSiere() = default;

const Eigen::VectorXd& FullSpaceSiere::eigenvalues() const {
  return data_->eigenvalues;
}

void FullSpaceSiere::step(FullSpaceState& state, const Eigen::VectorXd& external_forces) {
  Data& d = *data_;
  const double h = options_.time_step, alpha = options_.rayleigh_mass,
               beta = options_.rayleigh_stiffness;
  const int s = siere_.modes;
  // The force at u_0 over the free DOFs, K (PSD-projected, lagged) and A = M + h D + h² K.
  Eigen::VectorXd forces = model_.gravity_forces(options_.gravity);
  if (external_forces.size() == forces.size())
    forces += external_forces;
  else if (external_forces.size() != 0)
    throw OptionError("external forces have " + std::to_string(external_forces.size()) +
                      " entries, expected " + std::to_string(forces.size()));
  Eigen::VectorXd elastic = Eigen::VectorXd::Zero(forces.size());
  model_.add_elastic_energy_gradient(state.positions, elastic);
  d.stiffness.set_zero();
  model_.add_stiffness(state.positions, 1.0, true, d.stiffness);
  const SparseMatrix& M = d.mass.matrix();
  const SparseMatrix& K = d.stiffness.matrix();
  const Eigen::VectorXd v = dofs_.restrict_to_free(state.velocities);
  const Eigen::VectorXd damping_v = alpha * (M * v) + beta * (K * v);
  const Eigen::VectorXd force = dofs_.restrict_to_free(forces - elastic) - damping_v;
  const double mass_scale = 1 + h * alpha, stiffness_scale = h * beta + h * h;
  d.factor.compute(SparseMatrix(mass_scale * M + stiffness_scale * K));
  if (d.factor.info() != Eigen::Success)
    throw NumericalError("SIERE: CHOLMOD could not factor M + h D + h² K");

  // The s lowest modes: Spectra shift-invert on A's factor every k steps, else Rayleigh-Ritz.
  if (d.age < 0 || d.age >= siere_.refresh_steps) {
    const Eigen::Index n = K.rows();
    FactoredShiftInvert op(d.factor, n, stiffness_scale);
    Spectra::SparseSymMatProd<double> mass_product(M);
    Spectra::SymGEigsShiftSolver<FactoredShiftInvert, Spectra::SparseSymMatProd<double>,
                                 Spectra::GEigsMode::ShiftInvert>
        solver(op, mass_product, s, std::min<Eigen::Index>(n, 2 * s + 20),
               -mass_scale / stiffness_scale);
    solver.init();
    solver.compute(Spectra::SortRule::LargestMagn, 1000, 1e-10, Spectra::SortRule::SmallestAlge);
    if (solver.info() != Spectra::CompInfo::Successful)
      throw NumericalError("SIERE: the shift-invert Lanczos solver (Spectra) did not converge");
    d.modes = solver.eigenvectors();
    d.eigenvalues = solver.eigenvalues();
    d.age = 0;
  } else {
    const Eigen::MatrixXd ks = d.modes.transpose() * (K * d.modes);
    const Eigen::MatrixXd ms = d.modes.transpose() * (M * d.modes);
    Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> ritz(ks, ms);
    d.modes = d.modes * ritz.eigenvectors();
    d.eigenvalues = ritz.eigenvalues();
  }
  ++d.age;
  // M-normalize (Spectra's are already, to its tolerance).
  for (int i = 0; i < s; ++i) d.modes.col(i) /= std::sqrt(d.modes.col(i).dot(M * d.modes.col(i)));
  const Eigen::MatrixXd& X = d.modes;
  const Eigen::MatrixXd MX = M * X;
  const Eigen::VectorXd& lambda = d.eigenvalues;

  // The exponential part per mode: h φ1(h J_i) (Xᵀ M v, Xᵀ F), J_i = [0 1; -λ -(α + β λ)].
  const Eigen::VectorXd w0 = MX.transpose() * v, a0 = X.transpose() * force;
  Eigen::VectorXd dy(s), dw(s);
  for (int i = 0; i < s; ++i) {
    Eigen::Matrix3d m = Eigen::Matrix3d::Zero();
    m(0, 1) = h;
    m(1, 0) = -h * lambda(i);
    m(1, 1) = -h * (alpha + beta * lambda(i));
    m(0, 2) = h * w0(i);
    m(1, 2) = h * a0(i);
    const Eigen::Matrix3d e = m.exp();
    dy(i) = e(0, 2);
    dw(i) = e(1, 2);
  }

  // The rest by SI with Eq. 25's correction (Sherman-Morrison-Woodbury on A's factor).
  const Eigen::MatrixXd R = K * X - MX * lambda.asDiagonal();
  const Eigen::VectorXd v_high = v - X * w0;
  const Eigen::VectorXd f_high = force - MX * a0;
  Eigen::VectorXd c(s);
  for (int i = 0; i < s; ++i) c(i) = h * (alpha + beta * lambda(i)) + h * h * lambda(i);
  const Eigen::MatrixXd U = MX * c.asDiagonal() + h * h * R;
  const Eigen::VectorXd k_high_v =
      K * v_high - MX * (lambda.asDiagonal() * (X.transpose() * (M * v_high)));
  const Eigen::VectorXd rhs = h * f_high + MX * dw - h * h * k_high_v - h * (R * dy);
  const Eigen::MatrixXd a_inv_u = d.factor.solve(U);
  const Eigen::VectorXd a_inv_rhs = d.factor.solve(rhs);
  const Eigen::MatrixXd small =
      Eigen::MatrixXd::Identity(s, s) - MX.transpose() * a_inv_u;  // I - Vᵀ A⁻¹ U
  const Eigen::VectorXd dv =
      a_inv_rhs + a_inv_u * small.partialPivLu().solve(MX.transpose() * a_inv_rhs);
  const Eigen::VectorXd dv_high = dv - X * (MX.transpose() * dv);
  const Eigen::VectorXd dq = h * v_high + X * dy + h * dv_high;

  // The new state; fixed vertices stay.
  Eigen::VectorXd next_positions = state.positions, next_velocities = state.velocities;
  dofs_.scatter_free(dofs_.restrict_to_free(state.positions) + dq, next_positions);
  dofs_.scatter_free(v + dv, next_velocities);
  state.accelerations = (next_velocities - state.velocities) / h;
  state.positions = std::move(next_positions);
  state.velocities = std::move(next_velocities);
  state.time += h;
}

}  // namespace ramus
