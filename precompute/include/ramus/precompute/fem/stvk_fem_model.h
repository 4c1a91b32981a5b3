// Full-space StVK finite-element model of a linear tet mesh: energy, forces, tangent stiffness,
// consistent and lumped mass, gravity. Positions are flat 3#V vectors (see dof_map.h).
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <vector>

#include "ramus/precompute/fem/dof_map.h"
#include "ramus/precompute/fem/material.h"
#include "ramus/precompute/fem/stvk_energy.h"
#include "ramus/precompute/fem/tet_matrix_assembler.h"
#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// Consistent mass matrix of one linear tet (12 by 12): rho V / 20 (1 + delta_ab) I3 blocks.
Matrix12d tet_consistent_mass(double density, double volume);

class StvkFemModel {
 public:
  /// Validates the mesh (indices, positive rest volumes) and materials (#T entries).
  StvkFemModel(TetMesh mesh, std::vector<Material> tet_materials);

  const TetMesh& mesh() const { return mesh_; }
  int num_vertices() const { return mesh_.num_vertices(); }
  int num_tets() const { return mesh_.num_tets(); }
  const std::vector<LinearTetRest>& rest_data() const { return rest_; }
  const std::vector<LameParameters>& lame() const { return lame_; }
  const std::vector<Material>& materials() const { return materials_; }

  /// Rest positions as a flat 3#V vector.
  const Eigen::VectorXd& rest_positions() const { return rest_positions_; }
  /// Corner positions of tet t (3 by 4) taken from flat positions x (3#V).
  Matrix34d tet_corners(const Eigen::VectorXd& x, int t) const;

  /// Total elastic energy (J) at positions x (3#V).
  double elastic_energy(const Eigen::VectorXd& x) const;
  /// Adds dEnergy/dx (3#V) to `gradient`; internal forces are its negative.
  void add_elastic_energy_gradient(const Eigen::VectorXd& x, Eigen::VectorXd& gradient) const;
  /// Internal elastic forces f_int(x) = -dEnergy/dx (3#V).
  Eigen::VectorXd internal_forces(const Eigen::VectorXd& x) const;
  /// Tangent stiffness K(x) = d^2 Energy/dx^2 over all DOFs (3#V by 3#V, sparse, symmetric).
  Eigen::SparseMatrix<double> stiffness_matrix(const Eigen::VectorXd& x) const;
  /// Adds scale * (element Hessian, or its PSD projection) of every tet into `assembler`.
  void add_stiffness(const Eigen::VectorXd& x, double scale, bool project_psd,
                     TetMatrixAssembler& assembler) const;

  /// Consistent mass matrix over all DOFs (3#V by 3#V).
  Eigen::SparseMatrix<double> consistent_mass_matrix() const;
  /// Adds scale * consistent element mass of every tet into `assembler`.
  void add_consistent_mass(double scale, TetMatrixAssembler& assembler) const;
  /// Lumped (row-sum) vertex masses (#V): rho V / 4 from each incident tet.
  Eigen::VectorXd lumped_vertex_masses() const;
  double total_mass() const;
  /// Gravity forces M g (3#V); identical for lumped and consistent mass.
  Eigen::VectorXd gravity_forces(const Eigen::Vector3d& gravity) const;

 private:
  TetMesh mesh_;
  std::vector<Material> materials_;
  std::vector<LameParameters> lame_;
  std::vector<LinearTetRest> rest_;
  Eigen::VectorXd rest_positions_;
};

}  // namespace ramus
