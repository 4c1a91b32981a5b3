#include "ramus/precompute/fem/stvk_fem_model.h"

#include "ramus/precompute/fem/fixed_corotated_energy.h"

#include <string>

#include "ramus/error.h"

namespace ramus {

Matrix12d tet_consistent_mass(double density, double volume) {
  Matrix12d M = Matrix12d::Zero();
  const double m = density * volume / 20.0;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      M.block<3, 3>(3 * a, 3 * b) = (a == b ? 2.0 * m : m) * Eigen::Matrix3d::Identity();
  return M;
}

StvkFemModel::StvkFemModel(TetMesh mesh, std::vector<Material> tet_materials)
    : mesh_(std::move(mesh)), materials_(std::move(tet_materials)) {
  const int V = mesh_.num_vertices(), T = mesh_.num_tets();
  if (T == 0) throw MeshError("StvkFemModel: the mesh has no tets");
  if (static_cast<int>(materials_.size()) != T)
    throw OptionError("StvkFemModel: " + std::to_string(materials_.size()) +
                      " materials given for " + std::to_string(T) + " tets");
  rest_positions_ = flatten_positions(mesh_.rest_positions);
  lame_.resize(static_cast<size_t>(T));
  rest_.resize(static_cast<size_t>(T));
  for (int t = 0; t < T; ++t) {
    for (int a = 0; a < 4; ++a) {
      const int v = mesh_.tets(t, a);
      if (v < 0 || v >= V)
        throw MeshError("tet " + std::to_string(t) + " references vertex " + std::to_string(v) +
                            " but the mesh has " + std::to_string(V) + " vertices",
                        t, v);
    }
    const double volume = signed_tet_volume(mesh_.rest_positions, mesh_.tets, t);
    if (!(volume > 0))
      throw MeshError("tet " + std::to_string(t) + " has non-positive rest volume " +
                          std::to_string(volume) + " m^3 (inverted or degenerate)",
                      t);
    validate_material(materials_[static_cast<size_t>(t)],
                      ("material of tet " + std::to_string(t)).c_str());
    lame_[static_cast<size_t>(t)] = lame_parameters(materials_[static_cast<size_t>(t)]);
    rest_[static_cast<size_t>(t)] = linear_tet_rest(tet_corners(rest_positions_, t));
  }
}

Matrix34d StvkFemModel::tet_corners(const Eigen::VectorXd& x, int t) const {
  Matrix34d corners;
  for (int a = 0; a < 4; ++a) corners.col(a) = x.segment<3>(3 * mesh_.tets(t, a));
  return corners;
}

namespace {

// A tet's energy (J), gradient (12) and Hessian (12 by 12) under its material's model.
double tet_energy(const Matrix34d& x, const LinearTetRest& rest, const LameParameters& lame,
                  ElasticModel model) {
  if (model == ElasticModel::kStvk) return stvk_tet_energy(x, rest, lame);
  return rest.volume * fixed_corotated_energy_density(deformation_gradient(x, rest), lame);
}

Vector12d tet_gradient(const Matrix34d& x, const LinearTetRest& rest, const LameParameters& lame,
                       ElasticModel model) {
  if (model == ElasticModel::kStvk) return stvk_tet_energy_gradient(x, rest, lame);
  const Matrix34d gradient =
      rest.volume * fixed_corotated_first_piola_kirchhoff(deformation_gradient(x, rest), lame) *
      rest.shape_gradients.transpose();
  return Eigen::Map<const Vector12d>(gradient.data());
}

Matrix12d tet_hessian(const Matrix34d& x, const LinearTetRest& rest, const LameParameters& lame,
                      ElasticModel model) {
  if (model == ElasticModel::kStvk) return stvk_tet_energy_hessian(x, rest, lame);
  const Eigen::Matrix<double, 9, 12> B = deformation_gradient_jacobian(rest);
  const Matrix12d H =
      rest.volume * B.transpose() *
      fixed_corotated_first_piola_kirchhoff_derivative(deformation_gradient(x, rest), lame) * B;
  return 0.5 * (H + H.transpose());
}

}  // namespace

double StvkFemModel::elastic_energy(const Eigen::VectorXd& x) const {
  double energy = 0;
  for (int t = 0; t < num_tets(); ++t)
    energy += tet_energy(tet_corners(x, t), rest_[static_cast<size_t>(t)],
                         lame_[static_cast<size_t>(t)], materials_[static_cast<size_t>(t)].model);
  return energy;
}

void StvkFemModel::add_elastic_energy_gradient(const Eigen::VectorXd& x,
                                               Eigen::VectorXd& gradient) const {
  for (int t = 0; t < num_tets(); ++t) {
    const Vector12d g =
        tet_gradient(tet_corners(x, t), rest_[static_cast<size_t>(t)],
                     lame_[static_cast<size_t>(t)], materials_[static_cast<size_t>(t)].model);
    for (int a = 0; a < 4; ++a) gradient.segment<3>(3 * mesh_.tets(t, a)) += g.segment<3>(3 * a);
  }
}

Eigen::VectorXd StvkFemModel::internal_forces(const Eigen::VectorXd& x) const {
  Eigen::VectorXd gradient = Eigen::VectorXd::Zero(x.size());
  add_elastic_energy_gradient(x, gradient);
  return -gradient;
}

void StvkFemModel::add_stiffness(const Eigen::VectorXd& x, double scale, bool project_psd,
                                 TetMatrixAssembler& assembler) const {
  for (int t = 0; t < num_tets(); ++t) {
    Matrix12d H =
        tet_hessian(tet_corners(x, t), rest_[static_cast<size_t>(t)], lame_[static_cast<size_t>(t)],
                    materials_[static_cast<size_t>(t)].model);
    if (project_psd) H = project_to_positive_semidefinite(H);
    assembler.add(t, scale * H);
  }
}

Eigen::SparseMatrix<double> StvkFemModel::stiffness_matrix(const Eigen::VectorXd& x) const {
  TetMatrixAssembler assembler(mesh_.tets, DofMap(num_vertices(), {}));
  add_stiffness(x, 1.0, false, assembler);
  return assembler.matrix();
}

void StvkFemModel::add_consistent_mass(double scale, TetMatrixAssembler& assembler) const {
  for (int t = 0; t < num_tets(); ++t)
    assembler.add(t, tet_consistent_mass(scale * materials_[static_cast<size_t>(t)].density,
                                         rest_[static_cast<size_t>(t)].volume));
}

Eigen::SparseMatrix<double> StvkFemModel::consistent_mass_matrix() const {
  TetMatrixAssembler assembler(mesh_.tets, DofMap(num_vertices(), {}));
  add_consistent_mass(1.0, assembler);
  return assembler.matrix();
}

Eigen::VectorXd StvkFemModel::lumped_vertex_masses() const {
  Eigen::VectorXd masses = Eigen::VectorXd::Zero(num_vertices());
  for (int t = 0; t < num_tets(); ++t) {
    const double quarter =
        materials_[static_cast<size_t>(t)].density * rest_[static_cast<size_t>(t)].volume / 4.0;
    for (int a = 0; a < 4; ++a) masses(mesh_.tets(t, a)) += quarter;
  }
  return masses;
}

double StvkFemModel::total_mass() const {
  return lumped_vertex_masses().sum();
}

Eigen::VectorXd StvkFemModel::gravity_forces(const Eigen::Vector3d& gravity) const {
  const Eigen::VectorXd masses = lumped_vertex_masses();
  Eigen::VectorXd forces(3 * num_vertices());
  for (int v = 0; v < num_vertices(); ++v) forces.segment<3>(3 * v) = masses(v) * gravity;
  return forces;
}

}  // namespace ramus
