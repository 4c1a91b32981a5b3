// The JSON model spec read by `ramus simulate-full` (and, later, `ramus precompute`): which mesh,
// which material, which vertices are fixed, which loads, which time stepping. See docs/SPEC.md.
#pragma once

#include "ramus/runtime/data/settings_table.h"

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ramus/precompute/contact/collider_spec.h"
#include "ramus/precompute/fem/material.h"
#include "ramus/precompute/mesh/tet_mesh.h"
#include "ramus/precompute/mesh/tetrahedralize.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/runtime/contact/contact_samples.h"

namespace ramus {

/// The largest mode count a spec may ask for per domain (r, linear modes): the reduced StVK
/// polynomial has r⁴/8 quartic coefficients (16 GB at r = 300), so larger is never meant.
constexpr int kMaxSpecModes = 300;

/// One rule selecting vertices to hold fixed. Exactly one kind is active.
struct VertexSelector {
  enum class Kind { kPlane, kBox, kLabel, kVertexList, kFlag };
  Kind kind = Kind::kPlane;
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    ///< plane: a point on it
  Eigen::Vector3d normal = Eigen::Vector3d::UnitX();  ///< plane: its normal
  double tolerance = 0;              ///< plane: max distance (0: 1e-9 of the mesh size)
  Eigen::Vector3d box_min, box_max;  ///< box: inclusive corners
  int label = 0;                     ///< label: every vertex of a tet with this label
  int flag = 1;                      ///< flag: vertices whose vertex_flags equals this
  std::vector<int> vertices;         ///< vertex list
  std::string description;           ///< e.g. "fixed[0]" for messages
};

/// A point force applied at one vertex during [start, end) seconds. The spec gives the vertex
/// by index or by a position ("at"), resolved to the nearest rest vertex by resolve_point_forces.
struct PointForce {
  int vertex = -1;
  std::optional<Eigen::Vector3d> at;  ///< position to resolve, when no index was given
  Eigen::Vector3d force = Eigen::Vector3d::Zero();  ///< N
  double start = 0;
  double end = 1e300;
};

/// The "simulation" block (and "domains.lumping"): every setting of the one list
/// (settings_list.h) a spec may give, parsed through settings_table.h.
struct SimulationSpec {
  ScenarioSettings scenario;     ///< steps, output cadence
  RuntimeSettings settings;      ///< whole-object settings and the wind (domains empty)
  DomainSettings domain;         ///< the per-domain settings "simulation" gives every domain
  FullSpaceSettings full_space;  ///< simulate-full's local/global solver and substeps
  /// The spec set rayleigh_stiffness (else a tree gets kTreeStiffnessDamping).
  bool rayleigh_stiffness_given = false;
  /// The spec set output_every (else a run's series is kept under 50 MB by the tools).
  bool output_every_given = false;
  /// The spec set domains.lumping (else precompute's check may choose it).
  bool lumping_given = false;
};

/// How to reduce a domain: linear modes, modal derivatives, basis size.
struct ReductionSpec {
  int linear_modes = 10;          ///< r1: lowest elastic modes (fixed interface / anchors)
  int r = 20;                     ///< basis size after mass-PCA
  bool modal_derivatives = true;  ///< false: the basis is the r lowest linear modes
  int contact_samples = kDefaultContactSamples;  ///< surface samples for the runtime's colliders
};

/// "check": precompute's check of the model against the full FEM of its undivided mesh (its
/// static deflection under gravity and lowest frequencies; static_modal_check.h). The defaults
/// are issue 35's targets for automatic models: 15 % in static deflection, 10 % in frequency.
struct CheckSpec {
  bool enabled = true;                ///< "check": false turns it off
  int frequencies = 3;                ///< lowest frequencies compared (0: the static alone)
  double static_tolerance = 0.15;     ///< a warning above this relative static error
  double frequency_tolerance = 0.10;  ///< a warning above this relative frequency error
  /// A tree whose spec sets no lumping gets the one (L1, L2, L3) the check finds best.
  bool choose_lumping = true;
  /// An automatic partition past the tolerances: at most this many rounds of moving the cut
  /// whose interface the full FEM bends most (cut_adjustment.h), each a new reduction; 0: none.
  int improve_rounds = 4;
};

/// How a total number of modes r̂ is spread over the domains (paper §5).
enum class ModeDistribution {
  kProportional,  ///< r_i ∝ #tets(i)
  kLogarithmic,   ///< r_i ∝ log(#tets(i))
};

/// Per-domain settings by domain name: reduction overrides and runtime tuning (any per-domain
/// setting of the list, as the setting and its value).
struct DomainOverrides {
  std::optional<int> r;             ///< basis size (0: a rigid domain)
  std::optional<int> linear_modes;  ///< r1
  std::vector<std::pair<const SettingInfo*, SettingValue>> runtime;
};

/// Substructuring (the "domains" key): how the mesh is cut into a tree of domains and how the
/// modes are spread over them.
struct DomainsSpec {
  enum class Partition { kLabels, kAutomatic };
  Partition partition = Partition::kLabels;
  /// "label_file": per-tet labels for the "labels" partition instead of the mesh's own
  /// (tet_label_file.h), resolved like mesh_path; empty: the mesh's labels
  std::string label_file_path;
  AutomaticPartitionOptions automatic;
  int total_r = 0;  ///< r̂; 0: every domain gets reduction.r
  ModeDistribution distribution = ModeDistribution::kLogarithmic;
  int min_r = 4;  ///< bounds of the distributed r_i
  int max_r = 60;
  std::map<std::string, DomainOverrides> per_domain;
};

/// One part of an assembly (docs/SPEC.md, "Assemblies"): a mesh reduced once with its base held,
/// or cut into domains (each reduced once), or one domain of another part's.
struct PartSpec {
  std::string name;
  std::string mesh_path;  ///< resolved relative to the spec's folder
  TetrahedralizeOptions tetrahedralize;
  Material material;
  std::map<int, Material> materials_by_label;
  /// Its base: the anchors of the root's part, the attachment of every other; none: a free body.
  std::vector<VertexSelector> base;
  ReductionSpec reduction;
  /// "domains": the mesh cut into a tree of domains (partition, modes, per_domain r and
  /// linear_modes); absent: one domain
  std::optional<DomainsSpec> domains;
  /// "render_surface": a surface (.obj/.off/.ply) in the part's coordinates that every placement
  /// embeds in its tets for rendering (resolved like mesh_path); empty: none
  std::string render_surface_path;
  /// "units": metres per unit of the part's mesh and render surface coordinates (the base
  /// selectors' positions are converted to metres when parsed); 1: metres
  double length_unit = 1;
  /// {"part": p, "domain": d}: domain d of part p (a part with domains) placed on its own
  int source_part = -1;
  std::string source_domain;
};

/// One placement of a part: x_world = rotation (scale X_mesh) + translation.
struct InstanceSpec {
  std::string name;
  int part = 0;               ///< index into AssemblySpec::parts
  int parent = -1;            ///< an earlier instance; -1 for the root (the first instance)
  std::string parent_domain;  ///< "parent": "<instance>/<domain>": that domain of a cut part
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();  ///< m
  double scale = 1;
};

/// An assembly: distinct parts and their placements, parents first.
struct AssemblySpec {
  std::vector<PartSpec> parts;
  std::vector<InstanceSpec> instances;
  double attachment_tolerance = 1e-6;  ///< m: how far a base may lie from its parent
};

/// What a one-mesh spec simulates ("model"): the tet FEM (reduced by precompute; the default) or
/// a mass-spring cloth made of a triangle surface (`ramus simulate-full` only; docs/CLOTH.md).
enum class BodyModel { kTetFem, kMassSpring };

struct ModelSpec {
  std::string spec_path;  ///< the JSON file itself (a spec given as text: where its paths start)
  std::string spec_text;  ///< its JSON text, as parsed (the provenance stores it)
  /// "model": "fem" (the default) or "mass_spring" (then "mesh" is a triangle surface)
  BodyModel model = BodyModel::kTetFem;
  /// "cloth": a mass-spring model's springs, masses, halving rule and CG (settings_list.h)
  ClothSettings cloth;
  std::string mesh_path;  ///< resolved relative to the spec's folder (empty for an assembly)
  /// "render_surface": the surface to embed for rendering (resolved like mesh_path), or empty
  std::string render_surface_path;
  /// "units": metres per unit of the mesh's (and render surface's) coordinates, applied when they
  /// are read; the spec's positions (selectors, forces' "at") are converted to metres when parsed
  double length_unit = 1;
  TetrahedralizeOptions tetrahedralize;
  Material material;
  std::map<int, Material> materials_by_label;
  std::vector<VertexSelector> fixed;
  std::vector<PointForce> forces;
  /// "colliders" and "contact": kinematic colliders of the full-space simulation.
  ContactSpec contact;
  /// "copies": the mesh placed once per pose (m), separate bodies of one full-space simulation
  /// (`ramus simulate-full`); empty: the mesh once, where it is.
  std::vector<Eigen::Isometry3d> copies;
  /// "initial_velocity" (m/s, world axes): every vertex's velocity at t = 0 (fixed ones' stay 0),
  /// `ramus simulate-full` only; absent: at rest.
  std::optional<Eigen::Vector3d> initial_velocity;
  SimulationSpec simulation;
  ReductionSpec reduction;
  /// The spec (or the command line) set "reduction": else a single domain's modes are the
  /// defaults, which precompute's check may raise (check.improve_rounds).
  bool reduction_given = false;
  CheckSpec check;
  std::optional<DomainsSpec> domains;  ///< absent: one domain
  /// Present for an assembly spec ("parts" and "instances" in place of "mesh"); its "domains"
  /// block may hold only "lumping" and "per_domain" runtime tuning by instance name.
  std::optional<AssemblySpec> assembly;
  /// Legal but suspicious settings ("key: what and why"), for the tool to print.
  std::vector<std::string> warnings;
};

/// The reduction of one domain with r modes under `base`: r1 scaled by r / base.r (at least 1,
/// and enough candidates for r), modal derivatives as in base. r = 0: a rigid domain.
ReductionSpec scaled_reduction(const ReductionSpec& base, int r);

/// Parses a spec file; throws InputError naming the file and the offending key.
ModelSpec load_model_spec(const std::string& path);
/// The damping ratio a model whose spec sets no simulation.rayleigh_stiffness gets at its lowest
/// frequency ω₁, one domain or a tree alike: β = 2 ζ / ω₁ on every domain (default_rayleigh_
/// stiffness). Scale-free: the 1.8 Hz plant gets β = 3.5 ms, above the 3 ms that absorbs what
/// the lumping of Eq. 16 pumps into lightly damped children (docs/VALIDATION.md, "Energy").
inline constexpr double kDefaultDampingRatio = 0.02;
/// The β that absorbed that pumping on every tree measured there: the energy warning's cure.
inline constexpr double kTreeStiffnessDamping = 0.003;

/// β = 2 kDefaultDampingRatio / ω₁ (s) for the lowest circular frequency ω₁ (rad/s); 0 for
/// ω₁ <= 0 or not finite.
double default_rayleigh_stiffness(double omega1);

/// The runtime settings a spec asks for (simulation block, domains.lumping and per_domain
/// tuning) for the model's domains, named `domain_names` in tree order; stored in the model.
/// A spec without rayleigh_stiffness: `default_stiffness_damping` (s) where no per_domain sets it.
RuntimeSettings spec_runtime_settings(const ModelSpec& spec,
                                      const std::vector<std::string>& domain_names,
                                      double default_stiffness_damping = 0);
/// Parses spec text (spec_path is used for messages and to resolve the mesh path).
ModelSpec parse_model_spec(const std::string& json_text, const std::string& spec_path);

/// Sorted, unique vertex indices picked by the selectors; throws MeshError when a selector
/// picks nothing or names a vertex/label that does not exist.
std::vector<int> select_vertices(const TetMesh& mesh, const std::vector<VertexSelector>& rules);

/// Resolves "at" positions to the nearest vertex and checks that every force names an existing
/// vertex; throws MeshError otherwise.
void resolve_point_forces(const TetMesh& mesh, std::vector<PointForce>& forces);

/// Sum of the forces active at time t as a 3#V vector.
Eigen::VectorXd point_forces_at(const std::vector<PointForce>& forces, int num_vertices, double t);

}  // namespace ramus
