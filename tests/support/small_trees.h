// The small generated tree the authoring tests export and read back: a trunk, 3 main branches
// with 2 sub-branches between them, 20 leaves, coarse meshes (26 placements of 6 parts).
#pragma once

#include "ramus/precompute/generators/tree_generator.h"

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

}  // namespace ramus::test
