// The parsers of the spec's blocks: tetrahedralize, materials_by_label, reduction, rotations,
// domains, units and simulation (docs/SPEC.md).
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

// The "tetrahedralize" block at `key`.
TetrahedralizeOptions parse_tetrahedralize(const SpecReader& r, const json& t,
                                           const std::string& key) {
  TetrahedralizeOptions options;
  r.only_keys(t, key, {"max_radius_edge_ratio", "max_volume", "label_regions"});
  if (t.contains("max_radius_edge_ratio"))
    options.max_radius_edge_ratio =
        r.number(t["max_radius_edge_ratio"], key + ".max_radius_edge_ratio");
  if (const double q = options.max_radius_edge_ratio; q != 0 && !(q >= 1.1))
    r.fail(key + ".max_radius_edge_ratio",
           "must be 0 (off) or at least 1.1 (TetGen's refinement need not terminate below), "
           "got " +
               shown(t["max_radius_edge_ratio"]));
  if (t.contains("max_volume"))
    options.max_volume = r.positive(t["max_volume"], key + ".max_volume");
  if (t.contains("label_regions")) {
    if (!t["label_regions"].is_boolean()) r.fail(key + ".label_regions", "expected true or false");
    options.label_regions = t["label_regions"].get<bool>();
  }
  return options;
}

// The "materials_by_label" block at `key`; unset fields come from `base`.
std::map<int, Material> parse_materials_by_label(const SpecReader& r, const json& by_label,
                                                 const std::string& key, const Material& base,
                                                 std::vector<std::string>& warnings) {
  std::map<int, Material> materials;
  if (!by_label.is_object()) r.fail(key, "expected an object {\"label\": {...}}");
  for (const auto& item : by_label.items()) {
    int label = 0;
    try {
      size_t used = 0;
      label = std::stoi(item.key(), &used);
      if (used != item.key().size()) throw std::invalid_argument("");
    } catch (const std::exception&) {
      r.fail(key, "key \"" + item.key() + "\" is not an integer label");
    }
    const std::string sub = key + "." + item.key();
    Material m = r.material(item.value(), sub, warnings);
    if (!item.value().contains("youngs_modulus")) m.youngs_modulus = base.youngs_modulus;
    if (!item.value().contains("poisson_ratio")) m.poisson_ratio = base.poisson_ratio;
    if (!item.value().contains("density")) m.density = base.density;
    if (!item.value().contains("model")) m.model = base.model;
    materials[label] = m;
  }
  return materials;
}

CheckSpec parse_check(const SpecReader& r, const json& check, const std::string& key) {
  CheckSpec spec;
  if (check.is_boolean()) {
    spec.enabled = check.get<bool>();
    return spec;
  }
  if (!check.is_object())
    r.fail(key,
           "expected true, false or an object with \"frequencies\", \"static_tolerance\", "
           "\"frequency_tolerance\", \"choose_lumping\" and \"improve_rounds\"");
  r.only_keys(check, key,
              {"frequencies", "static_tolerance", "frequency_tolerance", "choose_lumping",
               "improve_rounds"});
  if (check.contains("frequencies"))
    spec.frequencies = r.bounded(check["frequencies"], key + ".frequencies", 0, 20);
  if (check.contains("static_tolerance"))
    spec.static_tolerance = r.positive(check["static_tolerance"], key + ".static_tolerance");
  if (check.contains("frequency_tolerance"))
    spec.frequency_tolerance =
        r.positive(check["frequency_tolerance"], key + ".frequency_tolerance");
  if (check.contains("choose_lumping")) {
    if (!check["choose_lumping"].is_boolean())
      r.fail(key + ".choose_lumping", "expected true or false");
    spec.choose_lumping = check["choose_lumping"].get<bool>();
  }
  if (check.contains("improve_rounds"))
    spec.improve_rounds = r.bounded(check["improve_rounds"], key + ".improve_rounds", 0, 20);
  return spec;
}

// The "reduction" block at `key`, r checked against the candidate directions.
ReductionSpec parse_reduction(const SpecReader& r, const json& red, const std::string& key) {
  r.only_keys(red, key, {"linear_modes", "r", "modal_derivatives", "contact_samples"});
  ReductionSpec reduction;
  if (red.contains("linear_modes"))
    reduction.linear_modes =
        r.bounded(red["linear_modes"], key + ".linear_modes", 1, kMaxSpecModes);
  if (red.contains("r")) reduction.r = r.bounded(red["r"], key + ".r", 1, kMaxSpecModes);
  if (red.contains("contact_samples"))
    reduction.contact_samples =
        r.bounded(red["contact_samples"], key + ".contact_samples", 1, kMaxContactSamples);
  if (red.contains("modal_derivatives")) {
    if (!red["modal_derivatives"].is_boolean())
      r.fail(key + ".modal_derivatives", "expected true or false");
    reduction.modal_derivatives = red["modal_derivatives"].get<bool>();
  }
  const long long candidates =
      reduction.modal_derivatives
          ? reduction.linear_modes +
                static_cast<long long>(reduction.linear_modes) * (reduction.linear_modes + 1) / 2
          : reduction.linear_modes;
  if (reduction.r > candidates)
    r.fail(key + ".r", "r = " + std::to_string(reduction.r) + " exceeds the " +
                           std::to_string(candidates) + " candidate directions of " +
                           std::to_string(reduction.linear_modes) + " linear modes" +
                           (reduction.modal_derivatives ? " and their modal derivatives" : ""));
  return reduction;
}

// A rotation: a 3 by 3 array (rows) that is one to 1e-6, or {"axis": [x, y, z], "degrees": a}.
Eigen::Matrix3d parse_rotation(const SpecReader& r, const json& j, const std::string& key) {
  if (j.is_object()) {
    r.only_keys(j, key, {"axis", "degrees"});
    const Eigen::Vector3d axis = r.vector3(r.required(j, "axis", key), key + ".axis");
    const double length = axis.stableNorm();
    if (!(length > 0 && std::isfinite(length))) r.fail(key + ".axis", "must be non-zero");
    const double degrees = r.number(r.required(j, "degrees", key), key + ".degrees");
    return Eigen::AngleAxisd(degrees * M_PI / 180, axis / length).toRotationMatrix();
  }
  if (!j.is_array() || j.size() != 3)
    r.fail(key, "expected a 3 by 3 array of rows or {\"axis\": [x, y, z], \"degrees\": a}");
  Eigen::Matrix3d m;
  for (int i = 0; i < 3; ++i)
    m.row(i) =
        r.vector3(j[static_cast<std::size_t>(i)], key + "[" + std::to_string(i) + "]").transpose();
  const double error = (m.transpose() * m - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (error > 1e-6 || m.determinant() <= 0) {
    std::ostringstream message;
    message << "not a rotation (max |RᵀR - I| = " << error << ", det R = " << m.determinant()
            << "; a mirror or a scale is not a placement: use \"scale\" for size)";
    r.fail(key, message.str());
  }
  return m;
}

// A "domains" block at `key` (docs/SPEC.md, "Substructuring").
DomainsSpec parse_domains(const SpecReader& r, const json& d, const std::string& key,
                          const std::string& spec_path, DomainsUse use) {
  if (use == DomainsUse::kAssembly)
    r.only_keys(d, key, {"lumping", "per_domain", "comment"});
  else if (use == DomainsUse::kPart)
    r.only_keys(d, key,
                {"partition", "label_file", "automatic", "total_r", "distribution", "min_r",
                 "max_r", "per_domain", "comment"});
  else
    r.only_keys(d, key,
                {"partition", "label_file", "automatic", "total_r", "distribution", "min_r",
                 "max_r", "lumping", "per_domain", "comment"});
  DomainsSpec domains;
  if (d.contains("partition")) {
    const json& p = d["partition"];
    if (p == "labels")
      domains.partition = DomainsSpec::Partition::kLabels;
    else if (p == "automatic")
      domains.partition = DomainsSpec::Partition::kAutomatic;
    else
      r.fail(key + ".partition", "expected \"labels\" or \"automatic\", got " + shown(p));
  }
  if (d.contains("label_file")) {
    const json& f = d["label_file"];
    if (!f.is_string() || f.get<std::string>().empty())
      r.fail(key + ".label_file", "expected a file name (one label per tet)");
    if (domains.partition != DomainsSpec::Partition::kLabels)
      r.fail(key + ".label_file", "only used with \"partition\": \"labels\"");
    domains.label_file_path = resolve_path(f.get<std::string>(), spec_path);
  }
  if (d.contains("automatic")) {
    const json& a = d["automatic"];
    const std::string sub = key + ".automatic";
    r.only_keys(a, sub,
                {"method", "num_bands", "band_width", "min_domain_tets", "dominance",
                 "neck_contrast", "max_depth", "from_labels", "max_interface_share"});
    AutomaticPartitionOptions& o = domains.automatic;
    if (a.contains("method")) {
      if (a["method"] == "shape")
        o.method = AutomaticPartitionOptions::Method::kShape;
      else if (a["method"] == "bands")
        o.method = AutomaticPartitionOptions::Method::kBands;
      else
        r.fail(sub + ".method", "expected \"shape\" or \"bands\", got " + shown(a["method"]));
    }
    if (a.contains("num_bands"))
      o.num_bands = r.bounded(a["num_bands"], sub + ".num_bands", 1, 100000);
    if (a.contains("band_width")) o.band_width = r.positive(a["band_width"], sub + ".band_width");
    if (a.contains("min_domain_tets"))
      o.min_domain_tets = r.bounded(a["min_domain_tets"], sub + ".min_domain_tets", 1, 1000000000);
    if (a.contains("dominance"))
      o.dominance = r.in_range(a["dominance"], sub + ".dominance", 1.0, 1e6, "");
    if (a.contains("neck_contrast")) {
      o.neck_contrast = r.in_range(a["neck_contrast"], sub + ".neck_contrast", 1.0, 1e6, "");
      if (o.neck_contrast == 1.0) r.fail(sub + ".neck_contrast", "must be > 1 (1 cuts everywhere)");
    }
    if (a.contains("max_depth"))
      o.max_depth = r.bounded(a["max_depth"], sub + ".max_depth", 0, 1000);
    if (a.contains("max_interface_share"))
      o.max_interface_share =
          r.in_range(a["max_interface_share"], sub + ".max_interface_share", 1e-6, 1e6, "");
    if (a.contains("from_labels")) {
      if (!a["from_labels"].is_boolean()) r.fail(sub + ".from_labels", "expected true or false");
      o.from_labels = a["from_labels"].get<bool>();
    }
    const bool bands = o.method == AutomaticPartitionOptions::Method::kBands;
    for (const char* shape_key :
         {"dominance", "neck_contrast", "max_depth", "from_labels", "max_interface_share"})
      if (bands && a.contains(shape_key))
        r.fail(sub + "." + shape_key, "only used with \"method\": \"shape\"");
    if (domains.partition != DomainsSpec::Partition::kAutomatic)
      r.fail(sub, "only used with \"partition\": \"automatic\"");
  }
  if (d.contains("total_r"))
    domains.total_r = r.bounded(d["total_r"], key + ".total_r", 0, 10000000);
  if (d.contains("distribution")) {
    const json& dist = d["distribution"];
    if (dist == "proportional")
      domains.distribution = ModeDistribution::kProportional;
    else if (dist == "logarithmic")
      domains.distribution = ModeDistribution::kLogarithmic;
    else
      r.fail(key + ".distribution",
             "expected \"proportional\" or \"logarithmic\", got " + shown(dist));
  }
  if (d.contains("min_r")) domains.min_r = r.bounded(d["min_r"], key + ".min_r", 0, kMaxSpecModes);
  if (d.contains("max_r")) domains.max_r = r.bounded(d["max_r"], key + ".max_r", 0, kMaxSpecModes);
  if (domains.min_r < 0 || domains.max_r < domains.min_r) r.fail(key, "need 0 <= min_r <= max_r");
  if (d.contains("per_domain")) {
    const json& per = d["per_domain"];
    if (!per.is_object()) r.fail(key + ".per_domain", "expected an object {\"name\": {...}}");
    for (const auto& item : per.items()) {
      const std::string entry = key + ".per_domain." + item.key();
      const json& v = item.value();
      // (A part's domains take no runtime tuning: the top-level "domains" gives it.)
      std::vector<std::string> allowed = {"r", "linear_modes"};
      if (use != DomainsUse::kPart)
        for (const SettingInfo& info : settings_table())
          if (info.scope == SettingScope::kDomain) allowed.emplace_back(json_key_in_block(info));
      r.only_keys(v, entry, allowed);
      DomainOverrides settings;
      if (use == DomainsUse::kAssembly && (v.contains("r") || v.contains("linear_modes")))
        r.fail(entry,
               "an assembly reduces each part once: give r and linear_modes in "
               "parts.<name>.reduction");
      if (v.contains("r")) settings.r = r.bounded(v["r"], entry + ".r", 0, kMaxSpecModes);
      if (v.contains("linear_modes"))
        settings.linear_modes =
            r.bounded(v["linear_modes"], entry + ".linear_modes", 1, kMaxSpecModes);
      for (const SettingInfo& info : settings_table()) {
        const std::string name(json_key_in_block(info));
        if (info.scope == SettingScope::kDomain && v.contains(name))
          settings.runtime.emplace_back(&info, r.setting(v[name], info, entry + "." + name));
      }
      domains.per_domain[item.key()] = settings;
    }
  }
  return domains;
}

// "units": the selectors' positions and tolerances, given in the mesh's units, in metres; and
// TetGen's volume bound, given in m^3, in the mesh's units (TetGen meshes the unscaled surface).
void convert_mesh_units(double unit, std::vector<VertexSelector>& selectors,
                        TetrahedralizeOptions& tetrahedralize) {
  for (VertexSelector& s : selectors) {
    s.point *= unit;
    s.tolerance *= unit;
    s.box_min *= unit;
    s.box_max *= unit;
  }
  tetrahedralize.max_volume /= unit * unit * unit;
}

// The "simulation" block: every setting of the list whose key is in it, the wind in its own
// object (settings_table.h: types, bounds and messages).
void parse_simulation(const SpecReader& r, const json& s, SimulationSpec& sim) {
  std::vector<std::string> allowed = {"wind"}, wind_allowed;
  for (const SettingInfo& info : settings_table()) {
    const std::string key = info.json_key;
    if (info.scope == SettingScope::kWind)
      wind_allowed.emplace_back(json_key_in_block(info));
    else if (key.rfind("simulation.", 0) == 0)
      allowed.emplace_back(json_key_in_block(info));
  }
  r.only_keys(s, "simulation", allowed);
  const json no_wind = json::object();
  const json& wind = s.contains("wind") ? s["wind"] : no_wind;
  r.only_keys(wind, "simulation.wind", wind_allowed);
  for (const SettingInfo& info : settings_table()) {
    const std::string key = info.json_key;
    if (key.rfind("simulation.", 0) != 0) continue;
    const json& block = info.scope == SettingScope::kWind ? wind : s;
    const std::string name(json_key_in_block(info));
    if (!block.contains(name)) continue;
    const SettingValue value = r.setting(block[name], info, key);
    if (info.scope == SettingScope::kScenario)
      set_setting(sim.scenario, info, value);
    else if (info.scope == SettingScope::kFullSpace)
      set_setting(sim.full_space, info, value);
    else if (info.scope == SettingScope::kDomain)
      set_setting(sim.domain, info, value);
    else
      set_setting(sim.settings, info, value);
    if (std::string_view(info.name) == "rayleigh_stiffness") sim.rayleigh_stiffness_given = true;
    if (std::string_view(info.name) == "output_every") sim.output_every_given = true;
  }
}

// "model": "fem" or "mass_spring"; a cloth's "cloth" block through the list, and none of the tet
// FEM's keys beside it (each named).
void parse_body_model(const SpecReader& r, const json& root, ModelSpec& spec) {
  if (root.contains("model")) {
    const json& model = root["model"];
    if (!model.is_string() || (model != "fem" && model != "mass_spring"))
      r.fail("model",
             "expected \"fem\" (tetrahedra, the default) or \"mass_spring\" (a cloth "
             "of a triangle surface)");
    if (model == "mass_spring") spec.model = BodyModel::kMassSpring;
  }
  if (spec.model != BodyModel::kMassSpring) {
    if (root.contains("cloth"))
      r.fail("cloth", "only a \"model\": \"mass_spring\" spec takes a cloth block");
    return;
  }
  for (const char* key : {"tetrahedralize", "material", "materials_by_label", "reduction",
                          "domains", "check", "render_surface", "copies"})
    if (root.contains(key))
      r.fail(key, "a \"model\": \"mass_spring\" cloth takes no \"" + std::string(key) +
                      "\" (its springs and masses are in \"cloth\"; docs/CLOTH.md)");
  std::vector<std::string> allowed;
  for (const SettingInfo& info : settings_table())
    if (info.scope == SettingScope::kCloth) allowed.emplace_back(json_key_in_block(info));
  if (!root.contains("cloth")) return;
  const json& cloth = root["cloth"];
  r.only_keys(cloth, "cloth", allowed);
  for (const SettingInfo& info : settings_table()) {
    const std::string name(json_key_in_block(info));
    if (info.scope == SettingScope::kCloth && cloth.contains(name))
      set_setting(spec.cloth, info, r.setting(cloth[name], info, info.json_key));
  }
}

}  // namespace ramus::spec
