// The contents of a Ramus model file (HDF5, docs/FORMAT.md) as plain data: everything the
// runtime needs to simulate, plus provenance. Written by precompute (model_file_writer.h), read
// by read_model_file (model_file.h).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "ramus/runtime/reduced_stvk_polynomial.h"

namespace ramus {

/// Version of the model-file schema this build writes and reads.
constexpr int kModelFormatVersion = 1;

/// One reduced domain: its mesh, fixed vertices, basis and polynomial.
struct ReducedDomain {
  std::string name;                    ///< e.g. "domain_0" or a part name
  Eigen::MatrixX3d rest_positions;     ///< #V by 3 (m)
  Eigen::MatrixX4i tets;               ///< #T by 4
  Eigen::MatrixX3i surface_triangles;  ///< #F by 3, outward, indices into rest_positions
  Eigen::VectorXi labels;              ///< #T or empty
  Eigen::VectorXd youngs_modulus;      ///< #T (Pa)
  Eigen::VectorXd poisson_ratio;       ///< #T
  Eigen::VectorXd density;             ///< #T (kg/m^3)
  Eigen::VectorXi fixed_vertices;      ///< anchored vertices (sorted); empty for a free body
  int num_rigid_modes = 0;             ///< 6 for a free body (removed from the basis), else 0
  Eigen::MatrixXd basis;               ///< U: 3#V by r, mass-orthonormal (Uᵀ M U = I)
  Eigen::VectorXd basis_eigenvalues;   ///< r: eigenvalues of K2 = Uᵀ K U (rad^2/s^2), ascending
  Eigen::VectorXd linear_mode_eigenvalues;  ///< r1: K phi = lambda M phi, lowest elastic modes
  Eigen::MatrixXd gravity_basis;            ///< r by 3: Uᵀ M [e_x e_y e_z], so f_red = G g
  double mass = 0;                          ///< total mass (kg)
  ReducedStvkPolynomial polynomial;         ///< exact reduced StVK forces
};

/// Where a model came from: recorded by precompute, shown by `ramus inspect`.
struct ModelProvenance {
  std::string tool_version;      ///< Ramus version that wrote the file
  std::string created_utc;       ///< ISO 8601 time of writing
  std::string spec_path;         ///< the spec file given to precompute
  std::string spec_json;         ///< its full text
  std::string mesh_path;         ///< the mesh it named
  std::uint64_t input_hash = 0;  ///< FNV-1a 64 of the spec text followed by the mesh file bytes
  std::string options_json;      ///< effective precompute options (JSON)
};

/// A whole model file.
struct ReducedModel {
  int format_version = kModelFormatVersion;
  ModelProvenance provenance;
  std::vector<ReducedDomain> domains;  ///< one domain for now; the domain tree comes later
};

}  // namespace ramus
