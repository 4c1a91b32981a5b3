// A generated tree exported as one polygon soup, authored back into an assembly: the same
// pieces, the same repeats, the same tree.
#include <catch2/catch.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "ramus/error.h"
#include "ramus/precompute/authoring/tree_authoring.h"
#include "ramus/precompute/generators/tree_generator.h"
#include "support/small_trees.h"

using namespace ramus;
using Catch::Matchers::Contains;

TEST_CASE("A generated tree's soup authors back into its parts and placements",
          "[precompute][authoring]") {
  const TreeOptions options = test::small_tree_options();
  const Tree tree = make_tree(options);
  const AuthoredTree authored = author_tree(tree_surface_soup(tree), "soup.obj", "parts");
  REQUIRE(authored.num_pieces == static_cast<int>(tree.placements.size()));
  CHECK(authored.notes.empty());  // every part's surface is closed
  const nlohmann::json spec = nlohmann::json::parse(authored.spec_json);
  const nlohmann::json& instances = spec["instances"];
  CHECK(authored.num_instances == static_cast<int>(instances.size()));
  REQUIRE(instances.size() == tree.placements.size());
  // The generator's placements and the authored instances come in the same order (the soup's
  // pieces are the placements, root first, parents before children): the same parts repeat.
  std::map<std::string, std::string> part_of;  // generator part -> authored part
  std::set<std::string> used;
  std::map<std::string, std::string> name_of;  // generator placement -> authored instance
  for (std::size_t k = 0; k < tree.placements.size(); ++k) {
    const TreePlacement& p = tree.placements[k];
    const std::string part = instances[k]["part"];
    const auto [it, added] = part_of.emplace(p.part, part);
    CHECK(it->second == part);
    used.insert(p.part);
    name_of[p.name] = instances[k]["name"];
    // Its parent is the authored instance of the generator's parent.
    if (p.parent.empty())
      CHECK_FALSE(instances[k].contains("parent"));
    else
      CHECK(instances[k]["parent"] == name_of.at(p.parent));
  }
  CHECK(spec["parts"].size() == used.size());
  CHECK(authored.part_surfaces.size() == used.size());
  CHECK(spec["parts"]["trunk"]["mesh"] == "parts/trunk.obj");
  // Each instance maps its part's surface onto its piece: scale within the generator's range.
  for (const nlohmann::json& instance : instances) {
    const double scale = instance["scale"];
    CHECK(scale > 0.3);
    CHECK(scale < 3);
  }
}

TEST_CASE("Authoring refuses an empty soup and names a floating piece", "[precompute][authoring]") {
  CHECK_THROWS_WITH(author_tree(SurfaceMesh{}, "empty.obj", ""),
                    Contains("empty.obj") && Contains("no triangles"));
  const TreeOptions options = test::small_tree_options(2, 1, 0);
  SurfaceMesh soup = tree_surface_soup(make_tree(options));
  CHECK_NOTHROW(author_tree(soup, "tree.obj", ""));
  // A tetrahedron 10 m off the tree.
  const Eigen::Index v = soup.vertices.rows(), f = soup.triangles.rows();
  soup.vertices.conservativeResize(v + 4, 3);
  soup.vertices.bottomRows(4) << 10, 0, 0, 10.1, 0, 0, 10, 0.1, 0, 10, 0, 0.1;
  soup.triangles.conservativeResize(f + 4, 3);
  soup.triangles.bottomRows(4) << 0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2;
  soup.triangles.bottomRows(4).array() += static_cast<int>(v);
  CHECK_THROWS_WITH(author_tree(soup, "tree.obj", ""), Contains("tree.obj") &&
                                                           Contains("1 piece touches nothing") &&
                                                           Contains("4 vertices"));
}
