#include "ramus/runtime/io/model_file.h"

#include <Eigen/LU>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "hdf5/hdf5_file.h"
#include "model_fields.h"
#include "ramus/error.h"

namespace ramus {

namespace {

// Files are derived data (re-run precompute on the spec recorded in /provenance), so there is
// no migration: the message says which Ramus wrote the file and what to do.
[[noreturn]] void unsupported_version(const std::string& path, int version,
                                      const hdf5::Group& root) {
  const std::string reads =
      "this Ramus reads schema version " + std::to_string(kModelFormatVersion);
  const std::string found = "model schema version " + std::to_string(version);
  std::string message;
  if (version >= 1 && version < kModelFormatVersion) {
    message = found + " was written by an older Ramus; re-run `ramus precompute` (" + reads + ")";
  } else if (version > kModelFormatVersion) {
    std::string writer = "a newer Ramus";
    if (root.has_attribute("ramus_version")) {
      writer += " (" + root.read_string_attribute("ramus_version") + ")";
    }
    message = found + " was written by " + writer +
              "; upgrade Ramus, or re-run `ramus precompute` with this one (" + reads + ")";
  } else {
    message = found + " does not exist; re-run `ramus precompute` (" + reads + ")";
  }
  throw InputError(path, 0, message);
}

// Reads the fields model_fields.h lists, checking each shape as it goes (a dataset's expected
// shape follows the fields read before it).
class FieldReader {
 public:
  explicit FieldReader(hdf5::Group group) { groups_.push_back(std::move(group)); }

  void attribute(const char* name, std::string& value) { value = g().read_string_attribute(name); }
  void text(const char* name, std::string& value) { value = g().read_text(name); }
  void attribute(const char* name, int& value) { value = g().read_int_attribute(name); }
  void attribute(const char* name, double& value) { value = g().read_double_attribute(name); }
  void attribute(const char* name, std::uint64_t& value) {
    value = g().read_uint64_attribute(name);
  }
  void require_nonnegative(const char* name, int& value) {
    value = g().read_int_attribute(name);
    if (value < 0)
      throw InputError(g().file(), 0,
                       "attribute '" + std::string(name) + "' of " + g().path() + " must be >= 0");
  }
  void flag(const char* name, bool& value) {
    const int stored = g().read_int_attribute(name);
    if (stored != 0 && stored != 1)
      throw InputError(g().file(), 0,
                       "attribute '" + std::string(name) + "' of " + g().path() + " is " +
                           std::to_string(stored) + " (must be 0 or 1)");
    value = stored == 1;
  }
  void lumping(const char* name, InterfaceLumping& value) {
    const std::string text = g().read_string_attribute(name);
    const std::optional<InterfaceLumping> parsed = lumping_from_string(text);
    if (!parsed)
      throw InputError(g().file(), 0,
                       "attribute '" + std::string(name) + "' of " + g().path() + " is '" + text +
                           "' (must be L1, L2 or L3)");
    value = *parsed;
  }

  template <typename M>
  void dataset(const char* name, M& value, model_fields::Shape expected) {
    using Scalar = typename M::Scalar;
    if constexpr (M::ColsAtCompileTime == 1) {
      if constexpr (std::is_integral_v<Scalar>)
        value = g().read_vector_int(name, expected.rows);
      else if constexpr (std::is_same_v<Scalar, float>)
        value = g().read_vector_float(name, expected.rows);
      else
        value = g().read_vector_double(name, expected.rows);
    } else {
      if constexpr (std::is_integral_v<Scalar>)
        value = g().read_matrix_int(name, expected.rows, expected.cols);
      else
        value = g().read_matrix_double(name, expected.rows, expected.cols);
    }
  }
  void packed_symmetric(const char* name, Eigen::MatrixXd& value, Eigen::Index n) {
    value = unpack_upper_triangle(g().read_vector_double(name, n * (n + 1) / 2), n);
  }
  template <typename T>
  void column(const char* name, std::vector<DomainSettings>& domains, T DomainSettings::*member,
              int n) {
    domains.resize(static_cast<std::size_t>(n));
    if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
      const Eigen::VectorXi values = g().read_vector_int(name, n);
      for (int i = 0; i < n; ++i) domains[static_cast<std::size_t>(i)].*member = T(values(i));
    } else {
      const Eigen::VectorXd values = g().read_vector_double(name, n);
      for (int i = 0; i < n; ++i) domains[static_cast<std::size_t>(i)].*member = values(i);
    }
  }
  template <typename Body>
  void group(const char* name, model_fields::Presence presence, Body&& body) {
    if (!presence.required && !g().has(name)) return;
    groups_.push_back(g().group(name));  // "missing group ..." when required and absent
    body();
    groups_.pop_back();
  }
  template <typename Body>
  void optional(const char* name, model_fields::Presence presence, Body&& body) {
    if (presence.required || g().has(name)) body();
  }

 private:
  const hdf5::Group& g() const { return groups_.back(); }
  std::vector<hdf5::Group> groups_;
};

}  // namespace

Eigen::VectorXd pack_upper_triangle(const Eigen::MatrixXd& symmetric) {
  const Eigen::Index n = symmetric.rows();
  Eigen::VectorXd packed(n * (n + 1) / 2);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = i; j < n; ++j) packed(k++) = symmetric(i, j);
  }
  return packed;
}

Eigen::MatrixXd unpack_upper_triangle(const Eigen::VectorXd& packed, Eigen::Index n) {
  Eigen::MatrixXd full(n, n);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = i; j < n; ++j) full(i, j) = full(j, i) = packed(k++);
  }
  return full;
}

namespace {

// The model in an open file, named `path` in messages.
ReducedModel read_model(const hdf5::File& file, const std::string& path) {
  const hdf5::Group root = file.root();
  if (!root.has_attribute("format")) {
    throw InputError(path, 0, "not a Ramus model file (no attribute 'format' on /)");
  }
  // The version (an integer) before any string: older files hold variable-length strings, which
  // this reader refuses (hdf5_file_read.cpp), and they deserve the "re-run precompute" message.
  if (!root.has_attribute("format_version"))
    throw InputError(path, 0, "not a Ramus model file (no attribute 'format_version' on /)");
  ReducedModel model;
  model.format_version = root.read_int_attribute("format_version");
  if (model.format_version != kModelFormatVersion) {
    unsupported_version(path, model.format_version, root);
  }
  if (const std::string format = root.read_string_attribute("format"); format != kModelFormatName) {
    throw InputError(path, 0,
                     "not a Ramus model file (attribute 'format' of / is '" + format +
                         "', expected '" + kModelFormatName + "')");
  }

  FieldReader provenance(root.group("provenance"));
  model_fields::visit_provenance(model.provenance, provenance);

  const hdf5::Group domains = root.group("domains");
  const int num_domains = domains.read_int_attribute("num_domains");
  // Each count bounded by the groups the file holds before anything is allocated for it.
  if (num_domains < 1 || num_domains > domains.num_links()) {
    throw InputError(path, 0,
                     "attribute 'num_domains' of /domains is " + std::to_string(num_domains) +
                         " (must be in [1, " + std::to_string(domains.num_links()) +
                         "], the groups /domains holds)");
  }
  // Parts first (a domain's shapes follow its part's).
  const hdf5::Group parts = root.group("parts");
  const int num_parts = parts.read_int_attribute("num_parts");
  if (num_parts < 1 || num_parts > num_domains || num_parts > parts.num_links()) {
    throw InputError(path, 0,
                     "attribute 'num_parts' of /parts is " + std::to_string(num_parts) +
                         " (must be in [1, num_domains = " + std::to_string(num_domains) +
                         "] and at most the " + std::to_string(parts.num_links()) +
                         " groups /parts holds)");
  }
  model.parts.resize(static_cast<std::size_t>(num_parts));
  for (int k = 0; k < num_parts; ++k) {
    FieldReader reader(parts.group("part_" + std::to_string(k)));
    model_fields::visit_part(model.parts[static_cast<std::size_t>(k)], num_domains, reader);
  }
  model.num_global_vertices = domains.read_int_attribute("num_global_vertices");
  model.domains.resize(static_cast<std::size_t>(num_domains));
  const auto part_vertices = [&](int p) -> Eigen::Index {
    return p >= 0 && p < num_parts ? model.parts[static_cast<std::size_t>(p)].rest_positions.rows()
                                   : -1;
  };
  const auto domain_r = [&](int i) -> Eigen::Index {
    const int p = model.domains[static_cast<std::size_t>(i)].part;
    return p >= 0 && p < num_parts ? model.parts[static_cast<std::size_t>(p)].polynomial.r : -1;
  };
  for (int k = 0; k < num_domains; ++k) {
    ReducedDomain& d = model.domains[static_cast<std::size_t>(k)];
    FieldReader reader(domains.group("domain_" + std::to_string(k)));
    model_fields::visit_domain(d, k, part_vertices, domain_r, reader);
  }
  model.global_surface_triangles = root.read_matrix_int("global_surface_triangles", -1, 3);
  if (root.has("embedded_surface")) {
    FieldReader surface(root.group("embedded_surface"));
    model_fields::visit_embedded_surface(model.embedded_surface, surface);
  }
  FieldReader runtime(root.group("runtime"));
  model_fields::visit_runtime_settings(model.settings, model.scenario, num_domains, runtime);
  if (root.has("accuracy")) {
    FieldReader accuracy(root.group("accuracy"));
    model_fields::visit_accuracy(model.accuracy, accuracy);
    model.accuracy.measured = true;
  }
  if (const std::string problem = find_settings_problem(model.settings, num_domains);
      !problem.empty())
    throw InputError(path, 0, "group /runtime: " + problem);
  if (std::string problem = find_model_inconsistency(model); !problem.empty()) {
    throw InputError(path, 0, problem);
  }
  return model;
}

}  // namespace

ReducedModel read_model_file(const std::string& path, const ModelTrust& trust) {
  hdf5::verify_seal(path, trust);  // before libhdf5 parses a byte of it
  return read_model(hdf5::File::open(path), path);
}

ReducedModel read_model_memory(const void* data, std::size_t size, const std::string& name,
                               const ModelTrust& trust) {
  hdf5::verify_seal_memory(data, size, name, trust);  // (as a file's)
  return read_model(hdf5::File::open_memory(data, size, name), name);
}

}  // namespace ramus
