// The semi-implicit stage of SI and SBDF2 (stiff-and-soft-integrators-survey.txt §3.1, Eq. 5-7
// linearized at the step's start), written once for any number type: double for one domain
// (implicit_stage.cpp, implicit_methods.cpp) and a lanes::Lane for eight domains of one part
// (dynamics/lane_group_step.cpp, the batched execution of the same integrators). Runtime
// internals. With u = (q, v), q̂ and v̂ the stage's start, c h its weight:
//   H = (c h)² s K + c h D + (1 + c h α) M',  D = β s K         (the stage matrix, ∇²Φ)
//   H v = M' v̂ + c h (f - s g - s K (q̂ - q))                   (SI and SBDF2 with q̂, v̂ below)
//   q ← q̂ + c h v,   q̈ = (v - v̂) / (c h)
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "ramus/runtime/data/runtime_settings.h"

namespace ramus::semi_implicit {

/// Which semi-implicit method a domain's stage is: SI (c = 1, q̂ = q) or SBDF2 with a previous
/// step (c = 2/3, q̂ = (4 q - q_-1) / 3).
struct Method {
  bool bdf2 = false;
  double ch = 0;  ///< c h (s)
};

/// Whether `integrator` steps by this stage alone: SI, or SBDF2 with a previous step (without
/// one SBDF2 starts with STR-BDF2).
inline bool takes_stage(Integrator integrator, bool has_previous_step) {
  return integrator == Integrator::kSemiImplicitEuler ||
         (integrator == Integrator::kSemiImplicitBdf2 && has_previous_step);
}

/// The method of an integrator that takes_stage, for the time step h (s).
inline Method method_of(Integrator integrator, double h) {
  const bool bdf2 = integrator == Integrator::kSemiImplicitBdf2;
  return {bdf2, (bdf2 ? 2.0 / 3.0 : 1.0) * h};
}

/// The stage's start of one coordinate from its value now and at t - h: q̂ (or v̂).
template <class T>
inline T start(const Method& method, const T& now, const T& previous) {
  if (method.bdf2) return T((4.0 * now - previous) / 3.0);
  return now;
}

/// One entry of H from s K_ij, the damping D_ij = β s K_ij (K lagged at the stage's linearization
/// point where Newton moves on) and (1 + c h α) M'_ij.
template <class T>
inline T matrix_entry(double ch, const T& stiffness, const T& damping, const T& weighted_mass) {
  return T((ch * ch) * stiffness + ch * damping + weighted_mass);
}

/// One entry of H v's right-hand side from (M' v̂)_i, f_i, s g_i and (s K (q̂ - q))_i.
template <class T>
inline T right_hand_side(double ch, const T& momentum, const T& load, const T& gradient,
                         const T& stiffness_offset) {
  return T(momentum + ch * (load - gradient - stiffness_offset));
}
/// As above for SI (q̂ = q: no K (q̂ - q) term).
template <class T>
inline T right_hand_side(double ch, const T& momentum, const T& load, const T& gradient) {
  return T(momentum + ch * (load - gradient));
}

/// q of one coordinate at the stage's end from its start q̂ and the stage's solution v.
template <class T>
inline T position(double ch, const T& q_hat, const T& v) {
  return T(q_hat + ch * v);
}

/// q̈ of one coordinate at t + h from the last stage's solution v and start v̂.
template <class T>
inline T acceleration(double ch, const T& v_hat, const T& v) {
  return T((v - v_hat) / ch);
}

// One domain's double or eight domains' lanes::Lane: a constant, 1 / √x, the smaller of two.
namespace detail {
template <class T>
inline T constant(double x) {
  return T::Constant(x);
}
template <>
inline double constant<double>(double x) {
  return x;
}
inline double inverse_square_root(double x) {
  return 1.0 / std::sqrt(x);
}
template <class T>
inline T inverse_square_root(const T& x) {
  return x.sqrt().inverse();
}
inline double smaller(double a, double b) {
  return a < b ? a : b;
}
template <class T>
inline T smaller(const T& a, const T& b) {
  return a.min(b);
}
}  // namespace detail

/// The Cholesky factor of the n by n H (column-major, its lower triangle) in place, in Eigen's
/// unblocked left-looking order, with 1 / L_kk on the diagonal (one division a column; the solves
/// multiply by it). Returns the smallest pivot: the factor is of use only where it is positive (a
/// pivot <= 0 runs on to NaN).
template <class T>
T factor_inverse_diagonal(T* H, int n) noexcept {
  T smallest_pivot = detail::constant<T>(std::numeric_limits<double>::infinity());
  for (int k = 0; k < n; ++k) {
    T sum = detail::constant<T>(0.0);
    for (int j = 0; j < k; ++j) sum += H[k + n * j] * H[k + n * j];
    const T x = H[k + n * k] - sum;
    smallest_pivot = detail::smaller(smallest_pivot, x);
    const T inverse = detail::inverse_square_root(x);
    H[k + n * k] = inverse;
    for (int i = k + 1; i < n; ++i) {
      T s = detail::constant<T>(0.0);
      for (int j = 0; j < k; ++j) s += H[i + n * j] * H[k + n * j];
      H[i + n * k] = (H[i + n * k] - s) * inverse;
    }
  }
  return smallest_pivot;
}

/// x = (L Lᵀ)⁻¹ x with L the lower triangle of the n by n column-major `factor`, L_jj read as
/// 1 / reciprocal(factor_jj). L y = x by columns, then Lᵀ x = y by dot products down L's columns
/// (four partial sums). Each step multiplies by 1 / L_jj, which does not wait on the solution:
/// Eigen's triangular solves divide on that chain, which made them 2.5 times slower at r = 8-20.
template <class T, class Reciprocal>
void triangular_solves(const T* factor, int n, T* x, Reciprocal reciprocal) noexcept {
  for (int j = 0; j < n; ++j) {
    const T* column = factor + static_cast<std::ptrdiff_t>(j) * n;
    const T xj = x[j] * reciprocal(column[j]);
    x[j] = xj;
    for (int i = j + 1; i < n; ++i) x[i] -= xj * column[i];
  }
  for (int i = n - 1; i >= 0; --i) {
    const T* column = factor + static_cast<std::ptrdiff_t>(i) * n;
    T s0 = detail::constant<T>(0.0), s1 = s0, s2 = s0, s3 = s0;
    int j = n - 1;
    for (; j - 3 > i; j -= 4) {
      s0 += column[j] * x[j];
      s1 += column[j - 1] * x[j - 1];
      s2 += column[j - 2] * x[j - 2];
      s3 += column[j - 3] * x[j - 3];
    }
    for (; j > i; --j) s0 += column[j] * x[j];
    x[i] = (x[i] - ((s0 + s1) + (s2 + s3))) * reciprocal(column[i]);
  }
}

/// x = H⁻¹ x from factor_inverse_diagonal's factor.
template <class T>
void solve_inverse_diagonal(const T* factor, int n, T* x) noexcept {
  triangular_solves(factor, n, x, [](const T& inverse) -> const T& { return inverse; });
}

}  // namespace ramus::semi_implicit
