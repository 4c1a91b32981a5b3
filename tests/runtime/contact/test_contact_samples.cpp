// Contact samples (runtime/contact/contact_samples.h): evenly spread surface vertices whose area
// weights add up to the surface, and the basis rows there.
#include <catch2/catch.hpp>

#include <Eigen/Geometry>

#include "ramus/runtime/contact/contact_samples.h"
#include "support/random_models.h"

namespace ramus {
namespace {

// The closed surface of the unit cube split into n by n quads a face (two triangles each).
void cube_surface(int n, Eigen::MatrixX3d& x, Eigen::MatrixX3i& triangles) {
  std::vector<Eigen::Vector3d> points;
  std::vector<Eigen::Vector3i> faces;
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int base = static_cast<int>(points.size());
      for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
          Eigen::Vector3d p;
          p(axis) = side;
          p((axis + 1) % 3) = static_cast<double>(i) / n;
          p((axis + 2) % 3) = static_cast<double>(j) / n;
          points.push_back(p);
        }
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const int a = base + i * (n + 1) + j;
          faces.emplace_back(a, a + n + 1, a + 1);
          faces.emplace_back(a + 1, a + n + 1, a + n + 2);
        }
    }
  x.resize(static_cast<Eigen::Index>(points.size()), 3);
  for (std::size_t k = 0; k < points.size(); ++k) x.row(static_cast<Eigen::Index>(k)) = points[k];
  triangles.resize(static_cast<Eigen::Index>(faces.size()), 3);
  for (std::size_t k = 0; k < faces.size(); ++k)
    triangles.row(static_cast<Eigen::Index>(k)) = faces[k];
}

double smallest_gap(const Eigen::MatrixX3d& x, const Eigen::VectorXi& chosen) {
  double gap = INFINITY;
  for (Eigen::Index a = 0; a < chosen.size(); ++a)
    for (Eigen::Index b = a + 1; b < chosen.size(); ++b)
      gap = std::min(gap, (x.row(chosen(a)) - x.row(chosen(b))).norm());
  return gap;
}

TEST_CASE("contact samples spread evenly over the surface, their weights summing to its area",
          "[contact][samples]") {
  Eigen::MatrixX3d x;
  Eigen::MatrixX3i triangles;
  cube_surface(8, x, triangles);
  // (Shared edges give duplicate points; the chooser still works on vertices.)
  const ContactSampleChoice choice = choose_contact_samples(x, triangles, 26);
  REQUIRE(choice.vertices.size() == 26);
  CHECK(choice.weights.sum() == Approx(6.0).epsilon(1e-12));
  for (Eigen::Index k = 1; k < choice.vertices.size(); ++k)
    CHECK(choice.vertices(k) > choice.vertices(k - 1));
  CHECK((choice.weights.array() > 0).all());
  // Farthest-point sampling: 26 samples on a unit cube keep their closest pair apart by more
  // than a third of the edge (0.395 measured; the ideal 26, corners, edge midpoints and face
  // centres, 0.5), where the first 26 vertices in index order crowd on one face.
  CHECK(smallest_gap(x, choice.vertices) >= 0.35);
  CHECK(smallest_gap(x, Eigen::VectorXi::LinSpaced(26, 0, 25)) < 0.2);
  // No sample stands for more than four times its share of the area.
  CHECK(choice.weights.maxCoeff() < 4 * 6.0 / 26);
}

TEST_CASE("contact samples take every surface vertex when asked for more, and none inside",
          "[contact][samples]") {
  Eigen::MatrixX3d x;
  Eigen::MatrixX3i triangles;
  cube_surface(2, x, triangles);
  Eigen::MatrixX3d with_inside(x.rows() + 1, 3);
  with_inside << x, Eigen::RowVector3d(0.5, 0.5, 0.5);
  const ContactSampleChoice all = choose_contact_samples(with_inside, triangles, 1000);
  CHECK(all.vertices.size() == x.rows());
  CHECK((all.vertices.array() < x.rows()).all());  // the inner point is no sample
  CHECK(all.weights.sum() == Approx(6.0).epsilon(1e-12));
  CHECK(choose_contact_samples(with_inside, Eigen::MatrixX3i(0, 3), 10).vertices.size() == 0);
  // Excluded vertices (a part's fixed ones) are never chosen; their area still counts.
  const Eigen::VectorXi face = Eigen::VectorXi::LinSpaced(9, 0, 8);  // the first face's 3 x 3
  const ContactSampleChoice away = choose_contact_samples(x, triangles, 1000, face);
  CHECK(away.vertices.size() == x.rows() - 9);
  CHECK((away.vertices.array() >= 9).all());
  CHECK(away.weights.sum() == Approx(6.0).epsilon(1e-12));
}

TEST_CASE("attach_contact_samples copies the basis rows at the samples", "[contact][samples]") {
  ReducedModel model = test::make_single_domain_model();
  ReducedPart& part = model.parts[0];
  attach_contact_samples(part, 5);
  REQUIRE(part.contact.size() == 5);
  for (int k = 0; k < 5; ++k)
    CHECK(part.contact.basis.middleRows<3>(3 * k) ==
          part.basis.middleRows<3>(3 * part.contact.vertices(k)));
}

}  // namespace
}  // namespace ramus
