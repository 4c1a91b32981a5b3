#include <catch2/catch.hpp>
#include "ramus/precompute/mesh/tet_mesh.h"
TEST_CASE("unit tet volume", "[smoke]") {
  ramus::TetMesh m;
  m.rest_positions.resize(4, 3);
  m.rest_positions << 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1;
  m.tets.resize(1, 4);
  m.tets << 0, 1, 2, 3;
  CHECK(ramus::signed_tet_volume(m.rest_positions, m.tets, 0) == Approx(1.0 / 6.0));
}
