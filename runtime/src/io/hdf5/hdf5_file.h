// Thin RAII wrapper over the HDF5 C API, enough to read and write Ramus model files: files,
// groups, float64 / float32 / int32 datasets (1-D vectors and row-major 2-D matrices: an Eigen n by
// 3 matrix is stored as an (n, 3) dataset, as h5py users expect) and scalar attributes (UTF-8
// strings, int32, uint64, float64).
// HDF5's automatic error-stack printing is switched off during every call; each failure throws
// ramus::InputError(file, 0, "<what> <object path>[: <detail>]"), e.g.
//   "model.h5: missing dataset /domains/domain_0/basis",
//   "model.h5: wrong shape of dataset /domains/domain_0/basis: expected (12, 3), found (12, 4)".
// Object names passed to a Group are relative to it and may contain '/' ("mesh/tets").
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ramus/runtime/data/model_trust.h"

namespace ramus::hdf5 {

/// An owned HDF5 identifier (hid_t), closed with the matching H5*close on destruction.
class Handle {
 public:
  using Closer = int (*)(std::int64_t);
  Handle() = default;
  Handle(std::int64_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = -1; }
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }

  std::int64_t id() const { return id_; }
  /// Closes the identifier; returns false when H5*close failed (never throws).
  bool reset() noexcept;

 private:
  std::int64_t id_ = -1;
  Closer closer_ = nullptr;
};

/// An open group (or the root group "/") of an open file.
class Group {
 public:
  Group(Handle handle, std::string file, std::string path);

  const std::string& file() const { return file_; }  ///< file name used in error messages
  const std::string& path() const { return path_; }  ///< absolute path inside the file

  /// True when a link (group or dataset) `name` exists below this group.
  bool has(const std::string& name) const;
  bool has_attribute(const std::string& name) const;
  /// The number of links (groups and datasets) directly below this group: a bound on any count of
  /// members that an attribute declares, checked before allocating for them.
  Eigen::Index num_links() const;
  /// Opens an existing group ("missing group ..." otherwise) / creates one (and its parents).
  Group group(const std::string& name) const;
  Group create_group(const std::string& name) const;
  /// Unlinks a dataset or group (H5Ldelete).
  void remove(const std::string& name) const;

  /// Writes a new 1-D dataset (n) of float64 / int32; parent groups are created as needed.
  void write_vector(const std::string& name, const Eigen::Ref<const Eigen::VectorXd>& v) const;
  void write_vector(const std::string& name, const Eigen::Ref<const Eigen::VectorXi>& v) const;
  /// Writes a new 1-D dataset of float32 (a grid distance field's values).
  void write_vector(const std::string& name, const Eigen::Ref<const Eigen::VectorXf>& v) const;
  /// Writes a new 2-D dataset (rows, cols), stored row-major (C order).
  void write_matrix(const std::string& name, const Eigen::Ref<const Eigen::MatrixXd>& m) const;
  void write_matrix(const std::string& name, const Eigen::Ref<const Eigen::MatrixXi>& m) const;

  /// Writes a text (any length, any bytes) as a new 1-D dataset of uint8.
  void write_text(const std::string& name, const std::string& text) const;

  /// Shape of a dataset (empty for a scalar).
  std::vector<Eigen::Index> shape(const std::string& name) const;
  /// Reads a 1-D dataset, checking its length (-1: any): floating-point data of any width as
  /// double, integer data of any width as int (values must fit).
  Eigen::VectorXd read_vector_double(const std::string& name, Eigen::Index size = -1) const;
  Eigen::VectorXi read_vector_int(const std::string& name, Eigen::Index size = -1) const;
  /// Reads a 1-D float32 dataset written by write_vector (its checksum is of the float32 values).
  Eigen::VectorXf read_vector_float(const std::string& name, Eigen::Index size = -1) const;
  /// Reads a 2-D dataset, checking its shape (-1: any).
  Eigen::MatrixXd read_matrix_double(const std::string& name, Eigen::Index rows = -1,
                                     Eigen::Index cols = -1) const;
  Eigen::MatrixXi read_matrix_int(const std::string& name, Eigen::Index rows = -1,
                                  Eigen::Index cols = -1) const;
  /// Reads a text written by write_text.
  std::string read_text(const std::string& name) const;
  /// Every dataset read checks its values against the CRC-32 stored at writing (corrupt files
  /// are errors naming the dataset).

  /// Writes a scalar attribute on this group, replacing an existing one of the same name.
  void write_string_attribute(const std::string& name, const std::string& value) const;
  void write_int_attribute(const std::string& name, int value) const;
  void write_uint64_attribute(const std::string& name, std::uint64_t value) const;
  void write_double_attribute(const std::string& name, double value) const;
  /// Reads a scalar attribute (strings: fixed length only, see hdf5_file_read.cpp; numbers: any
  /// width).
  std::string read_string_attribute(const std::string& name) const;
  int read_int_attribute(const std::string& name) const;
  std::uint64_t read_uint64_attribute(const std::string& name) const;
  double read_double_attribute(const std::string& name) const;

 private:
  std::string child_path(const std::string& name) const;
  [[noreturn]] void fail(const std::string& message) const;
  enum class Element { kFloat64, kFloat32, kInt32, kUint8 };
  void write_dataset(const std::string& name, Element element,
                     const std::vector<Eigen::Index>& dims, const void* data) const;
  Handle open_dataset(const std::string& name, Element element,
                      const std::vector<Eigen::Index>& expected,
                      std::vector<Eigen::Index>& found) const;
  Handle open_attribute(const std::string& name) const;
  void write_attribute(const std::string& name, std::int64_t file_type, std::int64_t memory_type,
                       const void* value) const;

  Handle handle_;
  std::string file_;
  std::string path_;
};

/// An open HDF5 file. The destructor closes it quietly; call close() after writing to learn
/// whether everything reached the disk.
/// The integrity header ("seal") of a Ramus HDF5 file: HDF5's 512-byte user block, which the
/// library skips, holds "RAMUS-SEAL 1", the file's length, the CRC-32 of every byte after it and,
/// when signed, an Ed25519 signature of those bytes (file_seal.h).
/// seal_file writes it into a closed file created by File::create (writing half), signed when
/// `ed25519_secret_key` (libsodium's 64 bytes) is not null.
/// verify_seal checks a file before libhdf5 parses any of it (a corrupt file can crash or hang
/// libhdf5 itself): InputError naming the file when it is not a regular file, the seal is
/// missing or damaged, the file truncated or its bytes changed, or its signature is not what
/// `trust` asks for (model_signature.h).
inline constexpr std::size_t kSealBytes = 512;
void seal_file(const std::string& path, const unsigned char* ed25519_secret_key = nullptr);
void verify_seal(const std::string& path, const ModelTrust& trust = {});
/// The same check of a file's bytes in memory, named `name` in messages.
void verify_seal_memory(const void* data, std::size_t size, const std::string& name,
                        const ModelTrust& trust = {});

class File {
 public:
  /// Opens an existing file read-only / read-write; InputError when it is missing, not HDF5,
  /// truncated or corrupt.
  static File open(const std::string& path);
  /// Opens a file's bytes in memory read-only (HDF5's core driver keeps its own copy), named
  /// `name` in messages; InputError when they are not a valid HDF5 file.
  static File open_memory(const void* data, std::size_t size, const std::string& name);
  static File open_read_write(const std::string& path);
  /// Creates (truncates) a file, with a kSealBytes user block for seal_file.
  static File create(const std::string& path);

  const std::string& path() const { return path_; }
  /// The root group "/" (attributes of the file live there).
  Group root() const;
  /// Flushes and closes the file; throws when that fails or a Group of it is still open.
  void close();

 private:
  File(Handle handle, std::string path) : handle_(std::move(handle)), path_(std::move(path)) {}
  static File open_existing(const std::string& path, bool writable);

  Handle handle_;
  std::string path_;
};

}  // namespace ramus::hdf5
