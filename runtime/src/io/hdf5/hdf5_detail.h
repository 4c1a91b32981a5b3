// Helpers shared by the reading and the writing half of the HDF5 wrapper (runtime internals).
#pragma once

#include <hdf5.h>
#include <zlib.h>

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "hdf5_file.h"

namespace ramus::hdf5 {

namespace detail {

// Datasets with at least this many elements are chunked and compressed (shuffle + deflate).
inline constexpr Eigen::Index kCompressMinElements = 4096;
inline constexpr hsize_t kChunkElements = 65536;  // 512 KiB of float64 per chunk
inline constexpr unsigned kDeflateLevel = 4;

// Every dataset carries the CRC-32 (zlib's) of its values, as stored in memory (row-major,
// float64 or int32, little-endian), in this attribute.
inline constexpr const char* kChecksumAttribute = "crc32";
inline std::uint64_t content_checksum(const void* data, std::size_t bytes) {
  return ::crc32_z(::crc32_z(0L, Z_NULL, 0), static_cast<const Bytef*>(data), bytes);
}

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

inline herr_t innermost_error(unsigned n, const H5E_error2_t* error, void* client) {
  if (n == 0 && error != nullptr && error->desc != nullptr) {
    *static_cast<std::string*>(client) = error->desc;
  }
  return 0;
}

// ": <description of the innermost entry of HDF5's error stack>", or "" when there is none.
inline std::string error_detail() {
  std::string detail;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_error, &detail);
  return detail.empty() ? std::string() : " (HDF5: " + detail + ")";
}

inline Handle dataspace(hid_t id) {
  return Handle(id, H5Sclose);
}
inline Handle datatype(hid_t id) {
  return Handle(id, H5Tclose);
}
inline Handle property_list(hid_t id) {
  return Handle(id, H5Pclose);
}

// Link-creation properties that create missing parent groups ("mesh/tets" creates "mesh").
inline Handle parents_created() {
  Handle lcpl = property_list(H5Pcreate(H5P_LINK_CREATE));
  if (lcpl.id() >= 0) H5Pset_create_intermediate_group(lcpl.id(), 1);
  return lcpl;
}

inline std::string format_shape(const std::vector<Eigen::Index>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += shape[i] < 0 ? std::string("?") : std::to_string(shape[i]);
  }
  return out + ")";
}

inline std::string describe_type(hid_t type) {
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
inline bool dataspace_shape(hid_t space, std::vector<Eigen::Index>& shape) {
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

inline std::vector<std::string> split_path(const std::string& name) {
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

}  // namespace detail

}  // namespace ramus::hdf5
