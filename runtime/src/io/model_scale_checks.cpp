// Semantic bounds of a model against its own scale (model_scale_checks.h). A crafted file whose
// checksums are right can still hold a root origin of -1e300 m, rest positions times 1e150 or
// cubic coefficients times 1e200; each would run to a finite-looking garbage answer. Every bound
// here follows from the part's own mesh and materials, with a wide margin:
// - mass = Σ_t ρ_t V_t (what precompute stores), to 1e-6;
// - a mass-orthonormal basis (Uᵀ M U = I, consistent mass) has, under the lumped mass M_l with
//   M_c <= M_l <= 5 M_c for linear tets, column norms Uᵀ M_l U in [1, 5];
// - Uᵀ K U is bounded by the largest eigenvalue of (K, M), itself at most the largest element's:
//   λ_t <= 60 (λ + 2μ)_t / ρ_t Σ_a |∇N_a|² (the consistent element mass's least eigenvalue is
//   ρV/20, the stiffness's largest at most 3 (λ + 2μ) V Σ_a |∇N_a|²);
// - the cubic and quartic coefficients are that stiffness changed by strains: per unit q, a
//   strain of at most G = max_t,l Σ_a |U_l(a)| |∇N_a|, so |cubic| <= c λ G and |quartic| <= c λ G².
#include "model_scale_checks.h"

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "ramus/runtime/io/model_file.h"

namespace ramus {

namespace {

constexpr double kMassTolerance = 1e-6;  // relative, stored mass against Σ ρ V
constexpr double kLumpedNormLow = 0.5;   // Uᵀ M_l U column norms: [1, 5] with margins
constexpr double kLumpedNormHigh = 10;
constexpr double kStiffnessMargin = 10;   // Uᵀ K U against the element bound
constexpr double kNonlinearMargin = 1e3;  // cubic and quartic against c λ G and c λ G²

std::string number_text(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", x);
  return text;
}

// Every position within kMaxModelCoordinate: "dataset <name>: row i at |x| = ...".
template <typename Derived>
std::string positions_problem(const std::string& name, const Eigen::MatrixBase<Derived>& x) {
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    if (const double size = x.row(i).cwiseAbs().maxCoeff(); !(size <= kMaxModelCoordinate))
      return "dataset " + name + ": row " + std::to_string(i) + " lies " + number_text(size) +
             " m from the origin (more than " + number_text(kMaxModelCoordinate) +
             " m: corrupt or crafted)";
  return "";
}

// What one part's mesh and materials allow: its mass, lumped vertex masses, the element bound
// on eigenvalues and the largest strain per unit reduced coordinate.
struct PartScale {
  double mass = 0;
  Eigen::VectorXd vertex_mass;  // #V, lumped: Σ ρ V / 4 over the vertex's tets
  double eigenvalue_bound = 0;  // rad²/s²
  double strain_per_q = 0;      // 1 / (kg^½ m) ... strain per unit of q
};

PartScale part_scale(const ReducedPart& part) {
  PartScale s;
  s.vertex_mass = Eigen::VectorXd::Zero(part.rest_positions.rows());
  const Eigen::Index r = part.basis.cols();
  for (Eigen::Index t = 0; t < part.tets.rows(); ++t) {
    // The tet's volume and shape-function gradients.
    Eigen::Matrix3d edges;
    for (int k = 0; k < 3; ++k)
      edges.row(k) =
          part.rest_positions.row(part.tets(t, k + 1)) - part.rest_positions.row(part.tets(t, 0));
    const double volume = std::abs(edges.determinant()) / 6;
    if (!(volume > 0)) continue;  // (a degenerate tet adds nothing; precompute refuses them)
    const Eigen::Matrix3d inverse = edges.inverse();  // columns: ∇N_1..3
    Eigen::Matrix<double, 3, 4> gradients;
    gradients.rightCols<3>() = inverse;
    gradients.col(0) = -inverse.rowwise().sum();
    // Mass, lumped mass, the element's eigenvalue bound.
    const double rho = part.density(t), e = part.youngs_modulus(t), nu = part.poisson_ratio(t);
    s.mass += rho * volume;
    for (int a = 0; a < 4; ++a) s.vertex_mass(part.tets(t, a)) += rho * volume / 4;
    const double p_modulus = e * (1 - nu) / ((1 + nu) * (1 - 2 * nu));  // λ + 2μ
    s.eigenvalue_bound =
        std::max(s.eigenvalue_bound, 60 * p_modulus / rho * gradients.squaredNorm());
    // The largest strain a unit reduced coordinate makes in it.
    for (Eigen::Index l = 0; l < r; ++l) {
      double strain = 0;
      for (int a = 0; a < 4; ++a)
        strain += part.basis.block<3, 1>(3 * part.tets(t, a), l).norm() * gradients.col(a).norm();
      s.strain_per_q = std::max(s.strain_per_q, strain);
    }
  }
  return s;
}

// The largest |entry| of `m` above `bound`: "dataset <name>: |entry| ... exceeds ...".
std::string magnitude_problem(const std::string& name, double largest, double bound,
                              const std::string& what) {
  if (largest <= bound) return "";
  return "dataset " + name + ": largest |entry| " + number_text(largest) + " exceeds " +
         number_text(bound) + ", " + what + " (corrupt or crafted)";
}

std::string part_scale_problem(const ReducedPart& part, int k) {
  const std::string group = part_group_path(k) + "/";
  if (std::string problem = positions_problem(group + "mesh/rest_positions", part.rest_positions);
      !problem.empty())
    return problem;
  const PartScale s = part_scale(part);
  // Mass.
  if (!(std::abs(part.mass - s.mass) <= kMassTolerance * s.mass))
    return "attribute 'mass' of " + part_group_path(k) + ": " + number_text(part.mass) +
           " kg, but its tets and densities weigh " + number_text(s.mass) + " kg";
  // Basis: mass-orthonormal columns.
  for (Eigen::Index l = 0; l < part.basis.cols(); ++l) {
    const auto column = part.basis.col(l).reshaped(3, part.basis.rows() / 3);
    const double norm =
        (column.colwise().squaredNorm().transpose().cwiseProduct(s.vertex_mass)).sum();
    if (!(norm >= kLumpedNormLow && norm <= kLumpedNormHigh))
      return "dataset " + group + "basis: column " + std::to_string(l) + " has lumped-mass norm " +
             number_text(norm) + ", not that of a mass-orthonormal basis (about 1 to 5)";
  }
  // The polynomial against the element bounds.
  const ReducedStvkPolynomial& poly = part.polynomial;
  if (poly.r == 0) return "";
  const double lambda = kStiffnessMargin * s.eigenvalue_bound;
  const double g = s.strain_per_q;
  if (std::string problem = magnitude_problem(
          group + "polynomial/quadratic", poly.quadratic.cwiseAbs().maxCoeff(), lambda,
          "the largest eigenvalue its mesh and materials allow (times " +
              number_text(kStiffnessMargin) + ")");
      !problem.empty())
    return problem;
  if (std::string problem = magnitude_problem(
          group + "polynomial/cubic", poly.cubic.cwiseAbs().maxCoeff(),
          kNonlinearMargin * lambda * g, "that eigenvalue times the strain of a unit coordinate");
      !problem.empty())
    return problem;
  return magnitude_problem(group + "polynomial/quartic", poly.quartic.cwiseAbs().maxCoeff(),
                           kNonlinearMargin * lambda * g * g,
                           "that eigenvalue times the squared strain of a unit coordinate");
}

}  // namespace

std::string find_scale_problem(const ReducedModel& model) {
  for (std::size_t k = 0; k < model.parts.size(); ++k)
    if (std::string problem = part_scale_problem(model.parts[k], static_cast<int>(k));
        !problem.empty())
      return problem;
  // Placements: frame origins, interface centroids, subtree centres.
  for (std::size_t k = 0; k < model.domains.size(); ++k) {
    const ReducedDomain& d = model.domains[k];
    const std::string group = domain_group_path(static_cast<int>(k)) + "/";
    if (std::string problem = positions_problem(group + "frame/origin", d.frame_origin.transpose());
        !problem.empty())
      return problem;
    if (std::string problem =
            positions_problem(group + "interface/centroid", d.interface.centroid.transpose());
        !problem.empty())
      return problem;
    if (std::string problem = positions_problem(group + "subtree/center_of_mass",
                                                d.subtree_center_of_mass.transpose());
        !problem.empty())
      return problem;
  }
  return positions_problem("/embedded_surface/rest_positions",
                           model.embedded_surface.rest_positions);
}

}  // namespace ramus
