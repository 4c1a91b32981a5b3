// Isotropic elastic material parameters (SI units) and their Lamé form.
#pragma once

#include <map>
#include <vector>

#include "ramus/precompute/mesh/tet_mesh.h"

namespace ramus {

/// The constitutive model of a material.
enum class ElasticModel {
  kStvk,            ///< St. Venant-Kirchhoff: what reduced models are built from
  kFixedCorotated,  ///< fixed corotated (fixed_corotated_energy.h): full-space reference only
};

/// Young's modulus E (Pa), Poisson ratio nu (-1 < nu < 0.5), density rho (kg/m^3) and model.
struct Material {
  double youngs_modulus = 1e6;
  double poisson_ratio = 0.45;
  double density = 1000.0;
  ElasticModel model = ElasticModel::kStvk;
};

/// Lamé parameters mu (shear modulus) and lambda, in Pa.
struct LameParameters {
  double mu = 0;
  double lambda = 0;
};

/// mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu)(1 - 2 nu)); throws OptionError if invalid.
LameParameters lame_parameters(const Material& material);

/// Checks E > 0, -1 < nu < 0.5, rho > 0; throws OptionError naming `what` otherwise.
void validate_material(const Material& material, const char* what = "material");

/// Per-tet materials (#T): `by_label` where the tet's label is listed, else `fallback`.
std::vector<Material> assign_materials(const TetMesh& mesh, const Material& fallback,
                                       const std::map<int, Material>& by_label = {});

}  // namespace ramus
