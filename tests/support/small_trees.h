// The small generated trees of the tests: the options of `ramus generate tree --small` (the
// authoring tests export and read back 20 leaves, 3 main branches with 2 sub-branches between
// them: 26 placements of 6 parts), and a compiled tree the runtime's tests step (24 leaves in
// lanes, r = 4; branches and trunk r = 8), built in memory once per test executable.
#pragma once

#include <memory>

#include "ramus/precompute/generators/tree_generator.h"
#include "ramus/precompute/substructuring/assembly_builder.h"
#include "ramus/runtime/model/model.h"

namespace ramus::test {

inline TreeOptions small_tree_options(int leaves = 20, int main_branches = 3,
                                      int sub_branches = 2) {
  TreeOptions options;
  options.small = true;
  options.leaves = leaves;
  options.main_branches = main_branches;
  options.sub_branches = sub_branches;
  return options;
}

/// The tree of small_tree_options(leaves, 3, 4) with r = 8 on the trunk and branches and
/// `leaf_r` on the leaves, compiled (each distinct tree once per executable).
inline std::shared_ptr<const Model> compiled_small_tree(int leaves = 24, int leaf_r = 4) {
  TreeOptions options = small_tree_options(leaves, 3, 4);
  options.branch_r = options.trunk_r = 8;
  options.leaf_r = leaf_r;
  const Assembly assembly = tree_assembly(make_tree(options));
  return compile_model(build_assembly_model(assembly.parts, assembly.instances, 1e-9, 0));
}

inline std::shared_ptr<const Model> small_tree() {
  static const std::shared_ptr<const Model> made = compiled_small_tree();
  return made;
}

}  // namespace ramus::test
