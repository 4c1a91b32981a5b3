#include "ramus/precompute/fem/material.h"

#include <cmath>
#include <string>

#include "ramus/error.h"

namespace ramus {

void validate_material(const Material& m, const char* what) {
  const std::string prefix = std::string(what) + ": ";
  if (!(std::isfinite(m.youngs_modulus) && m.youngs_modulus > 0))
    throw OptionError(prefix + "Young's modulus must be positive, got " +
                      std::to_string(m.youngs_modulus));
  if (!(m.poisson_ratio > -1.0 && m.poisson_ratio < 0.5))
    throw OptionError(prefix + "Poisson ratio must lie in (-1, 0.5), got " +
                      std::to_string(m.poisson_ratio));
  if (!(std::isfinite(m.density) && m.density > 0))
    throw OptionError(prefix + "density must be positive, got " + std::to_string(m.density));
}

LameParameters lame_parameters(const Material& m) {
  validate_material(m);
  const double E = m.youngs_modulus, nu = m.poisson_ratio;
  return {E / (2.0 * (1.0 + nu)), E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu))};
}

std::vector<Material> assign_materials(const TetMesh& mesh, const Material& fallback,
                                       const std::map<int, Material>& by_label) {
  std::vector<Material> result(static_cast<size_t>(mesh.num_tets()), fallback);
  if (!mesh.has_labels()) return result;
  for (int t = 0; t < mesh.num_tets(); ++t) {
    const auto it = by_label.find(mesh.labels(t));
    if (it != by_label.end()) result[static_cast<size_t>(t)] = it->second;
  }
  return result;
}

}  // namespace ramus
