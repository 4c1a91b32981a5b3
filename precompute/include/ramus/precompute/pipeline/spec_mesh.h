// A one-mesh spec's mesh as precompute and check read it: the mesh (tetrahedralized when a
// surface), its label file, what only the mesh can confirm (labels, force vertices), the anchors,
// and the domain tree its "domains" block asks for.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ramus/precompute/mesh/surface_mesh.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/precompute_listener.h"
#include "ramus/precompute/substructuring/domain_tree.h"

namespace ramus {

struct SpecMesh {
  TetMesh mesh;
  std::vector<int> fixed;  ///< the anchored vertices (the "fixed" selectors)
};

/// InputError when the spec has keys only the full-space simulation takes ("copies",
/// "initial_velocity").
void refuse_full_space_only(const ModelSpec& spec);
/// Reads, checks and labels the spec's mesh and selects its anchors; errors name the spec's key.
SpecMesh load_spec_mesh(const ModelSpec& spec, const PrecomputeListener& listener);
/// A spec's tet mesh (tetrahedralized when a surface) in metres: its coordinates times
/// `length_unit` (the spec's "units"), validated, with a warning when implausibly sized.
TetMesh read_spec_tet_mesh(const std::string& path, const TetrahedralizeOptions& tetrahedralize,
                           double length_unit, const PrecomputeListener& listener);
/// A spec's render surface in metres (its coordinates times `length_unit`).
SurfaceMesh read_spec_surface(const std::string& path, double length_unit);
/// The reader's notes on what it changed (mesh.read_notes), as notes naming the file.
void report_read_notes(const TetMesh& mesh, const std::string& path,
                       const PrecomputeListener& listener);
/// A warning when a mesh is over 200 m or under 5 mm across (units other than metres?).
void warn_if_size_implausible(const TetMesh& mesh, const std::string& path, double length_unit,
                              const PrecomputeListener& listener);
/// A label file's labels replace the mesh's: they cut the domains and pick the materials.
void apply_label_file(const std::optional<DomainsSpec>& domains, TetMesh& mesh);
/// materials_by_label names labels the mesh's tets carry, and forces name vertices it has
/// (check_spec_forces, called after the mesh is reported, says where each acts).
void check_spec_against_mesh(const ModelSpec& spec, const TetMesh& mesh);
/// The spec's forces on `mesh` (the whole model's numbering) resolve; one given by position says
/// which vertex it acts at and how far that is (a warning beyond 5 % of the model's size).
/// Returns them resolved (each with its vertex).
std::vector<PointForce> check_spec_forces(const ModelSpec& spec, const TetMesh& mesh,
                                          const PrecomputeListener& listener);
/// The domain tree a "domains" block asks for: one domain ("body"), the labels, or an
/// automatic partition.
DomainTree spec_domain_tree(const std::optional<DomainsSpec>& domains, const TetMesh& mesh,
                            const std::vector<int>& fixed, const PrecomputeListener& listener);
/// The reduction of every tree domain: r from the "domains" block at `key` (total r̂
/// distributed, or base.r each), then the per-domain overrides by name; errors name the spec and
/// the key (precompute and `ramus check` alike).
std::vector<ReductionSpec> domain_reductions(const ReductionSpec& base,
                                             const std::optional<DomainsSpec>& domains,
                                             const DomainTree& tree, const std::string& spec_path,
                                             const std::string& key);

}  // namespace ramus
