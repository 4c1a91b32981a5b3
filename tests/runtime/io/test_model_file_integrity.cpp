// Model files corrupted after writing: a dataset that reads differently from what was written
// (its CRC-32), the seal of the integrity header.
#include <hdf5.h>
#include <unistd.h>

#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/hdf5/hdf5_file.h"  // runtime internals: the HDF5 wrapper
#include "ramus/error.h"
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/runtime/io/model_file.h"
#include "support/model_file_edits.h"
#include "support/random_models.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace ramus {

using namespace test;

TEST_CASE("a file that reads differently from what was written is refused, naming the dataset",
          "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("model.h5");
  write_model_file(make_model(), path);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  // One value changed behind the writer's back (raw HDF5: the checksum is not updated).
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t dataset = H5Dopen2(file, "/parts/part_0/basis", H5P_DEFAULT);
    const hid_t space = H5Dget_space(dataset);
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(space, dims, nullptr);
    std::vector<double> values(dims[0] * dims[1]);
    H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    values[3] *= 1 + 1e-15;
    H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Sclose(space);
    H5Dclose(dataset);
    H5Fclose(file);
    hdf5::seal_file(path);  // (a tool that re-seals what it changed: the dataset's own checksum)
  }
  CHECK_THAT(read_error(path), Contains("model.h5: dataset /parts/part_0/basis does not match "
                                        "its checksum"));

  // Zeroed (a chunk index that lost its entries reads as fill values): the same message.
  write_model_file(make_model(), path);
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t dataset = H5Dopen2(file, "/parts/part_0/gravity_basis", H5P_DEFAULT);
    const hid_t space = H5Dget_space(dataset);
    const std::vector<double> zeros(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
    H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data());
    H5Sclose(space);
    H5Dclose(dataset);
    H5Fclose(file);
    hdf5::seal_file(path);
  }
  CHECK_THAT(read_error(path), Contains("gravity_basis does not match its checksum"));

  // A variable-length string (in the global heap, whose corruption crashed or hung libhdf5).
  write_model_file(make_model(), path);
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t group = H5Gopen2(file, "/domains/domain_0", H5P_DEFAULT);
    H5Adelete(group, "name");
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attribute = H5Acreate2(group, "name", type, space, H5P_DEFAULT, H5P_DEFAULT);
    const char* text = "base";
    H5Awrite(attribute, type, &text);
    H5Aclose(attribute);
    H5Sclose(space);
    H5Tclose(type);
    H5Gclose(group);
    H5Fclose(file);
    hdf5::seal_file(path);
  }
  CHECK_THAT(read_error(path), Contains("attribute 'name' of /domains/domain_0 is a "
                                        "variable-length string"));

  // A dataset declaring far more values than the file holds (2^28 by 3 doubles, never
  // written): refused from its shape, before 6 GiB are allocated for it.
  write_model_file(make_model(), path);
  {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    REQUIRE(H5Ldelete(file, "/parts/part_0/mesh/rest_positions", H5P_DEFAULT) >= 0);
    const hsize_t dims[2] = {hsize_t{1} << 28, 3};
    const hid_t space = H5Screate_simple(2, dims, nullptr);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    const hsize_t chunk[2] = {1024, 3};
    H5Pset_chunk(dcpl, 2, chunk);
    const hid_t dataset = H5Dcreate2(file, "/parts/part_0/mesh/rest_positions", H5T_IEEE_F64LE,
                                     space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    REQUIRE(dataset >= 0);
    H5Dclose(dataset);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(file);
    hdf5::seal_file(path);
  }
  CHECK(std::filesystem::file_size(path) < 1000000);
  CHECK_THAT(read_error(path), Contains("more than the file can hold"));

  // A count in an attribute: bounded by what the datasets hold before it sizes anything.
  write_model_file(make_model(), path);
  edit(path, [](const hdf5::Group& root) {
    root.group("domains").write_int_attribute("num_global_vertices", 2147483647);
  });
  CHECK_THAT(read_error(path), Contains("attribute 'num_global_vertices' of /domains: 2147483647 "
                                        "exceeds the"));
}

TEST_CASE("the integrity header refuses a changed or cut file before libhdf5 parses it",
          "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("model.h5");
  write_model_file(make_model(), path);
  const std::string bytes = file_bytes(path);
  REQUIRE(bytes.compare(0, 13, "RAMUS-SEAL 1\n") == 0);
  REQUIRE(read_model_file(path).domains.size() == 4);
  // One bit anywhere in the HDF5 part (here in its structure, where libhdf5 1.10 crashed on a
  // corrupt local heap or a layout message turned "compact").
  for (const std::size_t at : {std::size_t{600}, bytes.size() / 2, bytes.size() - 1}) {
    std::string changed = bytes;
    changed[at] = static_cast<char>(changed[at] ^ 0x10);
    write_bytes(path, changed);
    CHECK_THAT(read_error(path), Contains("model.h5: cannot open: the file's bytes changed since "
                                          "it was written"));
  }
  write_bytes(path, bytes.substr(0, bytes.size() - 100));
  CHECK_THAT(read_error(path),
             Contains("cannot open: the file has " + std::to_string(bytes.size() - 100) +
                      " bytes where it was written with " + std::to_string(bytes.size())));
  // Without the header (schema 4 and older, other tools): the re-run message, libhdf5 untouched.
  write_bytes(path, bytes.substr(hdf5::kSealBytes));
  CHECK_THAT(read_error(path), Contains("no Ramus integrity header"));
}

}  // namespace ramus
