// The reading half of the HDF5 wrapper (and Handle, opening, closing).
#include "hdf5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <system_error>
#include <type_traits>

#include "hdf5_detail.h"
#include "ramus/error.h"

namespace ramus::hdf5 {

using namespace detail;

static_assert(std::is_same_v<hid_t, std::int64_t>, "Handle stores hid_t as std::int64_t");
static_assert(std::is_same_v<herr_t, int>, "Handle::Closer returns herr_t as int");
// ---------------------------------------------------------------------------------------------
// Handle

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.id_;
    closer_ = other.closer_;
    other.id_ = -1;
  }
  return *this;
}

bool Handle::reset() noexcept {
  if (id_ < 0 || closer_ == nullptr) {
    id_ = -1;
    return true;
  }
  const QuietErrors quiet;
  const bool ok = closer_(id_) >= 0;
  id_ = -1;
  return ok;
}

// ---------------------------------------------------------------------------------------------
// Group

Group::Group(Handle handle, std::string file, std::string path)
    : handle_(std::move(handle)), file_(std::move(file)), path_(std::move(path)) {}

std::string Group::child_path(const std::string& name) const {
  return path_ == "/" ? "/" + name : path_ + "/" + name;
}

void Group::fail(const std::string& message) const {
  throw InputError(file_, 0, message);
}

bool Group::has(const std::string& name) const {
  const QuietErrors quiet;
  const std::vector<std::string> parts = split_path(name);
  if (parts.empty()) return false;
  std::string prefix;
  for (const std::string& part : parts) {
    prefix += prefix.empty() ? part : "/" + part;
    if (H5Lexists(handle_.id(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
  }
  return H5Oexists_by_name(handle_.id(), prefix.c_str(), H5P_DEFAULT) > 0;
}

Eigen::Index Group::num_links() const {
  const QuietErrors quiet;
  H5G_info_t info;
  if (H5Gget_info(handle_.id(), &info) < 0) fail("cannot list the members of " + path_);
  return static_cast<Eigen::Index>(info.nlinks);
}

bool Group::has_attribute(const std::string& name) const {
  const QuietErrors quiet;
  return H5Aexists(handle_.id(), name.c_str()) > 0;
}

Group Group::group(const std::string& name) const {
  if (!has(name)) fail("missing group " + child_path(name));
  const QuietErrors quiet;
  Handle group(H5Gopen2(handle_.id(), name.c_str(), H5P_DEFAULT), H5Gclose);
  if (group.id() < 0) fail("cannot open group " + child_path(name) + " (not a group?)");
  return Group(std::move(group), file_, child_path(name));
}

Handle Group::open_dataset(const std::string& name, Element element,
                           const std::vector<Eigen::Index>& expected,
                           std::vector<Eigen::Index>& found) const {
  const std::string path = child_path(name);
  if (!has(name)) fail("missing dataset " + path);
  const QuietErrors quiet;
  Handle dataset(H5Dopen2(handle_.id(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (dataset.id() < 0) fail("cannot open dataset " + path + " (not a dataset?)");
  const Handle type = datatype(H5Dget_type(dataset.id()));
  if (type.id() < 0) fail("cannot read the type of dataset " + path);
  const H5T_class_t type_class = H5Tget_class(type.id());
  const bool want_double = element == Element::kFloat64 || element == Element::kFloat32;
  if (want_double && type_class != H5T_FLOAT) {
    fail("wrong type of dataset " + path + ": expected floating-point numbers, found " +
         describe_type(type.id()));
  }
  if (!want_double && type_class != H5T_INTEGER) {
    fail("wrong type of dataset " + path + ": expected integers, found " +
         describe_type(type.id()));
  }
  if (element == Element::kUint8 && H5Tget_size(type.id()) != 1)
    fail("wrong type of dataset " + path + ": expected bytes (text), found " +
         describe_type(type.id()));
  const Handle space = dataspace(H5Dget_space(dataset.id()));
  if (space.id() < 0 || !dataspace_shape(space.id(), found)) {
    fail("cannot read the shape of dataset " + path);
  }
  bool matches = found.size() == expected.size();
  for (std::size_t i = 0; matches && i < found.size(); ++i) {
    matches = expected[i] < 0 || expected[i] == found[i];
  }
  if (!matches) {
    fail("wrong shape of dataset " + path + ": expected " + format_shape(expected) + ", found " +
         format_shape(found));
  }
  Eigen::Index total = 1;
  for (Eigen::Index d : found) {
    if (d > 0 && total > std::numeric_limits<int>::max() / d)
      fail("dataset " + path + " is too large");
    total *= d;
  }
  if (total > std::numeric_limits<int>::max()) fail("dataset " + path + " is too large");
  // No dataset holds more than the file can: deflate expands at most ~1032:1, so a shape beyond
  // that is a corrupt header, refused before anything is allocated for it.
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size(file_, ec);
  const double limit = ec ? 1e18 : 1032.0 * static_cast<double>(file_bytes) + 1e6;
  if (static_cast<double>(total) * (element == Element::kFloat64 ? 8.0
                                    : element == Element::kUint8 ? 1.0
                                                                 : 4.0) >
      limit)
    fail("dataset " + path + " declares " + format_shape(found) +
         " values, more than the file can hold (corrupt)");
  // The storage its layout claims: never more than the file, and for contiguous data exactly
  // the values' bytes (libhdf5 trusts a corrupt size and allocates and clears gigabytes).
  const hsize_t stored = H5Dget_storage_size(dataset.id());
  if (!ec && stored > file_bytes)
    fail("dataset " + path + " claims " + std::to_string(stored) +
         " bytes of storage, more than the file's " + std::to_string(file_bytes) + " (corrupt)");
  // Only the layouts Ramus writes (a layout message corrupted to "compact" made libhdf5 copy
  // past its buffers).
  const Handle create = property_list(H5Dget_create_plist(dataset.id()));
  const H5D_layout_t layout = create.id() < 0 ? H5D_LAYOUT_ERROR : H5Pget_layout(create.id());
  if (layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED)
    fail("dataset " + path + " has a storage layout Ramus does not write (corrupt)");
  if (layout == H5D_CONTIGUOUS && stored != 0 &&
      stored != static_cast<hsize_t>(total) * H5Tget_size(type.id()))
    fail("dataset " + path + " claims " + std::to_string(stored) + " bytes of storage for " +
         format_shape(found) + " values (corrupt)");
  return dataset;
}

std::vector<Eigen::Index> Group::shape(const std::string& name) const {
  const std::string path = child_path(name);
  if (!has(name)) fail("missing dataset " + path);
  const QuietErrors quiet;
  const Handle dataset(H5Dopen2(handle_.id(), name.c_str(), H5P_DEFAULT), H5Dclose);
  if (dataset.id() < 0) fail("cannot open dataset " + path + " (not a dataset?)");
  const Handle space = dataspace(H5Dget_space(dataset.id()));
  std::vector<Eigen::Index> found;
  if (space.id() < 0 || !dataspace_shape(space.id(), found)) {
    fail("cannot read the shape of dataset " + path);
  }
  return found;
}

namespace {

// Reads a whole dataset of integers into `out` (rows * cols ints, row-major), checking that every
// value fits in an int (wider types are read as 64-bit first).
void read_ints(const Group& group, hid_t dataset, const std::string& path, int* out,
               Eigen::Index count) {
  if (count == 0) return;
  const Handle type = datatype(H5Dget_type(dataset));
  const std::size_t size = H5Tget_size(type.id());
  const bool is_signed = H5Tget_sign(type.id()) == H5T_SGN_2;
  if (size < 4 || (size == 4 && is_signed)) {
    if (H5Dread(dataset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
      throw InputError(group.file(), 0, "cannot read dataset " + path + error_detail());
    }
    return;
  }
  RowMajorXl wide(count, 1);
  if (H5Dread(dataset, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, wide.data()) < 0) {
    throw InputError(group.file(), 0, "cannot read dataset " + path + error_detail());
  }
  for (Eigen::Index i = 0; i < count; ++i) {
    const long long v = wide(i, 0);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) {
      throw InputError(group.file(), 0,
                       "value " + std::to_string(v) + " in dataset " + path +
                           " does not fit in a 32-bit integer");
    }
    out[i] = static_cast<int>(v);
  }
}

void read_doubles(const Group& group, hid_t dataset, const std::string& path, double* out,
                  Eigen::Index count) {
  if (count == 0) return;
  if (H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
    throw InputError(group.file(), 0, "cannot read dataset " + path + error_detail());
  }
}

// The dataset's values, as read, against the CRC-32 stored beside them at writing (attribute
// kChecksumAttribute): a file that reads differently from what was written (a flipped byte, a
// zeroed chunk index that makes HDF5 return fill values) is an error naming the dataset.
void verify_checksum(const Group& group, hid_t dataset, const std::string& path, const void* data,
                     std::size_t bytes) {
  if (H5Aexists(dataset, kChecksumAttribute) <= 0)
    throw InputError(group.file(), 0,
                     "dataset " + path + " has no checksum (attribute '" + kChecksumAttribute +
                         "'; corrupt, or not from Ramus)");
  const Handle attribute(H5Aopen(dataset, kChecksumAttribute, H5P_DEFAULT), H5Aclose);
  const Handle space = dataspace(attribute.id() < 0 ? -1 : H5Aget_space(attribute.id()));
  const Handle type = datatype(attribute.id() < 0 ? -1 : H5Aget_type(attribute.id()));
  std::uint64_t stored = 0;
  if (space.id() < 0 || type.id() < 0 || H5Sget_simple_extent_npoints(space.id()) != 1 ||
      H5Tget_class(type.id()) != H5T_INTEGER ||
      H5Aread(attribute.id(), H5T_NATIVE_UINT64, &stored) < 0)
    throw InputError(group.file(), 0,
                     "cannot read the checksum of dataset " + path + error_detail());
  if (stored != content_checksum(data, bytes))
    throw InputError(group.file(), 0,
                     "dataset " + path +
                         " does not match its checksum: the file reads differently from what "
                         "was written (corrupt); re-run precompute");
}

}  // namespace

Eigen::VectorXd Group::read_vector_double(const std::string& name, Eigen::Index size) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, Element::kFloat64, {size}, found);
  const QuietErrors quiet;
  Eigen::VectorXd v(found[0]);
  read_doubles(*this, dataset.id(), child_path(name), v.data(), v.size());
  verify_checksum(*this, dataset.id(), child_path(name), v.data(),
                  static_cast<std::size_t>(v.size()) * sizeof(double));
  return v;
}

Eigen::VectorXi Group::read_vector_int(const std::string& name, Eigen::Index size) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, Element::kInt32, {size}, found);
  const QuietErrors quiet;
  Eigen::VectorXi v(found[0]);
  read_ints(*this, dataset.id(), child_path(name), v.data(), v.size());
  verify_checksum(*this, dataset.id(), child_path(name), v.data(),
                  static_cast<std::size_t>(v.size()) * sizeof(int));
  return v;
}

Eigen::VectorXf Group::read_vector_float(const std::string& name, Eigen::Index size) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, Element::kFloat32, {size}, found);
  const QuietErrors quiet;
  Eigen::VectorXf v(found[0]);
  if (v.size() > 0 &&
      H5Dread(dataset.id(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
    throw InputError(file(), 0, "cannot read dataset " + child_path(name) + error_detail());
  verify_checksum(*this, dataset.id(), child_path(name), v.data(),
                  static_cast<std::size_t>(v.size()) * sizeof(float));
  return v;
}

Eigen::MatrixXd Group::read_matrix_double(const std::string& name, Eigen::Index rows,
                                          Eigen::Index cols) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, Element::kFloat64, {rows, cols}, found);
  const QuietErrors quiet;
  RowMajorXd m(found[0], found[1]);
  read_doubles(*this, dataset.id(), child_path(name), m.data(), m.size());
  verify_checksum(*this, dataset.id(), child_path(name), m.data(),
                  static_cast<std::size_t>(m.size()) * sizeof(double));
  return m;
}

Eigen::MatrixXi Group::read_matrix_int(const std::string& name, Eigen::Index rows,
                                       Eigen::Index cols) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, Element::kInt32, {rows, cols}, found);
  const QuietErrors quiet;
  RowMajorXi m(found[0], found[1]);
  read_ints(*this, dataset.id(), child_path(name), m.data(), m.size());
  verify_checksum(*this, dataset.id(), child_path(name), m.data(),
                  static_cast<std::size_t>(m.size()) * sizeof(int));
  return m;
}

std::string Group::read_text(const std::string& name) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, Element::kUint8, {-1}, found);
  const QuietErrors quiet;
  std::string text(static_cast<std::size_t>(found[0]), '\0');
  if (!text.empty() &&
      H5Dread(dataset.id(), H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()) < 0)
    fail("cannot read dataset " + child_path(name) + error_detail());
  verify_checksum(*this, dataset.id(), child_path(name), text.data(), text.size());
  return text;
}

// ---------------------------------------------------------------------------------------------
// Attributes

Handle Group::open_attribute(const std::string& name) const {
  const QuietErrors quiet;
  const std::string what = "attribute '" + name + "' of " + path_;
  if (H5Aexists(handle_.id(), name.c_str()) <= 0) fail("missing " + what);
  Handle attribute(H5Aopen(handle_.id(), name.c_str(), H5P_DEFAULT), H5Aclose);
  if (attribute.id() < 0) fail("cannot open " + what + error_detail());
  const Handle space = dataspace(H5Aget_space(attribute.id()));
  if (space.id() < 0 || H5Sget_simple_extent_npoints(space.id()) != 1) {
    fail("wrong shape of " + what + ": expected a single value");
  }
  return attribute;
}

std::string Group::read_string_attribute(const std::string& name) const {
  const Handle attribute = open_attribute(name);
  const QuietErrors quiet;
  const std::string what = "attribute '" + name + "' of " + path_;
  const Handle type = datatype(H5Aget_type(attribute.id()));
  if (type.id() < 0 || H5Tget_class(type.id()) != H5T_STRING) {
    fail("wrong type of " + what + ": expected a string, found " + describe_type(type.id()));
  }
  // Variable-length strings live in the file's global heap, and a corrupt heap makes libhdf5
  // crash or loop while reading one: Ramus writes fixed-length strings and reads no other.
  if (H5Tis_variable_str(type.id()) != 0)
    fail(what +
         " is a variable-length string: written by an older Ramus (re-run precompute) "
         "or by another tool");
  const std::size_t size = H5Tget_size(type.id());
  if (size > (1u << 26)) fail(what + " is too long (" + std::to_string(size) + " bytes; corrupt)");
  std::string value(size, '\0');
  if (size > 0 && H5Aread(attribute.id(), type.id(), value.data()) < 0) {
    fail("cannot read " + what + error_detail());
  }
  if (H5Tget_strpad(type.id()) == H5T_STR_SPACEPAD) {
    value.erase(value.find_last_not_of(' ') + 1);
  } else if (const std::size_t nul = value.find('\0'); nul != std::string::npos) {
    value.resize(nul);
  }
  return value;
}

int Group::read_int_attribute(const std::string& name) const {
  const Handle attribute = open_attribute(name);
  const QuietErrors quiet;
  const std::string what = "attribute '" + name + "' of " + path_;
  const Handle type = datatype(H5Aget_type(attribute.id()));
  if (type.id() < 0 || H5Tget_class(type.id()) != H5T_INTEGER) {
    fail("wrong type of " + what + ": expected an integer, found " + describe_type(type.id()));
  }
  long long value = 0;
  if (H5Aread(attribute.id(), H5T_NATIVE_LLONG, &value) < 0) {
    fail("cannot read " + what + error_detail());
  }
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max()) {
    fail(what + " is out of range: " + std::to_string(value));
  }
  return static_cast<int>(value);
}

std::uint64_t Group::read_uint64_attribute(const std::string& name) const {
  const Handle attribute = open_attribute(name);
  const QuietErrors quiet;
  const std::string what = "attribute '" + name + "' of " + path_;
  const Handle type = datatype(H5Aget_type(attribute.id()));
  if (type.id() < 0 || H5Tget_class(type.id()) != H5T_INTEGER) {
    fail("wrong type of " + what + ": expected an integer, found " + describe_type(type.id()));
  }
  if (H5Tget_sign(type.id()) == H5T_SGN_2) {
    long long value = 0;
    if (H5Aread(attribute.id(), H5T_NATIVE_LLONG, &value) < 0) {
      fail("cannot read " + what + error_detail());
    }
    if (value < 0) fail(what + " is negative: " + std::to_string(value));
    return static_cast<std::uint64_t>(value);
  }
  std::uint64_t value = 0;
  if (H5Aread(attribute.id(), H5T_NATIVE_UINT64, &value) < 0) {
    fail("cannot read " + what + error_detail());
  }
  return value;
}

double Group::read_double_attribute(const std::string& name) const {
  const Handle attribute = open_attribute(name);
  const QuietErrors quiet;
  const std::string what = "attribute '" + name + "' of " + path_;
  const Handle type = datatype(H5Aget_type(attribute.id()));
  const H5T_class_t type_class = type.id() < 0 ? H5T_NO_CLASS : H5Tget_class(type.id());
  if (type_class != H5T_FLOAT && type_class != H5T_INTEGER) {
    fail("wrong type of " + what + ": expected a number, found " + describe_type(type.id()));
  }
  double value = 0;
  if (H5Aread(attribute.id(), H5T_NATIVE_DOUBLE, &value) < 0) {
    fail("cannot read " + what + error_detail());
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// File

File File::open_existing(const std::string& path, bool writable) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw InputError(path, 0, "cannot open: no such file");
  if (std::filesystem::is_directory(status)) {
    throw InputError(path, 0, "cannot open: it is a directory");
  }
  const QuietErrors quiet;
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 < 0) throw InputError(path, 0, "cannot open: unreadable file" + error_detail());
  if (is_hdf5 == 0) throw InputError(path, 0, "cannot open: not an HDF5 file");
  const Handle fapl = property_list(H5Pcreate(H5P_FILE_ACCESS));
  // Writers must close every group before the file (so that close() can report failures).
  if (writable) H5Pset_fclose_degree(fapl.id(), H5F_CLOSE_SEMI);
  Handle file(H5Fopen(path.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl.id()), H5Fclose);
  if (file.id() < 0) {
    throw InputError(path, 0,
                     "cannot open: not a valid HDF5 file (truncated or corrupt)" + error_detail());
  }
  return File(std::move(file), path);
}

File File::open(const std::string& path) {
  return open_existing(path, false);
}

File File::open_memory(const void* data, std::size_t size, const std::string& name) {
  const QuietErrors quiet;
  // The core driver on a copy of the image, read-only, nothing written back.
  const Handle fapl = property_list(H5Pcreate(H5P_FILE_ACCESS));
  if (H5Pset_fapl_core(fapl.id(), std::size_t{1} << 16, 0) < 0 ||
      H5Pset_file_image(fapl.id(), const_cast<void*>(data), size) < 0)
    throw InputError(name, 0, "cannot open: HDF5 refuses the image in memory" + error_detail());
  Handle file(H5Fopen(name.c_str(), H5F_ACC_RDONLY, fapl.id()), H5Fclose);
  if (file.id() < 0)
    throw InputError(name, 0,
                     "cannot open: not a valid HDF5 file (truncated or corrupt)" + error_detail());
  return File(std::move(file), name);
}

Group File::root() const {
  const QuietErrors quiet;
  Handle group(H5Gopen2(handle_.id(), "/", H5P_DEFAULT), H5Gclose);
  if (group.id() < 0) throw InputError(path_, 0, "cannot open the root group" + error_detail());
  return Group(std::move(group), path_, "/");
}

void File::close() {
  if (handle_.id() < 0) return;
  const QuietErrors quiet;
  unsigned intent = 0;
  const bool writable = H5Fget_intent(handle_.id(), &intent) >= 0 && (intent & H5F_ACC_RDWR) != 0;
  if (writable && H5Fflush(handle_.id(), H5F_SCOPE_LOCAL) < 0) {
    const std::string detail = error_detail();
    handle_.reset();
    throw InputError(path_, 0, "cannot write file (disk full?)" + detail);
  }
  if (!handle_.reset()) {
    throw InputError(path_, 0, "cannot close file (a group of it is still open?)");
  }
}

}  // namespace ramus::hdf5
