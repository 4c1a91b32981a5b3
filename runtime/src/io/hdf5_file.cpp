#include "ramus/runtime/io/hdf5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <limits>
#include <system_error>
#include <type_traits>

#include "ramus/error.h"

namespace ramus::hdf5 {

static_assert(std::is_same_v<hid_t, std::int64_t>, "Handle stores hid_t as std::int64_t");
static_assert(std::is_same_v<herr_t, int>, "Handle::Closer returns herr_t as int");

namespace {

// Datasets with at least this many elements are chunked and compressed (shuffle + deflate).
constexpr Eigen::Index kCompressMinElements = 4096;
constexpr hsize_t kChunkElements = 65536;  // 512 KiB of float64 per chunk
constexpr unsigned kDeflateLevel = 4;

using RowMajorXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMajorXi = Eigen::Matrix<int, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMajorXl = Eigen::Matrix<long long, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Turns HDF5's automatic error-stack printing off for its lifetime (restoring it afterwards), so
// failures reach the caller only as exceptions.
class QuietErrors {
 public:
  QuietErrors() {
    if (H5Eget_auto2(H5E_DEFAULT, &function_, &data_) < 0) function_ = nullptr;
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

herr_t innermost_error(unsigned n, const H5E_error2_t* error, void* client) {
  if (n == 0 && error != nullptr && error->desc != nullptr) {
    *static_cast<std::string*>(client) = error->desc;
  }
  return 0;
}

// ": <description of the innermost entry of HDF5's error stack>", or "" when there is none.
std::string error_detail() {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, &detail);
  return detail.empty() ? std::string() : " (HDF5: " + detail + ")";
}

Handle dataspace(hid_t id) {
  return Handle(id, H5Sclose);
}
Handle datatype(hid_t id) {
  return Handle(id, H5Tclose);
}
Handle property_list(hid_t id) {
  return Handle(id, H5Pclose);
}

// Link-creation properties that create missing parent groups ("mesh/tets" creates "mesh").
Handle parents_created() {
  Handle lcpl = property_list(H5Pcreate(H5P_LINK_CREATE));
  if (lcpl.id() >= 0) H5Pset_create_intermediate_group(lcpl.id(), 1);
  return lcpl;
}

std::string format_shape(const std::vector<Eigen::Index>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return out + ")";
}

std::string describe_type(hid_t type) {
  const H5T_class_t type_class = H5Tget_class(type);
  const std::string bits = std::to_string(8 * H5Tget_size(type)) + "-bit ";
  switch (type_class) {
    case H5T_INTEGER:
      return bits + "integers";
    case H5T_FLOAT:
      return bits + "floating-point numbers";
    case H5T_STRING:
      return "strings";
    case H5T_COMPOUND:
      return "compound records";
    case H5T_ARRAY:
      return "arrays";
    case H5T_ENUM:
      return "enumerations";
    default:
      return "data of HDF5 type class " + std::to_string(static_cast<int>(type_class));
  }
}

// Shape of a dataspace; a scalar or null dataspace has rank 0.
bool dataspace_shape(hid_t space, std::vector<Eigen::Index>& shape) {
  shape.clear();
  const H5S_class_t space_class = H5Sget_simple_extent_type(space);
  if (space_class == H5S_NO_CLASS) return false;
  if (space_class != H5S_SIMPLE) return true;
  const int rank = H5Sget_simple_extent_ndims(space);
  if (rank < 0) return false;
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0 && H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0) return false;
  for (hsize_t d : dims) {
    if (d > static_cast<hsize_t>(std::numeric_limits<int>::max())) return false;
    shape.push_back(static_cast<Eigen::Index>(d));
  }
  return true;
}

std::vector<std::string> split_path(const std::string& name) {
  std::vector<std::string> parts;
  std::string part;
  for (char c : name) {
    if (c == '/') {
      if (!part.empty()) parts.push_back(part);
      part.clear();
    } else {
      part += c;
    }
  }
  if (!part.empty()) parts.push_back(part);
  return parts;
}

}  // namespace

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

Group Group::create_group(const std::string& name) const {
  const QuietErrors quiet;
  const Handle lcpl = parents_created();
  Handle group(H5Gcreate2(handle_.id(), name.c_str(), lcpl.id(), H5P_DEFAULT, H5P_DEFAULT),
               H5Gclose);
  if (group.id() < 0) fail("cannot create group " + child_path(name) + error_detail());
  return Group(std::move(group), file_, child_path(name));
}

void Group::remove(const std::string& name) const {
  const QuietErrors quiet;
  if (H5Ldelete(handle_.id(), name.c_str(), H5P_DEFAULT) < 0) {
    fail("cannot remove " + child_path(name) + error_detail());
  }
}

void Group::write_dataset(const std::string& name, bool is_double,
                          const std::vector<Eigen::Index>& dims, const void* data) const {
  if (has(name)) fail("cannot create dataset " + child_path(name) + ": it already exists");
  const QuietErrors quiet;
  std::vector<hsize_t> file_dims;
  Eigen::Index total = 1;
  for (Eigen::Index d : dims) {
    file_dims.push_back(static_cast<hsize_t>(d));
    total *= d;
  }
  const int rank = static_cast<int>(dims.size());
  const Handle space = dataspace(H5Screate_simple(rank, file_dims.data(), nullptr));
  const Handle dcpl = property_list(H5Pcreate(H5P_DATASET_CREATE));
  if (space.id() < 0 || dcpl.id() < 0) fail("cannot create dataset " + child_path(name));
  if (total >= kCompressMinElements && H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0) {
    // Chunks of whole rows (row-major), at most kChunkElements elements each.
    std::vector<hsize_t> chunk = file_dims;
    const hsize_t row = rank == 2 ? file_dims[1] : 1;
    if (rank == 2) chunk[1] = std::min(row, kChunkElements);
    chunk[0] = std::max<hsize_t>(1, std::min(file_dims[0], kChunkElements / chunk.back()));
    if (rank == 1) chunk[0] = std::min(file_dims[0], kChunkElements);
    if (H5Pset_chunk(dcpl.id(), rank, chunk.data()) < 0 || H5Pset_shuffle(dcpl.id()) < 0 ||
        H5Pset_deflate(dcpl.id(), kDeflateLevel) < 0) {
      fail("cannot set up compression of dataset " + child_path(name) + error_detail());
    }
  }
  const Handle lcpl = parents_created();
  const hid_t file_type = is_double ? H5T_IEEE_F64LE : H5T_STD_I32LE;
  const hid_t memory_type = is_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT;
  Handle dataset(H5Dcreate2(handle_.id(), name.c_str(), file_type, space.id(), lcpl.id(), dcpl.id(),
                            H5P_DEFAULT),
                 H5Dclose);
  if (dataset.id() < 0) fail("cannot create dataset " + child_path(name) + error_detail());
  if (total > 0 && H5Dwrite(dataset.id(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    fail("cannot write dataset " + child_path(name) + error_detail());
  }
  if (!dataset.reset()) fail("cannot write dataset " + child_path(name) + error_detail());
}

void Group::write_vector(const std::string& name,
                         const Eigen::Ref<const Eigen::VectorXd>& v) const {
  write_dataset(name, true, {v.size()}, v.data());
}

void Group::write_vector(const std::string& name,
                         const Eigen::Ref<const Eigen::VectorXi>& v) const {
  write_dataset(name, false, {v.size()}, v.data());
}

void Group::write_matrix(const std::string& name,
                         const Eigen::Ref<const Eigen::MatrixXd>& m) const {
  const RowMajorXd row_major = m;
  write_dataset(name, true, {m.rows(), m.cols()}, row_major.data());
}

void Group::write_matrix(const std::string& name,
                         const Eigen::Ref<const Eigen::MatrixXi>& m) const {
  const RowMajorXi row_major = m;
  write_dataset(name, false, {m.rows(), m.cols()}, row_major.data());
}

Handle Group::open_dataset(const std::string& name, bool want_double,
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
  if (want_double && type_class != H5T_FLOAT) {
    fail("wrong type of dataset " + path + ": expected floating-point numbers, found " +
         describe_type(type.id()));
  }
  if (!want_double && type_class != H5T_INTEGER) {
    fail("wrong type of dataset " + path + ": expected integers, found " +
         describe_type(type.id()));
  }
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
  for (Eigen::Index d : found) total *= d;
  if (total > std::numeric_limits<int>::max()) fail("dataset " + path + " is too large");
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

}  // namespace

Eigen::VectorXd Group::read_vector_double(const std::string& name, Eigen::Index size) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, true, {size}, found);
  const QuietErrors quiet;
  Eigen::VectorXd v(found[0]);
  read_doubles(*this, dataset.id(), child_path(name), v.data(), v.size());
  return v;
}

Eigen::VectorXi Group::read_vector_int(const std::string& name, Eigen::Index size) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, false, {size}, found);
  const QuietErrors quiet;
  Eigen::VectorXi v(found[0]);
  read_ints(*this, dataset.id(), child_path(name), v.data(), v.size());
  return v;
}

Eigen::MatrixXd Group::read_matrix_double(const std::string& name, Eigen::Index rows,
                                          Eigen::Index cols) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, true, {rows, cols}, found);
  const QuietErrors quiet;
  RowMajorXd m(found[0], found[1]);
  read_doubles(*this, dataset.id(), child_path(name), m.data(), m.size());
  return m;
}

Eigen::MatrixXi Group::read_matrix_int(const std::string& name, Eigen::Index rows,
                                       Eigen::Index cols) const {
  std::vector<Eigen::Index> found;
  const Handle dataset = open_dataset(name, false, {rows, cols}, found);
  const QuietErrors quiet;
  RowMajorXi m(found[0], found[1]);
  read_ints(*this, dataset.id(), child_path(name), m.data(), m.size());
  return m;
}

// ---------------------------------------------------------------------------------------------
// Attributes

void Group::write_attribute(const std::string& name, std::int64_t file_type,
                            std::int64_t memory_type, const void* value) const {
  const QuietErrors quiet;
  const std::string what = "attribute '" + name + "' of " + path_;
  if (H5Aexists(handle_.id(), name.c_str()) > 0 && H5Adelete(handle_.id(), name.c_str()) < 0) {
    fail("cannot replace " + what + error_detail());
  }
  const Handle space = dataspace(H5Screate(H5S_SCALAR));
  Handle attribute(
      H5Acreate2(handle_.id(), name.c_str(), file_type, space.id(), H5P_DEFAULT, H5P_DEFAULT),
      H5Aclose);
  if (attribute.id() < 0) fail("cannot create " + what + error_detail());
  if (H5Awrite(attribute.id(), memory_type, value) < 0 || !attribute.reset()) {
    fail("cannot write " + what + error_detail());
  }
}

void Group::write_string_attribute(const std::string& name, const std::string& value) const {
  if (value.find('\0') != std::string::npos) {
    fail("cannot write attribute '" + name + "' of " + path_ + ": the text contains a NUL byte");
  }
  const QuietErrors quiet;
  const Handle type = datatype(H5Tcopy(H5T_C_S1));
  if (type.id() < 0 || H5Tset_size(type.id(), H5T_VARIABLE) < 0 ||
      H5Tset_cset(type.id(), H5T_CSET_UTF8) < 0) {
    fail("cannot create a string type for attribute '" + name + "' of " + path_);
  }
  const char* text = value.c_str();
  write_attribute(name, type.id(), type.id(), &text);
}

void Group::write_int_attribute(const std::string& name, int value) const {
  write_attribute(name, H5T_STD_I32LE, H5T_NATIVE_INT, &value);
}

void Group::write_uint64_attribute(const std::string& name, std::uint64_t value) const {
  write_attribute(name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}

void Group::write_double_attribute(const std::string& name, double value) const {
  write_attribute(name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}

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
  if (H5Tis_variable_str(type.id()) > 0) {
    const Handle memory_type = datatype(H5Tcopy(H5T_C_S1));
    char* text = nullptr;
    if (memory_type.id() < 0 || H5Tset_size(memory_type.id(), H5T_VARIABLE) < 0 ||
        H5Tset_cset(memory_type.id(), H5Tget_cset(type.id())) < 0 ||
        H5Aread(attribute.id(), memory_type.id(), &text) < 0) {
      fail("cannot read " + what + error_detail());
    }
    std::string value = text != nullptr ? text : "";
    H5free_memory(text);
    return value;
  }
  const std::size_t size = H5Tget_size(type.id());
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

File File::open_read_write(const std::string& path) {
  return open_existing(path, true);
}

File File::create(const std::string& path) {
  const QuietErrors quiet;
  const Handle fapl = property_list(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_fclose_degree(fapl.id(), H5F_CLOSE_SEMI);
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.id()), H5Fclose);
  if (file.id() < 0) throw InputError(path, 0, "cannot create file" + error_detail());
  return File(std::move(file), path);
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
