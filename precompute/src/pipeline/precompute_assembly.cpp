// precompute_model's assembly half: every part's mesh read, its base selected and materials
// assigned; the parts reduced once each on all cores, the instances placed (assembly_builder.h).
#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "precompute_stages.h"
#include "printf_text.h"
#include "ramus/error.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/pipeline/precompute_progress.h"
#include "ramus/precompute/pipeline/spec_mesh.h"
#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/precompute/substructuring/assembly_builder.h"
#include "ramus/runtime/model/model_geometry.h"

namespace ramus {

namespace {

using Clock = std::chrono::steady_clock;

// A part's materials_by_label names labels its mesh's tets carry.
void check_part_labels(const ModelSpec& spec, const PartSpec& p, const TetMesh& mesh) {
  for (const auto& [label, material] : p.materials_by_label) {
    bool present = false;
    for (Eigen::Index t = 0; t < mesh.labels.size(); ++t) present |= mesh.labels(t) == label;
    if (!present)
      throw InputError(spec.spec_path, 0,
                       "parts." + p.name + ".materials_by_label." + std::to_string(label) +
                           ": no tet of " + p.mesh_path + " has label " + std::to_string(label));
  }
}

// A part with a mesh of its own: read, labelled, its base and materials, its render surface and
// its domains (each reduced once, its interface with its parent domain held). The bytes of the
// files it read are added to `input_bytes`.
AssemblyPart read_part(const ModelSpec& spec, const PartSpec& p, std::string& input_bytes,
                       const PrecomputeListener& listener) {
  const std::string key = "parts." + p.name;
  AssemblyPart part;
  part.name = p.name;
  part.mesh = read_spec_tet_mesh(p.mesh_path, p.tetrahedralize, p.length_unit, listener);
  apply_label_file(p.domains, part.mesh);
  input_bytes += read_file_bytes(p.mesh_path);
  check_part_labels(spec, p, part.mesh);
  part.materials = assign_materials(part.mesh, p.material, p.materials_by_label);
  try {
    part.base = select_vertices(part.mesh, p.base);
  } catch (const MeshError& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  part.reduction = p.reduction;
  if (!p.render_surface_path.empty()) {
    part.render_surface = read_spec_surface(p.render_surface_path, p.length_unit);
    input_bytes += read_file_bytes(p.render_surface_path);
  }
  std::string cut;
  if (p.domains) {
    try {
      part.domains = spec_domain_tree(p.domains, part.mesh, part.base, listener);
    } catch (const Error& e) {
      throw InputError(spec.spec_path, 0, key + ".domains: " + e.what());
    }
    part.domain_reductions =
        domain_reductions(p.reduction, p.domains, *part.domains, spec.spec_path, key + ".domains");
    int r = 0;
    for (const ReductionSpec& red : part.domain_reductions) r += red.r;
    cut = ", " + std::to_string(part.domains->num_domains) + " domains (" + std::to_string(r) +
          " modes in all)";
  }
  listener.report(printf_text(
      "part         %-12s %s: %d vertices, %d tets, base of %zu vertices%s, r = %d%s",
      p.name.c_str(), p.mesh_path.c_str(), part.mesh.num_vertices(), part.mesh.num_tets(),
      part.base.size(), part.base.empty() ? " (free body)" : "", p.reduction.r, cut.c_str()));
  return part;
}

// Every part: one domain of another part, or a mesh of its own.
std::vector<AssemblyPart> read_parts(const ModelSpec& spec, std::string& input_bytes,
                                     const PrecomputeListener& listener) {
  const AssemblySpec& assembly = *spec.assembly;
  std::vector<AssemblyPart> parts;
  for (const PartSpec& p : assembly.parts) {
    if (p.source_part < 0) {
      parts.push_back(read_part(spec, p, input_bytes, listener));
      continue;
    }
    AssemblyPart& part = parts.emplace_back();
    part.name = p.name;
    part.source_part = p.source_part;
    part.source_domain = p.source_domain;
    listener.report(printf_text(
        "part         %-12s domain '%s' of part '%s'", p.name.c_str(), p.source_domain.c_str(),
        assembly.parts[static_cast<std::size_t>(p.source_part)].name.c_str()));
  }
  return parts;
}

// The domains' names, one per domain of each placement of a part cut into domains (the builder
// expands the parts the same way); the spec's per_domain must name some of them.
std::vector<std::string> domain_names(const ModelSpec& spec, const std::vector<AssemblyPart>& parts,
                                      const std::vector<AssemblyInstance>& instances,
                                      const PrecomputeListener& listener) {
  std::vector<std::string> names;
  std::size_t num_parts = 0;
  try {
    const Assembly expanded = expand_domain_parts({parts, instances, {}});
    for (const AssemblyInstance& i : expanded.instances) names.push_back(i.name);
    num_parts = expanded.parts.size();
  } catch (const Error& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  if (spec.domains)
    for (const auto& [name, settings] : spec.domains->per_domain)
      if (std::find(names.begin(), names.end(), name) == names.end())
        throw InputError(spec.spec_path, 0,
                         "domains.per_domain: no instance is named \"" + name +
                             "\" (a domain of a part with domains: \"<instance>/<domain>\")");
  listener.report(
      printf_text("instances    %zu placements of %zu parts: %zu domains of %zu distinct parts",
                  instances.size(), parts.size(), names.size(), num_parts));
  return names;
}

// The parts reduced (each once, all cores) and placed, with progress and the stages' seconds.
ReducedModel reduce_and_place(const ModelSpec& spec, const std::vector<AssemblyPart>& parts,
                              const std::vector<AssemblyInstance>& instances,
                              const PrecomputeListener& listener, ProcessGroup* processes) {
  const auto start = Clock::now();
  std::map<std::string, double> work;
  for (const AssemblyPart& part : parts) work[part.name] = part.mesh.num_tets();
  StageTally stages(std::move(work), listener);
  ReducedModel reduced;
  try {
    reduced = build_assembly_model(parts, instances, spec.assembly->attachment_tolerance, 0,
                                   stages.callback(), processes);
  } catch (const Error& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  stages.report(listener, 22, " (summed over the parts)");
  listener.report(printf_text("  %-22s %8.3f s", "precompute total", seconds_since(start)));
  // Render surfaces: each part's once, and any spread over a part's several domains.
  long stored = reduced.embedded_surface.rest_positions.rows(), drawn = stored;
  for (const ReducedDomain& d : reduced.domains)
    drawn += reduced.parts[static_cast<std::size_t>(d.part)].render_surface.size();
  for (const ReducedPart& part : reduced.parts) stored += part.render_surface.size();
  if (drawn > 0)
    listener.report(
        printf_text("surfaces     %ld render vertices drawn, %ld stored (each part's "
                    "embedded once in its own tets)",
                    drawn, stored));
  return reduced;
}

}  // namespace

ReducedModel precompute_assembly(const ModelSpec& spec, const PrecomputeListener& listener,
                                 ProcessGroup* processes) {
  std::string input_bytes;
  const std::vector<AssemblyPart> parts = read_parts(spec, input_bytes, listener);
  std::vector<AssemblyInstance> instances;
  for (const InstanceSpec& i : spec.assembly->instances)
    instances.push_back(
        {i.name, i.part, i.parent, i.rotation, i.translation, i.scale, i.parent_domain, -1});
  const std::vector<std::string> names = domain_names(spec, parts, instances, listener);
  ReducedModel reduced = reduce_and_place(spec, parts, instances, listener, processes);
  // Forces name vertices of the assembled mesh (global numbering).
  std::vector<PointForce> forces;
  {
    TetMesh assembled;
    assembled.rest_positions = global_rest_positions(reduced);
    forces = check_spec_forces(spec, assembled, listener);
  }
  // The reduction options per part (a part cut into domains: per domain in the file).
  nlohmann::json options;
  for (const AssemblyPart& part : parts)
    options["parts"][part.name] = {{"linear_modes", part.reduction.linear_modes},
                                   {"r", part.reduction.r},
                                   {"modal_derivatives", part.reduction.modal_derivatives}};
  finish_model(reduced, spec, names, "", input_bytes, options.dump(), forces, listener, processes);
  return reduced;
}

}  // namespace ramus
