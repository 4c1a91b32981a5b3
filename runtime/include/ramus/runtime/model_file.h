// Reading a Ramus model file (HDF5, layout in docs/FORMAT.md) into a ReducedModel, and the
// consistency rules the reader and the writer (precompute's model_file_writer.h) share.
#pragma once

#include <Eigen/Core>
#include <string>

#include "ramus/runtime/reduced_model.h"

namespace ramus {

/// Value of the root attribute "format" of every model file.
inline constexpr const char* kModelFormatName = "ramus-model";

/// Reads and checks a model file; InputError("<path>: <problem>", naming the dataset) when it is
/// missing, not HDF5, truncated, of another schema version or inconsistent.
ReducedModel read_model_file(const std::string& path);

/// The first inconsistency of `model`, naming the dataset that holds it in a file
/// ("wrong shape of dataset /domains/domain_0/basis: ..."), or "" when it is consistent.
std::string find_model_inconsistency(const ReducedModel& model);

/// Group of domain k in a model file: "/domains/domain_<k>".
std::string domain_group_path(int k);

/// Upper triangle (i <= j) of a symmetric n by n matrix, row by row: n (n + 1) / 2 entries in
/// the order of pair_index(i, j, n), as the file stores polynomial/quartic.
Eigen::VectorXd pack_upper_triangle(const Eigen::MatrixXd& symmetric);
/// Inverse of pack_upper_triangle: the full symmetric n by n matrix.
Eigen::MatrixXd unpack_upper_triangle(const Eigen::VectorXd& packed, Eigen::Index n);

}  // namespace ramus
