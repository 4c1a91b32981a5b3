// The spec's "parts" and "instances" (docs/SPEC.md, "Assemblies").
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "ramus/runtime/data/reduced_model.h"
#include "spec_reader.h"

namespace ramus::spec {

// "parts" and "instances" (docs/SPEC.md, "Assemblies"): every name known, parents before
// children, one root, rotations and scales valid.
AssemblySpec parse_assembly(const SpecReader& r, const json& root, const std::string& spec_path,
                            std::vector<std::string>& warnings) {
  AssemblySpec assembly;
  const json& parts = r.required(root, "parts", "");
  if (!parts.is_object() || parts.empty())
    r.fail("parts", "expected an object {\"name\": {\"mesh\": ..., ...}} with at least one part");
  std::map<std::string, int> part_index;
  std::vector<std::pair<std::size_t, std::string>> reused;  // a part that is another's domain
  for (const auto& item : parts.items()) {
    const std::string key = "parts." + item.key();
    const json& p = item.value();
    PartSpec part;
    part.name = item.key();
    if (p.is_object() && (p.contains("part") || p.contains("domain"))) {
      // One domain of another part's mesh, placed on its own (resolved below).
      r.only_keys(p, key, {"part", "domain", "comment"});
      const json& source = r.required(p, "part", key);
      const json& domain = r.required(p, "domain", key);
      if (!source.is_string()) r.fail(key + ".part", "expected the name of a part with domains");
      if (!domain.is_string() || domain.get<std::string>().empty())
        r.fail(key + ".domain", "expected a domain name");
      part.source_domain = domain.get<std::string>();
      reused.emplace_back(assembly.parts.size(), source.get<std::string>());
      part_index[part.name] = static_cast<int>(assembly.parts.size());
      assembly.parts.push_back(part);
      continue;
    }
    r.only_keys(p, key,
                {"mesh", "units", "tetrahedralize", "material", "materials_by_label", "base",
                 "reduction", "domains", "render_surface", "comment"});
    const json& mesh = r.required(p, "mesh", key);
    if (!mesh.is_string() || mesh.get<std::string>().empty())
      r.fail(key + ".mesh", "expected a file name");
    part.mesh_path = resolve_path(mesh.get<std::string>(), spec_path);
    if (p.contains("tetrahedralize"))
      part.tetrahedralize = parse_tetrahedralize(r, p["tetrahedralize"], key + ".tetrahedralize");
    if (p.contains("material"))
      part.material = r.material(p["material"], key + ".material", warnings);
    if (part.material.model != ElasticModel::kStvk)
      r.fail(key + ".material.model",
             "an assembly's parts are reduced, and a reduced model is built from StVK");
    if (p.contains("materials_by_label"))
      part.materials_by_label = parse_materials_by_label(
          r, p["materials_by_label"], key + ".materials_by_label", part.material, warnings);
    if (p.contains("base")) {
      const json& base = p["base"];
      if (!base.is_array()) r.fail(key + ".base", "expected an array of selectors");
      for (size_t i = 0; i < base.size(); ++i)
        part.base.push_back(r.selector(base[i], key + ".base[" + std::to_string(i) + "]"));
    }
    if (p.contains("reduction"))
      part.reduction = parse_reduction(r, p["reduction"], key + ".reduction");
    if (p.contains("render_surface")) {
      const json& surface = p["render_surface"];
      if (!surface.is_string() || surface.get<std::string>().empty())
        r.fail(key + ".render_surface", "expected a surface file name (.obj, .off or .ply)");
      part.render_surface_path = resolve_path(surface.get<std::string>(), spec_path);
    }
    if (p.contains("domains"))
      part.domains = parse_domains(r, p["domains"], key + ".domains", spec_path, DomainsUse::kPart);
    if (p.contains("units")) {
      part.length_unit = r.length_unit(p["units"], key + ".units");
      convert_mesh_units(part.length_unit, part.base, part.tetrahedralize);
    }
    part_index[part.name] = static_cast<int>(assembly.parts.size());
    assembly.parts.push_back(part);
  }
  for (const auto& [k, source] : reused) {
    const std::string key = "parts." + assembly.parts[k].name + ".part";
    const auto found = part_index.find(source);
    if (found == part_index.end() ||
        !assembly.parts[static_cast<std::size_t>(found->second)].domains)
      r.fail(key, found == part_index.end()
                      ? "no part is named \"" + source + "\""
                      : "part \"" + source + "\" is not cut into domains (it has no \"domains\")");
    assembly.parts[k].source_part = found->second;
  }
  const json& instances = r.required(root, "instances", "");
  if (!instances.is_array() || instances.empty())
    r.fail("instances", "expected an array of placements, the root first");
  std::map<std::string, int> instance_index;
  std::vector<bool> placed(assembly.parts.size(), false);
  for (size_t i = 0; i < instances.size(); ++i) {
    const json& j = instances[i];
    std::string key = "instances[" + std::to_string(i) + "]";
    r.only_keys(j, key, {"name", "part", "parent", "rotation", "translation", "scale", "comment"});
    InstanceSpec instance;
    const json& part = r.required(j, "part", key);
    if (!part.is_string()) r.fail(key + ".part", "expected a part name");
    instance.name = j.contains("name") && j["name"].is_string()
                        ? j["name"].get<std::string>()
                        : part.get<std::string>() + "_" + std::to_string(i);
    if (j.contains("name") && (!j["name"].is_string() || instance.name.empty()))
      r.fail(key + ".name", "expected a non-empty name");
    key += " ('" + instance.name + "')";
    if (instance_index.count(instance.name))
      r.fail(key, "the name is taken by instances[" +
                      std::to_string(instance_index[instance.name]) + "]");
    const auto found = part_index.find(part.get<std::string>());
    if (found == part_index.end()) {
      std::string names;
      for (const auto& [name, index] : part_index) names += (names.empty() ? "" : ", ") + name;
      r.fail(key + ".part", "no part is named " + shown(part) + " (the parts: " + names + ")");
    }
    instance.part = found->second;
    placed[static_cast<std::size_t>(instance.part)] = true;
    if (i == 0) {
      if (j.contains("parent"))
        r.fail(key + ".parent", "the first instance is the root of the tree: it has no parent");
    } else {
      const json& parent = r.required(j, "parent", key);
      if (!parent.is_string()) r.fail(key + ".parent", "expected an instance name");
      const std::string name = parent.get<std::string>();
      if (name == instance.name)
        r.fail(key + ".parent", "an instance cannot be its own parent (a loop)");
      auto p = instance_index.find(name);
      // "<instance>/<domain>": one domain of an instance of a part with domains.
      for (std::size_t slash = name.find('/'); p == instance_index.end() && slash != name.npos;
           slash = name.find('/', slash + 1)) {
        const auto whole = instance_index.find(name.substr(0, slash));
        if (whole == instance_index.end()) continue;
        if (!assembly
                 .parts[static_cast<std::size_t>(
                     assembly.instances[static_cast<std::size_t>(whole->second)].part)]
                 .domains)
          r.fail(key + ".parent",
                 "\"" + whole->first + "\" places a part without domains: name it whole");
        p = whole;
        instance.parent_domain = name.substr(slash + 1);
      }
      if (p == instance_index.end()) {
        bool later = false;
        for (size_t k = i + 1; k < instances.size(); ++k)
          later |= instances[k].contains("name") && instances[k]["name"] == parent;
        r.fail(key + ".parent",
               later ? "\"" + name +
                           "\" is listed after this instance: list parents before their "
                           "children (a parent after its child can close a loop)"
                     : "no earlier instance is named \"" + name + "\"");
      }
      instance.parent = p->second;
    }
    if (j.contains("rotation"))
      instance.rotation = parse_rotation(r, j["rotation"], key + ".rotation");
    if (j.contains("translation"))
      instance.translation = r.vector3(j["translation"], key + ".translation");
    if (j.contains("scale")) {
      instance.scale = r.number(j["scale"], key + ".scale");
      if (!(instance.scale >= kMinPartScale && instance.scale <= kMaxPartScale))
        r.fail(key + ".scale", "must lie in [0.001, 1000], got " + shown(j["scale"]));
    }
    instance_index[instance.name] = static_cast<int>(i);
    assembly.instances.push_back(instance);
  }
  for (std::size_t k = 0; k < placed.size(); ++k)
    if (!placed[k])
      warnings.push_back("parts." + assembly.parts[k].name + ": no instance places it (ignored)");
  if (root.contains("attachment_tolerance")) {
    assembly.attachment_tolerance = r.number(root["attachment_tolerance"], "attachment_tolerance");
    if (assembly.attachment_tolerance < 0) r.fail("attachment_tolerance", "must not be negative");
  }
  return assembly;
}

}  // namespace ramus::spec
