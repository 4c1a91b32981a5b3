#include "ramus/precompute/formats/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ramus/error.h"

namespace ramus {

namespace {

// Forces the written bytes to the disk before the rename makes them the file.
void sync_to_disk(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw Error("cannot reopen '" + path + "' to flush it");
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) throw Error("cannot flush '" + path + "' to disk");
}

}  // namespace

std::string atomic_temporary_path(const std::string& path) {
  return path + ".tmp-" + std::to_string(::getpid());
}

void write_file_atomically(const std::string& path,
                           const std::function<void(const std::string& temporary)>& write) {
  const std::string tmp = atomic_temporary_path(path);
  try {
    write(tmp);
    sync_to_disk(tmp);
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw Error("cannot rename '" + tmp + "' to '" + path + "': " + ec.message());
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
}

void write_stream_atomically(const std::string& path,
                             const std::function<void(std::ostream& out)>& write) {
  write_file_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot open '" + tmp + "' for writing");
    write(out);
    out.close();
    if (!out) throw Error("failed to write '" + tmp + "' (disk full?)");
  });
}

}  // namespace ramus
