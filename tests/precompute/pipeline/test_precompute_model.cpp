// The precompute pipeline as a library call: spec -> reduced model, its report, its overrides,
// its provenance and its progress.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "ramus/error.h"
#include "ramus/precompute/formats/gmsh_io.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/pipeline/precompute_model.h"
#include "ramus/precompute/pipeline/precompute_progress.h"

using namespace ramus;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// A listener that keeps what it is told.
struct Recorded {
  std::vector<std::string> report, warnings, notes;
  PrecomputeListener listener() {
    PrecomputeListener l;
    l.on_report = [this](const std::string& s) { report.push_back(s); };
    l.on_warning = [this](const std::string& s) { warnings.push_back(s); };
    l.on_note = [this](const std::string& s) { notes.push_back(s); };
    l.progress_interval_s = 0;
    return l;
  }
  bool reported(const std::string& start) const {
    for (const std::string& line : report)
      if (line.rfind(start, 0) == 0) return true;
    return false;
  }
};

const std::string kSpecs = RAMUS_TEST_DATA_DIR "/specs/";

}  // namespace

TEST_CASE("precompute_model reduces a two-domain spec and reports each stage",
          "[precompute][pipeline]") {
  ::setenv("SOURCE_DATE_EPOCH", "0", 1);
  const ModelSpec spec = load_model_spec(kSpecs + "small_beam_two_domains.json");
  Recorded recorded;
  const ReducedModel model = precompute_model(spec, {}, recorded.listener());
  ::unsetenv("SOURCE_DATE_EPOCH");
  REQUIRE(model.domains.size() == 2);
  CHECK(model.settings.domains.size() == 2);
  CHECK(model.settings.time_step == spec.simulation.settings.time_step);
  CHECK(model.settings.lumping == spec.simulation.settings.lumping);
  CHECK(model.provenance.spec_path == spec.spec_path);
  CHECK(model.provenance.created_utc == "1970-01-01T00:00:00Z");
  CHECK_THAT(model.provenance.options_json, Contains("\"r\""));
  CHECK(model.embedded_surface.rest_positions.rows() == 8);
  for (const char* line : {"mesh ", "domains ", "  reduction total", "surface ", "interfaces "})
    CHECK(recorded.reported(line));
}

TEST_CASE("precompute checks a tree against the full FEM and chooses its lumping",
          "[precompute][pipeline]") {
  // The Gmsh tree by its 9 labels, no lumping in its spec: L1 sags 24 % short of the full FEM
  // and rings 6.6 % fast; L3 (the rigid subtree) 8.3 % and 0.6 % (docs/VALIDATION.md).
  ModelSpec spec = load_model_spec(RAMUS_TEST_DATA_DIR "/../../data/outside/cad_tree_labels.json");
  REQUIRE_FALSE(spec.simulation.lumping_given);
  Recorded recorded;
  const ReducedModel model = precompute_model(spec, {}, recorded.listener());
  CHECK(recorded.reported("check        lumping"));
  CHECK(model.settings.lumping == InterfaceLumping::kRigidSubtree);
  const ModelAccuracy& a = model.accuracy;
  REQUIRE(a.measured);
  INFO("static " << a.static_error << ", f1 " << a.full_frequencies(0) << " / "
                 << a.reduced_frequencies(0));
  CHECK(a.static_error < 0.1);
  CHECK(a.static_full_max == Approx(0.0535).epsilon(0.01));
  REQUIRE(a.full_frequencies.size() == 3);
  CHECK(std::abs(a.reduced_frequencies(0) / a.full_frequencies(0) - 1) < 0.02);
  // Its third frequency stays 38 % off whatever the lumping: a warning says so.
  bool warned = false;
  for (const std::string& w : recorded.warnings)
    warned = warned || w.find("f3 is") != std::string::npos;
  CHECK(warned);
  // Told not to check, it leaves the spec's lumping and measures nothing.
  spec.check.enabled = false;
  const ReducedModel unchecked = precompute_model(spec, {}, Recorded().listener());
  CHECK(unchecked.settings.lumping == InterfaceLumping::kInterface);
  CHECK_FALSE(unchecked.accuracy.measured);
}

TEST_CASE(
    "precompute_model applies the overrides to a one-mesh spec and refuses them for an "
    "assembly",
    "[precompute][pipeline]") {
  const ModelSpec spec = load_model_spec(kSpecs + "small_beam.json");
  Recorded recorded;
  ReductionOverrides overrides;
  overrides.r = 5;
  overrides.no_modal_derivatives = true;
  const ReducedModel model = precompute_model(spec, overrides, recorded.listener());
  REQUIRE(model.domains.size() == 1);
  CHECK(part_of(model, 0).polynomial.r == 5);
  CHECK(recorded.reported("reduction    10 linear modes -> r = 5"));
  // The force given by position says where it acts.
  CHECK(recorded.reported("force        forces[0].at (0.4, 0.1, 0.1) acts at vertex"));

  const ModelSpec assembly = parse_model_spec(R"({
    "parts": {"leaf": {"mesh": "leaf.node", "material": {"youngs_modulus": 1e6,
              "poisson_ratio": 0.3, "density": 500}, "base": [{"flag": 1}]}},
    "instances": [{"name": "a", "part": "leaf"}]
  })",
                                              "/nowhere/assembly.json");
  REQUIRE(assembly.assembly);
  CHECK_THROWS_WITH(precompute_model(assembly, overrides, recorded.listener()),
                    Contains("parts.<name>.reduction in /nowhere/assembly.json"));
}

TEST_CASE("precompute_model's errors name the spec and its key", "[precompute][pipeline]") {
  const ModelSpec spec = load_model_spec(kSpecs + "too_many_modes.json");
  Recorded recorded;
  CHECK_THROWS_WITH(precompute_model(spec, {}, recorded.listener()),
                    StartsWith(spec.spec_path) && Contains("reduction"));
}

TEST_CASE("Progress reports come at the listener's interval, with a share done in [0, 1]",
          "[precompute][pipeline]") {
  std::vector<PrecomputeProgressReport> reports;
  std::mutex mutex;
  PrecomputeListener listener;
  listener.progress_interval_s = 0.01;
  listener.on_progress = [&](const PrecomputeProgressReport& p) {
    const std::lock_guard<std::mutex> lock(mutex);
    reports.push_back(p);
  };
  {
    PrecomputeProgress progress({{"a", 10}, {"b", 30}}, listener);
    progress.stage_done("a: mesh");
    progress.stage_done("a: linear modes");
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
    CHECK(progress.fraction_done() > 0);
    CHECK(progress.fraction_done() < 1);
  }
  const std::lock_guard<std::mutex> lock(mutex);
  REQUIRE(!reports.empty());
  for (const PrecomputeProgressReport& p : reports) {
    CHECK(p.fraction_done >= 0);
    CHECK(p.fraction_done <= 1);
  }
  CHECK(reports.back().running == "a: modal derivatives");
  CHECK_THAT(progress_line(reports.back()), StartsWith("progress     "));
  CHECK(progress_line({0.5, 10, -1, ""}) == "progress     10 s spent, no estimate yet");
  CHECK(progress_line({0.5, 70, 70, "b: basis"}) ==
        "progress      50 %, 1 min 10 s spent, about 1 min 10 s left, now b: basis");
}

TEST_CASE("precompute moves an automatic tree's cuts until its check is within the tolerances",
          "[precompute][pipeline]") {
  // A trunk with a thick arm, the automatic partition cutting the arm where it leaves the trunk.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ramus_cut_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const auto distance = [](const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                           const Eigen::Vector3d& b) {
    const double s = std::clamp((p - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
    return (p - (a + s * (b - a))).norm();
  };
  const TetMesh mesh = make_voxel_tet_mesh(
      [&](const Eigen::Vector3d& p) {
        return distance(p, {0, 0, 0}, {0, 0, 1}) <= 0.12 ||
               distance(p, {0, 0, 0.5}, {0.6, 0, 0.8}) <= 0.07;
      },
      {-0.15, -0.15, 0}, {0.7, 0.15, 1.15}, 0.04);
  write_gmsh(mesh, (dir / "arm.msh").string());
  const std::string text = R"({"mesh": "arm.msh",
    "material": {"youngs_modulus": 5e6, "poisson_ratio": 0.4, "density": 1000},
    "fixed": [{"box": {"min": [-1, -1, -1], "max": [1, 1, 0.02]}}],
    "simulation": {"time_step": 0.01, "gravity": [0, 0, -9.81]},
    "domains": {"partition": "automatic", "total_r": 60}})";
  std::ofstream((dir / "arm.json").string()) << text;
  ModelSpec spec = load_model_spec((dir / "arm.json").string());
  // Told not to improve: the cut where the arm leaves the trunk, 11.6 % static and f3 32 % off.
  spec.check.improve_rounds = 0;
  Recorded unimproved_report;
  const ReducedModel unimproved = precompute_model(spec, {}, unimproved_report.listener());
  CHECK_FALSE(unimproved_report.reported("improve"));
  const auto worst_frequency = [](const ModelAccuracy& a) {
    return (a.reduced_frequencies.array() / a.full_frequencies.array() - 1).abs().maxCoeff();
  };
  REQUIRE(unimproved.accuracy.measured);
  CHECK(worst_frequency(unimproved.accuracy) > spec.check.frequency_tolerance);
  // By default: the arm's nearer half handed to the trunk, then within both tolerances.
  spec.check.improve_rounds = CheckSpec{}.improve_rounds;
  Recorded recorded;
  const ReducedModel model = precompute_model(spec, {}, recorded.listener());
  CHECK(recorded.reported("improve      the tree is past the check's tolerances"));
  CHECK(recorded.reported("improve      round 1: 'limb_1'"));
  REQUIRE(model.domains.size() == 2);
  const auto arm_tets = [](const ReducedModel& m) { return part_of(m, 1).tets.rows(); };
  CHECK(arm_tets(model) == arm_tets(unimproved) - arm_tets(unimproved) / 2);
  REQUIRE(model.accuracy.measured);
  INFO("static " << model.accuracy.static_error << ", worst frequency "
                 << worst_frequency(model.accuracy));
  CHECK(model.accuracy.static_error < unimproved.accuracy.static_error);
  CHECK(model.accuracy.static_error <= spec.check.static_tolerance);
  CHECK(worst_frequency(model.accuracy) <= spec.check.frequency_tolerance);
  // The full side is the same mesh's either way.
  CHECK(model.accuracy.static_full_max == Approx(unimproved.accuracy.static_full_max));
  // A thicker arm whose nearer half would leave it in pieces merges into the trunk instead; r̂ =
  // 60 cannot be spread over one domain of at most max_r = 40, so it gets 40.
  write_gmsh(make_voxel_tet_mesh(
                 [&](const Eigen::Vector3d& p) {
                   return distance(p, {0, 0, 0}, {0, 0, 1}) <= 0.12 ||
                          distance(p, {0, 0, 0.55}, {0.45, 0, 0.85}) <= 0.08;
                 },
                 {-0.15, -0.15, 0}, {0.55, 0.15, 1.15}, 0.04),
             (dir / "arm.msh").string());
  spec.domains->max_r = 40;
  Recorded merged_report;
  const ReducedModel merged = precompute_model(spec, {}, merged_report.listener());
  CHECK(merged_report.reported("improve      round 1: 'limb_1'"));
  bool said_merged = false;
  for (const std::string& line : merged_report.report)
    said_merged = said_merged || line.find("merged into 'base'") != std::string::npos;
  CHECK(said_merged);
  REQUIRE(merged.domains.size() == 1);
  CHECK(part_of(merged, 0).basis.cols() == 40);
  CHECK(merged.accuracy.static_error <= spec.check.static_tolerance);
  fs::remove_all(dir);
}

TEST_CASE("precompute gives one domain with the default modes more until its check passes",
          "[precompute][pipeline]") {
  // A 1 m cantilever under gravity: the default 10 modes and r = 20 sag 1.1 % off the full FEM;
  // a spec asking for 0.8 % gets 15 modes and r = 30 (0.6 %).
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ramus_modes_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_gmsh(make_cantilever_beam(20, 4, 4, 1.0, 0.1), (dir / "beam.msh").string());
  std::ofstream((dir / "beam.json").string()) << R"({"mesh": "beam.msh",
    "material": {"youngs_modulus": 1e6, "poisson_ratio": 0.4, "density": 1000},
    "fixed": [{"plane": {"point": [0, 0, 0], "normal": [1, 0, 0]}}],
    "simulation": {"time_step": 0.01, "gravity": [0, 0, -9.81]},
    "check": {"static_tolerance": 0.008}})";
  ModelSpec spec = load_model_spec((dir / "beam.json").string());
  REQUIRE_FALSE(spec.reduction_given);
  Recorded recorded;
  const ReducedModel model = precompute_model(spec, {}, recorded.listener());
  CHECK(recorded.reported("improve      the model is past the check's tolerances"));
  CHECK(recorded.reported("improve      round 1: 15 linear modes -> r = 30"));
  CHECK(recorded.reported("reduction    15 linear modes + modal derivatives -> r = 30"));
  REQUIRE(model.domains.size() == 1);
  CHECK(part_of(model, 0).basis.cols() == 30);
  CHECK(model.accuracy.static_error <= 0.008);
  // The spec's own modes are kept, past the tolerance or not.
  spec.reduction_given = true;
  Recorded kept_report;
  const ReducedModel kept = precompute_model(spec, {}, kept_report.listener());
  CHECK_FALSE(kept_report.reported("improve"));
  CHECK(part_of(kept, 0).basis.cols() == 20);
  CHECK(kept.accuracy.static_error > 0.008);
  fs::remove_all(dir);
}
