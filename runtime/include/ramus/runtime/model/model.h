// The compiled, immutable model the runtime steps (MuJoCo's mjModel): everything shared by all
// simulated objects, derived once at load from the file's ReducedModel, in the file's words. A
// *part* is one reduced mesh (basis U, gravity basis, W1..W7, the polynomial packed for
// evaluation); a *domain* is one place of a part in the domain tree (parent, parent-interface
// data, rest placement, subtree inertia, global vertex map) at a uniform scale
// (data/uniform_scale.h). Per-object data lives in a State (model/state.h); many States may share
// one Model.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ramus/runtime/data/model_trust.h"
#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/data/runtime_settings.h"
#include "ramus/runtime/data/uniform_scale.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"
#include "ramus/runtime/kernels/system_force.h"
#include "ramus/runtime/model/render_mesh.h"

namespace ramus {

/// A part whose mass-weighted RMS displacement exceeds this many rest diameters has diverged
/// (StepStatus::kDiverged): no elastic motion, however large, gets there.
constexpr double kDivergenceDiameters = 10;

/// A part's contact samples as the step reads them (ContactSamples of the file, at unit scale in
/// the part's frame), with a bound for the broad phase.
struct PartContact {
  Eigen::VectorXi vertices;                          ///< S: vertices of the part's mesh
  Eigen::VectorXd weights;                           ///< S: surface area each stands for (m²)
  Eigen::Matrix3Xd rest;                             ///< 3 by S: their rest positions (m)
  Eigen::MatrixXd basis;                             ///< 3S by r: U's rows there
  Eigen::Vector3d center = Eigen::Vector3d::Zero();  ///< centre of the samples' bounding sphere
  double radius = 0;                                 ///< its radius at rest (m)
  /// max over samples of |U_k|_F: no sample moves farther than this times |q| from rest.
  double basis_norm = 0;
  int size() const { return static_cast<int>(vertices.size()); }
};

/// One reduced part, shared by every domain that places it. Rest data in the part's own frame at
/// unit scale; a domain multiplies each by its UniformScale factor.
struct Part {
  std::string name;
  int r = 0;                              ///< reduced coordinates (0: a rigid part)
  Eigen::MatrixX3d rest_positions;        ///< #V by 3 (m)
  Eigen::MatrixX4i tets;                  ///< #T by 4
  Eigen::MatrixX3i surface_triangles;     ///< #F by 3, outward
  Eigen::MatrixXd basis;                  ///< U: 3#V by r, mass-orthonormal (Uᵀ M U = I)
  Eigen::MatrixXd gravity_basis;          ///< r by 3: Uᵀ M [e_x e_y e_z]
  SystemForceIntegrals system_force;      ///< W1..W7 (empty only for an anchored single domain)
  SystemForceMatrix system_force_matrix;  ///< the same packed for the step (Eq. 14 as B z)
  ReducedStvkForces forces;               ///< the exact cubic StVK polynomial, packed once
  double mass = 0;                        ///< ∫ρ dV (kg)
  /// |q|_2 beyond which a domain of this part has diverged: the mass-weighted RMS displacement
  /// (∫ρ|u|²/m)^½ at kDivergenceDiameters times the rest diameter (kg^½ m).
  double divergence_norm = 0;
  Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();   ///< ∫ρ X dV (kg m), part frame
  Eigen::Matrix3d second_moment = Eigen::Matrix3d::Zero();  ///< ∫ρ X Xᵀ dV (kg m²), part frame
  /// Wind drag integrals over the rest surface, each triangle's area tensor A n nᵀ lumped a third
  /// to each corner vertex v (P_v): Σ_v P_v (3 by 3, m²), Σ_v U_vᵀ P_v (r by 3) and Σ_v X~_v P_v
  /// (3 by 3, m³), so that a wind w in the domain's axes gives the force drag |w| P w, the reduced
  /// force drag |w| Uᵀ P w and the torque about the part origin (docs/WIND.md).
  Eigen::Matrix3d wind_area = Eigen::Matrix3d::Zero();
  Eigen::MatrixXd wind_basis;
  Eigen::Matrix3d wind_moment = Eigen::Matrix3d::Zero();
  PartContact contact;       ///< where colliders touch it
  std::vector<int> domains;  ///< the domains placing this part, in State column order
  int dof_offset = 0;  ///< its domains' q occupy [dof_offset, dof_offset + r * domains.size())
  /// Its childless domains step in lane groups (Model::childless_groups; forces.batched() keeps
  /// the full quartic the lanes' products read): r > 0 and at least kMinBatchedInstances domains.
  bool batched = false;
};

/// Parts placed at least this often step their childless domains in SIMD lanes.
constexpr int kMinBatchedInstances = 4;

/// Domains a lane group advances at once (one per SIMD lane: two 256-bit registers of doubles;
/// eight share each coefficient a part's products load).
constexpr std::size_t kLaneGroupSize = 8;

/// One column l of a child's interface bases, 16-bit: â_ij column l = centroid_scale · values
/// 0-2, A^l_ij = rotation_scale · values 3-11 (column-major), each integer relative to its
/// group's largest magnitude (32,767), so an entry is off by at most 1.5e-5 of that magnitude —
/// far below the interface fit's own error (its non-rigidity, 0.2-10 % on the oak's leaves). 32 B
/// a column against 48 B in float and 96 B in double: a leaf's attachment and what the step
/// streams per child (docs/PERFORMANCE.md, "Memory per leaf").
struct InterfaceColumn {
  float centroid_scale = 0;  ///< m per unit q_i^l per integer step
  float rotation_scale = 0;  ///< per unit q_i^l per integer step
  std::int16_t values[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
};

/// What a step reads of a child's interface with its parent (Eq. 1-4, ParentInterface in the
/// file): x̂_ij and R̂_ij in double, the bases â_ij and A^l_ij as one InterfaceColumn per parent
/// coordinate, read in one pass. The columns of all domains lie back to back in
/// Model::interface_bases (Model::interface_bases_of): one block, consecutive domains' next to
/// each other.
struct DomainInterface {
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();           ///< x̂_ij (m), in F_i
  Eigen::Matrix3d rest_rotation = Eigen::Matrix3d::Identity();  ///< R̂_ij: F_j's rest axes in F_i
  /// Its r_i columns start here in Model::interface_bases, so x_ij = x̂_ij + â_ij q_i and
  /// A_ij = R̂_ij + Σ_l A^l_ij q_i^l.
  Eigen::Index bases_offset = 0;
  int bases_cols = 0;  ///< r_i (0 for the root)
  /// Bytes it holds (the struct and its columns).
  std::size_t bytes() const {
    return sizeof(DomainInterface) + sizeof(InterfaceColumn) * static_cast<std::size_t>(bases_cols);
  }
};

/// A domain's r_i interface columns in Model::interface_bases.
struct InterfaceBases {
  const InterfaceColumn* columns = nullptr;
  Eigen::Index num_columns = 0;
  Eigen::Index cols() const { return num_columns; }
};

/// Column l of â_ij (m per unit q_i^l), in double.
inline Eigen::Vector3d centroid_column(const InterfaceBases& bases, Eigen::Index l) {
  const InterfaceColumn& c = bases.columns[l];
  const double s = c.centroid_scale;
  return {s * c.values[0], s * c.values[1], s * c.values[2]};
}
/// A^l_ij (per unit q_i^l), in double.
inline Eigen::Matrix3d rotation_block(const InterfaceBases& bases, Eigen::Index l) {
  const InterfaceColumn& c = bases.columns[l];
  Eigen::Matrix3d block;
  for (int k = 0; k < 9; ++k) block.data()[k] = double(c.rotation_scale) * c.values[3 + k];
  return block;
}

/// The compact form of a file's interface (ParentInterface: â 3 by r_i, A^l 3 by 3r_i): x̂, R̂,
/// and its r_i columns written at `columns`, which lie at `offset` of Model::interface_bases.
DomainInterface compact_interface(const ParentInterface& interface, Eigen::Index offset,
                                  InterfaceColumn* columns);

/// One place of a part in the domain tree. Rest quantities are in the domain's frame F_i
/// (coordinates s X_part) except the interface's, which are in the parent's frame.
struct Domain {
  std::string name;
  int part = 0;
  int instance = 0;    ///< its index in the part's `domains` (its column in a batch)
  UniformScale scale;  ///< the part's uniform scale s and the factors it implies
  int r = 0;           ///< = the part's r
  int dof_offset = 0;  ///< q of this domain: State::q.segment(dof_offset, r)
  int parent = -1;     ///< an earlier domain; -1 for the root (domain 0)
  int first_child = 0, num_children = 0;                  ///< Model::children[first_child ...]
  DomainInterface interface;                              ///< with the parent (root: empty)
  Eigen::Vector3d rest_origin = Eigen::Vector3d::Zero();  ///< F_i origin in the world
  Eigen::Matrix3d rest_rotation = Eigen::Matrix3d::Identity();       ///< F_i axes in the world
  double subtree_mass = 0;                                           ///< this domain and below (kg)
  Eigen::Vector3d subtree_center_of_mass = Eigen::Vector3d::Zero();  ///< rest, F_i
  Eigen::Matrix3d subtree_inertia = Eigen::Matrix3d::Zero();         ///< rest, about that centre
  /// r by r, for a domain with children: M' = I + Σ_j m_j â_ijᵀ â_ij, the lumped mass of L1
  /// (constant: the children's subtree masses at their interface centroids).
  Eigen::MatrixXd interface_lumped_mass;
  Eigen::VectorXi global_vertices;  ///< #V: index of each vertex in the undivided mesh
};

/// The whole compiled model. Build it with compile_model or load_model; never modified after.
struct Model {
  std::vector<Part> parts;
  std::vector<Domain> domains;  ///< root first, parents before children
  std::vector<int> children;  ///< children of every domain, grouped by parent (Domain::first_child)
  /// Every domain's interface columns (DomainInterface), back to back in domain order: one block.
  std::vector<InterfaceColumn> interface_bases;
  /// The order of a step's root-to-leaves pass: the root, then the domains with children by depth
  /// (level d: those at depth d, independent of each other), then the non-root domains without
  /// children (nothing else in a step reads them); each list by part, ascending within
  /// one. Each list runs on the Workspace's threads.
  std::vector<std::vector<int>> step_levels;
  std::vector<int> childless_domains;
  /// Lane groups of childless_domains: group g is [childless_groups[g], childless_groups[g + 1]),
  /// up to kLaneGroupSize consecutive domains of one part, advanced together in SIMD lanes.
  std::vector<int> childless_groups;
  std::vector<int> parent_domains;  ///< the domains with children, ascending
  /// Lane groups of domains with children, any depth: group g is parent_lane_domains[
  /// parent_lane_groups[g], parent_lane_groups[g + 1]), 2 to kLaneGroupSize domains of one batched
  /// part (sizes evened out), whose semi-implicit stage matrices a step factors together in
  /// SIMD lanes before its root-to-leaves pass.
  std::vector<int> parent_lane_domains;
  std::vector<int> parent_lane_groups;
  int num_dofs = 0;  ///< Σ r over the domains: the length of State::q
  /// Unique per compile_model in this process (0 for a Model built by hand): the States and
  /// Workspaces made for this model carry it, and every call taking both checks it.
  std::uint64_t identity = 0;
  int max_r = 0;
  bool free_root = false;  ///< the root has no fixed vertex: the tree flies freely
  double total_mass = 0;   ///< kg
  Eigen::Vector3d root_center_of_mass = Eigen::Vector3d::Zero();  ///< rest, in F_0
  Eigen::Matrix3d root_inertia = Eigen::Matrix3d::Identity();     ///< about it, F_0 axes
  Eigen::Matrix3d root_inertia_inverse = Eigen::Matrix3d::Identity();
  int num_global_vertices = 0;  ///< vertices of the undivided mesh
  /// Per global vertex: how many domains hold a copy (C0; at most 65,535, checked).
  Eigen::Matrix<std::uint16_t, Eigen::Dynamic, 1> global_copy_count;
  RenderMesh render;         ///< what a renderer draws (model/render_mesh.h)
  RuntimeSettings settings;  ///< the model's defaults, one DomainSettings a domain
  ModelProvenance provenance;

  int num_domains() const { return static_cast<int>(domains.size()); }
  /// Domain i's interface columns, one per coordinate of its parent.
  InterfaceBases interface_bases_of(int domain) const {
    const DomainInterface& itf = domains[static_cast<std::size_t>(domain)].interface;
    return {interface_bases.data() + itf.bases_offset, itf.bases_cols};
  }
  const Part& part_of(int domain) const {
    return parts[static_cast<std::size_t>(domains[static_cast<std::size_t>(domain)].part)];
  }
};

/// Compiles a model file's contents: its parts become parts (packed polynomials, first and
/// second moments), its domains domains; subtree and free-root inertia, C0 copy counts, settings
/// for every domain (`data`'s runtime settings, else the defaults). Throws OptionError naming the
/// domain or part for data the runtime cannot step (a non-root without an interface, missing
/// W1..W7 off an anchored root, a free root without positive inertia).
std::shared_ptr<const Model> compile_model(ReducedModel data);
/// read_model_file + compile_model; `trust` says which signatures the file must carry.
std::shared_ptr<const Model> load_model(const std::string& path, const ModelTrust& trust = {});

/// "domain 3 ('tip')".
std::string domain_label(const Model& model, int domain);

/// Bytes domain i holds in `model` beyond its part's shared data: its Domain record with its
/// interface's float bases, name, global vertex map and L1 lumped mass, its default
/// DomainSettings, its entries in the model's domain lists, its part of the global vertex
/// table and its render vertices not shared with other domains (a piece of the render
/// mesh it alone draws; a shared piece costs it one index): the bytes asked of the heap (Eigen's
/// alignment padding included). O(the model's vertices): for reports.
std::size_t domain_model_bytes(const Model& model, int i);

}  // namespace ramus
