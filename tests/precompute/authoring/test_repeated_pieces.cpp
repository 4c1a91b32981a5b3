// A tree mesh's pieces and the shapes they repeat: a soup of leaves placed by known similarities
// must give back its pieces, its shapes and the placements.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include <numeric>
#include <random>

#include "ramus/error.h"
#include "ramus/precompute/authoring/repeated_pieces.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "support/box_surface.h"

using namespace ramus;

namespace {

const std::string kLeaf = RAMUS_TEST_DATA_DIR "/../../data/oak/leaf_surface.obj";

// `piece` mapped by s, appended to `soup` (its vertices repeated per triangle when `unwelded`,
// its vertex order reversed when `reordered`).
void place(SurfaceMesh& soup, const SurfaceMesh& piece, const Similarity& s, bool unwelded,
           bool reordered) {
  const Eigen::Index v0 = soup.vertices.rows(), f0 = soup.triangles.rows();
  const Eigen::Index nv = piece.vertices.rows(), nf = piece.triangles.rows();
  const Eigen::Index added = unwelded ? 3 * nf : nv;
  soup.vertices.conservativeResize(v0 + added, 3);
  soup.triangles.conservativeResize(f0 + nf, 3);
  const auto order = [&](Eigen::Index i) { return reordered ? nv - 1 - i : i; };
  if (!unwelded)
    for (Eigen::Index i = 0; i < nv; ++i)
      soup.vertices.row(v0 + order(i)) = s.apply(piece.vertices.row(i).transpose()).transpose();
  for (Eigen::Index t = 0; t < nf; ++t)
    for (int c = 0; c < 3; ++c) {
      const int v = piece.triangles(t, c);
      if (unwelded) {
        soup.vertices.row(v0 + 3 * t + c) = s.apply(piece.vertices.row(v).transpose()).transpose();
        soup.triangles(f0 + t, c) = static_cast<int>(v0 + 3 * t + c);
      } else {
        soup.triangles(f0 + t, c) = static_cast<int>(v0 + order(v));
      }
    }
}

Similarity random_similarity(std::mt19937& random, double scale) {
  std::uniform_real_distribution<double> unit(-1, 1);
  Similarity s;
  s.rotation = Eigen::Quaterniond(unit(random), unit(random), unit(random), unit(random))
                   .normalized()
                   .toRotationMatrix();
  s.translation = Eigen::Vector3d(unit(random), unit(random), unit(random));
  s.scale = scale;
  return s;
}

// A closed box surface of sides a, b, c from the origin.
SurfaceMesh box(double a, double b, double c) {
  return test::box_surface(Eigen::Vector3d::Zero(), Eigen::Vector3d(a, b, c));
}

}  // namespace

TEST_CASE("A soup of placed leaves gives back its pieces, shapes and placements",
          "[precompute][authoring]") {
  const SurfaceMesh leaf = read_obj(kLeaf);
  const SurfaceMesh block = box(0.02, 0.03, 0.05);
  std::mt19937 random(7);
  SurfaceMesh soup;
  std::vector<Similarity> truth;
  // Four leaves (one unwelded, one with its vertices in another order), a block between them.
  for (int k = 0; k < 5; ++k) {
    const Similarity s = random_similarity(random, k == 4 ? 1.0 : 0.5 + 0.3 * k);
    truth.push_back(s);
    place(soup, k == 2 ? block : leaf, s, k == 1, k == 3);
  }
  const std::vector<SurfaceMesh> pieces = connected_pieces(soup, 1e-9);
  REQUIRE(pieces.size() == 5);
  CHECK(pieces[1].num_vertices() == leaf.num_vertices());  // welded back
  const RepeatedShapes shapes = find_repeated_shapes(pieces, 1e-6);
  REQUIRE(shapes.representatives == std::vector<int>{0, 2});
  CHECK(shapes.shape_of == std::vector<int>{0, 0, 1, 0, 0});
  // Each leaf's placement from the first: truth_k ∘ truth_0⁻¹.
  for (int k : {1, 3, 4}) {
    const Similarity& a = truth[0];
    const Similarity& b = truth[static_cast<std::size_t>(k)];
    const Similarity& found = shapes.placement[static_cast<std::size_t>(k)];
    INFO("leaf " << k);
    CHECK(found.scale == Approx(b.scale / a.scale).epsilon(1e-9));
    CHECK((found.rotation - b.rotation * a.rotation.transpose()).norm() < 1e-9);
    for (int i = 0; i < leaf.num_vertices(); ++i) {
      const Eigen::Vector3d x = leaf.vertices.row(i).transpose();
      CHECK((found.apply(a.apply(x)) - b.apply(x)).norm() < 1e-9);
    }
  }
}

TEST_CASE("A mirror image or another shape is no match", "[precompute][authoring]") {
  // A tetrahedron with no symmetry: its mirror image is another shape (a box's is not).
  SurfaceMesh chiral;
  chiral.vertices.resize(4, 3);
  chiral.vertices << 0, 0, 0, 1, 0, 0, 0.3, 0.8, 0, 0.2, 0.3, 0.9;
  chiral.triangles.resize(4, 3);
  chiral.triangles << 0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2;
  SurfaceMesh mirrored = chiral;
  mirrored.vertices.col(0) *= -1;
  CHECK(match_similar(chiral, chiral, 1e-6));
  CHECK_FALSE(match_similar(chiral, mirrored, 1e-6));
  const SurfaceMesh block = box(0.02, 0.03, 0.05);
  CHECK_FALSE(match_similar(block, box(0.02, 0.03, 0.06), 1e-6));
  // Stretched along one axis only: not uniform scale.
  SurfaceMesh stretched = block;
  stretched.vertices.col(2) *= 1.5;
  CHECK_FALSE(match_similar(block, stretched, 1e-6));
  // Shuffled vertices of the same box at twice the size are found by its principal axes.
  SurfaceMesh shuffled = block;
  std::vector<int> order(8);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(3));
  for (int i = 0; i < 8; ++i) shuffled.vertices.row(order[i]) = 2 * block.vertices.row(i);
  const std::optional<Similarity> s = match_similar(block, shuffled, 1e-6);
  REQUIRE(s);
  CHECK(s->scale == Approx(2).epsilon(1e-12));
  CHECK_THROWS_AS(connected_pieces(block, -1), OptionError);
}
