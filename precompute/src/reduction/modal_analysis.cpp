#include "ramus/precompute/reduction/modal_analysis.h"

#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymGEigsShiftSolver.h>

#include <Eigen/CholmodSupport>
#include <Eigen/Dense>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/tet_matrix_assembler.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"

namespace ramus {

namespace {

using SparseMatrix = Eigen::SparseMatrix<double>;
using SparseCholesky = Eigen::CholmodSupernodalLLT<SparseMatrix, Eigen::Lower>;

// Eigenvalues below kElasticFloor * max_i K_ii / M_ii (a bound of the order of the largest
// eigenvalue of the mesh) are never taken as the "first clearly elastic" eigenvalue: rigid modes
// come out of the solver at roundoff level, about 1e-14 of that scale.
constexpr double kElasticFloor = 1e-10;
// A free body's eigenvalue is rigid when below kRigidRatio * (first clearly elastic eigenvalue).
constexpr double kRigidRatio = 1e-6;
// Shift of the eigen solve: sigma = -kShiftRatio * max_i K_ii / M_ii, so that K - sigma M is
// positive definite even with the rigid null space of a free body.
constexpr double kShiftRatio = 1e-6;
// Mass-PCA directions with singular value below kIndependentRatio * (the largest) are dependent.
constexpr double kIndependentRatio = 1e-10;

// Rest tangent stiffness K and consistent mass M over the free DOFs (num_free_dofs square).
std::pair<SparseMatrix, SparseMatrix> assemble_free_matrices(const StvkFemModel& model,
                                                             const DofMap& dofs) {
  TetMatrixAssembler stiffness(model.mesh().tets, dofs), mass(model.mesh().tets, dofs);
  model.add_stiffness(model.rest_positions(), 1.0, false, stiffness);
  model.add_consistent_mass(1.0, mass);
  return {stiffness.matrix(), mass.matrix()};
}

}  // namespace

struct FreeSystem::Impl {
  SparseMatrix K, M;
  bool factored = false;                   // factor of K tried
  std::unique_ptr<SparseCholesky> factor;  // null when K is not positive definite
};

// The stages' access to a FreeSystem's factor of K: made on first use, null when K is singular.
struct FreeSystemAccess {
  static const SparseCholesky* stiffness_factor(FreeSystem& system) {
    FreeSystem::Impl& impl = *system.impl_;
    if (!impl.factored) {
      impl.factored = true;
      auto factor = std::make_unique<SparseCholesky>();
      factor->cholmod().print = 0;
      factor->compute(impl.K);
      if (factor->info() == Eigen::Success) impl.factor = std::move(factor);
    }
    return impl.factor.get();
  }
  // Frees the factor of K (made again if asked for later): the basis stage needs memory for M's.
  static void release_stiffness_factor(FreeSystem& system) {
    system.impl_->factor.reset();
    system.impl_->factored = false;
  }
};

FreeSystem::FreeSystem(const StvkFemModel& model, const DofMap& dofs)
    : impl_(std::make_unique<Impl>()) {
  if (dofs.num_vertices() != model.num_vertices())
    throw OptionError("the DOF map has " + std::to_string(dofs.num_vertices()) +
                      " vertices but the model has " + std::to_string(model.num_vertices()));
  std::tie(impl_->K, impl_->M) = assemble_free_matrices(model, dofs);
}
FreeSystem::~FreeSystem() = default;
const Eigen::SparseMatrix<double>& FreeSystem::stiffness() const {
  return impl_->K;
}
const Eigen::SparseMatrix<double>& FreeSystem::mass() const {
  return impl_->M;
}

namespace {

void check_dof_map(const StvkFemModel& model, const DofMap& dofs, const std::string& where) {
  if (dofs.num_vertices() != model.num_vertices())
    throw OptionError(where + ": the DOF map has " + std::to_string(dofs.num_vertices()) +
                      " vertices but the model has " + std::to_string(model.num_vertices()));
}

// Fixed vertices that are one point or lie on one line leave the mesh free to rotate about them:
// found here, before the eigensolve (which would report near-zero eigenvalues without the cause).
void check_anchors_hold(const StvkFemModel& model, const DofMap& dofs, const std::string& where) {
  const std::vector<int>& fixed = dofs.fixed_vertices();
  if (fixed.empty()) return;  // a free body: its rigid modes are expected
  const Eigen::MatrixX3d& X = model.mesh().rest_positions;
  const double size = (X.colwise().maxCoeff() - X.colwise().minCoeff()).norm();
  Eigen::Vector3d mean = Eigen::Vector3d::Zero();
  for (int v : fixed) mean += X.row(v).transpose() / static_cast<double>(fixed.size());
  Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();
  for (int v : fixed) {
    const Eigen::Vector3d d = X.row(v).transpose() - mean;
    covariance += d * d.transpose() / static_cast<double>(fixed.size());
  }
  const Eigen::Vector3d spread = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(covariance)
                                     .eigenvalues()
                                     .cwiseMax(0.0)
                                     .cwiseSqrt();  // ascending: the middle one spans the plane
  if (spread(1) > 1e-6 * size) return;
  const std::string what =
      fixed.size() == 1 ? "only 1 vertex is fixed"
      : spread(2) <= 1e-6 * size
          ? "the " + std::to_string(fixed.size()) + " fixed vertices are one point"
          : "the " + std::to_string(fixed.size()) + " fixed vertices lie on one line";
  throw MeshError(where + ": " + what +
                  ", and the mesh can still rotate about it; fix at least 3 vertices not on one "
                  "line (widen the selector: a plane's tolerance, a box)");
}

void check_modes(const LinearModes& modes, const DofMap& dofs, const std::string& where) {
  const auto r1 = modes.eigenvalues.size();
  if (r1 < 1 || modes.modes.rows() != dofs.num_dofs() || modes.modes.cols() != r1 ||
      modes.rigid_modes.cols() != modes.num_rigid_modes ||
      (modes.num_rigid_modes > 0 && modes.rigid_modes.rows() != dofs.num_dofs()))
    throw OptionError(where + ": the linear modes do not match the model (expected " +
                      std::to_string(dofs.num_dofs()) + " rows and one eigenvalue per mode)");
  if (!(modes.eigenvalues.minCoeff() > 0))
    throw OptionError(where + ": the linear modes have a non-positive eigenvalue");
}

// Rows of a 3#V matrix at the free DOFs (num_free_dofs by cols).
Eigen::MatrixXd restrict_rows(const Eigen::MatrixXd& full, const DofMap& dofs) {
  Eigen::MatrixXd free(dofs.num_free_dofs(), full.cols());
  const std::vector<int>& rows = dofs.free_dofs();
  for (Eigen::Index c = 0; c < full.cols(); ++c)  // (column by column: contiguous in memory)
    for (int k = 0; k < dofs.num_free_dofs(); ++k)
      free(k, c) = full(rows[static_cast<size_t>(k)], c);
  return free;
}

// Inverse of restrict_rows: 3#V by cols, zero at the fixed DOFs.
Eigen::MatrixXd scatter_rows(const Eigen::MatrixXd& free, const DofMap& dofs) {
  Eigen::MatrixXd full = Eigen::MatrixXd::Zero(dofs.num_dofs(), free.cols());
  const std::vector<int>& rows = dofs.free_dofs();
  for (Eigen::Index c = 0; c < free.cols(); ++c)
    for (int k = 0; k < dofs.num_free_dofs(); ++k)
      full(rows[static_cast<size_t>(k)], c) = free(k, c);
  return full;
}

// B <- B L^-T with B^T M B = L L^T, so that B^T M B = I.
void mass_orthonormalize(Eigen::MatrixXd& B, const SparseMatrix& M, const std::string& where) {
  const Eigen::MatrixXd gram = B.transpose() * (M * B);
  const Eigen::LLT<Eigen::MatrixXd> llt(0.5 * (gram + gram.transpose()));
  if (llt.info() != Eigen::Success)
    throw NumericalError(where + ": the vectors to mass-orthonormalize are linearly dependent");
  llt.matrixU().solveInPlace<Eigen::OnTheRight>(B);
}

// Deterministic signs: the entry of largest magnitude of every column is positive.
void normalize_signs(Eigen::MatrixXd& B) {
  for (Eigen::Index c = 0; c < B.cols(); ++c) {
    Eigen::Index k = 0;
    B.col(c).cwiseAbs().maxCoeff(&k);
    if (B(k, c) < 0) B.col(c) *= -1.0;
  }
}

// L^T P D for CHOLMOD's supernodal factor P M P^T = L L^T, computed as L^-1 P (M D) (the same,
// since L^T = L^-1 P M P^T): its Gram matrix is D^T M D, without squaring its condition number.
// (Eigen's SimplicialLLT, used before, stalled for half an hour on a 400k-tet mass matrix.)
Eigen::MatrixXd mass_factor_transpose_times(const SparseMatrix& M,
                                            const Eigen::Ref<const Eigen::MatrixXd>& D,
                                            const std::string& where) {
  struct Cholmod {
    cholmod_common common{};
    cholmod_factor* factor = nullptr;
    Cholmod() { cholmod_start(&common); }
    ~Cholmod() {
      cholmod_free_factor(&factor, &common);
      cholmod_finish(&common);
    }
    Cholmod(const Cholmod&) = delete;
    Cholmod& operator=(const Cholmod&) = delete;
  } cholmod;
  cholmod.common.print = 0;
  cholmod.common.supernodal = CHOLMOD_SUPERNODAL;  // always L L^T, never L D L^T
  cholmod.common.final_ll = 1;
  cholmod_sparse A = Eigen::viewAsCholmod(M.selfadjointView<Eigen::Lower>());
  cholmod.factor = cholmod_analyze(&A, &cholmod.common);
  if (cholmod.factor == nullptr || cholmod.common.status < CHOLMOD_OK)
    throw NumericalError(where + ": could not order the mass matrix (CHOLMOD status " +
                         std::to_string(cholmod.common.status) + ", out of memory?)");
  cholmod_factorize(&A, cholmod.factor, &cholmod.common);
  if (cholmod.common.status < CHOLMOD_OK)
    throw NumericalError(where + ": could not factor the mass matrix (CHOLMOD status " +
                         std::to_string(cholmod.common.status) + ", out of memory?)");
  if (cholmod.common.status == CHOLMOD_NOT_POSDEF || cholmod.factor->minor < cholmod.factor->n)
    throw NumericalError(where +
                         ": the mass matrix is not positive definite (a tet of zero "
                         "volume or density?)");
  // In blocks of columns, so that the temporaries (M D, P M D and CHOLMOD's copies) stay small.
  constexpr Eigen::Index kBlock = 16;
  Eigen::MatrixXd result(D.rows(), D.cols());
  for (Eigen::Index first = 0; first < D.cols(); first += kBlock) {
    const Eigen::Index width = std::min(kBlock, D.cols() - first);
    Eigen::MatrixXd MD = M.selfadjointView<Eigen::Lower>() * D.middleCols(first, width);
    cholmod_dense B = Eigen::viewAsCholmod(MD);
    cholmod_dense* PB = cholmod_solve(CHOLMOD_P, cholmod.factor, &B, &cholmod.common);
    cholmod_dense* Y =
        PB == nullptr ? nullptr : cholmod_solve(CHOLMOD_L, cholmod.factor, PB, &cholmod.common);
    if (Y != nullptr)
      result.middleCols(first, width) =
          Eigen::Map<const Eigen::MatrixXd>(static_cast<const double*>(Y->x), D.rows(), width);
    cholmod_free_dense(&PB, &cholmod.common);
    const bool solved = Y != nullptr;
    cholmod_free_dense(&Y, &cholmod.common);
    if (!solved)
      throw NumericalError(where +
                           ": the triangular solves with the mass factor failed (CHOLMOD "
                           "status " +
                           std::to_string(cholmod.common.status) + ")");
  }
  return result;
}

// Spectra operation y = (K - sigma M)^-1 x, K - sigma M factored by CHOLMOD (supernodal LLT).
// With sigma = 0 and a factor of K given, that factor is used.
class CholmodShiftInvert {
 public:
  using Scalar = double;
  CholmodShiftInvert(const SparseMatrix& K, const SparseMatrix& M,
                     const SparseCholesky* stiffness_factor)
      : K_(K), M_(M), stiffness_factor_(stiffness_factor) {}
  Eigen::Index rows() const { return K_.rows(); }
  Eigen::Index cols() const { return K_.cols(); }
  void set_shift(double sigma) {
    if (sigma == 0 && stiffness_factor_ != nullptr) {
      factor_ = stiffness_factor_;
      return;
    }
    own_factor_.cholmod().print = 0;
    own_factor_.compute(SparseMatrix(K_ - sigma * M_));
    if (own_factor_.info() != Eigen::Success)
      throw NumericalError("linear modes: CHOLMOD could not factor K - sigma M (sigma = " +
                           std::to_string(sigma) + "): not positive definite");
    factor_ = &own_factor_;
  }
  void perform_op(const double* x_in, double* y_out) const {
    Eigen::Map<Eigen::VectorXd>(y_out, rows()) =
        factor_->solve(Eigen::Map<const Eigen::VectorXd>(x_in, rows()));
  }

 private:
  const SparseMatrix& K_;
  const SparseMatrix& M_;
  const SparseCholesky* stiffness_factor_;
  SparseCholesky own_factor_;
  const SparseCholesky* factor_ = nullptr;
};

// -T[phi_i, phi_j] over the free DOFs (num_free_dofs by r1 (r1 + 1) / 2, pair_index order):
// minus the third derivative of the elastic energy at rest contracted with two modes. The pairs
// are shared out over the cores (each thread its own columns: no sums to merge, deterministic).
Eigen::MatrixXd modal_derivative_rhs(const StvkFemModel& model, const DofMap& dofs,
                                     const Eigen::MatrixXd& phi) {
  const int r1 = static_cast<int>(phi.cols());
  const int num_columns = num_pairs(r1);
  Eigen::MatrixXd rhs = Eigen::MatrixXd::Zero(dofs.num_free_dofs(), num_columns);
  const Eigen::VectorXd& rest = model.rest_positions();
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1,
                                 std::max(1, num_columns));
  std::vector<std::vector<Vector12d>> corners_of(static_cast<size_t>(threads),
                                                 std::vector<Vector12d>(static_cast<size_t>(r1)));
  const auto work = [&](int k) {
    const int first = num_columns * k / threads, last = num_columns * (k + 1) / threads;
    std::vector<Vector12d>& corners = corners_of[static_cast<size_t>(k)];
    int rows[12];
    for (int t = 0; t < model.num_tets(); ++t) {
      bool any_free = false;
      for (int a = 0; a < 4; ++a)
        for (int c = 0; c < 3; ++c) {
          const int dof = 3 * model.mesh().tets(t, a) + c;
          rows[3 * a + c] = dofs.free_index(dof);
          any_free = any_free || rows[3 * a + c] >= 0;
          for (int m = 0; m < r1; ++m) corners[static_cast<size_t>(m)](3 * a + c) = phi(dof, m);
        }
      if (!any_free) continue;
      const Matrix34d x = model.tet_corners(rest, t);
      const LinearTetRest& tet_rest = model.rest_data()[static_cast<size_t>(t)];
      const LameParameters& lame = model.lame()[static_cast<size_t>(t)];
      for (int i = 0; i < r1; ++i)
        for (int j = i; j < r1; ++j) {
          const int column = pair_index(i, j, r1);
          if (column < first || column >= last) continue;
          const Vector12d f = stvk_tet_energy_third_derivative(
              x, tet_rest, lame, corners[static_cast<size_t>(i)], corners[static_cast<size_t>(j)]);
          for (int e = 0; e < 12; ++e)
            if (rows[e] >= 0) rhs(rows[e], column) -= f(e);
        }
    }
  };
  {
    std::vector<std::jthread> pool;
    for (int k = 1; k < threads; ++k) pool.emplace_back(work, k);
    work(0);
  }
  return rhs;
}

}  // namespace

LinearModes compute_linear_modes(const StvkFemModel& model, const DofMap& dofs, int num_modes) {
  check_dof_map(model, dofs, "linear modes");
  FreeSystem system(model, dofs);
  return compute_linear_modes(model, dofs, num_modes, system);
}

LinearModes compute_linear_modes(const StvkFemModel& model, const DofMap& dofs, int num_modes,
                                 FreeSystem& system) {
  const std::string where = "linear modes";
  check_dof_map(model, dofs, where);
  check_anchors_hold(model, dofs, where);
  const bool free_body = dofs.fixed_vertices().empty();
  const int expected_rigid = free_body ? 6 : 0;
  const int n = dofs.num_free_dofs();
  if (num_modes < 1 || num_modes + expected_rigid >= n)
    throw OptionError(
        where + ": num_modes = " + std::to_string(num_modes) + " but the model has " +
        std::to_string(n) + " free DOFs" + (free_body ? " and 6 rigid modes" : std::string()) +
        "; num_modes must be in [1, " + std::to_string(std::max(n - expected_rigid - 1, 0)) + "]");

  const SparseMatrix& K = system.stiffness();
  const SparseMatrix& M = system.mass();
  const double lambda_scale = K.diagonal().cwiseQuotient(M.diagonal()).maxCoeff();
  // An anchored body's K is positive definite: sigma = 0 and the factor the modal derivatives
  // reuse. A free body (or a piece no anchor holds, found below) needs K - sigma M, sigma < 0.
  const SparseCholesky* stiffness_factor =
      free_body ? nullptr : FreeSystemAccess::stiffness_factor(system);
  const double sigma = stiffness_factor != nullptr ? 0.0 : -kShiftRatio * lambda_scale;
  const int nev = num_modes + expected_rigid;
  const int ncv = std::min(n, 2 * nev + 20);

  using MassProduct = Spectra::SparseSymMatProd<double>;
  CholmodShiftInvert shift_invert(K, M, stiffness_factor);
  MassProduct mass_product(M);
  Spectra::SymGEigsShiftSolver<CholmodShiftInvert, MassProduct, Spectra::GEigsMode::ShiftInvert>
      solver(shift_invert, mass_product, nev, ncv, sigma);
  // Spectra's own failures (a tridiagonal eigen-solve of non-finite values) named as ours.
  Eigen::Index nconv = 0;
  try {
    solver.init();
    nconv = solver.compute(Spectra::SortRule::LargestMagn, 1000, 1e-10,
                           Spectra::SortRule::SmallestAlge);
  } catch (const std::runtime_error& e) {
    throw NumericalError(where + ": the shift-invert Lanczos solver (Spectra) failed (" + e.what() +
                         "): stiffness and mass out of any usable range?");
  }
  if (solver.info() != Spectra::CompInfo::Successful)
    throw NumericalError(where + ": the shift-invert Lanczos solver (Spectra) did not converge: " +
                         std::to_string(nconv) + " of " + std::to_string(nev) +
                         " eigenpairs converged");

  // Ascending order (Spectra sorts already; kept explicit).
  const Eigen::VectorXd values = solver.eigenvalues();
  const Eigen::MatrixXd vectors = solver.eigenvectors();
  std::vector<int> order(static_cast<size_t>(nev));
  for (int k = 0; k < nev; ++k) order[static_cast<size_t>(k)] = k;
  std::sort(order.begin(), order.end(), [&](int a, int b) { return values(a) < values(b); });
  Eigen::VectorXd lambda(nev);
  Eigen::MatrixXd phi(n, nev);
  for (int k = 0; k < nev; ++k) {
    lambda(k) = values(order[static_cast<size_t>(k)]);
    phi.col(k) = vectors.col(order[static_cast<size_t>(k)]);
  }

  // Rigid modes: below kRigidRatio times the first eigenvalue above the roundoff floor.
  int num_rigid = 0;
  const double floor = kElasticFloor * lambda_scale;
  while (num_rigid < nev && !(lambda(num_rigid) > floor)) ++num_rigid;
  if (num_rigid < nev) {
    const double threshold = kRigidRatio * lambda(num_rigid);
    num_rigid = 0;
    while (num_rigid < nev && lambda(num_rigid) < threshold) ++num_rigid;
  }
  if (free_body && num_rigid != 6)
    throw NumericalError(where +
                         ": a free body (no fixed vertices) must have exactly 6 rigid modes, but " +
                         (num_rigid == nev ? "at least " : "") + std::to_string(num_rigid) +
                         " near-zero eigenvalues were found" +
                         (num_rigid > 6 ? " (is the mesh made of several disconnected pieces, or "
                                          "of parts joined only at a vertex or an edge?)"
                                        : ""));
  if (!free_body && num_rigid > 0)
    throw NumericalError(where + ": " + std::to_string(num_rigid) +
                         " near-zero eigenvalues although vertices are fixed: part of the mesh is "
                         "not held by the fixed vertices");

  LinearModes result;
  result.eigenvalues = lambda.tail(num_modes);
  Eigen::MatrixXd elastic = phi.rightCols(num_modes);
  for (int k = 0; k < num_modes; ++k)
    elastic.col(k) /= std::sqrt(elastic.col(k).dot(M * elastic.col(k)));
  normalize_signs(elastic);
  result.modes = scatter_rows(elastic, dofs);
  result.num_rigid_modes = num_rigid;
  Eigen::MatrixXd rigid = phi.leftCols(num_rigid);
  if (num_rigid > 0) mass_orthonormalize(rigid, M, where);
  result.rigid_modes = scatter_rows(rigid, dofs);
  return result;
}

Eigen::MatrixXd compute_modal_derivatives(const StvkFemModel& model, const DofMap& dofs,
                                          const LinearModes& modes) {
  check_dof_map(model, dofs, "modal derivatives");
  FreeSystem system(model, dofs);
  return compute_modal_derivatives(model, dofs, modes, system);
}

Eigen::MatrixXd compute_modal_derivatives(const StvkFemModel& model, const DofMap& dofs,
                                          const LinearModes& modes, FreeSystem& system) {
  const std::string where = "modal derivatives";
  check_dof_map(model, dofs, where);
  check_modes(modes, dofs, where);
  const SparseMatrix& K = system.stiffness();
  const SparseMatrix& M = system.mass();
  Eigen::MatrixXd rhs = modal_derivative_rhs(model, dofs, modes.modes);

  // Free body: K R = 0 for the rigid modes R, so K Psi = rhs needs R^T rhs = 0; remove the
  // rigid loads (P^T rhs with the M-orthogonal projector P = I - R R^T M) and solve with the
  // regularized K + eps M, eps = 1e-4 lambda_1. Its error is removed by iterative refinement
  // (each pass scales it by eps / (lambda_1 + eps) <= 1e-4); the rigid part of the result is
  // projected out at the end.
  const bool free_body = modes.num_rigid_modes > 0;
  Eigen::MatrixXd R, MR;
  double eps = 0;
  if (free_body) {
    R = restrict_rows(modes.rigid_modes, dofs);
    MR = M * R;
    rhs -= MR * (R.transpose() * rhs);
    eps = 1e-4 * modes.eigenvalues.minCoeff();
  }
  SparseCholesky regularized;
  if (free_body) regularized.compute(SparseMatrix(K + eps * M));
  const SparseCholesky* factor =
      free_body ? (regularized.info() == Eigen::Success ? &regularized : nullptr)
                : FreeSystemAccess::stiffness_factor(system);
  if (factor == nullptr)
    throw NumericalError(where + ": CHOLMOD could not factor the rest stiffness" +
                         (free_body ? std::string(" + eps M") : std::string()) +
                         ": not positive definite");
  Eigen::MatrixXd psi = factor->solve(rhs);
  double previous = std::numeric_limits<double>::infinity();
  for (int pass = 0; free_body && pass < 10; ++pass) {  // until converged or stagnating
    const Eigen::MatrixXd correction = factor->solve(rhs - K * psi);
    const double size = correction.norm();
    if (size >= 0.5 * previous) break;
    psi += correction;
    if (size <= 1e-13 * psi.norm()) break;
    previous = size;
  }
  if (free_body) psi -= R * (MR.transpose() * psi);
  return scatter_rows(psi, dofs);
}

ReducedBasis compute_reduced_basis(const StvkFemModel& model, const DofMap& dofs,
                                   const LinearModes& modes,
                                   const Eigen::MatrixXd& modal_derivatives, int r) {
  check_dof_map(model, dofs, "reduced basis");
  FreeSystem system(model, dofs);
  return compute_reduced_basis(model, dofs, modes, modal_derivatives, r, system);
}

ReducedBasis compute_reduced_basis(const StvkFemModel& model, const DofMap& dofs,
                                   const LinearModes& modes,
                                   const Eigen::MatrixXd& modal_derivatives, int r,
                                   FreeSystem& system) {
  const std::string where = "reduced basis";
  FreeSystemAccess::release_stiffness_factor(system);
  check_dof_map(model, dofs, where);
  check_modes(modes, dofs, where);
  const int r1 = static_cast<int>(modes.eigenvalues.size());
  // No modal derivatives (0 columns): the linear modes are the only candidates.
  const int p = modal_derivatives.cols() == 0 ? 0 : num_pairs(r1);
  if (p > 0 && (modal_derivatives.rows() != dofs.num_dofs() || modal_derivatives.cols() != p))
    throw OptionError(where + ": expected " + std::to_string(num_pairs(r1)) +
                      " modal derivatives (or none) of " + std::to_string(dofs.num_dofs()) +
                      " rows, got " + std::to_string(modal_derivatives.cols()) + " of " +
                      std::to_string(modal_derivatives.rows()));
  if (r < 1) throw OptionError(where + ": r = " + std::to_string(r) + " must be >= 1");

  // Candidates at the free DOFs: phi_i lambda_1 / lambda_i, then Psi_ij lambda_1^2 /
  // (lambda_i lambda_j).
  const Eigen::VectorXd& lambda = modes.eigenvalues;
  Eigen::MatrixXd X(dofs.num_free_dofs(), r1 + p);
  const std::vector<int>& free_rows = dofs.free_dofs();
  const auto take = [&](Eigen::Index column, const Eigen::MatrixXd& from, Eigen::Index c,
                        double scale) {
    for (int k = 0; k < dofs.num_free_dofs(); ++k)
      X(k, column) = scale * from(free_rows[static_cast<size_t>(k)], c);
  };
  for (int i = 0; i < r1; ++i) {
    take(i, modes.modes, i, lambda(0) / lambda(i));
    for (int j = i; j < r1 && p > 0; ++j) {
      const int c = pair_index(i, j, r1);
      take(r1 + c, modal_derivatives, c, lambda(0) * lambda(0) / (lambda(i) * lambda(j)));
    }
  }
  const SparseMatrix& K = system.stiffness();
  const SparseMatrix& M = system.mass();
  if (modes.num_rigid_modes > 0) {
    const Eigen::MatrixXd R = restrict_rows(modes.rigid_modes, dofs);
    X -= R * ((M * R).transpose() * X);
  }

  // The linear modes are kept exactly; the mass-PCA ranks only what the (scaled) modal
  // derivatives add M-orthogonally to them. (A PCA over modes and derivatives together can drop
  // part of phi_1, since mass-normalized modes and derivatives have different units.)
  const int kept_modes = std::min(r, r1);
  const Eigen::MatrixXd Phi =
      X.leftCols(kept_modes) * (lambda.head(kept_modes).array() / lambda(0)).matrix().asDiagonal();
  Eigen::MatrixXd U(X.rows(), r);
  U.leftCols(kept_modes) = Phi;
  Eigen::VectorXd singular_values = Eigen::VectorXd::Ones(r);
  if (r > r1 && p == 0)
    throw OptionError(where + ": r = " + std::to_string(r) + " needs modal derivatives: only " +
                      std::to_string(r1) + " linear modes were given");
  if (r > r1) {
    auto D = X.rightCols(p);  // (in place: the candidates' columns become D)
    D -= Phi * ((M * Phi).transpose() * D);
    // Mass-PCA: the SVD of L^T P D (P M P^T = L L^T) has the spectrum of the Gram matrix D^T M D
    // without squaring its condition number, so that 1e-10 relative singular values are
    // resolved. The reference scale is the first scaled mode's M-norm, 1. It is taken from the
    // R of a Householder QR of L^T P D, made in place (R has its singular values and right
    // singular vectors; backward stable as the SVD itself), so no tall copy is made.
    Eigen::MatrixXd Y = mass_factor_transpose_times(M, D, where);
    const Eigen::HouseholderQR<Eigen::Ref<Eigen::MatrixXd>> qr(Y);
    const Eigen::MatrixXd R =
        qr.matrixQR().topRows(std::min(Y.rows(), Y.cols())).triangularView<Eigen::Upper>();
    const Eigen::BDCSVD<Eigen::MatrixXd> svd(R, Eigen::ComputeThinV);
    const Eigen::VectorXd& sv = svd.singularValues();
    int independent = 0;
    while (independent < sv.size() && sv(independent) > kIndependentRatio * std::max(1.0, sv(0)))
      ++independent;
    if (r - r1 > independent)
      throw OptionError(where + ": r = " + std::to_string(r) + " but only " +
                        std::to_string(r1 + independent) + " independent directions (" +
                        std::to_string(r1) + " linear modes + " + std::to_string(independent) +
                        " from their " + std::to_string(p) + " modal derivatives)");
    U.rightCols(r - r1) =
        D * (svd.matrixV().leftCols(r - r1) * sv.head(r - r1).cwiseInverse().asDiagonal());
    singular_values.tail(r - r1) = sv.head(r - r1);
  }
  mass_orthonormalize(U, M, where);
  const Eigen::MatrixXd KU = K * U;
  const Eigen::MatrixXd reduced_stiffness = U.transpose() * KU;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(
      0.5 * (reduced_stiffness + reduced_stiffness.transpose()));
  U = U * eig.eigenvectors();
  normalize_signs(U);

  ReducedBasis result;
  result.basis = scatter_rows(U, dofs);
  result.eigenvalues = eig.eigenvalues();
  result.singular_values = singular_values;
  return result;
}

}  // namespace ramus
