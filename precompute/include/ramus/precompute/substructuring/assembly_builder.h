// An assembly of parts (substructuring paper §5: the oak's branches and leaves): each distinct
// part mesh is reduced once with its base held, then placed any number of times (rotation,
// translation, uniform scale); a placed part's base is embedded in its parent's tets wherever
// they are (meshes need not conform) and the interface data of Eq. 1-4 come from the parent
// part's basis at those points.
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "ramus/precompute/fem/material.h"
#include "ramus/precompute/generators/tree_generator.h"
#include "ramus/precompute/mesh/surface_mesh.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/reduction/distributed_reduction.h"
#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// One distinct part: its mesh in its own coordinates, per-tet materials, base vertices (held
/// for its modes: the anchors of the root part, the attachment of the others; none: a free
/// body) and how to reduce it (r = 0: a rigid part).
struct AssemblyPart {
  std::string name;
  TetMesh mesh;
  std::vector<Material> materials;  ///< #T
  std::vector<int> base;            ///< sorted vertex indices
  ReductionSpec reduction;
  /// Optional: the mesh cut into a tree of domains (its root holds `base`). Each domain becomes
  /// a part of its own, "<part>/<domain>", reduced with domain_reductions[k] and its interface
  /// with its parent domain held; every placement of this part places all of them.
  std::optional<DomainTree> domains;
  std::vector<ReductionSpec> domain_reductions;  ///< per tree domain, when `domains` is set
  /// Optional: this part is the domain named `source_domain` of part `source_part` (a part with
  /// domains) placed on its own, its base that domain's interface; reduced once for both uses.
  /// mesh, materials, base and reduction are then unused.
  int source_part = -1;
  std::string source_domain;
  /// Per base vertex (m²), the weights of the attachment's centroid and fit; empty: a third of
  /// the area of every surface triangle of the base per corner.
  std::vector<double> base_weights;
  /// Per vertex, its index in the mesh this part was cut from (#V, with source_num_vertices):
  /// instances of one vertex group number their vertices that way, sharing interface vertices.
  std::vector<int> source_vertices;
  int source_num_vertices = 0;
  /// Optional triangle mesh for rendering, in the part mesh's coordinates: every placement
  /// embeds it in its tets (the model's embedded_surface).
  SurfaceMesh render_surface;
};

/// One placement of a part: x_world = rotation (scale X_mesh) + translation; parents first
/// (instance 0 is the root, parent -1).
struct AssemblyInstance {
  std::string name;
  int part = 0;
  int parent = -1;
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();
  double scale = 1;
  /// When the parent places a part with domains: the domain it attaches to (empty: the one whose
  /// tets hold most of this instance's base).
  std::string parent_domain;
  /// Instances of one group (>= 0) are the domains of one placed part: their vertices are
  /// numbered once, as in the mesh they were cut from (AssemblyPart::source_vertices).
  int vertex_group = -1;
};

/// Builds the model: the parts some instance places, in the order of their first placement,
/// each reduced once (on up to `threads` threads,
/// 0: all cores) with its base held, its rest positions recentred on the area-weighted centroid
/// of its base (a free part: on its centre of mass), W1..W7 in that frame; domain k places
/// instances[k]. A child's base vertices are embedded in its parent instance's tets (the tet
/// that holds each, else the nearest: a base vertex farther than `attachment_tolerance` (m)
/// from its parent is an error naming both instances and the distance; nearer, the child is
/// snapped onto the parent, moved by at most that distance); its frame is the interface frame
/// (origin at the embedded base centroid, axes the placement's rotation) and its interface data
/// come from compute_embedded_interface on the parent's scaled basis. Every instance has its own
/// global vertices (a vertex group's share theirs); parts with domains are expanded first
/// (expand_domain_parts); every placement of a part with a render surface embeds it in that
/// placement's domains (model.embedded_surface, in instance order); subtree mass, centre and
/// inertia from the parts' exact moments, scaled. report gets "<part>: <stage>" per part and stage,
/// then "placement". The parts are reduced on `threads` threads (0: all cores) and, given
/// `processes`, spread over them (reduce_distributed: every process builds the same model).
/// Throws OptionError / MeshError / NumericalError naming the part or instance.
ReducedModel build_assembly_model(const std::vector<AssemblyPart>& parts,
                                  const std::vector<AssemblyInstance>& instances,
                                  double attachment_tolerance, int threads = 0,
                                  const StageReporter& report = {},
                                  ProcessGroup* processes = nullptr);

/// A render surface placed with an instance: world rest vertices (#S by 3), triangles, and the
/// instances whose tets hold it (the domains of one placement).
struct PlacedSurface {
  std::vector<int> instances;
  Eigen::MatrixX3d vertices;
  Eigen::MatrixX3i triangles;
};

/// Parts and placements, as build_assembly_model takes them; surfaces: filled by
/// expand_domain_parts from the parts' render surfaces.
struct Assembly {
  std::vector<AssemblyPart> parts;
  std::vector<AssemblyInstance> instances;
  std::vector<PlacedSurface> surfaces;
};

/// The assembly with every part that has domains replaced by one part per domain (named
/// "<part>/<domain>", in breadth-first order from its root) and every placement of it by one
/// instance per domain ("<instance>/<domain>", same rotation, translation and scale, a vertex
/// group of their own); a part naming another's domain (source_part) becomes that domain's part.
/// A child of such a placement attaches to its parent_domain, else to the domain whose tets hold
/// most of its base. Every placement of a part with a render surface adds a PlacedSurface. Parts
/// and instances without domains are kept as they are, in order. Throws OptionError naming the part
/// or instance (unknown source part or domain, a base outside the root domain, a tree that does not
/// match its mesh).
Assembly expand_domain_parts(const Assembly& assembly);

/// The assembly of a generated tree (tree_generator.h): each part with its base (its vertices of
/// flag 1), its material (Poisson ratio 0.35) and r (r / 2 linear modes); the placements in order.
Assembly tree_assembly(const Tree& tree);

}  // namespace ramus
