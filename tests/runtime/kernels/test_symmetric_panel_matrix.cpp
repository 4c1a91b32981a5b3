// The panel-packed symmetric product against Eigen's dense product, for every size that
// exercises the block and packet remainders.
#include <Eigen/Core>
#include <catch2/catch.hpp>

#include "kernels/symmetric_panel_matrix.h"  // runtime internals

TEST_CASE("SymmetricPanelMatrix::multiply equals the dense symmetric product",
          "[runtime][kernels]") {
  for (int n : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 55, 100, 210}) {
    INFO("n = " << n);
    const Eigen::MatrixXd B = Eigen::MatrixXd::Random(n, n);
    Eigen::MatrixXd A = B + B.transpose();
    const Eigen::VectorXd x = Eigen::VectorXd::Random(n);
    const Eigen::VectorXd expected = A * x;
    A.triangularView<Eigen::StrictlyUpper>().setConstant(1e300);  // must not be read
    const ramus::SymmetricPanelMatrix packed(A);
    REQUIRE(packed.size() == n);
    REQUIRE(packed.padded_size() >= n);
    Eigen::VectorXd x_padded = Eigen::VectorXd::Zero(packed.padded_size());
    x_padded.head(n) = x;
    Eigen::VectorXd y = Eigen::VectorXd::Constant(packed.padded_size(), 7.0);  // overwritten
    packed.multiply(x_padded.data(), y.data());
    CHECK((y.head(n) - expected).norm() <= 1e-14 * expected.norm() * n);
    CHECK(y.tail(packed.padded_size() - n).norm() == 0);
  }
}
