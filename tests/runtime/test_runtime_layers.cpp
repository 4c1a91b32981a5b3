// The runtime's floors, read from its own #include lines: plain model data (model/) <- the
// integrators <- the step and its kernels (dynamics/) <- analysis and io <- the API (simulator, C
// API). An include from a floor to one above it fails this test, unless it is one of the known
// ones listed below, each a step of issue 31 still to take; a listed one that is gone fails too,
// so that the list only shrinks.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

namespace fs = std::filesystem;

namespace {

const fs::path kRuntime = fs::path(RAMUS_TEST_DATA_DIR) / ".." / ".." / "runtime";

// The floor of a runtime file, by its folder (src/<folder>/ or include/ramus/runtime/<folder>/).
int floor_of(const fs::path& file) {
  static const std::map<std::string, int> floors = {
      {"model", 0}, {"integrators", 1}, {"dynamics", 2}, {"analysis", 3}, {"io", 3}, {"c_api", 4}};
  const std::string name = file.filename().string();
  if (name == "simulator.h" || name == "simulator.cpp" || name == "ramus.h") return 4;
  if (name == "error.h" || name == "error.cpp" || name == "version.h") return 0;
  const auto it = floors.find(file.parent_path().filename().string());
  if (it == floors.end()) {
    const auto up = floors.find(file.parent_path().parent_path().filename().string());
    return up == floors.end() ? 0 : up->second;  // (io/hdf5/: io's)
  }
  return it->second;
}

// The file an include names: public headers by their path under include/, others relative to the
// including file or to src/.
fs::path resolve(const fs::path& from, const std::string& included) {
  if (included.rfind("ramus/", 0) == 0) return kRuntime / "include" / included;
  const fs::path relative = from.parent_path() / included;
  if (fs::exists(relative)) return relative;
  return kRuntime / "src" / included;
}

// A runtime path as the list below writes it ("src/model/model.cpp").
std::string short_name(const fs::path& file) {
  return fs::relative(fs::weakly_canonical(file), fs::weakly_canonical(kRuntime)).string();
}

}  // namespace

TEST_CASE("No runtime file includes a floor above its own but the known ones",
          "[runtime][layers]") {
  // Known upward includes: the kernels that model data and the integrators use still live in
  // dynamics/ beside the step, and the integrators' equation reads the step's workspace.
  const std::set<std::string> known = {
      "src/integrators/node_equation.h -> src/dynamics/workspace_data.h",
      "src/integrators/node_equation.h -> include/ramus/runtime/dynamics/reduced_stvk_polynomial.h",
      "src/integrators/node_equation.h -> include/ramus/runtime/dynamics/state.h",
      "include/ramus/runtime/model/reduced_model.h -> "
      "include/ramus/runtime/dynamics/reduced_stvk_polynomial.h",
      "include/ramus/runtime/model/model.h -> "
      "include/ramus/runtime/dynamics/reduced_stvk_polynomial.h",
      "include/ramus/runtime/model/model.h -> include/ramus/runtime/dynamics/system_force.h",
  };
  const std::regex include_line(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::set<std::string> upward;
  int files = 0;
  REQUIRE(fs::is_directory(kRuntime));
  for (const auto& entry : fs::recursive_directory_iterator(kRuntime)) {
    const fs::path file = entry.path();
    if (file.extension() != ".h" && file.extension() != ".cpp") continue;
    ++files;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      std::smatch match;
      if (!std::regex_search(line, match, include_line)) continue;
      const fs::path target = resolve(file, match[1]);
      if (!fs::exists(target)) continue;  // (the C API's own header from its test, say)
      if (floor_of(target) > floor_of(file))
        upward.insert(short_name(file) + " -> " + short_name(target));
    }
  }
  CHECK(files > 50);
  for (const std::string& include : upward) {
    CAPTURE(include);
    CHECK(known.count(include) == 1);
  }
  for (const std::string& include : known) {
    CAPTURE(include);
    CHECK(upward.count(include) == 1);  // gone: take it off the list
  }
}
