// Structure-aware mutation of model files (the re-sealed target's LLVMFuzzerCustomMutator): opens
// a well-sealed file with libhdf5, picks a random numeric dataset or attribute and edits values
// in place (scaled by 1e±200, negated, set to 0, ±inf, NaN, -1, 2^31 - 1, shifted by ±1), fixes
// the dataset's CRC-32 attribute and seals the file again: a crafted file whose every checksum is
// right, which only Ramus's semantic checks can refuse.
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "io/hdf5/hdf5_detail.h"  // runtime internals: content_checksum, kChecksumAttribute
#include "io/hdf5/hdf5_file.h"    // runtime internals: verify_seal, seal_file
#include "ramus/error.h"

namespace ramus::fuzz {

// An edit of one value.
inline double edited_value(double x, std::mt19937_64& random) {
  switch (random() % 10) {
    case 0:
      return x * 1e200;
    case 1:
      return x * 1e-200;
    case 2:
      return -x;
    case 3:
      return 0;
    case 4:
      return std::numeric_limits<double>::infinity();
    case 5:
      return std::numeric_limits<double>::quiet_NaN();
    case 6:
      return -1;
    case 7:
      return 2147483647.0;
    case 8:
      return x + 1;
    default:
      return x * (1 + 1e-3 * static_cast<double>(random() % 2000) - 1.0);
  }
}

struct FileObjects {
  std::vector<std::string> datasets, groups;
};

inline herr_t collect_object(hid_t, const char* name, const H5O_info_t* info, void* data) {
  auto& objects = *static_cast<FileObjects*>(data);
  if (info->type == H5O_TYPE_DATASET) objects.datasets.emplace_back(name);
  if (info->type == H5O_TYPE_GROUP) objects.groups.emplace_back(name);
  return 0;
}

// Edits a few values of numeric dataset `name` in place and rewrites its checksum.
inline void edit_dataset(hid_t file, const std::string& name, std::mt19937_64& random) {
  const hid_t dataset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  if (dataset < 0) return;
  const hid_t type = H5Dget_type(dataset), space = H5Dget_space(dataset);
  const H5T_class_t type_class = H5Tget_class(type);
  const hssize_t count = H5Sget_simple_extent_npoints(space);
  if (count > 0 && count < (1 << 24) && (type_class == H5T_FLOAT || type_class == H5T_INTEGER) &&
      H5Tget_size(type) >= 4) {
    const bool floating = type_class == H5T_FLOAT;
    std::vector<double> values(static_cast<std::size_t>(count));
    std::vector<int> ints(static_cast<std::size_t>(count));
    const bool read =
        floating
            ? H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0
            : H5Dread(dataset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints.data()) >= 0;
    if (read) {
      // One value, a few, or all of them.
      const std::size_t n = values.size();
      const std::size_t edits = random() % 3 == 0 ? n : 1 + random() % 4;
      const bool all = edits == n;
      for (std::size_t e = 0; e < std::min(edits, n); ++e) {
        const std::size_t at = all ? e : random() % n;
        if (floating)
          values[at] = edited_value(values[at], random);
        else
          ints[at] = static_cast<int>(
              std::clamp(edited_value(ints[at], random), -2147483648.0, 2147483647.0));
      }
      std::uint64_t checksum = 0;
      if (floating) {
        H5Dwrite(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
        checksum = hdf5::detail::content_checksum(values.data(), n * sizeof(double));
      } else {
        H5Dwrite(dataset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, ints.data());
        checksum = hdf5::detail::content_checksum(ints.data(), n * sizeof(int));
      }
      if (H5Aexists(dataset, hdf5::detail::kChecksumAttribute) > 0) {
        const hid_t attribute = H5Aopen(dataset, hdf5::detail::kChecksumAttribute, H5P_DEFAULT);
        H5Awrite(attribute, H5T_NATIVE_UINT64, &checksum);
        H5Aclose(attribute);
      }
    }
  }
  H5Sclose(space);
  H5Tclose(type);
  H5Dclose(dataset);
}

// Edits one numeric scalar attribute of group `name` (not a checksum).
inline void edit_attribute(hid_t file, const std::string& name, std::mt19937_64& random) {
  const hid_t group = H5Gopen2(file, name.c_str(), H5P_DEFAULT);
  if (group < 0) return;
  H5O_info_t info;
  if (H5Oget_info2(group, &info, H5O_INFO_NUM_ATTRS) >= 0 && info.num_attrs > 0) {
    const hid_t attribute = H5Aopen_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_NATIVE,
                                           random() % info.num_attrs, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t type = H5Aget_type(attribute), space = H5Aget_space(attribute);
    if (H5Sget_simple_extent_npoints(space) == 1 && H5Tget_class(type) == H5T_FLOAT) {
      double x = 0;
      if (H5Aread(attribute, H5T_NATIVE_DOUBLE, &x) >= 0) {
        x = edited_value(x, random);
        H5Awrite(attribute, H5T_NATIVE_DOUBLE, &x);
      }
    } else if (H5Sget_simple_extent_npoints(space) == 1 && H5Tget_class(type) == H5T_INTEGER &&
               H5Tget_size(type) == 4) {
      int x = 0;
      if (H5Aread(attribute, H5T_NATIVE_INT, &x) >= 0) {
        x = static_cast<int>(std::clamp(edited_value(x, random), -2147483648.0, 2147483647.0));
        H5Awrite(attribute, H5T_NATIVE_INT, &x);
      }
    }
    H5Sclose(space);
    H5Tclose(type);
    H5Aclose(attribute);
  }
  H5Gclose(group);
}

/// Edits values of the model file at `path` and seals it again; false (file unchanged) unless
/// the file is well sealed (only such files are opened with libhdf5 here).
inline bool mutate_model_values(const std::string& path, std::mt19937_64& random) {
  try {
    hdf5::verify_seal(path);
  } catch (const Error&) {
    return false;
  }
  const hdf5::detail::QuietErrors quiet;  // (a failed call is simply no edit)
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0) return false;
  FileObjects objects;
  H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_NATIVE, collect_object, &objects, H5O_INFO_BASIC);
  objects.groups.emplace_back(".");
  const int edits = 1 + static_cast<int>(random() % 3);
  for (int e = 0; e < edits; ++e) {
    if (random() % 4 == 0 || objects.datasets.empty())
      edit_attribute(file, objects.groups[random() % objects.groups.size()], random);
    else
      edit_dataset(file, objects.datasets[random() % objects.datasets.size()], random);
  }
  H5Fclose(file);
  try {
    hdf5::seal_file(path);
  } catch (const Error&) {
    return false;
  }
  return true;
}

}  // namespace ramus::fuzz
