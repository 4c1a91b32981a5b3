// The undivided mesh of a substructured model, reassembled from its domains: the global vertex
// numbering that C0 output, point forces and rendering use.
#pragma once

#include <Eigen/Core>
#include <utility>

#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/model/model.h"

namespace ramus {

/// Number of global vertices: model.num_global_vertices, or the only domain's #V for a model
/// without a global numbering.
int global_vertex_count(const ReducedModel& model);
/// World rest positions of the undivided mesh (num_global_vertices by 3).
Eigen::MatrixX3d global_rest_positions(const ReducedModel& model);
/// Every domain's tets in global vertex indices (Σ #T_i by 4), domain by domain; `tet_domain`
/// (optional) receives the domain of each.
Eigen::MatrixX4i global_tets(const ReducedModel& model, Eigen::VectorXi* tet_domain = nullptr);
/// The copy of global vertex v with the smallest domain index: (domain, local vertex), or
/// (-1, -1) when no domain has it.
std::pair<int, int> vertex_copy(const ReducedModel& model, int global_vertex);

/// The same for a compiled model (domains in place of domains).
Eigen::MatrixX3d global_rest_positions(const Model& model);
Eigen::MatrixX4i global_tets(const Model& model, Eigen::VectorXi* tet_domain = nullptr);
std::pair<int, int> vertex_copy(const Model& model, int global_vertex);
/// The undivided mesh's boundary (#F by 3, global vertex indices, outward), derived from the
/// parts' surfaces: every domain's surface triangles but those two domains share (a cut).
/// Allocates; O(the model's surface).
Eigen::MatrixX3i global_boundary_triangles(const Model& model);

}  // namespace ramus
