#include "ramus/precompute/pipeline/spec_mesh.h"

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "printf_text.h"
#include "ramus/error.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "ramus/precompute/formats/tet_label_file.h"
#include "ramus/precompute/mesh/mesh_checks.h"

namespace ramus {

// The domain tree a "domains" block asks for: one domain, the labels, or an automatic partition.
DomainTree spec_domain_tree(const std::optional<DomainsSpec>& domains, const TetMesh& mesh,
                            const std::vector<int>& fixed, const PrecomputeListener& listener) {
  if (!domains) {
    const Eigen::VectorXi one = Eigen::VectorXi::Zero(mesh.num_tets());
    return build_domain_tree(mesh, one, fixed, {{0, "body"}});
  }
  if (domains->partition == DomainsSpec::Partition::kLabels)
    return domain_tree_from_labels(mesh, fixed);  // (a label file's labels are the mesh's now)
  std::vector<std::string> notes;
  DomainTree tree = partition_branching_mesh(mesh, fixed, domains->automatic, &notes);
  for (const std::string& note : notes) listener.note(note);
  return tree;
}

namespace {

// The spec's forces resolved on `mesh` (vertices by index checked, positions snapped); a bad one
// is an InputError naming the spec.
std::vector<PointForce> resolved_spec_forces(const ModelSpec& spec, const TetMesh& mesh) {
  std::vector<PointForce> forces = spec.forces;
  try {
    resolve_point_forces(mesh, forces);
  } catch (const MeshError& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  return forces;
}

}  // namespace

// The spec's forces on `mesh` (vertex numbering of the whole model): each vertex exists; a force
// given by position says which vertex it snapped to and how far that is (a warning beyond 5 % of
// the model's size).
std::vector<PointForce> check_spec_forces(const ModelSpec& spec, const TetMesh& mesh,
                                          const PrecomputeListener& listener) {
  std::vector<PointForce> forces = resolved_spec_forces(spec, mesh);
  const Eigen::MatrixX3d& X = mesh.rest_positions;
  const double size = X.rows() ? (X.colwise().maxCoeff() - X.colwise().minCoeff()).norm() : 0.0;
  for (std::size_t i = 0; i < forces.size(); ++i) {
    if (!forces[i].at) continue;
    const Eigen::Vector3d at = *forces[i].at;
    const double distance = (X.row(forces[i].vertex).transpose() - at).norm();
    listener.report(
        printf_text("force        forces[%zu].at (%g, %g, %g) acts at vertex %d, %.3g m away", i,
                    at(0), at(1), at(2), forces[i].vertex, distance));
    if (distance > 0.05 * size)
      listener.warning(printf_text(
          "%s: forces[%zu].at is %.3g m from the nearest vertex (%d), "
          "%.0f %% of the model's size: is the position in the mesh's units and "
          "axes?",
          spec.spec_path.c_str(), i, distance, forces[i].vertex, 100 * distance / size));
  }
  return forces;
}
// A label file's labels replace the mesh's: they cut the domains and pick the materials.
void apply_label_file(const std::optional<DomainsSpec>& domains, TetMesh& mesh) {
  if (domains && domains->partition == DomainsSpec::Partition::kLabels &&
      !domains->label_file_path.empty()) {
    TetLabels labels = read_tet_label_file(domains->label_file_path, mesh.num_tets());
    mesh.labels = std::move(labels.labels);
    mesh.label_names = std::move(labels.label_names);
  }
}

// What the spec says about the mesh that only the mesh can confirm: materials_by_label names
// labels its tets carry, and forces name vertices it has (else every later simulate fails).
void check_spec_against_mesh(const ModelSpec& spec, const TetMesh& mesh) {
  if (!spec.materials_by_label.empty()) {
    std::set<int> present;
    for (Eigen::Index t = 0; t < mesh.labels.size(); ++t) present.insert(mesh.labels(t));
    std::string list;
    for (int l : present) list += (list.empty() ? "" : ", ") + std::to_string(l);
    for (const auto& [label, material] : spec.materials_by_label)
      if (!present.count(label))
        throw InputError(spec.spec_path, 0,
                         "materials_by_label." + std::to_string(label) + ": no tet has label " +
                             std::to_string(label) +
                             (present.empty() ? std::string(" (the mesh has no tet labels)")
                                              : " (the mesh's labels: " + list + ")"));
  }
  // (Forces by index must name vertices it has; where one given by position acts is said by
  // check_spec_forces, which the commands call after their mesh line.)
  resolved_spec_forces(spec, mesh);
}

void warn_if_size_implausible(const TetMesh& mesh, const std::string& path, double length_unit,
                              const PrecomputeListener& listener) {
  if (mesh.num_vertices() == 0) return;
  const Eigen::MatrixX3d& X = mesh.rest_positions;
  const double size = (X.colwise().maxCoeff() - X.colwise().minCoeff()).norm();
  const char* guess = size > 200 ? "millimetres or centimetres" : size < 5e-3 ? "kilometres" : "";
  if (*guess == '\0') return;
  if (length_unit == 1.0)
    listener.warning(
        printf_text("%s is %.3g m across: Ramus reads coordinates in metres (is it in "
                    "%s? give the spec \"units\", e.g. \"units\": \"mm\")",
                    path.c_str(), size, guess));
  else
    listener.warning(
        printf_text("%s is %.3g m across with \"units\" %g m per unit: is that its "
                    "unit?",
                    path.c_str(), size, length_unit));
}

void report_read_notes(const TetMesh& mesh, const std::string& path,
                       const PrecomputeListener& listener) {
  for (const std::string& note : mesh.read_notes) listener.note(path + ": " + note);
}

void refuse_full_space_only(const ModelSpec& spec) {
  if (spec.model == BodyModel::kMassSpring)
    throw InputError(spec.spec_path, 0,
                     "model: a \"mass_spring\" cloth is simulated in full space only (`ramus "
                     "simulate-full`); precompute reduces tetrahedral meshes");
  if (!spec.copies.empty())
    throw InputError(spec.spec_path, 0,
                     "copies: only `ramus simulate-full` places copies of the mesh; a reduced "
                     "model is precomputed from the mesh itself (an assembly's instances place "
                     "reduced parts)");
  bool corotated = spec.material.model == ElasticModel::kFixedCorotated;
  for (const auto& [label, material] : spec.materials_by_label)
    corotated = corotated || material.model == ElasticModel::kFixedCorotated;
  if (corotated)
    throw InputError(spec.spec_path, 0,
                     "material.model: fixed_corotated is the full-space reference's (`ramus "
                     "simulate-full`); a reduced model is built from StVK's cubic polynomial");
  if (spec.initial_velocity)
    throw InputError(spec.spec_path, 0,
                     "initial_velocity: only `ramus simulate-full` starts a mesh moving; a "
                     "reduced tree is anchored at its root");
}

TetMesh read_spec_tet_mesh(const std::string& path, const TetrahedralizeOptions& tetrahedralize,
                           double length_unit, const PrecomputeListener& listener) {
  TetMesh mesh = read_tet_mesh(path, tetrahedralize);
  report_read_notes(mesh, path, listener);
  mesh.rest_positions *= length_unit;
  validate_tet_mesh(mesh, path);
  warn_if_size_implausible(mesh, path, length_unit, listener);
  return mesh;
}

SurfaceMesh read_spec_surface(const std::string& path, double length_unit) {
  SurfaceMesh surface = read_surface_mesh(path);
  surface.vertices *= length_unit;
  return surface;
}

SpecMesh load_spec_mesh(const ModelSpec& spec, const PrecomputeListener& listener) {
  refuse_full_space_only(spec);
  SpecMesh loaded;
  try {
    loaded.mesh =
        read_spec_tet_mesh(spec.mesh_path, spec.tetrahedralize, spec.length_unit, listener);
  } catch (const OptionError& e) {  // (the spec's tetrahedralize block: named with its file)
    throw InputError(spec.spec_path, 0, e.what());
  }
  apply_label_file(spec.domains, loaded.mesh);
  check_spec_against_mesh(spec, loaded.mesh);
  try {
    loaded.fixed = select_vertices(loaded.mesh, spec.fixed);
  } catch (const MeshError& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  return loaded;
}

}  // namespace ramus
