// A part placed at uniform scale s without reducing it again (substructuring paper §5): the
// scaled part is the geometrically similar body of the same material, X' = s X. Its mass matrix
// is s³ M and its stiffness s K, so the eigenvalues are λ/s² (frequencies 1/s) and the
// mass-orthonormal basis keeps its shape: U' = s^-3/2 U. With q̃ = s^-5/2 q the part's own
// coordinates of the similar deformation (U' q = s U q̃), every reduced quantity follows
// (docs/FORMAT.md, "Parts and uniform scale", derives each):
//   E'(q) = s³ E(q̃)   g'(q) = s^½ g(q̃)   K'(q) = s^-2 K(q̃)
//   G' = s^3/2 G   W1' = s^3/2 W1   W2', W3', W5' = s^5/2 ·   W4', W6', W7' unchanged
//   mass s³, ∫ρX s⁴, ∫ρXXᵀ s⁵.
#pragma once

#include <cmath>

namespace ramus {

/// The factors of one uniform scale s (all 1 for s = 1).
struct UniformScale {
  UniformScale() = default;
  explicit UniformScale(double s)
      : length(s),
        basis(std::pow(s, -1.5)),
        coordinate(std::pow(s, -2.5)),
        gradient(std::sqrt(s)),
        stiffness(1 / (s * s)),
        energy(s * s * s),
        load(std::pow(s, 1.5)),
        moment(std::pow(s, 2.5)),
        mass(s * s * s),
        first_moment(s * s * s * s),
        second_moment(s * s * s * s * s) {}

  bool identity() const { return length == 1; }

  double length = 1;         ///< s: rest positions, X' = s X
  double basis = 1;          ///< s^-3/2: U' = s^-3/2 U
  double coordinate = 1;     ///< s^-5/2: q̃ = s^-5/2 q, the part's coordinates of the same shape
  double gradient = 1;       ///< s^½: g'(q) = s^½ g(q̃)
  double stiffness = 1;      ///< s^-2: K'(q) = s^-2 K(q̃)
  double energy = 1;         ///< s³: E'(q) = s³ E(q̃)
  double load = 1;           ///< s^3/2: G' (gravity basis) and W1'
  double moment = 1;         ///< s^5/2: W2', W3', W5'
  double mass = 1;           ///< s³
  double first_moment = 1;   ///< s⁴: ∫ρX'
  double second_moment = 1;  ///< s⁵: ∫ρX'X'ᵀ
};

}  // namespace ramus
