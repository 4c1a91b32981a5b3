// Finite-difference checks shared by every derivative test (as ipc-toolkit's finitediff): the
// gradient of a scalar function, the Jacobian of a vector function and the Hessian of a scalar
// one, by central differences of order 2 or 4 on a flat parameter vector. Matrix-valued
// arguments or results are flattened column-major (Eigen's storage order).
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <functional>

namespace ramus::test {

/// Stencils: order 2, (f(x + h) - f(x - h)) / 2h; order 4, the 5-point rule
/// (f(x - 2h) - 8 f(x - h) + 8 f(x + h) - f(x + 2h)) / 12h (exact for quartics up to rounding).
enum class Stencil { kCentral2 = 2, kCentral4 = 4 };

/// d f / d x (n) at x (n) for f: R^n -> R.
inline Eigen::VectorXd finite_gradient(const Eigen::VectorXd& x,
                                       const std::function<double(const Eigen::VectorXd&)>& f,
                                       double h, Stencil stencil = Stencil::kCentral2) {
  Eigen::VectorXd gradient(x.size());
  Eigen::VectorXd y = x;
  const auto at = [&](Eigen::Index k, double step) {
    y(k) = x(k) + step;
    const double value = f(y);
    y(k) = x(k);
    return value;
  };
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    gradient(k) = stencil == Stencil::kCentral2
                      ? (at(k, h) - at(k, -h)) / (2 * h)
                      : (at(k, -2 * h) - 8 * at(k, -h) + 8 * at(k, h) - at(k, 2 * h)) / (12 * h);
  }
  return gradient;
}

/// d f / d x (m by n) at x (n) for f: R^n -> R^m.
inline Eigen::MatrixXd finite_jacobian(
    const Eigen::VectorXd& x, const std::function<Eigen::VectorXd(const Eigen::VectorXd&)>& f,
    double h, Stencil stencil = Stencil::kCentral2) {
  Eigen::MatrixXd jacobian;
  Eigen::VectorXd y = x;
  const auto at = [&](Eigen::Index k, double step) {
    y(k) = x(k) + step;
    Eigen::VectorXd value = f(y);
    y(k) = x(k);
    return value;
  };
  for (Eigen::Index k = 0; k < x.size(); ++k) {
    const Eigen::VectorXd column =
        stencil == Stencil::kCentral2
            ? Eigen::VectorXd((at(k, h) - at(k, -h)) / (2 * h))
            : Eigen::VectorXd((at(k, -2 * h) - 8 * at(k, -h) + 8 * at(k, h) - at(k, 2 * h)) /
                              (12 * h));
    if (k == 0) jacobian.resize(column.size(), x.size());
    jacobian.col(k) = column;
  }
  return jacobian;
}

/// d² f / d x² (n by n) at x for f: R^n -> R, by second central differences (order 2).
inline Eigen::MatrixXd finite_hessian(const Eigen::VectorXd& x,
                                      const std::function<double(const Eigen::VectorXd&)>& f,
                                      double h) {
  const Eigen::Index n = x.size();
  Eigen::MatrixXd hessian(n, n);
  Eigen::VectorXd y = x;
  const auto at = [&](Eigen::Index i, double si, Eigen::Index j, double sj) {
    y(i) += si;
    y(j) += sj;
    const double value = f(y);
    y(i) = x(i);
    y(j) = x(j);
    return value;
  };
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      hessian(i, j) =
          (at(i, h, j, h) - at(i, h, j, -h) - at(i, -h, j, h) + at(i, -h, j, -h)) / (4 * h * h);
  return hessian;
}

/// d f / d t and d² f / d t² at t for a path f: R -> R^m: (f(t + h) - f(t - h)) / 2h and
/// (f(t + h) - 2 f(t) + f(t - h)) / h².
inline Eigen::VectorXd finite_derivative(double t, const std::function<Eigen::VectorXd(double)>& f,
                                         double h) {
  return (f(t + h) - f(t - h)) / (2 * h);
}
inline Eigen::VectorXd finite_second_derivative(double t,
                                                const std::function<Eigen::VectorXd(double)>& f,
                                                double h) {
  return (f(t + h) - 2 * f(t) + f(t - h)) / (h * h);
}

/// |a - b| / |b| (Frobenius), the measure every finite-difference check compares with.
inline double relative_error(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-300);
}

/// A matrix as a flat vector (column-major) and back, for matrix-valued arguments and results.
template <typename Derived>
Eigen::VectorXd flat(const Eigen::MatrixBase<Derived>& m) {
  const typename Derived::PlainObject value = m;
  return Eigen::Map<const Eigen::VectorXd>(value.data(), value.size());
}
template <int Rows, int Cols>
Eigen::Matrix<double, Rows, Cols> unflat(const Eigen::VectorXd& v) {
  return Eigen::Map<const Eigen::Matrix<double, Rows, Cols>>(v.data());
}

}  // namespace ramus::test
