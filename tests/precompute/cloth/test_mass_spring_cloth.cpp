// The paper's construction of a cloth from a triangle surface (a particle per vertex of equal
// mass, a stretch spring per edge, a bending spring across each shared edge) and its bad input.
#include <catch2/catch.hpp>

#include "ramus/error.h"
#include "ramus/precompute/cloth/mass_spring_cloth.h"

using namespace ramus;
using Catch::Contains;

namespace {

// A unit square in two triangles (0,1,2) and (0,2,3): the diagonal (0, 2) shared.
SurfaceMesh square() {
  SurfaceMesh s;
  s.vertices.resize(4, 3);
  s.vertices << 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0;
  s.triangles.resize(2, 3);
  s.triangles << 0, 1, 2, 0, 2, 3;
  return s;
}

std::string build_error(const SurfaceMesh& s, const ClothSettings& settings = {}) {
  try {
    build_mass_spring_cloth(s, settings, {}, "cloth.obj");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("Two triangles make 5 stretch springs, 1 bending spring and 4 equal masses",
          "[precompute][cloth]") {
  ClothSettings settings;
  settings.areal_density = 0.3;
  settings.stretch_stiffness = 500;
  settings.bend_stiffness = 7;
  settings.spring_damping = 0.01;
  const MassSpringCloth cloth = build_mass_spring_cloth(square(), settings, {3, 0, 3}, "sq");
  REQUIRE(cloth.num_stretch == 5);
  REQUIRE(cloth.num_springs() == 6);
  CHECK(cloth.area == Approx(1.0));
  CHECK(cloth.particle_mass == Approx(0.3 / 4));
  CHECK(cloth.pinned == std::vector<int>{0, 3});
  // The bending spring joins the corners off the shared diagonal (0, 2): 1 and 3, length √2.
  const ClothSpring& bend = cloth.springs.back();
  CHECK(std::min(bend.i, bend.j) == 1);
  CHECK(std::max(bend.i, bend.j) == 3);
  CHECK(bend.rest_length == Approx(std::sqrt(2.0)));
  CHECK(bend.stiffness == 7);
  double lengths = 0;
  for (int s = 0; s < cloth.num_stretch; ++s) {
    CHECK(cloth.springs[static_cast<std::size_t>(s)].stiffness == 500);
    CHECK(cloth.springs[static_cast<std::size_t>(s)].damping == 0.01);
    lengths += cloth.springs[static_cast<std::size_t>(s)].rest_length;
  }
  CHECK(lengths == Approx(4 + std::sqrt(2.0)));
  // No bending stiffness: no bending springs.
  settings.bend_stiffness = 0;
  CHECK(build_mass_spring_cloth(square(), settings, {}, "sq").num_springs() == 5);
}

TEST_CASE("A generated square cloth has n² particles and every edge and shared edge a spring",
          "[precompute][cloth]") {
  const int n = 7;
  const SurfaceMesh s = make_square_cloth(n, 2.0);
  REQUIRE(s.num_vertices() == n * n);
  REQUIRE(s.num_triangles() == 2 * (n - 1) * (n - 1));
  const MassSpringCloth cloth = build_mass_spring_cloth(s, ClothSettings{}, {}, "square");
  const int edges = 2 * n * (n - 1) + (n - 1) * (n - 1);
  CHECK(cloth.num_stretch == edges);
  CHECK(cloth.num_springs() - cloth.num_stretch == edges - 4 * (n - 1));
  CHECK(cloth.area == Approx(4.0));
  CHECK(cloth.particle_mass == Approx(ClothSettings{}.areal_density * 4.0 / (n * n)));
  CHECK(s.vertices.col(0).minCoeff() == Approx(-1.0));
  CHECK(s.vertices.col(1).maxCoeff() == Approx(1.0));
}

TEST_CASE("Bad cloth input is refused naming the triangle, edge, vertex or setting",
          "[precompute][cloth]") {
  SurfaceMesh collinear = square();
  collinear.vertices.row(3) << 0.5, 0.5, 0;  // (0, 2, 3) on one line
  CHECK_THAT(build_error(collinear), Contains("cloth.obj") &&
                                         Contains("triangle 1 (vertices 0, 2, 3)") &&
                                         Contains("degenerate"));
  // A tiny but well-shaped cloth is accepted (shape, not size).
  SurfaceMesh tiny = square();
  tiny.vertices *= 1e-7;
  CHECK(build_error(tiny).empty());
  // Three triangles on the edge (0, 2).
  SurfaceMesh fin = square();
  fin.vertices.conservativeResize(5, 3);
  fin.vertices.row(4) << 0.5, 0.5, 1;
  fin.triangles.conservativeResize(3, 3);
  fin.triangles.row(2) << 0, 2, 4;
  CHECK_THAT(build_error(fin),
             Contains("edge (0, 2) is shared by 3 triangles") && Contains("manifold"));
  // The corners off the shared edge at one point: a zero-length bending spring.
  SurfaceMesh folded = square();
  folded.vertices.row(3) = folded.vertices.row(1);
  CHECK_THAT(build_error(folded),
             Contains("bending spring across edge (0, 2)") && Contains("zero length"));
  ClothSettings negative;
  negative.stretch_stiffness = -5;
  CHECK_THAT(build_error(square(), negative),
             Contains("cloth.stretch_stiffness: must be positive, got -5"));
  SurfaceMesh stray = square();
  stray.vertices.conservativeResize(5, 3);
  stray.vertices.row(4) << 3, 3, 3;
  CHECK_THAT(build_error(stray), Contains("vertex 4 is in no triangle"));
  SurfaceMesh out_of_range = square();
  out_of_range.triangles(1, 2) = 9;
  CHECK_THAT(build_error(out_of_range), Contains("outside 0..3"));
  SurfaceMesh nan = square();
  nan.vertices(2, 1) = NAN;
  CHECK_THAT(build_error(nan), Contains("vertex 2 has a non-finite coordinate"));
}
