// Writing a file all or nothing (atomic_file.h).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ramus/error.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "support/temp_dir.h"

using namespace ramus;
namespace fs = std::filesystem;
using test::read_text;
using test::TempDir;

namespace {}  // namespace

TEST_CASE("An atomic write replaces its target whole or leaves it as it was",
          "[precompute][formats]") {
  const TempDir dir("atomic");
  const std::string path = dir.file("out.txt");
  write_stream_atomically(path, [](std::ostream& out) { out << "first\n"; });
  CHECK(read_text(path) == "first\n");
  // A writer that fails half-way: the target keeps its old content, no temporary is left.
  CHECK_THROWS_WITH(write_stream_atomically(path,
                                            [](std::ostream& out) {
                                              out << "half";
                                              throw Error("the writer failed");
                                            }),
                    Catch::Matchers::Contains("the writer failed"));
  CHECK(read_text(path) == "first\n");
  CHECK(dir.entries().size() == 1);
  // A target that cannot be replaced (a folder): named, nothing left behind.
  const std::string folder = dir.file("folder");
  fs::create_directory(folder);
  CHECK_THROWS_WITH(write_stream_atomically(folder, [](std::ostream& out) { out << "x"; }),
                    Catch::Matchers::Contains("cannot rename"));
  CHECK(dir.entries().size() == 2);
  write_file_atomically(path, [&](const std::string& temporary) {
    CHECK(temporary == atomic_temporary_path(path));
    std::ofstream(temporary) << "second\n";
  });
  CHECK(read_text(path) == "second\n");
}
