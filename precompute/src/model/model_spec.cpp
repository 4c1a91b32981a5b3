#include "ramus/precompute/model/model_spec.h"

#include <Eigen/Geometry>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "ramus/error.h"
#include "ramus/runtime/data/reduced_model.h"

#include "../formats/text_io.h"
#include "spec_reader.h"

namespace ramus {

using namespace spec;

namespace {

constexpr double kLargestInitialSpeed = 1e4;  // m/s, beyond any deformable body's

// "copies": the mesh's placements, each {"translation": [x, y, z], "rotation": ...} (rigid).
std::vector<Eigen::Isometry3d> parse_copies(const SpecReader& r, const json& copies, double unit) {
  if (!copies.is_array() || copies.empty())
    r.fail("copies", "expected a non-empty array of placements {\"translation\", \"rotation\"}");
  std::vector<Eigen::Isometry3d> poses;
  for (std::size_t i = 0; i < copies.size(); ++i) {
    const std::string key = "copies[" + std::to_string(i) + "]";
    r.only_keys(copies[i], key, {"translation", "rotation", "comment"});
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    if (copies[i].contains("rotation"))
      pose.linear() = parse_rotation(r, copies[i]["rotation"], key + ".rotation");
    if (copies[i].contains("translation"))
      pose.translation() = unit * r.vector3(copies[i]["translation"], key + ".translation");
    poses.push_back(pose);
  }
  return poses;
}

}  // namespace

ModelSpec parse_model_spec(const std::string& json_text, const std::string& spec_path) {
  const SpecReader r(spec_path);
  json root;
  try {
    root = parse_without_duplicates(json_text, spec_path);
  } catch (const json::parse_error& e) {
    // nlohmann reports a byte offset; turn it into a line number.
    const auto offset = std::min<size_t>(e.byte, json_text.size());
    const long line =
        1 + std::count(json_text.begin(), json_text.begin() + static_cast<long>(offset), '\n');
    throw InputError(spec_path, line, std::string("invalid JSON: ") + e.what());
  } catch (const json::exception& e) {
    // E.g. out_of_range 406, a number such as 1e400 beyond double.
    throw InputError(spec_path, 0, std::string("invalid JSON: ") + e.what());
  }
  ModelSpec spec;
  spec.spec_path = spec_path;
  spec.spec_text = json_text;
  if (!root.is_object()) r.fail("", "expected a JSON object");
  if (root.contains("parts") || root.contains("instances")) {
    // An assembly: parts and instances in place of one mesh.
    if (root.contains("mesh"))
      r.fail("mesh",
             "an assembly (\"parts\", \"instances\") has no top-level mesh: each part "
             "names its own");
    r.only_keys(root, "",
                {"parts", "instances", "attachment_tolerance", "forces", "colliders", "simulation",
                 "domains", "check", "comment"});
    spec.assembly = parse_assembly(r, root, spec_path, spec.warnings);
    // Its colliders (in metres, as its parts) travel in the model's scenario, for `ramus
    // simulate` and `audit` (a character walking through a generated tree).
    spec.contact = parse_contact(r, root, 1.0);
  } else {
    r.only_keys(root, "",
                {"mesh", "units", "tetrahedralize", "material", "materials_by_label", "fixed",
                 "forces", "colliders", "contact", "simulation", "reduction", "domains", "check",
                 "render_surface", "copies", "initial_velocity", "model", "cloth", "comment"});
    parse_body_model(r, root, spec);
    const json& mesh = r.required(root, "mesh", "");
    if (!mesh.is_string() || mesh.get<std::string>().empty())
      r.fail("mesh", "expected a file name");
    spec.mesh_path = resolve_path(mesh.get<std::string>(), spec_path);
  }
  if (root.contains("render_surface")) {
    const json& surface = root["render_surface"];
    if (!surface.is_string() || surface.get<std::string>().empty())
      r.fail("render_surface", "expected a surface file name (.obj, .off or .ply)");
    spec.render_surface_path = resolve_path(surface.get<std::string>(), spec_path);
  }
  if (root.contains("tetrahedralize"))
    spec.tetrahedralize = parse_tetrahedralize(r, root["tetrahedralize"], "tetrahedralize");
  if (root.contains("material"))
    spec.material = r.material(root["material"], "material", spec.warnings);
  if (root.contains("materials_by_label"))
    spec.materials_by_label = parse_materials_by_label(
        r, root["materials_by_label"], "materials_by_label", spec.material, spec.warnings);
  if (root.contains("fixed")) {
    const json& fixed = root["fixed"];
    if (!fixed.is_array()) r.fail("fixed", "expected an array of selectors");
    for (size_t i = 0; i < fixed.size(); ++i)
      spec.fixed.push_back(r.selector(fixed[i], "fixed[" + std::to_string(i) + "]"));
  }
  if (root.contains("forces")) {
    const json& forces = root["forces"];
    if (!forces.is_array()) r.fail("forces", "expected an array");
    for (size_t i = 0; i < forces.size(); ++i) {
      const std::string key = "forces[" + std::to_string(i) + "]";
      r.only_keys(forces[i], key, {"vertex", "at", "force", "start", "end"});
      PointForce f;
      if (forces[i].contains("vertex") == forces[i].contains("at"))
        r.fail(key, "give exactly one of \"vertex\" (an index) and \"at\" (a position)");
      if (forces[i].contains("vertex"))
        f.vertex =
            r.bounded(forces[i]["vertex"], key + ".vertex", 0, std::numeric_limits<int>::max());
      if (forces[i].contains("at")) f.at = r.vector3(forces[i]["at"], key + ".at");
      f.force = r.vector3(r.required(forces[i], "force", key), key + ".force");
      if (forces[i].contains("start")) f.start = r.number(forces[i]["start"], key + ".start");
      if (forces[i].contains("end")) f.end = r.number(forces[i]["end"], key + ".end");
      if (f.end < f.start) r.fail(key, "end is before start");
      spec.forces.push_back(f);
    }
  }
  if (root.contains("simulation")) parse_simulation(r, root["simulation"], spec.simulation);
  if (root.contains("reduction")) {
    spec.reduction = parse_reduction(r, root["reduction"], "reduction");
    spec.reduction_given = true;
  }
  if (root.contains("check")) spec.check = parse_check(r, root["check"], "check");
  if (root.contains("domains")) {
    spec.domains = parse_domains(r, root["domains"], "domains", spec_path,
                                 spec.assembly ? DomainsUse::kAssembly : DomainsUse::kOneMesh);
    if (const SettingInfo* lumping = find_setting("lumping"); root["domains"].contains("lumping")) {
      set_setting(spec.simulation.settings, *lumping,
                  r.setting(root["domains"]["lumping"], *lumping, lumping->json_key));
      spec.simulation.lumping_given = true;
    }
  }
  if (root.contains("units")) {
    spec.length_unit = r.length_unit(root["units"], "units");
    convert_mesh_units(spec.length_unit, spec.fixed, spec.tetrahedralize);
    for (PointForce& f : spec.forces)
      if (f.at) *f.at *= spec.length_unit;
  }
  spec.contact = parse_contact(r, root, spec.length_unit);
  if (root.contains("copies")) spec.copies = parse_copies(r, root["copies"], spec.length_unit);
  if (root.contains("initial_velocity")) {
    // SI (m/s), like every quantity of a spec outside the mesh's coordinates.
    spec.initial_velocity = r.vector3(root["initial_velocity"], "initial_velocity");
    if (!(spec.initial_velocity->norm() <= kLargestInitialSpeed))
      r.fail("initial_velocity", "a speed over " + std::to_string(int(kLargestInitialSpeed)) +
                                     " m/s is not a deformable object's");
  }
  return spec;
}

ReductionSpec scaled_reduction(const ReductionSpec& base, int r) {
  ReductionSpec reduction = base;
  reduction.r = std::max(0, r);
  if (r <= 0) return reduction;
  if (!base.modal_derivatives) {
    reduction.linear_modes = r;
    return reduction;
  }
  const double fraction = static_cast<double>(base.linear_modes) / std::max(1, base.r);
  long long r1 = std::clamp(std::llround(fraction * r), 1LL, static_cast<long long>(r));
  while (r1 + r1 * (r1 + 1) / 2 < r) ++r1;  // (64-bit: r1 stays below 2^16.5 for any int r)
  reduction.linear_modes = static_cast<int>(r1);
  return reduction;
}

namespace {

// Every file the spec names exists, or an error names its key, the name given and where it was
// looked for (before any work: a missing mesh was reported without the key).
void check_spec_files(const ModelSpec& spec, const std::string& spec_path) {
  const auto check = [&](const std::string& key, const std::string& resolved) {
    if (resolved.empty()) return;
    std::error_code ec;
    if (std::filesystem::is_regular_file(resolved, ec)) return;
    const std::filesystem::path where = std::filesystem::absolute(resolved, ec);
    throw InputError(spec_path, 0,
                     key + ": no file '" + resolved + "' (looked for " +
                         (ec ? resolved : where.lexically_normal().string()) +
                         "; names in a spec are relative to the spec's folder)");
  };
  const auto check_domains = [&](const std::string& key, const std::optional<DomainsSpec>& d) {
    if (d) check(key + ".label_file", d->label_file_path);
  };
  check("mesh", spec.mesh_path);
  check("render_surface", spec.render_surface_path);
  check_domains("domains", spec.domains);
  if (!spec.assembly) return;
  for (const PartSpec& part : spec.assembly->parts) {
    const std::string key = "parts." + part.name;
    check(key + ".mesh", part.mesh_path);
    check(key + ".render_surface", part.render_surface_path);
    check_domains(key + ".domains", part.domains);
  }
}

}  // namespace

ModelSpec load_model_spec(const std::string& path) {
  ModelSpec spec = parse_model_spec(detail::read_file_to_string(path), path);
  check_spec_files(spec, path);
  return spec;
}

std::vector<int> select_vertices(const TetMesh& mesh, const std::vector<VertexSelector>& rules) {
  std::set<int> chosen;
  const Eigen::MatrixX3d& X = mesh.rest_positions;
  const double size =
      mesh.num_vertices() ? (X.colwise().maxCoeff() - X.colwise().minCoeff()).norm() : 0.0;
  for (const VertexSelector& s : rules) {
    size_t matched = 0;
    auto take = [&](int v) {
      chosen.insert(v);
      ++matched;
    };
    switch (s.kind) {
      case VertexSelector::Kind::kPlane: {
        const double tol = s.tolerance > 0 ? s.tolerance : 1e-9 * size;
        for (int v = 0; v < mesh.num_vertices(); ++v)
          if (std::abs((X.row(v).transpose() - s.point).dot(s.normal)) <= tol) take(v);
        break;
      }
      case VertexSelector::Kind::kBox:
        for (int v = 0; v < mesh.num_vertices(); ++v) {
          const Eigen::Vector3d p = X.row(v);
          if ((p.array() >= s.box_min.array()).all() && (p.array() <= s.box_max.array()).all())
            take(v);
        }
        break;
      case VertexSelector::Kind::kLabel:
        if (!mesh.has_labels())
          throw MeshError(s.description + ": selects label " + std::to_string(s.label) +
                          " but the mesh has no labels");
        for (int t = 0; t < mesh.num_tets(); ++t)
          if (mesh.labels(t) == s.label)
            for (int a = 0; a < 4; ++a) take(mesh.tets(t, a));
        break;
      case VertexSelector::Kind::kFlag:
        if (mesh.vertex_flags.size() != mesh.num_vertices())
          throw MeshError(s.description + ": selects flag " + std::to_string(s.flag) +
                          " but the mesh has no vertex flags");
        for (int v = 0; v < mesh.num_vertices(); ++v)
          if (mesh.vertex_flags(v) == s.flag) take(v);
        break;
      case VertexSelector::Kind::kVertexList:
        for (int v : s.vertices) {
          if (v < 0 || v >= mesh.num_vertices())
            throw MeshError(s.description + ": vertex " + std::to_string(v) +
                                " does not exist (the mesh has " +
                                std::to_string(mesh.num_vertices()) + " vertices)",
                            -1, v);
          take(v);
        }
        break;
    }
    if (matched == 0) throw MeshError(s.description + ": selects no vertex of the mesh");
  }
  return {chosen.begin(), chosen.end()};
}

void resolve_point_forces(const TetMesh& mesh, std::vector<PointForce>& forces) {
  for (size_t i = 0; i < forces.size(); ++i) {
    if (forces[i].at && mesh.num_vertices() > 0) {
      Eigen::Index nearest = 0;
      (mesh.rest_positions.rowwise() - forces[i].at->transpose())
          .rowwise()
          .squaredNorm()
          .minCoeff(&nearest);
      forces[i].vertex = static_cast<int>(nearest);
    }
    if (forces[i].vertex < 0 || forces[i].vertex >= mesh.num_vertices())
      throw MeshError("forces[" + std::to_string(i) + "]: vertex " +
                          std::to_string(forces[i].vertex) + " does not exist (the mesh has " +
                          std::to_string(mesh.num_vertices()) + " vertices)",
                      -1, forces[i].vertex);
  }
}

Eigen::VectorXd point_forces_at(const std::vector<PointForce>& forces, int num_vertices, double t) {
  Eigen::VectorXd f = Eigen::VectorXd::Zero(3 * static_cast<Eigen::Index>(num_vertices));
  for (const PointForce& p : forces)
    if (t >= p.start && t < p.end) f.segment<3>(3 * p.vertex) += p.force;
  return f;
}

}  // namespace ramus

namespace ramus {

double default_rayleigh_stiffness(double omega1) {
  return std::isfinite(omega1) && omega1 > 0 ? 2 * kDefaultDampingRatio / omega1 : 0.0;
}

RuntimeSettings spec_runtime_settings(const ModelSpec& spec,
                                      const std::vector<std::string>& domain_names,
                                      double default_stiffness_damping) {
  // The simulation block for every domain, then each domain's own (domains.per_domain).
  const SimulationSpec& sim = spec.simulation;
  RuntimeSettings settings = sim.settings;
  DomainSettings all = sim.domain;
  if (!sim.rayleigh_stiffness_given) all.rayleigh_stiffness = default_stiffness_damping;
  settings.domains.assign(domain_names.size(), all);
  if (!spec.domains) return settings;
  for (std::size_t d = 0; d < domain_names.size(); ++d) {
    const auto it = spec.domains->per_domain.find(domain_names[d]);
    if (it == spec.domains->per_domain.end()) continue;
    for (const auto& [info, value] : it->second.runtime)
      set_setting(settings.domains[d], *info, value);
  }
  return settings;
}

}  // namespace ramus
