// How well a domain tree meets the substructuring paper's rigid-interface assumption (§3, Fig. 3
// right): per interface its size and how far the best-fit transformation A_ij of Eq. 2 is from
// its rotation R_ij (Eq. 5, A = R S) when the parent deforms, with warnings naming the domains.
#pragma once

#include <string>
#include <vector>

#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// The interface of one non-root domain with its parent.
struct InterfaceDiagnostics {
  int domain = 0;            ///< the child domain (index into ReducedModel::domains)
  int parent = 0;            ///< its parent domain
  int depth = 0;             ///< the child's depth in the tree (the root's children: 1)
  int vertices = 0;          ///< m, the interface (base) vertices
  double area = 0;           ///< Σ_k w^k (m², in the child part's coordinates)
  double relative_area = 0;  ///< area / the child part's boundary area (interface included)
  double nonrigidity = 0;    ///< max over the parent's basis columns l of |A - R|_F / |A|_F
                             ///< with q = α_l e_l: every column at the elastic energy of the
                             ///< lowest one when that moves the parent's farthest vertex by
                             ///< InterfaceLimits::amplitude of its size; 0 for a rigid parent
  int worst_column = -1;     ///< that l (-1 for a rigid parent)
};

/// Thresholds of the warnings (defaults: docs/VALIDATION.md, "Interfaces").
struct InterfaceLimits {
  double amplitude = 0.1;      ///< α_0 moves the parent's farthest vertex by this share of its
                               ///< rest bounding-box diagonal
  double nonrigidity = 0.12;   ///< above: a soft interface
  double relative_area = 0.2;  ///< above: a large interface
  int depth = 5;               ///< above: a deep chain (the paper's examples: depth <= 5)
};

/// One entry per non-root domain, in domain order.
std::vector<InterfaceDiagnostics> interface_diagnostics(const ReducedModel& model,
                                                        const InterfaceLimits& limits = {});

/// Warnings for soft or large interfaces and deep chains, each naming the domains and the cure.
std::vector<std::string> interface_warnings(const ReducedModel& model,
                                            const std::vector<InterfaceDiagnostics>& diagnostics,
                                            const InterfaceLimits& limits = {});

/// At runtime: |A - R|_F / |A|_F = |S - I|_F / |S|_F of domain `domain`'s interface with its parent
/// after the last step (A = R S, Eq. 5); 0 for the root and for a rigid interface motion.
double interface_nonrigidity(const State& state, int domain) noexcept;

}  // namespace ramus
