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
#include "ramus/runtime/model/reduced_model.h"

namespace ramus {

namespace {

using nlohmann::json;

// A path from the spec: absolute as given, relative to the spec's folder otherwise.
std::string resolve_path(const std::string& path, const std::string& spec_path) {
  const std::filesystem::path p(path);
  return p.is_absolute() ? p.string()
                         : (std::filesystem::path(spec_path).parent_path() / p).string();
}

// A value as a message shows it: its JSON, cut to 60 characters (a value may be a whole subtree).
std::string shown(const json& j) {
  const std::string text = j.dump();
  return text.size() <= 60 ? text : text.substr(0, 57) + "...";
}

class SpecReader {
 public:
  explicit SpecReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& message) const {
    throw InputError(file_, 0, (key.empty() ? "" : key + ": ") + message);
  }
  double number(const json& j, const std::string& key) const {
    if (!j.is_number()) fail(key, "expected a number, got " + shown(j));
    const double value = j.get<double>();
    if (!std::isfinite(value)) fail(key, "expected a finite number");
    return value;
  }
  double positive(const json& j, const std::string& key) const {
    const double value = number(j, key);
    if (!(value > 0)) fail(key, "must be positive, got " + shown(j));
    return value;
  }
  int integer(const json& j, const std::string& key) const {
    if (!j.is_number_integer()) fail(key, "expected an integer, got " + shown(j));
    // (An unsigned above 2^63 would wrap to a negative long long.)
    if (j.is_number_unsigned() ? j.get<unsigned long long>() > static_cast<unsigned long long>(
                                                                   std::numeric_limits<int>::max())
                               : (j.get<long long>() < std::numeric_limits<int>::min() ||
                                  j.get<long long>() > std::numeric_limits<int>::max()))
      fail(key, "integer out of range, got " + shown(j));
    return static_cast<int>(j.get<long long>());
  }
  /// An integer in [lo, hi], checked before any arithmetic uses it.
  int bounded(const json& j, const std::string& key, long long lo, long long hi) const {
    const int value = integer(j, key);
    if (value < lo || value > hi)
      fail(key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                    shown(j));
    return value;
  }
  /// An integrator's name (docs/INTEGRATORS.md).
  std::string integrator(const json& j, const std::string& key) const {
    if (!j.is_string() || !integrator_from_string(j.get<std::string>()))
      fail(key, "expected one of " + integrator_names() + "; got " + shown(j));
    return j.get<std::string>();
  }
  /// s of SIERE and its siblings, 0..kMaxSplitModes.
  int split_modes(const json& j, const std::string& key) const {
    const int value = integer(j, key);
    if (value < 0 || value > kMaxSplitModes)
      fail(key, "must be between 0 and " + std::to_string(kMaxSplitModes) + ", got " + shown(j));
    return value;
  }
  Eigen::Vector3d vector3(const json& j, const std::string& key) const {
    if (!j.is_array() || j.size() != 3) fail(key, "expected an array of 3 numbers");
    return {number(j[0], key + "[0]"), number(j[1], key + "[1]"), number(j[2], key + "[2]")};
  }
  const json& required(const json& object, const std::string& name, const std::string& key) const {
    if (!object.contains(name)) fail(key, "missing required key \"" + name + "\"");
    return object.at(name);
  }
  void only_keys(const json& object, const std::string& key,
                 std::initializer_list<const char*> allowed) const {
    if (!object.is_object()) fail(key, "expected an object");
    for (const auto& item : object.items()) {
      if (std::none_of(allowed.begin(), allowed.end(),
                       [&](const char* a) { return item.key() == a; })) {
        std::string list;
        for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
        fail(key, "unknown key \"" + item.key() + "\" (allowed: " + list + ")");
      }
    }
  }
  void only_keys(const json& object, const std::string& key,
                 const std::vector<std::string>& allowed) const {
    if (!object.is_object()) fail(key, "expected an object");
    for (const auto& item : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(key, "unknown key \"" + item.key() + "\" (allowed: " + list + ")");
      }
    }
  }
  /// A setting of the one list (settings_table.h) at `key`: its type, then its bounds.
  SettingValue setting(const json& j, const SettingInfo& info, const std::string& key) const {
    SettingValue value;
    switch (info.type) {
      case SettingType::kReal:
        value.v[0] = number(j, key);
        break;
      case SettingType::kInteger:
        value.v[0] = integer(j, key);
        break;
      case SettingType::kVector3: {
        const Eigen::Vector3d x = vector3(j, key);
        value.v = {x(0), x(1), x(2)};
        break;
      }
      case SettingType::kIntegrator:
      case SettingType::kLumping: {
        std::string problem;
        const std::optional<SettingValue> named =
            j.is_string() ? parse_setting_text(info, j.get<std::string>(), problem) : std::nullopt;
        if (!named) fail(key, problem.empty() ? "expected a name, got " + shown(j) : problem);
        value = *named;
        break;
      }
    }
    if (const std::string problem = setting_value_problem(info, value); !problem.empty())
      fail(key, problem);
    return value;
  }
  /// A number in [lo, hi] (a physical range: outside it the solvers lose every digit).
  double in_range(const json& j, const std::string& key, double lo, double hi,
                  const char* unit) const {
    const double value = number(j, key);
    if (!(value >= lo && value <= hi)) {
      std::ostringstream message;
      message << "must lie in [" << lo << ", " << hi << "]" << unit << ", got " << shown(j);
      fail(key, message.str());
    }
    return value;
  }
  Material material(const json& j, const std::string& key,
                    std::vector<std::string>& warnings) const {
    only_keys(j, key, {"youngs_modulus", "poisson_ratio", "density"});
    Material m;
    if (j.contains("youngs_modulus"))
      m.youngs_modulus = in_range(j["youngs_modulus"], key + ".youngs_modulus", 1e-3, 1e13, " Pa");
    if (j.contains("poisson_ratio")) {
      const std::string sub = key + ".poisson_ratio";
      m.poisson_ratio = number(j["poisson_ratio"], sub);
      if (!(m.poisson_ratio >= 0 && m.poisson_ratio < 0.5))
        fail(sub, "must lie in [0, 0.5), got " + shown(j["poisson_ratio"]));
      if (m.poisson_ratio > 0.49)
        warnings.push_back(sub + ": " + shown(j["poisson_ratio"]) +
                           " is nearly incompressible: linear tets lock (the modes come out far "
                           "too stiff) and the Lamé λ grows as 1/(1 - 2ν)");
    }
    if (j.contains("density"))
      m.density = in_range(j["density"], key + ".density", 1e-3, 1e6, " kg/m^3");
    try {
      validate_material(m, key.c_str());
    } catch (const OptionError& e) {
      throw InputError(file_, 0, e.what());
    }
    return m;
  }
  // "units": a unit's name or metres per unit (the mesh's coordinates times it are metres).
  double length_unit(const json& j, const std::string& key) const {
    static const std::map<std::string, double> kUnits = {
        {"m", 1.0},   {"dm", 0.1},    {"cm", 0.01},  {"mm", 0.001},
        {"um", 1e-6}, {"in", 0.0254}, {"ft", 0.3048}};
    if (j.is_string()) {
      const auto found = kUnits.find(j.get<std::string>());
      if (found == kUnits.end())
        fail(key, "unknown unit " + shown(j) +
                      " (use \"m\", \"dm\", \"cm\", \"mm\", \"um\", \"in\", \"ft\", or metres per "
                      "unit as a number)");
      return found->second;
    }
    const double unit = number(j, key);
    if (!(unit >= 1e-9 && unit <= 1e9))
      fail(key, "metres per mesh unit must be in [1e-9, 1e9], got " + shown(j));
    return unit;
  }
  VertexSelector selector(const json& j, const std::string& key) const {
    VertexSelector s;
    s.description = key;
    if (!j.is_object() || j.size() != 1)
      fail(key,
           "expected an object with one of \"plane\", \"box\", \"label\", \"vertices\", \"flag\"");
    const std::string kind = j.begin().key();
    const json& value = j.begin().value();
    const std::string sub = key + "." + kind;
    if (kind == "plane") {
      only_keys(value, sub, {"point", "normal", "tolerance"});
      s.kind = VertexSelector::Kind::kPlane;
      s.point = vector3(required(value, "point", sub), sub + ".point");
      s.normal = vector3(required(value, "normal", sub), sub + ".normal");
      // (stableNorm: a normal of norm 1e200 must not overflow to inf and normalize to zero.)
      const double length = s.normal.stableNorm();
      if (!(length > 0 && std::isfinite(length))) fail(sub + ".normal", "must be non-zero");
      s.normal /= length;
      if (value.contains("tolerance")) {
        s.tolerance = number(value["tolerance"], sub + ".tolerance");
        if (s.tolerance < 0) fail(sub + ".tolerance", "must not be negative (0: automatic)");
      }
    } else if (kind == "box") {
      only_keys(value, sub, {"min", "max"});
      s.kind = VertexSelector::Kind::kBox;
      s.box_min = vector3(required(value, "min", sub), sub + ".min");
      s.box_max = vector3(required(value, "max", sub), sub + ".max");
      if ((s.box_min.array() > s.box_max.array()).any()) fail(sub, "min must not exceed max");
    } else if (kind == "label") {
      s.kind = VertexSelector::Kind::kLabel;
      s.label = integer(value, sub);
    } else if (kind == "flag") {
      s.kind = VertexSelector::Kind::kFlag;
      s.flag = integer(value, sub);
    } else if (kind == "vertices") {
      s.kind = VertexSelector::Kind::kVertexList;
      if (!value.is_array() || value.empty())
        fail(sub, "expected a non-empty array of vertex indices");
      for (size_t i = 0; i < value.size(); ++i)
        s.vertices.push_back(bounded(value[i], sub + "[" + std::to_string(i) + "]", 0,
                                     std::numeric_limits<int>::max()));
    } else {
      fail(key, "unknown selector \"" + kind + "\" (use plane, box, label, vertices or flag)");
    }
    return s;
  }

 private:
  std::string file_;
};

// json::parse, except that a key given twice in one object is an error naming it and its
// object's path (nlohmann keeps the last silently).
json parse_without_duplicates(const std::string& text, const std::string& spec_path) {
  std::vector<std::set<std::string>> seen;  // keys of each open object, innermost last
  std::vector<std::string> path;            // the keys leading to it
  std::string last_key;
  const json::parser_callback_t check = [&](int /*depth*/, json::parse_event_t event,
                                            json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        seen.emplace_back();
        path.push_back(last_key);
        break;
      case json::parse_event_t::object_end:
        if (!seen.empty()) seen.pop_back();
        if (!path.empty()) path.pop_back();
        break;
      case json::parse_event_t::key: {
        last_key = parsed.get<std::string>();
        if (!seen.empty() && !seen.back().insert(last_key).second) {
          std::string where;
          for (const std::string& p : path)
            if (!p.empty()) where += (where.empty() ? "" : ".") + p;
          throw InputError(spec_path, 0,
                           (where.empty() ? std::string() : where + ": ") + "key \"" + last_key +
                               "\" given twice");
        }
        break;
      }
      case json::parse_event_t::array_start:
        path.push_back(last_key);
        last_key.clear();
        break;
      case json::parse_event_t::array_end:
        if (!path.empty()) path.pop_back();
        break;
      default:
        break;
    }
    return true;
  };
  return json::parse(text, check);
}

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
    materials[label] = m;
  }
  return materials;
}

// The "reduction" block at `key`, r checked against the candidate directions.
ReductionSpec parse_reduction(const SpecReader& r, const json& red, const std::string& key) {
  r.only_keys(red, key, {"linear_modes", "r", "modal_derivatives"});
  ReductionSpec reduction;
  if (red.contains("linear_modes"))
    reduction.linear_modes =
        r.bounded(red["linear_modes"], key + ".linear_modes", 1, kMaxSpecModes);
  if (red.contains("r")) reduction.r = r.bounded(red["r"], key + ".r", 1, kMaxSpecModes);
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

// Which keys a "domains" block may hold: a one-mesh spec's (all), an assembly's (runtime tuning
// by instance name) or an assembly part's (how its mesh is cut and reduced).
enum class DomainsUse { kOneMesh, kAssembly, kPart };

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
          if (info.scope == SettingScope::kNode) allowed.emplace_back(json_key_in_block(info));
      r.only_keys(v, entry, allowed);
      DomainSettings settings;
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
        if (info.scope == SettingScope::kNode && v.contains(name))
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

}  // namespace

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
    else if (info.scope == SettingScope::kNode)
      set_setting(sim.node, info, value);
    else
      set_setting(sim.settings, info, value);
    if (std::string_view(info.name) == "rayleigh_stiffness") sim.rayleigh_stiffness_given = true;
  }
}

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
  if (!root.is_object()) r.fail("", "expected a JSON object");
  if (root.contains("parts") || root.contains("instances")) {
    // An assembly: parts and instances in place of one mesh.
    if (root.contains("mesh"))
      r.fail("mesh",
             "an assembly (\"parts\", \"instances\") has no top-level mesh: each part "
             "names its own");
    r.only_keys(root, "",
                {"parts", "instances", "attachment_tolerance", "forces", "simulation", "domains",
                 "comment"});
    spec.assembly = parse_assembly(r, root, spec_path, spec.warnings);
  } else {
    r.only_keys(root, "",
                {"mesh", "units", "tetrahedralize", "material", "materials_by_label", "fixed",
                 "forces", "simulation", "reduction", "domains", "render_surface", "comment"});
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
  if (root.contains("reduction"))
    spec.reduction = parse_reduction(r, root["reduction"], "reduction");
  if (root.contains("domains")) {
    spec.domains = parse_domains(r, root["domains"], "domains", spec_path,
                                 spec.assembly ? DomainsUse::kAssembly : DomainsUse::kOneMesh);
    if (const SettingInfo* lumping = find_setting("lumping"); root["domains"].contains("lumping"))
      set_setting(spec.simulation.settings, *lumping,
                  r.setting(root["domains"]["lumping"], *lumping, lumping->json_key));
  }
  if (root.contains("units")) {
    spec.length_unit = r.length_unit(root["units"], "units");
    convert_mesh_units(spec.length_unit, spec.fixed, spec.tetrahedralize);
    for (PointForce& f : spec.forces)
      if (f.at) *f.at *= spec.length_unit;
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
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "cannot open the spec file");
  std::stringstream text;
  text << in.rdbuf();
  ModelSpec spec = parse_model_spec(text.str(), path);
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

RuntimeSettings spec_runtime_settings(const ModelSpec& spec,
                                      const std::vector<std::string>& domain_names) {
  // The simulation block for every domain, then each domain's own (domains.per_domain).
  const SimulationSpec& sim = spec.simulation;
  RuntimeSettings settings = sim.settings;
  NodeSettings all = sim.node;
  if (!sim.rayleigh_stiffness_given && domain_names.size() > 1)
    all.rayleigh_stiffness = kTreeStiffnessDamping;
  settings.nodes.assign(domain_names.size(), all);
  if (!spec.domains) return settings;
  for (std::size_t d = 0; d < domain_names.size(); ++d) {
    const auto it = spec.domains->per_domain.find(domain_names[d]);
    if (it == spec.domains->per_domain.end()) continue;
    for (const auto& [info, value] : it->second.runtime)
      set_setting(settings.nodes[d], *info, value);
  }
  return settings;
}

}  // namespace ramus
