// The contents of a Ramus model file (HDF5, docs/FORMAT.md) as plain data: everything the
// runtime needs to simulate, plus provenance. Written by precompute (model_file_writer.h), read
// by read_model_file (model_file.h). A model is a tree of reduced domains (substructuring paper,
// §3-4): each domain lives in its own frame F_i, placed by the best-fit rigid transform of its
// interface to the parent; a single-domain model is the tree of one domain.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ramus/runtime/data/reduced_stvk_polynomial.h"
#include "ramus/runtime/data/runtime_settings.h"

namespace ramus {

/// Version of the model-file schema this build writes and reads.
constexpr int kModelFormatVersion = 10;

/// System-force integrals of one domain with r modes (Appendix B, Eq. 20-23), with X the rest
/// position in the domain's frame and U_l the l-th mode; f_sys of Eq. 14 is built from them.
struct SystemForceIntegrals {
  Eigen::MatrixXd w1;  ///< 3 by r: column l = W1_l = -∫ρ U_l dV
  Eigen::MatrixXd w2;  ///< 3 by r: column l = W2_l = ∫ρ X~ U_l dV  (X~ U_l = X × U_l)
  Eigen::VectorXd w3;  ///< r: W3_l = ∫ρ U_lᵀ X dV
  Eigen::MatrixXd w4;  ///< r by r: column l = W4_l = ∫ρ Uᵀ U_l dV (identity: Uᵀ M U = I)
  Eigen::MatrixXd w5;  ///< 3 by 3r: block l (columns 3l..3l+2) = W5_l = ∫ρ U_l Xᵀ dV
  Eigen::MatrixXd w6;  ///< r by 3r: block l (columns 3l..3l+2) = W6_l = ∫ρ Uᵀ U_l~ dV
  Eigen::MatrixXd
      w7;  ///< 3r by 3r: block (l, p) (rows 3l.., columns 3p..) = W7_lp = ∫ρ U_l U_pᵀ dV
  /// True when they were not computed (every W empty).
  bool empty() const {
    return w1.size() == 0 && w2.size() == 0 && w3.size() == 0 && w4.size() == 0 && w5.size() == 0 &&
           w6.size() == 0 && w7.size() == 0;
  }
};

/// The interface of a child domain j with its parent i (Eq. 1-4), stored on the child. Rest
/// quantities are in the parent's frame F_i; r_i is the parent's basis size.
/// A conforming interface names the parent's vertices (parent_vertices); a non-conforming one
/// (an assembly's part attached to another) embeds the child's base points in the parent's tets
/// (parent_tets, parent_barycentric). Exactly one of the two is non-empty.
struct ParentInterface {
  Eigen::VectorXi parent_vertices;  ///< m or 0: interface vertices, indices into the parent's mesh
  Eigen::VectorXi child_vertices;   ///< m: the child's interface (base) vertices (same order)
  Eigen::VectorXi parent_tets;      ///< m or 0: parent tet holding each base point
  Eigen::MatrixX4d parent_barycentric;  ///< m by 4 or empty: its weights of that tet's corners
  Eigen::VectorXd weights;              ///< m: w^k, interface area belonging to each vertex (m^2)
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();  ///< x̂_ij: rest weighted centroid in F_i
  Eigen::MatrixXd centroid_basis;  ///< â_ij: 3 by r_i, x_ij = x̂_ij + â_ij q_i
  Eigen::Matrix3d rest_rotation = Eigen::Matrix3d::Identity();  ///< R̂_ij: F_j's rest axes in F_i
  Eigen::MatrixXd rotation_basis;  ///< A^l_ij: 3 by 3r_i, block l; A_ij = R̂_ij + Σ_l A^l_ij q_i^l
  Eigen::Matrix3d covariance = Eigen::Matrix3d::Identity();  ///< C_ij, planar fix applied
  bool planar = false;  ///< C_ij was nearly singular: the extra normal point was added (§3)
};

/// Where a part is touched by the runtime's colliders (contact/contact_samples.h): S surface
/// vertices with the area nearest each and the basis rows there.
struct ContactSamples {
  Eigen::VectorXi vertices;  ///< S: vertices of the part's mesh, ascending
  Eigen::VectorXd weights;   ///< S: the surface area each stands for (m²)
  Eigen::MatrixXd basis;     ///< 3S by r: rows 3k..3k+2 are U's rows of vertices(k)
  int size() const { return static_cast<int>(vertices.size()); }
};

/// A part's render surface embedded in its own tets, in the part's frame at unit scale: stored
/// once and drawn by every domain that places the part (an instanced leaf's blade).
struct PartRenderSurface {
  Eigen::MatrixX3d rest_positions;  ///< #S by 3 (m), part frame
  Eigen::MatrixX3i triangles;       ///< #F by 3, indices into rest_positions
  Eigen::VectorXi tet;              ///< #S: the part's tet holding each vertex
  Eigen::MatrixX4d barycentric;     ///< #S by 4: weights of the tet's vertices (sum to 1)
  Eigen::Index size() const { return rest_positions.rows(); }
};

/// One reduced part (a part, paper §5): its mesh, material, base, basis, polynomial and
/// system-force integrals, in the part's own coordinates at unit scale. Reduced once, placed by
/// any number of domains (ReducedDomain::part), each with its own rigid placement and uniform
/// scale; docs/FORMAT.md ("Parts and uniform scale") gives how every field scales.
struct ReducedPart {
  std::string name;                    ///< e.g. "domain_0", "leaf"
  Eigen::MatrixX3d rest_positions;     ///< #V by 3 (m), in the part's frame
  Eigen::MatrixX4i tets;               ///< #T by 4
  Eigen::MatrixX3i surface_triangles;  ///< #F by 3, outward, indices into rest_positions
  Eigen::VectorXi labels;              ///< #T or empty
  Eigen::VectorXd youngs_modulus;      ///< #T (Pa)
  Eigen::VectorXd poisson_ratio;       ///< #T
  Eigen::VectorXd density;             ///< #T (kg/m^3)
  /// Vertices held while the modes were computed (sorted): the anchors of an anchored root, the
  /// interface (base) of a child; empty for a free body.
  Eigen::VectorXi fixed_vertices;
  int num_rigid_modes = 0;            ///< 6 for a free body (removed from the basis), else 0
  Eigen::MatrixXd basis;              ///< U: 3#V by r, mass-orthonormal (Uᵀ M U = I)
  Eigen::VectorXd basis_eigenvalues;  ///< r: eigenvalues of K2 = Uᵀ K U (rad^2/s^2), ascending
  Eigen::VectorXd linear_mode_eigenvalues;  ///< r1: K phi = lambda M phi, lowest elastic modes
  Eigen::MatrixXd gravity_basis;            ///< r by 3: Uᵀ M [e_x e_y e_z], so f_red = G g
  double mass = 0;                          ///< total mass (kg)
  ReducedStvkPolynomial polynomial;         ///< exact reduced StVK forces
  SystemForceIntegrals system_force;        ///< W1..W7 (Appendix B), in the part's frame
  ContactSamples contact;                   ///< where colliders touch it (runtime contact)
  PartRenderSurface render_surface;         ///< drawn by each of its domains (0 vertices: none)
};

/// True when the part's system-force integrals W1..W7 are all shaped for its r (3 by r, ...,
/// 3r by 3r); false when they were not computed (all empty, allowed for a single-domain model).
bool has_system_force(const ReducedPart& part);

/// The uniform scales a domain may give its part (a scale outside is a corrupt file or spec).
constexpr double kMinPartScale = 1e-3;
constexpr double kMaxPartScale = 1e3;

/// One domain of the tree: a placement of a part (rotation and translation through its frame,
/// uniform scale s), its parent and the data that couple it to its parent and children. Its
/// coordinates X in its frame F_i are s times the part's (X = s X_part).
struct ReducedDomain {
  std::string name;  ///< e.g. "domain_0", "leaf_17"
  int part = 0;      ///< index into ReducedModel::parts
  double scale = 1;  ///< uniform scale s of the part (> 0)
  int parent = -1;   ///< parent domain (always a smaller index), -1 for the root (domain 0)
  // All rest quantities below are in this domain's frame F_i (s X_part coordinates).
  Eigen::Vector3d frame_origin = Eigen::Vector3d::Zero();  ///< rest origin of F_i in the world
  Eigen::Matrix3d frame_rotation = Eigen::Matrix3d::Identity();  ///< rest axes of F_i in the
                                                                 ///< world: x = R X + origin
  Eigen::VectorXi global_vertices;  ///< #V: index of each vertex in the undivided mesh
  ParentInterface interface;        ///< with the parent (empty for the root)
  double subtree_mass = 0;          ///< m_j: this domain and all its descendants (kg)
  Eigen::Vector3d subtree_center_of_mass = Eigen::Vector3d::Zero();  ///< rest, in F_i
  Eigen::Matrix3d subtree_inertia = Eigen::Matrix3d::Zero();  ///< rest, about that centre, F_i axes
};

/// A triangle mesh for rendering, embedded in the tets: each vertex moves with the barycentric
/// combination of one tet's (C0-averaged) vertices.
struct EmbeddedSurface {
  Eigen::MatrixX3d rest_positions;  ///< #S by 3, world rest positions
  Eigen::MatrixX3i triangles;       ///< #F by 3
  Eigen::VectorXi domain;           ///< #S: domain of the embedding tet
  Eigen::VectorXi tet;              ///< #S: tet index within that domain
  Eigen::MatrixX4d barycentric;     ///< #S by 4: weights of the tet's vertices (sum to 1)
};

/// Where a model came from: recorded by precompute, shown by `ramus inspect`.
struct ModelProvenance {
  std::string tool_version;      ///< Ramus version that wrote the file
  std::string created_utc;       ///< ISO 8601 time of writing
  std::string spec_path;         ///< the spec file given to precompute
  std::string spec_json;         ///< its full text
  std::string mesh_path;         ///< the mesh it named
  std::uint64_t input_hash = 0;  ///< FNV-1a 64 of the spec text followed by the mesh file bytes
  std::string options_json;      ///< effective precompute options (JSON)
};

/// What precompute measured of the model against the full FEM of its undivided mesh (the
/// static_modal_check of precompute; `ramus inspect` prints it). Absent where not measured (a
/// free body, an assembly of separate meshes, "check": false, files before it).
struct ModelAccuracy {
  bool measured = false;                              ///< the file has /accuracy
  Eigen::Vector3d gravity = Eigen::Vector3d::Zero();  ///< the static load (m/s²)
  double static_full_max = 0;           ///< the full FEM's largest static displacement (m)
  double static_reduced_max = 0;        ///< the settled tree's (m)
  double static_error = 0;              ///< largest vertex difference over static_full_max
  Eigen::VectorXd full_frequencies;     ///< the undivided mesh's lowest (Hz), ascending
  Eigen::VectorXd reduced_frequencies;  ///< the tree's along each full mode (Hz; 0: no period)
};

/// A whole model file.
struct ReducedModel {
  int format_version = kModelFormatVersion;
  ModelProvenance provenance;
  std::vector<ReducedPart> parts;      ///< the distinct parts, each reduced once
  std::vector<ReducedDomain> domains;  ///< the domain tree, root first, parents before children
  int num_global_vertices = 0;         ///< vertices of the undivided mesh (interface vertices once)
  Eigen::MatrixX3i global_surface_triangles;  ///< #F by 3 boundary of the undivided mesh, global
                                              ///< vertex indices, outward
  EmbeddedSurface embedded_surface;           ///< empty (0 vertices) when the model has none
  /// How the runtime steps it by default (/runtime): settings.domains has one entry per domain.
  RuntimeSettings settings;
  /// What a run of it does unless told otherwise (/runtime/scenario): steps, output cadence,
  /// point forces at global vertices.
  ScenarioSettings scenario;
  ModelAccuracy accuracy;  ///< /accuracy: precompute's check against the full FEM
};

/// The model of one part placed once, at unit scale in the world frame, named after it.
inline ReducedModel single_domain_model(ReducedPart part) {
  ReducedModel model;
  ReducedDomain domain;
  domain.name = part.name;
  model.parts.push_back(std::move(part));
  model.domains.push_back(std::move(domain));
  return model;
}

/// The part domain d places (d and its part index must be valid).
inline const ReducedPart& part_of(const ReducedModel& model, int d) {
  return model.parts[static_cast<std::size_t>(model.domains[static_cast<std::size_t>(d)].part)];
}

}  // namespace ramus
