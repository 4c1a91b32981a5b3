// Writing a command's text output (CSV) so that a failure never leaves a half-written file at the
// target: into `<path>.tmp`, renamed onto `path` only once complete.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>

#include "ramus/error.h"

namespace ramus::cli {

/// Calls write(stream) on `<path>.tmp`, then renames it onto `path`; throws Error naming `path`
/// (and removes the temporary) when it cannot be written.
template <typename Write>
void write_atomically(const std::string& path, Write&& write) {
  const std::string temporary = path + ".tmp";
  bool ok = false;
  {
    std::ofstream out(temporary);
    if (out) {
      write(out);
      ok = static_cast<bool>(out);
    }
  }
  if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw Error(path + ": cannot write");
  }
}

}  // namespace ramus::cli
