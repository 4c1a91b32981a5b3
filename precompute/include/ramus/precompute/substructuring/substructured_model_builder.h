// The substructured precompute (substructuring paper, §3-5): a tet mesh and its domain tree
// become a ReducedModel of d reduced domains, each with its own copy of its interface vertices,
// reduced with the interface to its parent held fixed (the root: with the anchors, or free with
// its 6 rigid modes removed), plus the interface data (Eq. 1-4), the system-force integrals
// (Appendix B) and the subtree masses that couple them at runtime.
#pragma once

#include <vector>

#include "ramus/precompute/fem/material.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/reduction/distributed_reduction.h"
#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Per-domain basis sizes summing exactly to total_r, each at least min_r and at most max_r.
/// Shares w_i = #tets(i) (proportional) or log(1 + #tets(i)) (logarithmic: positive for a 1-tet
/// domain); the real sizes x_i = clamp(λ w_i, min_r, max_r) with λ such that Σ x_i = total_r (so
/// the excess of clamped domains is redistributed), then rounded by largest remainders (ties: the
/// lower domain index). Throws OptionError when that is impossible (total_r < min_r d or
/// > max_r d), for no domains, a domain with < 1 tet, or min_r < 0, max_r < min_r.
std::vector<int> distribute_modes(const std::vector<int>& domain_tet_counts, int total_r,
                                  ModeDistribution distribution, int min_r = 1,
                                  int max_r = 1000000);

/// Builds the model: domains in breadth-first order from the tree's root (so domain 0 is the
/// root and every parent comes before its children); reduction[k] is for tree domain k (r = 0:
/// a rigid domain). tet_materials has #T entries. Root frame: the world for an anchored root;
/// for a free root, origin at the whole object's centre of mass. A child's frame: origin at the
/// rest interface centroid x̂_ij, axes the parent's (R̂_ij = I). Each domain has its own copies of
/// its vertices (global_vertices: local -> mesh index); rest positions are in its frame. A child
/// is reduced with its copies of the parent interface fixed; interface weights are the area
/// (one third of every face shared by a child tet and a parent tet touching the vertex). A rigid
/// domain (r = 0) has a 3#V by 0 basis, an r = 0 polynomial and a 0 by 3 gravity basis (a free
/// rigid root reports 6 rigid modes). Subtree mass, centre of mass and inertia tensor
/// ∫ρ (|y|² I - y yᵀ) about that centre (exact per-tet second moments) are in the domain's frame.
/// report gets "<domain name>: <stage>" per domain and stage ("mesh", the stages of
/// build_reduced_part or "rigid domain", "interface", "system force integrals") and one
/// "interface areas". The domains are reduced on `threads` threads (0: all cores) and, given
/// `processes`, spread over them (reduce_distributed: every process builds the same model).
/// Throws OptionError / MeshError / NumericalError naming the domain ("domain '<name>': ..."; a
/// MeshError raised inside a domain keeps that domain's indices).
ReducedModel build_substructured_model(
    const TetMesh& mesh, const std::vector<Material>& tet_materials, const DomainTree& tree,
    const std::vector<int>& anchored_vertices, const std::vector<ReductionSpec>& reduction,
    const StageReporter& report = {}, int threads = 0, ProcessGroup* processes = nullptr);

}  // namespace ramus
