// Outputs made of several files (a generated tree's meshes and spec, a series of frames): each
// written into a staging folder beside its target and moved into place only when all are
// written; a failure leaves nothing behind. And the check that keeps option-given names inside
// their output folder.
#pragma once

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <system_error>

#include "ramus/error.h"

namespace ramus::cli {

/// A staging folder ".ramus-staging-<pid>" inside `folder` (created with its parents when
/// missing). commit() moves every file staged into `folder`; without it, the destructor removes
/// the staging folder and `folder` too when this made it and it is empty.
class FolderStaging {
 public:
  explicit FolderStaging(const std::filesystem::path& folder) : folder_(folder) {
    std::error_code ec;
    made_folder_ = !std::filesystem::exists(folder_, ec);
    std::filesystem::create_directories(folder_, ec);
    if (ec || !std::filesystem::is_directory(folder_))
      throw OptionError("cannot create the output folder '" + folder_.string() + "'");
    staging_ = folder_ / (".ramus-staging-" + std::to_string(::getpid()));
    std::filesystem::remove_all(staging_, ec);
    if (!std::filesystem::create_directory(staging_, ec) || ec)
      throw OptionError("cannot write into the output folder '" + folder_.string() + "'");
  }
  ~FolderStaging() {
    if (committed_) return;
    std::error_code ec;
    std::filesystem::remove_all(staging_, ec);
    if (made_folder_) std::filesystem::remove(folder_, ec);  // (only when empty)
  }
  FolderStaging(const FolderStaging&) = delete;
  FolderStaging& operator=(const FolderStaging&) = delete;

  /// Where to write the file `name` (a plain name or a relative path inside the folder).
  std::string path(const std::string& name) const { return (staging_ / name).string(); }
  const std::filesystem::path& staging_folder() const { return staging_; }

  /// Moves every staged entry into the folder (replacing files of the same name).
  void commit() {
    for (const auto& entry : std::filesystem::directory_iterator(staging_)) {
      const std::filesystem::path target = folder_ / entry.path().filename();
      std::error_code ec;
      if (std::filesystem::is_directory(target, ec) && entry.is_directory())
        std::filesystem::remove_all(target, ec);
      std::filesystem::rename(entry.path(), target, ec);
      if (ec)
        throw Error("cannot move '" + entry.path().string() + "' to '" + target.string() +
                    "': " + ec.message());
    }
    std::filesystem::remove(staging_);
    committed_ = true;
  }

 private:
  std::filesystem::path folder_, staging_;
  bool made_folder_ = false, committed_ = false;
};

/// CLI11 validator: a plain file name (not empty, no folder part, not "." or ".."), so that a
/// name given in an option cannot escape the output folder.
inline CLI::Validator plain_file_name() {
  return CLI::Validator(
      [](const std::string& name) -> std::string {
        if (name.empty()) return "the name is empty";
        if (name.find('/') != std::string::npos || name == "." || name == "..")
          return "'" + name +
                 "' is not a plain file name (no folders: it must stay in the output "
                 "folder)";
        return "";
      },
      "FILE NAME");
}

}  // namespace ramus::cli
