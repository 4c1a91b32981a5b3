// The writing half of the HDF5 wrapper: only precompute (the model writer) and tests link it.
#include "hdf5_file.h"

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <system_error>
#include <type_traits>

#include "file_seal.h"
#include "hdf5_detail.h"
#include "ramus/error.h"

namespace ramus::hdf5 {

using namespace detail;

Group Group::create_group(const std::string& name) const {
  const QuietErrors quiet;
  const Handle lcpl = parents_created();
  const Handle gcpl = property_list(H5Pcreate(H5P_GROUP_CREATE));
  // No modification times: the same model gives the same bytes.
  if (gcpl.id() < 0 || H5Pset_obj_track_times(gcpl.id(), false) < 0) {
    fail("cannot create group " + child_path(name) + error_detail());
  }
  Handle group(H5Gcreate2(handle_.id(), name.c_str(), lcpl.id(), gcpl.id(), H5P_DEFAULT), H5Gclose);
  if (group.id() < 0) fail("cannot create group " + child_path(name) + error_detail());
  return Group(std::move(group), file_, child_path(name));
}

void Group::remove(const std::string& name) const {
  const QuietErrors quiet;
  if (H5Ldelete(handle_.id(), name.c_str(), H5P_DEFAULT) < 0) {
    fail("cannot remove " + child_path(name) + error_detail());
  }
}

void Group::write_dataset(const std::string& name, Element element,
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
  if (space.id() < 0 || dcpl.id() < 0 || H5Pset_obj_track_times(dcpl.id(), false) < 0) {
    fail("cannot create dataset " + child_path(name));
  }
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
  const hid_t file_type = element == Element::kFloat64   ? H5T_IEEE_F64LE
                          : element == Element::kFloat32 ? H5T_IEEE_F32LE
                          : element == Element::kInt32   ? H5T_STD_I32LE
                                                         : H5T_STD_U8LE;
  const hid_t memory_type = element == Element::kFloat64   ? H5T_NATIVE_DOUBLE
                            : element == Element::kFloat32 ? H5T_NATIVE_FLOAT
                            : element == Element::kInt32   ? H5T_NATIVE_INT
                                                           : H5T_NATIVE_UCHAR;
  const std::size_t element_bytes = element == Element::kFloat64 ? 8u
                                    : element == Element::kUint8 ? 1u
                                                                 : 4u;
  Handle dataset(H5Dcreate2(handle_.id(), name.c_str(), file_type, space.id(), lcpl.id(), dcpl.id(),
                            H5P_DEFAULT),
                 H5Dclose);
  if (dataset.id() < 0) fail("cannot create dataset " + child_path(name) + error_detail());
  if (total > 0 && H5Dwrite(dataset.id(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    fail("cannot write dataset " + child_path(name) + error_detail());
  }
  // The CRC-32 of the values, checked at every read (verify_checksum).
  const std::uint64_t checksum =
      content_checksum(data, static_cast<std::size_t>(total) * element_bytes);
  const Handle scalar = dataspace(H5Screate(H5S_SCALAR));
  const Handle attribute(H5Acreate2(dataset.id(), kChecksumAttribute, H5T_STD_U64LE, scalar.id(),
                                    H5P_DEFAULT, H5P_DEFAULT),
                         H5Aclose);
  if (attribute.id() < 0 || H5Awrite(attribute.id(), H5T_NATIVE_UINT64, &checksum) < 0)
    fail("cannot write the checksum of dataset " + child_path(name) + error_detail());
  if (!dataset.reset()) fail("cannot write dataset " + child_path(name) + error_detail());
}

void Group::write_vector(const std::string& name,
                         const Eigen::Ref<const Eigen::VectorXd>& v) const {
  write_dataset(name, Element::kFloat64, {v.size()}, v.data());
}

void Group::write_vector(const std::string& name,
                         const Eigen::Ref<const Eigen::VectorXi>& v) const {
  write_dataset(name, Element::kInt32, {v.size()}, v.data());
}

void Group::write_vector(const std::string& name,
                         const Eigen::Ref<const Eigen::VectorXf>& v) const {
  write_dataset(name, Element::kFloat32, {v.size()}, v.data());
}

void Group::write_matrix(const std::string& name,
                         const Eigen::Ref<const Eigen::MatrixXd>& m) const {
  const RowMajorXd row_major = m;
  write_dataset(name, Element::kFloat64, {m.rows(), m.cols()}, row_major.data());
}

void Group::write_matrix(const std::string& name,
                         const Eigen::Ref<const Eigen::MatrixXi>& m) const {
  const RowMajorXi row_major = m;
  write_dataset(name, Element::kInt32, {m.rows(), m.cols()}, row_major.data());
}

void Group::write_text(const std::string& name, const std::string& text) const {
  write_dataset(name, Element::kUint8, {static_cast<Eigen::Index>(text.size())}, text.data());
}

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
  // Fixed-length (no global heap, see read_string_attribute), NUL-padded, UTF-8.
  const Handle type = datatype(H5Tcopy(H5T_C_S1));
  if (type.id() < 0 || H5Tset_size(type.id(), std::max<std::size_t>(1, value.size())) < 0 ||
      H5Tset_strpad(type.id(), H5T_STR_NULLPAD) < 0 || H5Tset_cset(type.id(), H5T_CSET_UTF8) < 0) {
    fail("cannot create a string type for attribute '" + name + "' of " + path_);
  }
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  write_attribute(name, type.id(), type.id(), padded.data());
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

void seal_file(const std::string& path, const unsigned char* ed25519_secret_key) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  char signature[4] = {};
  if (!file || !file.seekg(static_cast<std::streamoff>(kSealBytes)) || !file.read(signature, 4) ||
      std::memcmp(signature, "\x89HDF", 4) != 0)
    throw InputError(path, 0, "cannot seal: not an HDF5 file with a user block");
  // One pass: length, checksum and, for a signed file, the Ed25519ph state.
  seal::start_sodium();
  crypto_sign_state state;
  crypto_sign_init(&state);
  seal::Fields fields;
  if (!seal::digest_after_seal(file, fields.crc32, fields.length,
                               ed25519_secret_key != nullptr ? &state : nullptr))
    throw InputError(path, 0, "cannot read the file to seal it");
  if (ed25519_secret_key != nullptr) {
    fields.is_signed = true;
    crypto_sign_ed25519_sk_to_pk(fields.key.data(), ed25519_secret_key);
    crypto_sign_final_create(&state, fields.signature.data(), nullptr, ed25519_secret_key);
  }
  // The header, written over the user block.
  file.clear();
  const std::string header = seal::format(fields);
  file.seekp(0);
  file.write(header.data(), static_cast<std::streamsize>(header.size()));
  file.flush();
  if (!file) throw InputError(path, 0, "cannot write the seal");
}

File File::open_read_write(const std::string& path) {
  return open_existing(path, true);
}

File File::create(const std::string& path) {
  const QuietErrors quiet;
  const Handle fapl = property_list(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_fclose_degree(fapl.id(), H5F_CLOSE_SEMI);
  const Handle fcpl = property_list(H5Pcreate(H5P_FILE_CREATE));
  if (fcpl.id() < 0 || H5Pset_userblock(fcpl.id(), kSealBytes) < 0 ||
      H5Pset_obj_track_times(fcpl.id(), false) < 0)
    throw InputError(path, 0, "cannot create file (user block)" + error_detail());
  Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.id(), fapl.id()), H5Fclose);
  if (file.id() < 0) throw InputError(path, 0, "cannot create file" + error_detail());
  return File(std::move(file), path);
}

}  // namespace ramus::hdf5
