#include <cstdio>

#include "commands.h"

namespace ramus::cli {

ModelSpec load_spec(const std::string& path) {
  ModelSpec spec = load_model_spec(path);
  for (const std::string& warning : spec.warnings)
    std::fprintf(stderr, "ramus: warning: %s: %s\n", path.c_str(), warning.c_str());
  return spec;
}

}  // namespace ramus::cli
