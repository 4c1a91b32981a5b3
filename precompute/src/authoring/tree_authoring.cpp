#include "ramus/precompute/authoring/tree_authoring.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "ramus/error.h"
#include "ramus/precompute/authoring/piece_tree.h"

namespace ramus {

namespace {

using nlohmann::json;

// A shape placed this often (leaves) gets r = 8 from 4 linear modes.
constexpr long kManyPlacements = 10;

json vector_json(const Eigen::Vector3d& v) {
  return json::array({v.x(), v.y(), v.z()});
}

// A "vertices" selector: TetGen keeps a surface's vertices first and in order, so these are
// the part's own base vertices, and no point it adds inside (which a box around them would
// catch, outside the parent where the base meets it at a slant).
json vertices_selector(const std::vector<int>& vertices) {
  return json::array({{{"vertices", vertices}}});
}

// The pieces root first, each after its parent (breadth first).
std::vector<int> tree_order(const PieceTree& tree) {
  std::vector<std::vector<int>> children(tree.parent.size());
  for (std::size_t k = 0; k < tree.parent.size(); ++k)
    if (tree.parent[k] >= 0)
      children[static_cast<std::size_t>(tree.parent[k])].push_back(static_cast<int>(k));
  std::vector<int> order{tree.root};
  for (std::size_t i = 0; i < order.size(); ++i)
    for (int c : children[static_cast<std::size_t>(order[i])]) order.push_back(c);
  return order;
}

// The base of shape `shape` in its representative's vertices: those at their parent in every
// piece of the shape (each representative vertex placed onto the piece's nearest vertex).
std::vector<int> common_base(const std::vector<SurfaceMesh>& pieces, const RepeatedShapes& shapes,
                             const PieceTree& tree, int shape) {
  const auto first =
      static_cast<std::size_t>(shapes.representatives[static_cast<std::size_t>(shape)]);
  std::vector<int> base = tree.base[first];
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    if (k == first || shapes.shape_of[k] != shape) continue;
    const std::vector<int>& own = tree.base[k];
    std::erase_if(base, [&](int i) {
      const Eigen::Vector3d x =
          shapes.placement[k].apply(pieces[first].vertices.row(i).transpose());
      Eigen::Index nearest = 0;
      (pieces[k].vertices.rowwise() - x.transpose()).rowwise().squaredNorm().minCoeff(&nearest);
      return !std::binary_search(own.begin(), own.end(), static_cast<int>(nearest));
    });
  }
  return base;
}

}  // namespace

AuthoredTree author_tree(const SurfaceMesh& soup, const std::string& source,
                         const std::string& parts_folder, const AuthoringOptions& options) {
  if (soup.num_triangles() == 0) throw InputError(source, 0, "no triangles to author a tree from");
  const double size =
      (soup.vertices.colwise().maxCoeff() - soup.vertices.colwise().minCoeff()).norm();
  const double weld = options.weld_distance > 0 ? options.weld_distance : 1e-9 * size;
  const double gap = options.gap > 0 ? options.gap : 1e-3 * size;
  // Stages: pieces, their shapes, their tree.
  AuthoredTree result;
  const std::vector<SurfaceMesh> pieces = connected_pieces(soup, weld);
  result.num_pieces = static_cast<int>(pieces.size());
  const RepeatedShapes shapes = find_repeated_shapes(pieces, options.similarity);
  const PieceTree tree = attach_pieces(pieces, gap, weld, source);

  // Parts: each shape in the axes of its first piece, based where that piece hangs.
  json parts = json::object();
  std::vector<std::string> part_names;
  for (std::size_t s = 0; s < shapes.representatives.size(); ++s) {
    const int first = shapes.representatives[s];
    const SurfaceMesh& surface = pieces[static_cast<std::size_t>(first)];
    const std::string name = first == tree.root ? "trunk" : "shape_" + std::to_string(s);
    part_names.push_back(name);
    result.part_surfaces.emplace_back(name, surface);
    const std::vector<int> base = common_base(pieces, shapes, tree, static_cast<int>(s));
    const auto placed =
        std::count(shapes.shape_of.begin(), shapes.shape_of.end(), static_cast<int>(s));
    if (base.size() < 3)
      throw InputError(
          source, 0,
          "the " + std::to_string(placed) + " pieces of shape '" + name + "' (piece " +
              std::to_string(first) + " and its repeats) share " + std::to_string(base.size()) +
              " vertices at their parents, fewer than the 3 a base needs: they hang differently");
    parts[name] = {{"mesh", (parts_folder.empty() ? "" : parts_folder + "/") + name + ".obj"},
                   {"material",
                    {{"youngs_modulus", options.material.youngs_modulus},
                     {"poisson_ratio", options.material.poisson_ratio},
                     {"density", options.material.density}}},
                   {"base", vertices_selector(base)}};
    // A shape placed many times (a leaf) gets a small basis: its cost is paid per placement.
    if (placed >= kManyPlacements) parts[name]["reduction"] = {{"linear_modes", 4}, {"r", 8}};
    try {
      check_closed_surface(surface, source);
    } catch (const InputError& e) {
      result.notes.push_back("part '" + name +
                             "' is not a closed surface, which TetGen cannot mesh (" + e.what() +
                             ")");
    }
  }
  // Instances: every piece, parents first, placed by its shape's similarity.
  json instances = json::array();
  std::vector<std::string> piece_names(pieces.size());
  std::vector<int> count(shapes.representatives.size(), 0);
  double largest_gap = 0;
  for (int k : tree_order(tree)) {
    const auto piece = static_cast<std::size_t>(k);
    const auto shape = static_cast<std::size_t>(shapes.shape_of[piece]);
    piece_names[piece] =
        part_names[shape] + (k == tree.root ? "" : "_" + std::to_string(count[shape]++));
    const Similarity& s = shapes.placement[piece];
    json instance = {{"name", piece_names[piece]}, {"part", part_names[shape]}};
    if (tree.parent[piece] >= 0)
      instance["parent"] = piece_names[static_cast<std::size_t>(tree.parent[piece])];
    json rotation = json::array();
    for (int row = 0; row < 3; ++row)
      rotation.push_back(vector_json(s.rotation.row(row).transpose()));
    instance["rotation"] = rotation;
    instance["translation"] = vector_json(s.translation);
    instance["scale"] = s.scale;
    instances.push_back(instance);
    largest_gap = std::max(largest_gap, tree.gap[piece]);
  }
  const json spec = {{"comment", "Authored by `ramus author` from " + source + ": " +
                                     std::to_string(pieces.size()) + " pieces, " +
                                     std::to_string(part_names.size()) + " distinct shapes."},
                     {"parts", parts},
                     {"instances", instances},
                     {"attachment_tolerance", std::max(1.01 * largest_gap, 1e-9 * size)},
                     {"simulation", {{"time_step", 0.01}, {"gravity", {0, 0, -9.81}}}}};
  result.spec_json = spec.dump(2);
  result.num_instances = static_cast<int>(instances.size());
  return result;
}

}  // namespace ramus
