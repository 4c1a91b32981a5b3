// Which piece hangs from which: boxes standing for a trunk, branches and leaves, touching or
// nearly touching, and a piece nothing reaches.
#include <catch2/catch.hpp>

#include "ramus/error.h"
#include "ramus/precompute/authoring/piece_tree.h"
#include "support/box_surface.h"

using namespace ramus;
using Catch::Matchers::Contains;

using test::box_surface;

TEST_CASE("Pieces hang from the largest, each at the vertices that touch its parent",
          "[precompute][authoring]") {
  std::vector<SurfaceMesh> pieces;
  // A leaf first (the root is the largest, wherever it comes), 1 mm off its branch's end.
  pieces.push_back(box_surface({0.601, 0.03, 0.51}, {0.7, 0.05, 0.52}));
  pieces.push_back(box_surface({0, 0, 0}, {0.1, 0.1, 1.0}));             // the trunk
  pieces.push_back(box_surface({0.1, 0.025, 0.5}, {0.6, 0.075, 0.55}));  // a branch on its +x side
  pieces.push_back(box_surface({-0.4, 0.025, 0.7}, {0, 0.075, 0.75}));   // one on its -x side
  const PieceTree tree = attach_pieces(pieces, 0.002, 1e-9, "soup.obj");
  CHECK(tree.root == 1);
  CHECK(tree.parent == std::vector<int>{2, -1, 1, 1});
  // The trunk's foot; each branch's face on the trunk; the leaf's face towards its branch.
  CHECK(tree.base[1] == std::vector<int>{0, 1, 2, 3});
  CHECK(tree.base[2] == std::vector<int>{0, 2, 4, 6});
  CHECK(tree.base[3] == std::vector<int>{1, 3, 5, 7});
  CHECK(tree.base[0] == std::vector<int>{0, 2, 4, 6});
  CHECK(tree.gap[0] == Approx(0.001).epsilon(1e-9));
  CHECK(tree.gap[2] == 0);
  // With a gap under the leaf's 1 mm, the leaf hangs from nothing: an error naming it.
  CHECK_THROWS_WITH(attach_pieces(pieces, 0.0005, 1e-9, "soup.obj"),
                    Contains("soup.obj") && Contains("1 piece touches nothing") &&
                        Contains("piece 0") && Contains("0.001"));
}
