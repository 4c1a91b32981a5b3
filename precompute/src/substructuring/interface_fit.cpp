#include "ramus/precompute/substructuring/interface_fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "ramus/error.h"

namespace ramus {

namespace {

// The fit of Eq. 1-4 on m interface points with rest positions `points` (m by 3, in F_i) and
// basis rows `point_basis` (3m by r_i: rows 3k..3k+2 move point k), weights checked by the
// callers.
ParentInterface fit_interface(const Eigen::MatrixX3d& points, const Eigen::MatrixXd& point_basis,
                              const Eigen::VectorXd& weights,
                              const Eigen::Matrix3d& rest_rotation) {
  const Eigen::Index m = points.rows();
  const Eigen::Index r = point_basis.cols();
  if ((weights.array() > 0.0).count() < 3)
    throw MeshError("interface: the interface has " +
                    std::to_string((weights.array() > 0.0).count()) +
                    " vertices with positive weight; at least 3 are needed to fit a frame");
  ParentInterface result;
  result.weights = weights;
  result.rest_rotation = rest_rotation;

  // Eq. 1: weighted centroid x̂ and its basis â.
  const double total_weight = weights.sum();
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  Eigen::MatrixXd centroid_basis = Eigen::MatrixXd::Zero(3, r);
  for (Eigen::Index k = 0; k < m; ++k) {
    centroid += weights(k) * points.row(k).transpose();
    centroid_basis += weights(k) * point_basis.middleRows(3 * k, 3);
  }
  centroid /= total_weight;
  centroid_basis /= total_weight;

  // Eq. 4 and the linear part of Eq. 3: C = Σ w d dᵀ, M^l = Σ w (U_k^l - â^l) dᵀ (d = X - x̂).
  Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();
  Eigen::MatrixXd linear = Eigen::MatrixXd::Zero(3, 3 * r);  // block l: M^l
  for (Eigen::Index k = 0; k < m; ++k) {
    if (weights(k) == 0.0) continue;
    const Eigen::Vector3d d = points.row(k).transpose() - centroid;
    covariance += weights(k) * d * d.transpose();
    const Eigen::MatrixXd Uk = point_basis.middleRows(3 * k, 3) - centroid_basis;  // 3 by r
    for (Eigen::Index l = 0; l < r; ++l)
      linear.middleCols<3>(3 * l) += weights(k) * Uk.col(l) * d.transpose();
  }

  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(covariance);
  const Eigen::Vector3d lambda = eigen.eigenvalues();  // ascending
  const Eigen::Matrix3d axes = eigen.eigenvectors();
  const double eps = kPlanarInterfaceEpsilon;
  if (!(lambda(2) > 0.0) || lambda(1) < eps * lambda(2))
    throw MeshError("interface: the interface is collinear (covariance " +
                    std::string("eigenvalues ") + std::to_string(lambda(0)) + ", " +
                    std::to_string(lambda(1)) + ", " + std::to_string(lambda(2)) +
                    "): its rotation about the line is undetermined");

  Eigen::Matrix3d fixed_covariance = covariance;
  if (lambda(0) < eps * lambda(2)) {
    // Planar interface (§3): an extra point of weight 1 at x̂ + η N with η² = ε λ3 - λ1 lifts the
    // smallest eigenvalue of C to ε λ3. The point moves with the interface's linearized normal
    // rotation: the normal displacement fitted over the plane, u_n(X) ≈ gᵀ (X - x̂), tilts the
    // normal to N - g, so the point's deformed offset from the deformed centroid is η (N - g(q)).
    // Holding it at η N instead would make A map N to N and halve every fitted rotation about an
    // in-plane axis. Its term η (N - g) (η N)ᵀ in B(q) adds -η² g^l Nᵀ to M^l.
    result.planar = true;
    const Eigen::Vector3d normal = axes.col(0);
    const double eta2 = eps * lambda(2) - std::max(lambda(0), 0.0);
    fixed_covariance += eta2 * normal * normal.transpose();
    // C_p⁺: pseudo-inverse of C restricted to the plane (its two largest eigenpairs).
    const Eigen::Matrix3d plane_inverse = axes.col(1) * axes.col(1).transpose() / lambda(1) +
                                          axes.col(2) * axes.col(2).transpose() / lambda(2);
    // g^l = C_p⁺ Σ w d (N · (U_k^l - â^l)) = C_p⁺ (M^l)ᵀ N.
    for (Eigen::Index l = 0; l < r; ++l) {
      const Eigen::Vector3d g = plane_inverse * (linear.middleCols<3>(3 * l).transpose() * normal);
      linear.middleCols<3>(3 * l) -= eta2 * g * normal.transpose();
    }
  }

  // Eq. 2: A(q) = B(q) C⁻¹ R̂ = R̂ + Σ_l M^l C⁻¹ R̂ q^l (B(0) C⁻¹ = I).
  const Eigen::Matrix3d right = fixed_covariance.inverse() * rest_rotation;
  result.rotation_basis.resize(3, 3 * r);
  for (Eigen::Index l = 0; l < r; ++l)
    result.rotation_basis.middleCols<3>(3 * l) = linear.middleCols<3>(3 * l) * right;
  result.centroid = centroid;
  result.centroid_basis = centroid_basis;
  result.covariance = fixed_covariance;
  return result;
}

// Weights finite and >= 0, one per point (`what` names the point for messages).
void check_weights(const Eigen::VectorXd& weights,
                   const std::function<std::string(Eigen::Index)>& what) {
  for (Eigen::Index k = 0; k < weights.size(); ++k)
    if (!std::isfinite(weights(k)) || weights(k) < 0.0)
      throw MeshError("interface: " + what(k) + " has weight " + std::to_string(weights(k)) +
                      " (must be finite and >= 0)");
}

}  // namespace

ParentInterface compute_parent_interface(const Eigen::MatrixX3d& parent_rest_positions,
                                         const Eigen::MatrixXd& parent_basis,
                                         const Eigen::VectorXi& parent_vertices,
                                         const Eigen::VectorXi& child_vertices,
                                         const Eigen::VectorXd& weights,
                                         const Eigen::Matrix3d& rest_rotation) {
  const Eigen::Index nv = parent_rest_positions.rows();
  const Eigen::Index r = parent_basis.cols();
  const Eigen::Index m = parent_vertices.size();
  if (parent_basis.rows() != 3 * nv)
    throw OptionError("compute_parent_interface: the parent basis has " +
                      std::to_string(parent_basis.rows()) + " rows, expected 3 * " +
                      std::to_string(nv) + " vertices");
  if (child_vertices.size() != m || weights.size() != m)
    throw OptionError("compute_parent_interface: " + std::to_string(m) + " parent vertices but " +
                      std::to_string(child_vertices.size()) + " child vertices and " +
                      std::to_string(weights.size()) + " weights");
  Eigen::MatrixX3d points(m, 3);
  Eigen::MatrixXd point_basis(3 * m, r);
  for (Eigen::Index k = 0; k < m; ++k) {
    if (parent_vertices(k) < 0 || parent_vertices(k) >= nv)
      throw MeshError("interface: interface vertex " + std::to_string(parent_vertices(k)) +
                          " does not exist in the parent (" + std::to_string(nv) + " vertices)",
                      -1, parent_vertices(k));
    points.row(k) = parent_rest_positions.row(parent_vertices(k));
    point_basis.middleRows(3 * k, 3) = parent_basis.middleRows(3 * parent_vertices(k), 3);
  }
  check_weights(weights, [&](Eigen::Index k) {
    return "interface vertex " + std::to_string(parent_vertices(k));
  });
  ParentInterface result = fit_interface(points, point_basis, weights, rest_rotation);
  result.parent_vertices = parent_vertices;
  result.child_vertices = child_vertices;
  return result;
}

ParentInterface compute_embedded_interface(
    const Eigen::MatrixX3d& parent_rest_positions, const Eigen::MatrixXd& parent_basis,
    const Eigen::MatrixX4i& parent_tets, const Eigen::VectorXi& tets,
    const Eigen::MatrixX4d& barycentric, const Eigen::VectorXi& child_vertices,
    const Eigen::VectorXd& weights, const Eigen::Matrix3d& rest_rotation) {
  const Eigen::Index nv = parent_rest_positions.rows();
  const Eigen::Index r = parent_basis.cols();
  const Eigen::Index m = tets.size();
  if (parent_basis.rows() != 3 * nv)
    throw OptionError("compute_embedded_interface: the parent basis has " +
                      std::to_string(parent_basis.rows()) + " rows, expected 3 * " +
                      std::to_string(nv) + " vertices");
  if (barycentric.rows() != m || child_vertices.size() != m || weights.size() != m)
    throw OptionError("compute_embedded_interface: " + std::to_string(m) + " tets but " +
                      std::to_string(barycentric.rows()) + " barycentric rows, " +
                      std::to_string(child_vertices.size()) + " child vertices and " +
                      std::to_string(weights.size()) + " weights");
  // Each point is the barycentric combination of its parent tet's corners, in position and basis.
  Eigen::MatrixX3d points = Eigen::MatrixX3d::Zero(m, 3);
  Eigen::MatrixXd point_basis = Eigen::MatrixXd::Zero(3 * m, r);
  for (Eigen::Index k = 0; k < m; ++k) {
    if (tets(k) < 0 || tets(k) >= parent_tets.rows())
      throw MeshError("interface: point " + std::to_string(k) + " lies in tet " +
                          std::to_string(tets(k)) + ", which does not exist in the parent (" +
                          std::to_string(parent_tets.rows()) + " tets)",
                      tets(k));
    for (int c = 0; c < 4; ++c) {
      const int v = parent_tets(tets(k), c);
      points.row(k) += barycentric(k, c) * parent_rest_positions.row(v);
      point_basis.middleRows(3 * k, 3) += barycentric(k, c) * parent_basis.middleRows(3 * v, 3);
    }
  }
  check_weights(weights, [&](Eigen::Index k) { return "base vertex " + std::to_string(k); });
  ParentInterface result = fit_interface(points, point_basis, weights, rest_rotation);
  result.child_vertices = child_vertices;
  result.parent_tets = tets;
  result.parent_barycentric = barycentric;
  return result;
}

}  // namespace ramus
