// Interface data of a parent-child pair (substructuring paper, Eq. 1-4): the weighted centroid
// x_ij = x̂_ij + â_ij q_i and the linear covariance fit A_ij(q_i) = B_ij(q_i) C_ij^-1 R̂_ij =
// R̂_ij + Σ_l A^l_ij q_i^l whose polar rotation is the child frame's rotation.
#pragma once

#include <Eigen/Core>

#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Planar-interface threshold of §3: when λ_min(C) < ε λ_max(C) an extra point is added along the
/// interface normal.
constexpr double kPlanarInterfaceEpsilon = 1e-3;

/// Interface data from the parent's rest positions (#V_i by 3, in F_i) and basis (3#V_i by r_i),
/// the interface vertices (parent numbering) with their weights (>= 0; zero-weight vertices are
/// kept but do not count), and the child's copies. r_i = 0 gives 3 by 0 â and A^l.
/// Planar interface (λ1 < ε λ3): the extra point at x̂ + η N (weight 1, η² = ε λ3 - λ1) moves
/// with the interface's linearized normal rotation, η (N - g(q)) from the deformed centroid, where
/// gᵀ (X - x̂) is the weighted least-squares fit of the normal displacement over the plane; so
/// A(0) = R̂ and an infinitesimal rigid rotation is fitted exactly (a point held at η N would
/// halve rotations about in-plane axes). A finite rotation θ about an in-plane axis is fitted
/// as atan(2 tan(θ/2)), relative error tan²(θ/2) (0.76 % at 10°).
/// Throws OptionError for mismatched sizes, MeshError for a bad vertex index or weight, fewer
/// than 3 vertices with positive weight, or a collinear interface (λ2 < ε λ3).
ParentInterface compute_parent_interface(const Eigen::MatrixX3d& parent_rest_positions,
                                         const Eigen::MatrixXd& parent_basis,
                                         const Eigen::VectorXi& parent_vertices,
                                         const Eigen::VectorXi& child_vertices,
                                         const Eigen::VectorXd& weights,
                                         const Eigen::Matrix3d& rest_rotation);

/// The same for a child whose base is not made of the parent's vertices (a non-conforming
/// attachment): base point k lies in parent tet `tets(k)` (of `parent_tets`, #T_i by 4) with
/// `barycentric.row(k)` (weights of the tet's corners, summing to 1), and moves as that
/// combination of the corners. `child_vertices` (m) are the child's base vertices, `weights` (m)
/// their areas. The result carries parent_tets / parent_barycentric, no parent_vertices.
ParentInterface compute_embedded_interface(
    const Eigen::MatrixX3d& parent_rest_positions, const Eigen::MatrixXd& parent_basis,
    const Eigen::MatrixX4i& parent_tets, const Eigen::VectorXi& tets,
    const Eigen::MatrixX4d& barycentric, const Eigen::VectorXi& child_vertices,
    const Eigen::VectorXd& weights, const Eigen::Matrix3d& rest_rotation);

}  // namespace ramus
