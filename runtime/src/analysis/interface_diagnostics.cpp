#include "ramus/runtime/analysis/interface_diagnostics.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ramus/runtime/kernels/polar_decomposition.h"

namespace ramus {

namespace {

// The boundary area of a part's rest surface (m², part coordinates).
double surface_area(const ReducedPart& part) {
  double area = 0;
  for (Eigen::Index f = 0; f < part.surface_triangles.rows(); ++f) {
    const Eigen::Vector3d a = part.rest_positions.row(part.surface_triangles(f, 0));
    const Eigen::Vector3d b = part.rest_positions.row(part.surface_triangles(f, 1));
    const Eigen::Vector3d c = part.rest_positions.row(part.surface_triangles(f, 2));
    area += 0.5 * (b - a).cross(c - a).norm();
  }
  return area;
}

// |A - R|_F / |A|_F for A = R S (Eq. 5).
double distance_from_rotation(const Eigen::Matrix3d& A) {
  const double size = A.norm();
  if (!(size > 0)) return 0;
  return (A - polar_decomposition(A).R).norm() / size;
}

std::string percent(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %%", 100 * share);
  return text;
}

}  // namespace

std::vector<InterfaceDiagnostics> interface_diagnostics(const ReducedModel& model,
                                                        const InterfaceLimits& limits) {
  std::vector<InterfaceDiagnostics> result;
  std::vector<int> depth(model.domains.size(), 0);
  for (std::size_t i = 0; i < model.domains.size(); ++i) {
    const ReducedDomain& domain = model.domains[i];
    if (domain.parent < 0) continue;
    depth[i] = depth[static_cast<std::size_t>(domain.parent)] + 1;
    const ParentInterface& itf = domain.interface;
    const ReducedPart& child = model.parts[static_cast<std::size_t>(domain.part)];
    const ReducedPart& parent = model.parts[static_cast<std::size_t>(
        model.domains[static_cast<std::size_t>(domain.parent)].part)];
    InterfaceDiagnostics d;
    d.domain = static_cast<int>(i);
    d.parent = domain.parent;
    d.depth = depth[i];
    d.vertices = static_cast<int>(itf.child_vertices.size());
    d.area = itf.weights.sum();
    const double child_area = surface_area(child);
    d.relative_area = child_area > 0 ? d.area / child_area : 0;

    // Each basis column l of the parent with the same elastic energy as the lowest one when
    // that moves the parent's farthest vertex by `amplitude` of its rest diagonal (α_l =
    // α_0 (λ_0 / λ_l)^½, U^T K U = diag λ): A = R̂ + α_l A^l (Eq. 2), and its distance from R.
    // (Equal energies: a load excites a high mode far less than the lowest.)
    const Eigen::Index r = std::min(parent.basis.cols(), parent.basis_eigenvalues.size());
    const double diagonal = parent.rest_positions.rows() > 0
                                ? (parent.rest_positions.colwise().maxCoeff() -
                                   parent.rest_positions.colwise().minCoeff())
                                      .norm()
                                : 0.0;
    double alpha_0 = 0;
    if (r > 0) {
      double largest = 0;
      for (Eigen::Index v = 0; v < parent.basis.rows() / 3; ++v)
        largest = std::max(largest, parent.basis.col(0).segment<3>(3 * v).norm());
      if (largest > 0) alpha_0 = limits.amplitude * diagonal / largest;
    }
    for (Eigen::Index l = 0; l < r && alpha_0 > 0 && itf.rotation_basis.cols() >= 3 * (l + 1);
         ++l) {
      const double lambda_0 = parent.basis_eigenvalues(0), lambda_l = parent.basis_eigenvalues(l);
      if (!(lambda_0 > 0 && lambda_l > 0)) continue;
      const double alpha = alpha_0 * std::sqrt(lambda_0 / lambda_l);
      const Eigen::Matrix3d A = itf.rest_rotation + alpha * itf.rotation_basis.middleCols<3>(3 * l);
      const double measure = distance_from_rotation(A);
      if (measure > d.nonrigidity) {
        d.nonrigidity = measure;
        d.worst_column = static_cast<int>(l);
      }
    }
    result.push_back(d);
  }
  return result;
}

std::vector<std::string> interface_warnings(const ReducedModel& model,
                                            const std::vector<InterfaceDiagnostics>& diagnostics,
                                            const InterfaceLimits& limits) {
  std::vector<std::string> warnings;
  const auto name = [&](int k) {
    return "'" + model.domains[static_cast<std::size_t>(k)].name + "'";
  };
  // The chain first (one warning), then interface by interface.
  const auto deepest =
      std::max_element(diagnostics.begin(), diagnostics.end(),
                       [](const InterfaceDiagnostics& a, const InterfaceDiagnostics& b) {
                         return a.depth < b.depth;
                       });
  if (deepest != diagnostics.end() && deepest->depth > limits.depth)
    warnings.push_back("the domain tree is " + std::to_string(deepest->depth) + " deep at " +
                       name(deepest->domain) + " (limit " + std::to_string(limits.depth) +
                       "): errors of the frames add up along a chain; use fewer, larger domains");
  for (const InterfaceDiagnostics& d : diagnostics) {
    const std::string pair = name(d.domain) + " on " + name(d.parent);
    if (d.nonrigidity > limits.nonrigidity)
      warnings.push_back(
          "interface " + pair + " is soft: " + percent(d.nonrigidity) +
          " from a rigid motion when " + name(d.parent) + " deforms (its basis column " +
          std::to_string(d.worst_column) + " with the energy that moves it " +
          percent(limits.amplitude) + " of its size in its lowest mode; limit " +
          percent(limits.nonrigidity) +
          "); the rigid-interface frames misfit it: cut where the shape narrows, or merge the two");
    if (d.relative_area > limits.relative_area)
      warnings.push_back("interface " + pair + " is large: " + std::to_string(d.vertices) +
                         " vertices, " + percent(d.relative_area) + " of the surface of " +
                         name(d.domain) + " (limit " + percent(limits.relative_area) +
                         "); substructuring suits thin joints (stems, limbs, branches)");
  }
  return warnings;
}

double interface_nonrigidity(const State& state, int domain) noexcept {
  if (domain <= 0 || 3 * domain + 3 > state.relative_stretch.cols()) return 0;
  const Eigen::Matrix3d S = state.relative_stretch.middleCols<3>(3 * domain);
  const double size = S.norm();
  if (!(size > 0)) return 0;
  return (S - Eigen::Matrix3d::Identity()).norm() / size;
}

}  // namespace ramus
