// Writing a file all or nothing: into "<path>.tmp-<pid>", flushed to disk, then renamed onto
// `path`, so that a failure (an error, a full disk, a kill) never leaves a half-written file at
// the target. Every writer of Ramus (model files, meshes, series, the CLI's CSV) goes through it.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace ramus {

/// The temporary `path` is written into: "<path>.tmp-<this process's id>".
std::string atomic_temporary_path(const std::string& path);

/// Calls write(temporary), then flushes the temporary to disk and renames it onto `path`; on any
/// failure removes the temporary and rethrows (a failed rename: Error "cannot rename ...").
void write_file_atomically(const std::string& path,
                           const std::function<void(const std::string& temporary)>& write);

/// The same through a binary output stream: Error "cannot open ..." or "failed to write ...
/// (disk full?)" when the stream fails.
void write_stream_atomically(const std::string& path,
                             const std::function<void(std::ostream& out)>& write);

}  // namespace ramus
