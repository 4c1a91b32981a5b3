#include "ramus/precompute/model/model_file_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "io/hdf5/hdf5_file.h"  // runtime internals: the HDF5 wrapper
#include "io/model_fields.h"    // runtime internals: the one list of the file's fields
#include "ramus/error.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/version.h"

namespace ramus {

namespace {

// Writes the fields model_fields.h lists. A dataset with no elements is written in its expected
// shape (a rigid domain's W1 is (3, 0)).
class FieldWriter {
 public:
  explicit FieldWriter(hdf5::Group group) { groups_.push_back(std::move(group)); }

  void attribute(const char* name, const std::string& value) {
    g().write_string_attribute(name, value);
  }
  void text(const char* name, const std::string& value) { g().write_text(name, value); }
  void attribute(const char* name, const int& value) { g().write_int_attribute(name, value); }
  void attribute(const char* name, const double& value) { g().write_double_attribute(name, value); }
  void attribute(const char* name, const std::uint64_t& value) {
    g().write_uint64_attribute(name, value);
  }
  void require_nonnegative(const char* name, const int& value) { attribute(name, value); }
  void flag(const char* name, const bool& value) { g().write_int_attribute(name, value ? 1 : 0); }
  void lumping(const char* name, const InterfaceLumping& value) {
    g().write_string_attribute(name, to_string(value));
  }

  template <typename M>
  void dataset(const char* name, const M& value, model_fields::Shape expected) {
    using Scalar = typename M::Scalar;
    using Plain = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic>;
    using PlainVector = Eigen::Matrix<Scalar, Eigen::Dynamic, 1>;
    if constexpr (M::ColsAtCompileTime == 1) {
      g().write_vector(name, PlainVector(value));
    } else if (value.size() == 0 && expected.rows >= 0 && expected.cols >= 0) {
      g().write_matrix(name, Plain(expected.rows, expected.cols));
    } else {
      g().write_matrix(name, Plain(value));
    }
  }
  void packed_symmetric(const char* name, const Eigen::MatrixXd& value, Eigen::Index) {
    g().write_vector(name, pack_upper_triangle(value));
  }
  template <typename T>
  void column(const char* name, const std::vector<DomainSettings>& domains,
              T DomainSettings::*member, int n) {
    // No settings given: the defaults for every domain.
    const auto at = [&](int i) {
      return domains.empty() ? DomainSettings{}.*member
                             : domains[static_cast<std::size_t>(i)].*member;
    };
    if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
      Eigen::VectorXi values(n);
      for (int i = 0; i < n; ++i) values(i) = static_cast<int>(at(i));
      g().write_vector(name, values);
    } else {
      Eigen::VectorXd values(n);
      for (int i = 0; i < n; ++i) values(i) = at(i);
      g().write_vector(name, values);
    }
  }
  template <typename Body>
  void group(const char* name, model_fields::Presence presence, Body&& body) {
    if (!presence.present) return;
    groups_.push_back(g().create_group(name));
    body();
    groups_.pop_back();
  }
  template <typename Body>
  void optional(const char*, model_fields::Presence presence, Body&& body) {
    if (presence.present) body();
  }

 private:
  const hdf5::Group& g() const { return groups_.back(); }
  std::vector<hdf5::Group> groups_;
};

void write_contents(const hdf5::File& file, const ReducedModel& model) {
  const hdf5::Group root = file.root();
  root.write_string_attribute("format", kModelFormatName);
  root.write_int_attribute("format_version", kModelFormatVersion);
  root.write_string_attribute("ramus_version", version_string());

  FieldWriter provenance(root.create_group("provenance"));
  model_fields::visit_provenance(model.provenance, provenance);

  const int num_domains = static_cast<int>(model.domains.size());
  const hdf5::Group parts = root.create_group("parts");
  parts.write_int_attribute("num_parts", static_cast<int>(model.parts.size()));
  for (std::size_t k = 0; k < model.parts.size(); ++k) {
    FieldWriter writer(parts.create_group("part_" + std::to_string(k)));
    model_fields::visit_part(model.parts[k], num_domains, writer);
  }
  const hdf5::Group domains = root.create_group("domains");
  domains.write_int_attribute("num_domains", num_domains);
  domains.write_int_attribute("num_global_vertices", model.num_global_vertices);
  const auto part_vertices = [&](int p) -> Eigen::Index {
    return model.parts[static_cast<std::size_t>(p)].rest_positions.rows();
  };
  const auto domain_r = [&](int i) -> Eigen::Index { return part_of(model, i).polynomial.r; };
  for (int k = 0; k < num_domains; ++k) {
    FieldWriter writer(domains.create_group("domain_" + std::to_string(k)));
    model_fields::visit_domain(model.domains[static_cast<std::size_t>(k)], k, part_vertices,
                               domain_r, writer);
  }
  root.write_matrix("global_surface_triangles", model.global_surface_triangles);
  if (model.embedded_surface.rest_positions.rows() > 0) {
    FieldWriter surface(root.create_group("embedded_surface"));
    model_fields::visit_embedded_surface(model.embedded_surface, surface);
  }
  FieldWriter runtime(root.create_group("runtime"));
  model_fields::visit_runtime_settings(model.settings, model.scenario, num_domains, runtime);
  if (model.accuracy.measured) {
    FieldWriter accuracy(root.create_group("accuracy"));
    model_fields::visit_accuracy(model.accuracy, accuracy);
  }
}

// The temporary being written, for remove_model_file_in_progress (a signal handler): the path is
// stored before the flag is raised and the flag lowered before the path changes.
char g_temporary_in_progress[4096];
std::atomic<bool> g_temporary_active{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// Marks `tmp` as the write in progress for the lifetime of the object.
class TemporaryInProgress {
 public:
  explicit TemporaryInProgress(const std::string& tmp) {
    if (tmp.size() >= sizeof(g_temporary_in_progress)) return;  // too long to record: not removed
    std::memcpy(g_temporary_in_progress, tmp.c_str(), tmp.size() + 1);
    g_temporary_active.store(true);
  }
  ~TemporaryInProgress() { g_temporary_active.store(false); }
  TemporaryInProgress(const TemporaryInProgress&) = delete;
  TemporaryInProgress& operator=(const TemporaryInProgress&) = delete;
};

// Removes "<name>.tmp-<pid>" files next to `path` whose writing process no longer exists (a
// writer killed by SIGKILL cannot remove its own).
void remove_stale_temporaries(const std::filesystem::path& path) {
  const std::filesystem::path folder =
      path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
  const std::string prefix = path.filename().string() + ".tmp-";
  std::error_code ec;
  std::filesystem::directory_iterator entries(folder, ec);
  if (ec) return;
  for (const auto& entry : entries) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(digits));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive or unknown
    std::error_code ignored;
    std::filesystem::remove(entry.path(), ignored);
  }
}

}  // namespace

void write_model_file(const ReducedModel& model, const std::string& path,
                      const ModelSecretKey* signer) {
  const std::string problem = find_model_inconsistency(model);
  if (!problem.empty()) throw Error("cannot write model file '" + path + "': " + problem);

  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) {
    throw Error("cannot write model file '" + path + "': folder '" + folder.string() +
                "' does not exist");
  }

  remove_stale_temporaries(path);
  const TemporaryInProgress in_progress(atomic_temporary_path(path));
  try {
    write_file_atomically(path, [&](const std::string& tmp) {
      {
        hdf5::File file = hdf5::File::create(tmp);
        write_contents(file, model);  // every Group is closed on return
        file.close();
      }
      hdf5::seal_file(tmp, signer != nullptr ? signer->data() : nullptr);
    });
  } catch (const Error& e) {
    throw Error("cannot write model file '" + path + "': " + e.what());
  }
}

void remove_model_file_in_progress() noexcept {
  if (g_temporary_active.load()) ::unlink(g_temporary_in_progress);
}

}  // namespace ramus
