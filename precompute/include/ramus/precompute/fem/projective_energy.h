// The projective energies of Projective Dynamics as "Stabilizing integrators for real-time
// physics" (2018, §4.2, Eq. 26-27) writes them: E(x) = Σ_i w_i/2 |G_i x - p_i|², p_i the
// projection of G_i x onto its constraint manifold. A spring's G_i x is x_a - x_b and its manifold
// the sphere of the rest length (w = k: exactly the spring energy k/2 (|d| - L)²); a tet's G_i x is
// its deformation gradient F and its manifold SO(3) (w = 2 mu V: exactly the fixed corotated
// energy mu V |F - R|² with lambda = 0). E is the same function of x for any p, so its gradient
// L x - J p(x) (the envelope theorem) is the elastic force the local/global solver balances.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "ramus/precompute/cloth/mass_spring_cloth.h"
#include "ramus/precompute/fem/stvk_fem_model.h"

namespace ramus {

/// Positions or forces of #V vertices, one row each (#V by 3, row-major: a flat 3#V vector
/// x0 y0 z0 x1 ... maps onto it).
using VertexRows = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>;

/// Springs as projective terms: ends (#S by 2), rest lengths L (m, #S) and weights k (N/m, #S).
struct ProjectiveSprings {
  Eigen::MatrixX2i ends;
  Eigen::VectorXd rest_lengths, weights;
};

/// Tets as projective terms: corners (#T by 4), each tet's shape gradients dN_a/dX (row a, 4 by
/// 3, 1/m) and weights 2 mu V (N m).
struct ProjectiveTets {
  Eigen::MatrixX4i corners;
  std::vector<Eigen::Matrix<double, 4, 3>> shape_gradients;
  Eigen::VectorXd weights;
};

class ProjectiveEnergy {
 public:
  /// Checks the indices, finite positive rest lengths and non-negative finite weights
  /// (InputError-free: OptionError naming the term).
  ProjectiveEnergy(int num_vertices, ProjectiveSprings springs, ProjectiveTets tets);

  int num_vertices() const { return num_vertices_; }
  int num_springs() const { return static_cast<int>(springs_.weights.size()); }
  int num_tets() const { return static_cast<int>(tets_.weights.size()); }

  /// L = Σ w_i G_iᵀ G_i on one coordinate (#V by #V, symmetric PSD); the operator on x is L ⊗ I3.
  Eigen::SparseMatrix<double> laplacian() const;
  /// The local step: J p(x) = Σ w_i G_iᵀ p_i with each p_i the projection of G_i x (#V by 3, N).
  void projected_forces(const VertexRows& x, VertexRows& jp) const;
  /// E(x) in J (x #V by 3, m).
  double energy(const VertexRows& x) const;
  /// dE/dx = L x - J p(x) (#V by 3, N).
  VertexRows gradient(const VertexRows& x) const;

 private:
  int num_vertices_ = 0;
  ProjectiveSprings springs_;
  ProjectiveTets tets_;
  Eigen::SparseMatrix<double> laplacian_;
};

/// A cloth's springs (stretch and bending, their stiffness the weight) as projective terms.
ProjectiveEnergy projective_cloth_energy(const MassSpringCloth& cloth);

/// A tet model's elements as projective corotated terms, w = 2 mu V. Throws OptionError unless
/// every tet's material is fixed_corotated with Poisson ratio 0 (lambda = 0: the energy the
/// local/global solver minimizes exactly), naming the first tet that is not.
ProjectiveEnergy projective_corotated_energy(const StvkFemModel& model);

}  // namespace ramus
