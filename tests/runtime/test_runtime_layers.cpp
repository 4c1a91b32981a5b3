// The runtime's floors, read from its own #include lines: plain model data and the settings list
// (data/) <- the kernels (polynomial, system force, polar decomposition, wind: kernels/) <- the
// compiled Model, the per-object State and their contact with colliders (model/, contact/) <- the
// integrators <- the step (dynamics/; the
// lanes are an execution strategy inside it) <- analysis and io <- the API (simulator, C API). An
// include from a floor to one above it fails this test, and so does a folder the list below does
// not know (a new floor is a deliberate line here).
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

// The floor of a runtime file, by its folder (src/<folder>/ or include/ramus/runtime/<folder>/,
// io/hdf5/ as io), or -1 for a folder not on the list.
int floor_of(const fs::path& file) {
  static const std::map<std::string, int> floors = {
      {"data", 0},     {"kernels", 1},  {"model", 2}, {"contact", 2}, {"integrators", 3},
      {"dynamics", 4}, {"analysis", 5}, {"io", 5},    {"c_api", 6}};
  const std::string name = file.filename().string();
  if (name == "simulator.h" || name == "simulator.cpp" || name == "ramus.h") return 6;
  if (name == "error.h" || name == "error.cpp" || name == "version.h" || name == "version.cpp")
    return 0;
  std::string folder = file.parent_path().filename().string();
  if (folder == "hdf5") folder = file.parent_path().parent_path().filename().string();
  const auto it = floors.find(folder);
  return it == floors.end() ? -1 : it->second;
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

TEST_CASE("Every runtime file lies on a known floor and includes none above its own",
          "[runtime][layers]") {
  const std::regex include_line(R"re(^\s*#\s*include\s+"([^"]+)")re");
  std::set<std::string> upward, unplaced;
  int files = 0, includes = 0;
  REQUIRE(fs::is_directory(kRuntime));
  for (const auto& entry : fs::recursive_directory_iterator(kRuntime)) {
    const fs::path file = entry.path();
    if (file.extension() != ".h" && file.extension() != ".cpp") continue;
    ++files;
    if (floor_of(file) < 0) unplaced.insert(short_name(file));
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      std::smatch match;
      if (!std::regex_search(line, match, include_line)) continue;
      const fs::path target = resolve(file, match[1]);
      if (!fs::exists(target)) continue;  // (the C API's own header from its test, say)
      ++includes;
      if (floor_of(target) > floor_of(file))
        upward.insert(short_name(file) + " -> " + short_name(target));
    }
  }
  CHECK(files > 50);
  CHECK(includes > 150);
  for (const std::string& file : unplaced) {
    CAPTURE(file);
    CHECK(false);  // a new folder: give it a floor above
  }
  for (const std::string& include : upward) {
    CAPTURE(include);
    CHECK(false);
  }
}
