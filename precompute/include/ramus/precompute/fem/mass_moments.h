// Mass moments of a set of linear tets with constant density each: mass, ∫ρ y dV and
// ∫ρ y yᵀ dV with y = x - reference, exact: ∫ρ y yᵀ = ρV/20 (Σ_a y_a y_aᵀ + s sᵀ), s = Σ_a y_a.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "ramus/precompute/fem/material.h"

namespace ramus {

struct MassMoments {
  double mass = 0;                                   ///< kg
  Eigen::Vector3d first = Eigen::Vector3d::Zero();   ///< ∫ρ y dV (kg m)
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();  ///< ∫ρ y yᵀ dV (kg m²)

  MassMoments& operator+=(const MassMoments& o) {
    mass += o.mass;
    first += o.first;
    second += o.second;
    return *this;
  }
};

/// The moments of tets `which` (indices into `tets`, #T by 4, of positions X, #V by 3) about
/// `reference`, with materials[t].density; every tet when `which` is empty.
MassMoments tet_mass_moments(const Eigen::MatrixX3d& X, const Eigen::MatrixX4i& tets,
                             const std::vector<Material>& materials,
                             const std::vector<int>& which = {},
                             const Eigen::Vector3d& reference = Eigen::Vector3d::Zero());

}  // namespace ramus
