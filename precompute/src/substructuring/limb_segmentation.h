// Segmentation of a mesh's skeleton into limbs and domains (precompute internals; the shape
// method of partition_branching_mesh, docs/PARTITION.md). The skeleton is the tree of level-set
// slices of the geodesic distance from the anchors (a Reeb graph); each slice knows its volume and
// its extent along the distance, so volume / extent is its cross-section area.
//  1. At a junction the child whose cross-section dominates every sibling's (by `dominance`), or
//     failing that the one carrying that much more volume without being that much thinner,
//     continues its parent (a trunk passing its thin branches, a stem above its branches);
//     equal children (a Y) do not.
//  2. The chains of continued slices are limbs; a limb is cut where its mean cross-section on
//     one side exceeds the other side's by `neck_contrast` (a blade after a petiole, a bulb on a
//     stalk), recursively, each piece holding at least min_domain_tets.
//  3. Stubs (an uncut limb leaving a junction, ending within 1.5 diameters) and pieces under
//     min_domain_tets merge into their parent; the tree is kept within max_depth by merging the
//     smallest piece on the deepest path into its parent.
#pragma once

#include <string>
#include <vector>

namespace ramus::limb_segmentation {

/// One slice of the skeleton.
struct SkeletonNode {
  int parent = -1;      ///< parent slice (nearer the anchors), -1 for the root
  int tets = 0;         ///< tets in the slice
  double volume = 0.0;  ///< m³
  double length = 0.0;  ///< extent along the geodesic distance, m (> 0)
  int label = -1;       ///< the slice's tet label when labels bound the limbs, else -1
};

/// The thresholds of the segmentation (see the file comment).
struct LimbOptions {
  double dominance = 2.0;
  double neck_contrast = 3.0;
  int min_domain_tets = 48;
  int max_depth = 5;
};

/// Domain of every skeleton node (0..num_domains-1, the root's domain is 0) and what was done.
struct LimbDomains {
  std::vector<int> domain_of_node;
  int num_domains = 0;
  int num_limbs = 0;     ///< chains of continued slices
  int depth_merges = 0;  ///< pieces merged to respect max_depth
};

/// Segments the skeleton (nodes listed in any order, exactly one root, parents form a tree).
LimbDomains segment_limbs(const std::vector<SkeletonNode>& nodes, const LimbOptions& options);

}  // namespace ramus::limb_segmentation
