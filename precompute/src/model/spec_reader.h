// The spec parser's shared parts (precompute internals): the reader of JSON values that names
// the spec's file and key in its errors, and the parsers of the spec's blocks (spec_blocks.cpp,
// spec_assembly.cpp) that parse_model_spec (model_spec.cpp) puts together.
#pragma once

#include <Eigen/Core>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/runtime/data/settings_table.h"

namespace ramus::spec {

using nlohmann::json;

// A path from the spec: absolute as given, relative to the spec's folder otherwise.
std::string resolve_path(const std::string& path, const std::string& spec_path);

// A value as a message shows it: its JSON, cut to 60 characters (a value may be a whole subtree).
std::string shown(const json& j);

class SpecReader {
 public:
  explicit SpecReader(std::string file) : file_(std::move(file)) {}
  /// The spec file (paths in it are relative to its folder).
  const std::string& file() const { return file_; }

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
    only_keys(j, key, {"youngs_modulus", "poisson_ratio", "density", "model"});
    Material m;
    if (j.contains("model")) {
      if (j["model"] == "stvk")
        m.model = ElasticModel::kStvk;
      else if (j["model"] == "fixed_corotated")
        m.model = ElasticModel::kFixedCorotated;
      else
        fail(key + ".model", "expected stvk or fixed_corotated; got " + shown(j["model"]));
    }
    if (j.contains("youngs_modulus"))
      m.youngs_modulus = in_range(j["youngs_modulus"], key + ".youngs_modulus", 1e-3, 1e13, " Pa");
    if (j.contains("poisson_ratio")) {
      const std::string sub = key + ".poisson_ratio";
      m.poisson_ratio = number(j["poisson_ratio"], sub);
      if (!(m.poisson_ratio >= 0 && m.poisson_ratio < 0.5))
        fail(sub, "must lie in [0, 0.5), got " + shown(j["poisson_ratio"]));
      // (0.4999999999 made the stiffness singular to rounding: "not held by the fixed vertices")
      if (m.poisson_ratio > 0.4999)
        fail(sub, shown(j["poisson_ratio"]) + " is incompressible to rounding (1/(1 - 2ν) = " +
                      shown(json(1 / (1 - 2 * m.poisson_ratio))) +
                      ": the Lamé λ swamps the shear modulus and the stiffness is singular); "
                      "linear tets cannot model it: use at most 0.4999");
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
json parse_without_duplicates(const std::string& text, const std::string& spec_path);

// Which keys a "domains" block may hold: a one-mesh spec's (all), an assembly's (runtime tuning
// by instance name) or an assembly part's (how its mesh is cut and reduced).
enum class DomainsUse { kOneMesh, kAssembly, kPart };

// The "tetrahedralize" block at `key`.
TetrahedralizeOptions parse_tetrahedralize(const SpecReader& r, const json& t,
                                           const std::string& key);

// The "materials_by_label" block at `key`; unset fields come from `base`.
std::map<int, Material> parse_materials_by_label(const SpecReader& r, const json& by_label,
                                                 const std::string& key, const Material& base,
                                                 std::vector<std::string>& warnings);

// The "reduction" block at `key`, r checked against the candidate directions.
ReductionSpec parse_reduction(const SpecReader& r, const json& red, const std::string& key);

// The "check" block at `key`: false, true or {"frequencies", "static_tolerance",
// "frequency_tolerance"}.
CheckSpec parse_check(const SpecReader& r, const json& check, const std::string& key);

// A rotation: a 3 by 3 array (rows) that is one to 1e-6, or {"axis": [x, y, z], "degrees": a}.
Eigen::Matrix3d parse_rotation(const SpecReader& r, const json& j, const std::string& key);

// A "domains" block at `key` (docs/SPEC.md, "Substructuring").
DomainsSpec parse_domains(const SpecReader& r, const json& d, const std::string& key,
                          const std::string& spec_path, DomainsUse use);

// "units": the selectors' positions and tolerances, given in the mesh's units, in metres; and
// TetGen's volume bound, given in m^3, in the mesh's units (TetGen meshes the unscaled surface).
void convert_mesh_units(double unit, std::vector<VertexSelector>& selectors,
                        TetrahedralizeOptions& tetrahedralize);

// "parts" and "instances" (docs/SPEC.md, "Assemblies"): every name known, parents before
// children, one root, rotations and scales valid.
AssemblySpec parse_assembly(const SpecReader& r, const json& root, const std::string& spec_path,
                            std::vector<std::string>& warnings);

// The "simulation" block: every setting of the list whose key is in it, the wind in its own
// object (settings_table.h: types, bounds and messages).
void parse_simulation(const SpecReader& r, const json& s, SimulationSpec& sim);

// "model" and "cloth": a mass-spring cloth's keys (the cloth settings of the list), and the keys
// of the tet FEM such a spec may not hold.
void parse_body_model(const SpecReader& r, const json& root, ModelSpec& spec);

// "colliders" and "contact" (docs/SPEC.md, "Colliders"): lengths in the spec's units, times
// `unit` (metres per unit).
ContactSpec parse_contact(const SpecReader& r, const json& root, double unit);

}  // namespace ramus::spec
