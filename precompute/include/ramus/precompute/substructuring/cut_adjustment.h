// Moving a domain tree's cuts where the full FEM says its interfaces are not rigid (issue 35,
// item 1): substructuring holds each interface rigid (Barbič & Zhao 2011, §3), so a cut where the
// full solution bends stiffens the tree. The measure below finds that interface in a full-space
// displacement field (the static deflection or a mode); move_cut_outward hands the nearer part of
// the domain beyond it to its parent, where the bending is less. basis_residual_errors says
// instead which domain's basis falls short of the field (it needs more modes).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Per domain (the root: 0): how far `field` (#V by 3, any unit; global numbering) departs from a
/// rigid motion at the domain's interface with its parent, as a share of the field's largest
/// vertex displacement: ρ (1 + L / a) / max |u|, with ρ the area-weighted RMS residual of the
/// interface's best rigid fit (linearized rotation), a the interface's RMS radius and L the
/// farthest rest vertex of the domain's subtree from the interface centroid (the rotation error
/// ρ / a carried over the subtree). Throws OptionError when field's rows are not the mesh's.
std::vector<double> interface_rigidity_errors(const TetMesh& mesh, const DomainTree& tree,
                                              const Eigen::MatrixX3d& field);

/// Per tree domain: how much of `field` (#V by 3, global numbering) the domain's basis in `model`
/// (a model reduced from this tree; domains matched by name) cannot represent, as a share of the
/// field's largest vertex displacement: the field less its interface's rigid fit (a child), in
/// the domain's frame, fitted by the basis in least squares; the largest vertex residual off the
/// vertices the basis holds. Throws OptionError when field's rows are not the mesh's.
std::vector<double> basis_residual_errors(const TetMesh& mesh, const DomainTree& tree,
                                          const ReducedModel& model, const Eigen::MatrixX3d& field);

/// What move_cut_outward did.
struct CutMove {
  int domain = -1;      ///< the domain whose cut moved (its id in the tree given)
  int moved_tets = 0;   ///< its tets handed to the parent
  bool merged = false;  ///< the whole domain merged into its parent (the tree has one fewer)
  std::string parent;   ///< the parent's name
};

/// The tree with `domain`'s tets nearest its interface (graph distance over mesh edges inside the
/// domain; `fraction` of its tets, 0 < fraction < 1) handed to its parent; the whole domain
/// merged into its parent instead when fewer than min_tets would remain or the moved tets would
/// break the tree (a domain in pieces, a loop). Names and anchors are kept; domain ids after a
/// merged one shift down by one. Throws OptionError for the root or a bad domain or fraction.
DomainTree move_cut_outward(const TetMesh& mesh, const DomainTree& tree,
                            const std::vector<int>& anchored_vertices, int domain, double fraction,
                            int min_tets, CutMove* move = nullptr);

}  // namespace ramus
