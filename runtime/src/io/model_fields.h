// The one list of a model file's fields (docs/FORMAT.md; runtime internals, shared with
// precompute's writer and the tests): every attribute and dataset of /provenance, of each
// /parts/part_<k> and /domains/domain_<k>, of /embedded_surface and of /runtime, with the
// ReducedModel member that holds it and its expected shape. Visitors give it its uses: the reader
// (model_file.cpp), the writer (model_file_writer.cpp), the shape and finiteness rules of the
// checker (model_checks.cpp) and the tests' bitwise round trip, so a field is added in one place.
//
// A visitor V provides, for names relative to the group it is in:
//   attribute(name, T& value)                 scalar attribute (string, int, double, uint64)
//   flag(name, bool& value)                   int32 attribute, 0 or 1
//   dataset(name, M& value, Shape expected)   dense Eigen value; 1-D when M is a vector type
//   packed_symmetric(name, MatrixXd& value, n)  symmetric n by n, stored as its upper triangle
//   require_nonnegative(name, int& value)     an attribute that sizes what follows (the reader
//                                             refuses a negative one before using it)
//   lumping(name, InterfaceLumping& value)    string attribute "L1", "L2" or "L3"
//   column(name, std::vector<DomainSettings>& domains, T DomainSettings::*member, n)  per-domain
//   array group(name, Presence, body)               a subgroup: body() visits its fields
//   optional(name, Presence, body)            a dataset of this group that may be absent
// Member types follow the model's constness: const for the writer and the checker.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/data/reduced_stvk_polynomial.h"

namespace ramus::model_fields {

/// Expected shape of a dataset: rows and columns, -1 for "any" (a 1-D dataset uses rows only).
struct Shape {
  Eigen::Index rows = -1, cols = -1;
};

/// An optional group or dataset: `required` (the reader fails without it) and `present` (the
/// model in memory has it: the writer writes it, the checker checks it).
struct Presence {
  bool required = false;
  bool present = true;
};

/// For visitors that walk the model in memory (no file): the path of the group being visited and
/// the group / optional handling, entering what the model has (Presence::present).
class InMemoryGroups {
 public:
  explicit InMemoryGroups(std::string prefix = "") : prefix_(std::move(prefix)) {}

  template <typename Body>
  void group(const char* name, Presence presence, Body&& body) {
    if (!presence.present) return;
    const std::string outer = prefix_;
    prefix_ += std::string(name) + "/";
    body();
    prefix_ = outer;
  }
  template <typename Body>
  void optional(const char*, Presence presence, Body&& body) {
    if (presence.present) body();
  }
  /// `name` relative to the model root: "<groups>/<name>".
  std::string path(const char* name) const { return prefix_ + name; }

 private:
  std::string prefix_;
};

/// The attributes of /provenance.
template <class Provenance, class V>
void visit_provenance(Provenance& p, V& v) {
  v.attribute("tool_version", p.tool_version);
  v.attribute("created_utc", p.created_utc);
  v.attribute("spec_path", p.spec_path);
  v.text("spec_json", p.spec_json);  // (texts of any length: uint8 datasets)
  v.attribute("mesh_path", p.mesh_path);
  v.attribute("input_hash", p.input_hash);
  v.text("options_json", p.options_json);
}

/// The fields of /parts/part_<k> for part `k` of a model of `num_domains` domains. Shapes follow
/// the fields visited before them, so a reader that fills `p` in this order checks every shape
/// as it reads.
template <class Part, class Visitor>
void visit_part(Part& d, int num_domains, Visitor& v) {
  // Attributes; r first: every basis-sized dataset follows it.
  v.attribute("name", d.name);
  v.attribute("num_rigid_modes", d.num_rigid_modes);
  v.attribute("mass", d.mass);
  v.require_nonnegative("r", d.polynomial.r);
  const Eigen::Index r = d.polynomial.r < 0 ? -1 : d.polynomial.r;
  const Eigen::Index p = r < 0 ? -1 : r * (r + 1) / 2;

  // Mesh, material, base.
  v.dataset("mesh/rest_positions", d.rest_positions, {-1, 3});
  const Eigen::Index V = d.rest_positions.rows();
  v.dataset("mesh/tets", d.tets, {-1, 4});
  const Eigen::Index T = d.tets.rows();
  v.dataset("mesh/surface_triangles", d.surface_triangles, {-1, 3});
  v.optional("mesh/labels", {false, d.labels.size() != 0},
             [&] { v.dataset("mesh/labels", d.labels, {T}); });
  v.dataset("material/youngs_modulus", d.youngs_modulus, {T});
  v.dataset("material/poisson_ratio", d.poisson_ratio, {T});
  v.dataset("material/density", d.density, {T});
  v.dataset("fixed_vertices", d.fixed_vertices, {});

  // Basis and the reduced polynomial.
  v.dataset("basis", d.basis, {3 * V, r});
  v.dataset("basis_eigenvalues", d.basis_eigenvalues, {r});
  v.dataset("linear_mode_eigenvalues", d.linear_mode_eigenvalues, {});
  v.dataset("gravity_basis", d.gravity_basis, {r, 3});
  v.dataset("polynomial/quadratic", d.polynomial.quadratic, {p});
  v.dataset("polynomial/cubic", d.polynomial.cubic, {p, r});
  v.packed_symmetric("polynomial/quartic", d.polynomial.quartic, p);

  // W1..W7: may be absent in a single-domain model or for a rigid part (r = 0); a rigid part's
  // are written in their empty shapes.
  const bool rigid = d.polynomial.r == 0;
  v.group("system_force", {false, !d.system_force.empty() || rigid || num_domains > 1}, [&] {
    auto& w = d.system_force;
    v.dataset("w1", w.w1, {3, r});
    v.dataset("w2", w.w2, {3, r});
    v.dataset("w3", w.w3, {r});
    v.dataset("w4", w.w4, {r, r});
    v.dataset("w5", w.w5, {3, r < 0 ? -1 : 3 * r});
    v.dataset("w6", w.w6, {r, r < 0 ? -1 : 3 * r});
    v.dataset("w7", w.w7, {r < 0 ? -1 : 3 * r, r < 0 ? -1 : 3 * r});
  });

  // Contact samples (contact/contact_samples.h): absent in files written before them (the
  // runtime then chooses kDefaultContactSamples at load).
  v.group("contact", {false, d.contact.vertices.size() != 0}, [&] {
    v.dataset("vertices", d.contact.vertices, {-1});
    const Eigen::Index S = d.contact.vertices.size();
    v.dataset("weights", d.contact.weights, {S});
    v.dataset("basis", d.contact.basis, {3 * S, r});
  });

  // Its render surface in its own tets (schema 10): drawn by every domain placing it.
  v.group("render_surface", {false, d.render_surface.size() != 0}, [&] {
    v.dataset("rest_positions", d.render_surface.rest_positions, {-1, 3});
    const Eigen::Index S = d.render_surface.rest_positions.rows();
    v.dataset("triangles", d.render_surface.triangles, {-1, 3});
    v.dataset("tet", d.render_surface.tet, {S});
    v.dataset("barycentric", d.render_surface.barycentric, {S, 4});
  });
}

/// The fields of /domains/domain_<k> for domain `d`; `part_vertices(i)` is #V of part i and
/// `domain_r(j)` the r of domain j < k, each -1 when unknown (an index out of range). Shapes
/// follow the fields visited before them.
template <class Domain, class PartVertices, class DomainR, class Visitor>
void visit_domain(Domain& d, int k, const PartVertices& part_vertices, const DomainR& domain_r,
                  Visitor& v) {
  v.attribute("name", d.name);
  v.attribute("part", d.part);
  v.attribute("scale", d.scale);
  v.attribute("parent", d.parent);
  const Eigen::Index V = part_vertices(d.part);

  // Place in the tree.
  v.dataset("frame/origin", d.frame_origin, {3});
  v.dataset("frame/rotation", d.frame_rotation, {3, 3});
  // Empty means the identity (one domain only); the reader takes any length, the checker V.
  v.dataset("global_vertices", d.global_vertices, {d.global_vertices.size() == 0 ? -1 : V});
  const bool has_parent = d.parent >= 0 && d.parent < k;
  const Eigen::Index parent_r = has_parent ? domain_r(d.parent) : -1;
  v.group("interface", {has_parent, has_parent}, [&] {
    auto& f = d.interface;
    v.flag("planar", f.planar);
    v.dataset("child_vertices", f.child_vertices, {});
    const Eigen::Index m = f.child_vertices.size();
    // Conforming: the parent's vertices; embedded: the parent's tets and barycentric weights.
    v.optional("parent_vertices", {false, f.parent_vertices.size() != 0},
               [&] { v.dataset("parent_vertices", f.parent_vertices, {m}); });
    v.optional("parent_tets", {false, f.parent_tets.size() != 0},
               [&] { v.dataset("parent_tets", f.parent_tets, {m}); });
    v.optional("parent_barycentric", {false, f.parent_barycentric.size() != 0}, [&] {
      v.dataset("parent_barycentric", f.parent_barycentric, {m, 4});
    });
    v.dataset("weights", f.weights, {m});
    v.dataset("centroid", f.centroid, {3});
    v.dataset("centroid_basis", f.centroid_basis, {3, parent_r});
    v.dataset("rest_rotation", f.rest_rotation, {3, 3});
    v.dataset("rotation_basis", f.rotation_basis, {3, parent_r < 0 ? -1 : 3 * parent_r});
    v.dataset("covariance", f.covariance, {3, 3});
  });
  v.group("subtree", {true, true}, [&] {
    v.attribute("mass", d.subtree_mass);
    v.dataset("center_of_mass", d.subtree_center_of_mass, {3});
    v.dataset("inertia", d.subtree_inertia, {3, 3});
  });
}

/// The datasets of /embedded_surface.
template <class Surface, class V>
void visit_embedded_surface(Surface& s, V& v) {
  v.dataset("rest_positions", s.rest_positions, {-1, 3});
  const Eigen::Index S = s.rest_positions.rows();
  v.dataset("triangles", s.triangles, {-1, 3});
  v.dataset("domain", s.domain, {S});
  v.dataset("tet", s.tet, {S});
  v.dataset("barycentric", s.barycentric, {S, 4});
}

/// The attributes and datasets of /accuracy (present when ModelAccuracy::measured).
template <class Accuracy, class V>
void visit_accuracy(Accuracy& a, V& v) {
  v.dataset("gravity", a.gravity, {3});
  v.attribute("static_full_max", a.static_full_max);
  v.attribute("static_reduced_max", a.static_reduced_max);
  v.attribute("static_error", a.static_error);
  v.dataset("full_frequencies", a.full_frequencies, {-1});
  v.dataset("reduced_frequencies", a.reduced_frequencies, {a.full_frequencies.size()});
}

/// One setting of /runtime as the file stores it: a vector as a 3-entry dataset, the lumping as
/// its name, any other as a scalar attribute.
template <class V, class T>
void visit_setting_field(V& v, const char* name, T& value) {
  using Plain = std::remove_const_t<T>;
  if constexpr (std::is_same_v<Plain, Eigen::Vector3d>)
    v.dataset(name, value, {3});
  else if constexpr (std::is_same_v<Plain, InterfaceLumping>)
    v.lumping(name, value);
  else
    v.attribute(name, value);
}

/// The attributes and datasets of /runtime/scenario: the list's scenario settings and the point
/// forces as three datasets of one row per force.
template <class Scenario, class V>
void visit_scenario(Scenario& s, V& v) {
#define RAMUS_FILE_SCENARIO(Type, member, ...) visit_setting_field(v, #member, s.member);
  RAMUS_SCENARIO_SETTINGS(RAMUS_FILE_SCENARIO)
#undef RAMUS_FILE_SCENARIO
  v.dataset("force_vertices", s.force_vertices, {-1});
  const Eigen::Index F = s.force_vertices.size();
  v.dataset("forces", s.forces, {F, 3});
  v.dataset("force_windows", s.force_windows, {F, 2});
  // The colliders: an optional group (files before it have none), one row per collider.
  const Eigen::Index C = s.collider_shapes.size();
  v.group("colliders", {false, C > 0}, [&] {
    v.dataset("shape", s.collider_shapes, {-1});
    const Eigen::Index rows = s.collider_shapes.size();
    v.dataset("size", s.collider_sizes, {rows, 4});
    v.dataset("rotation", s.collider_rotations, {rows, 9});
    v.dataset("position", s.collider_positions, {rows, 3});
    v.dataset("velocity", s.collider_velocities, {rows, 3});
    v.dataset("angular_velocity", s.collider_angular_velocities, {rows, 3});
    v.dataset("friction", s.collider_friction, {rows});
    // The mesh colliders' grids (absent when none is a grid).
    v.optional("grid_values", {false, s.collider_grid_values.size() != 0}, [&] {
      v.dataset("grid_origin", s.collider_grid_origins, {rows, 3});
      v.dataset("grid_spacing", s.collider_grid_spacings, {rows});
      v.dataset("grid_samples", s.collider_grid_samples, {rows, 3});
      v.dataset("grid_values", s.collider_grid_values, {-1});
    });
  });
}

/// The attributes and datasets of /runtime for a model of `num_domains` domains: the settings
/// list's (settings_list.h) whole-object settings, its wind in wind/, its per-domain settings as
/// columns domains/<member>, and the scenario of a run in scenario/.
template <class Settings, class Scenario, class V>
void visit_runtime_settings(Settings& s, Scenario& scenario, int num_domains, V& v) {
#define RAMUS_FILE_OBJECT(Type, member, ...) visit_setting_field(v, #member, s.member);
#define RAMUS_FILE_WIND(Type, member, ...) visit_setting_field(v, #member, s.wind.member);
#define RAMUS_FILE_DOMAIN(Type, member, ...) \
  v.column("domains/" #member, s.domains, &DomainSettings::member, num_domains);
  RAMUS_OBJECT_SETTINGS(RAMUS_FILE_OBJECT)
  v.group("wind", {true, true}, [&] { RAMUS_WIND_SETTINGS(RAMUS_FILE_WIND) });
  RAMUS_DOMAIN_SETTINGS(RAMUS_FILE_DOMAIN)
  v.group("scenario", {true, true}, [&] { visit_scenario(scenario, v); });
#undef RAMUS_FILE_OBJECT
#undef RAMUS_FILE_WIND
#undef RAMUS_FILE_DOMAIN
}

}  // namespace ramus::model_fields
