#include "ramus/precompute/fem/projective_energy.h"

#include <cmath>
#include <string>

#include "ramus/error.h"
#include "ramus/runtime/kernels/polar_decomposition.h"

namespace ramus {

namespace {

// "<what> <index>: <problem>" as an OptionError.
[[noreturn]] void refuse_term(const char* what, Eigen::Index index, const std::string& problem) {
  throw OptionError(std::string("projective energy: ") + what + " " + std::to_string(index) + ": " +
                    problem);
}

// A tet's deformation gradient F = Σ_a x_a dN_aᵀ from its corners' rows of x.
Eigen::Matrix3d tet_deformation_gradient(const VertexRows& x, const Eigen::Vector4i& corners,
                                         const Eigen::Matrix<double, 4, 3>& gradients) {
  Eigen::Matrix3d F = Eigen::Matrix3d::Zero();
  for (int a = 0; a < 4; ++a) F += x.row(corners(a)).transpose() * gradients.row(a);
  return F;
}

}  // namespace

ProjectiveEnergy::ProjectiveEnergy(int num_vertices, ProjectiveSprings springs, ProjectiveTets tets)
    : num_vertices_(num_vertices), springs_(std::move(springs)), tets_(std::move(tets)) {
  // Shapes, indices, rest lengths and weights.
  const Eigen::Index S = springs_.weights.size(), T = tets_.weights.size();
  if (springs_.ends.rows() != S || springs_.rest_lengths.size() != S)
    throw OptionError("projective energy: springs' ends, rest lengths and weights differ in count");
  if (tets_.corners.rows() != T || static_cast<Eigen::Index>(tets_.shape_gradients.size()) != T)
    throw OptionError("projective energy: tets' corners, gradients and weights differ in count");
  const auto inside = [&](int v) { return v >= 0 && v < num_vertices_; };
  for (Eigen::Index s = 0; s < S; ++s) {
    if (!inside(springs_.ends(s, 0)) || !inside(springs_.ends(s, 1)))
      refuse_term("spring", s, "an end is not a vertex");
    if (!(springs_.rest_lengths(s) > 0) || !std::isfinite(springs_.rest_lengths(s)))
      refuse_term("spring", s, "its rest length must be positive and finite");
    if (!(springs_.weights(s) >= 0) || !std::isfinite(springs_.weights(s)))
      refuse_term("spring", s, "its weight must be non-negative and finite");
  }
  for (Eigen::Index t = 0; t < T; ++t) {
    for (int a = 0; a < 4; ++a)
      if (!inside(tets_.corners(t, a))) refuse_term("tet", t, "a corner is not a vertex");
    if (!(tets_.weights(t) >= 0) || !std::isfinite(tets_.weights(t)) ||
        !tets_.shape_gradients[static_cast<size_t>(t)].allFinite())
      refuse_term("tet", t, "its weight must be non-negative and finite, its gradients finite");
  }

  // L = Σ w G_iᵀ G_i: a spring's [1 -1; -1 1], a tet's dN_a . dN_b.
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(static_cast<size_t>(4 * S + 16 * T));
  for (Eigen::Index s = 0; s < S; ++s) {
    const int a = springs_.ends(s, 0), b = springs_.ends(s, 1);
    const double w = springs_.weights(s);
    entries.insert(entries.end(), {{a, a, w}, {b, b, w}, {a, b, -w}, {b, a, -w}});
  }
  for (Eigen::Index t = 0; t < T; ++t) {
    const auto& gradients = tets_.shape_gradients[static_cast<size_t>(t)];
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        entries.emplace_back(tets_.corners(t, a), tets_.corners(t, b),
                             tets_.weights(t) * gradients.row(a).dot(gradients.row(b)));
  }
  laplacian_.resize(num_vertices_, num_vertices_);
  laplacian_.setFromTriplets(entries.begin(), entries.end());
}

Eigen::SparseMatrix<double> ProjectiveEnergy::laplacian() const {
  return laplacian_;
}

void ProjectiveEnergy::projected_forces(const VertexRows& x, VertexRows& jp) const {
  jp.setZero(num_vertices_, 3);
  // Springs: p = L d / |d| (an arbitrary direction for a spring of zero length).
  for (Eigen::Index s = 0; s < springs_.weights.size(); ++s) {
    const int a = springs_.ends(s, 0), b = springs_.ends(s, 1);
    const Eigen::RowVector3d d = x.row(a) - x.row(b);
    const double length = d.norm();
    const Eigen::RowVector3d p = length > 0
                                     ? Eigen::RowVector3d(springs_.rest_lengths(s) / length * d)
                                     : Eigen::RowVector3d(springs_.rest_lengths(s), 0, 0);
    jp.row(a) += springs_.weights(s) * p;
    jp.row(b) -= springs_.weights(s) * p;
  }
  // Tets: p = R, the rotation nearest F; G_aᵀ R = R dN_a.
  for (Eigen::Index t = 0; t < tets_.weights.size(); ++t) {
    const auto& gradients = tets_.shape_gradients[static_cast<size_t>(t)];
    const Eigen::Vector4i corners = tets_.corners.row(t);
    const Eigen::Matrix3d R =
        polar_decomposition(tet_deformation_gradient(x, corners, gradients)).R;
    for (int a = 0; a < 4; ++a)
      jp.row(corners(a)) += tets_.weights(t) * (R * gradients.row(a).transpose()).transpose();
  }
}

double ProjectiveEnergy::energy(const VertexRows& x) const {
  double total = 0;
  for (Eigen::Index s = 0; s < springs_.weights.size(); ++s) {
    const double stretch =
        (x.row(springs_.ends(s, 0)) - x.row(springs_.ends(s, 1))).norm() - springs_.rest_lengths(s);
    total += 0.5 * springs_.weights(s) * stretch * stretch;
  }
  for (Eigen::Index t = 0; t < tets_.weights.size(); ++t) {
    const Eigen::Matrix3d F = tet_deformation_gradient(
        x, tets_.corners.row(t), tets_.shape_gradients[static_cast<size_t>(t)]);
    total += 0.5 * tets_.weights(t) * (F - polar_decomposition(F).R).squaredNorm();
  }
  return total;
}

VertexRows ProjectiveEnergy::gradient(const VertexRows& x) const {
  VertexRows jp;
  projected_forces(x, jp);
  VertexRows gradient = laplacian_ * x;
  gradient -= jp;
  return gradient;
}

ProjectiveEnergy projective_cloth_energy(const MassSpringCloth& cloth) {
  ProjectiveSprings springs;
  const int S = cloth.num_springs();
  springs.ends.resize(S, 2);
  springs.rest_lengths.resize(S);
  springs.weights.resize(S);
  for (int s = 0; s < S; ++s) {
    const ClothSpring& spring = cloth.springs[static_cast<size_t>(s)];
    springs.ends.row(s) << spring.i, spring.j;
    springs.rest_lengths(s) = spring.rest_length;
    springs.weights(s) = spring.stiffness;
  }
  return ProjectiveEnergy(cloth.num_particles(), std::move(springs), {});
}

ProjectiveEnergy projective_corotated_energy(const StvkFemModel& model) {
  ProjectiveTets tets;
  const int T = model.num_tets();
  tets.corners = model.mesh().tets;
  tets.weights.resize(T);
  tets.shape_gradients.reserve(static_cast<size_t>(T));
  for (int t = 0; t < T; ++t) {
    const Material& material = model.materials()[static_cast<size_t>(t)];
    if (material.model != ElasticModel::kFixedCorotated || material.poisson_ratio != 0)
      throw OptionError(
          "local/global: tet " + std::to_string(t) +
          " is not of the material it solves exactly (\"model\": \"fixed_corotated\" with "
          "\"poisson_ratio\": 0, the projective energy mu V |F - R|^2); got " +
          (material.model == ElasticModel::kStvk
               ? std::string("stvk")
               : "fixed_corotated with poisson_ratio " + std::to_string(material.poisson_ratio)));
    const LinearTetRest& rest = model.rest_data()[static_cast<size_t>(t)];
    tets.shape_gradients.push_back(rest.shape_gradients);
    tets.weights(t) = 2 * model.lame()[static_cast<size_t>(t)].mu * rest.volume;
  }
  return ProjectiveEnergy(model.num_vertices(), {}, std::move(tets));
}

}  // namespace ramus
