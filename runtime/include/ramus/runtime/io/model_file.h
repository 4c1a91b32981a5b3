// Reading a Ramus model file (HDF5, layout in docs/FORMAT.md) into a ReducedModel, and the
// consistency rules the reader and the writer (precompute's model_file_writer.h) share.
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <string>

#include "ramus/runtime/data/model_trust.h"
#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// Value of the root attribute "format" of every model file.
inline constexpr const char* kModelFormatName = "ramus-model";

/// Reads and checks a model file; InputError("<path>: <problem>", naming the dataset) when it is
/// missing, not HDF5, truncated, of another schema version (an older one: "model schema version
/// 1 was written by an older Ramus ...; re-run `ramus precompute`") or inconsistent. `trust`
/// says which signatures it accepts (model_signature.h); they are checked before libhdf5 parses it.
ReducedModel read_model_file(const std::string& path, const ModelTrust& trust = {});
/// The same from a model file's bytes in memory (a game's archive), named `name` in messages;
/// compile_model(read_model_memory(...)) loads it. HDF5 keeps its own copy while reading.
ReducedModel read_model_memory(const void* data, std::size_t size,
                               const std::string& name = "<model in memory>",
                               const ModelTrust& trust = {});

/// The first inconsistency of `model`, naming the dataset that holds it in a file
/// ("wrong shape of dataset /parts/part_0/basis: ..."), or "" when it is consistent.
/// Beyond each part's own data (shapes, index ranges, finite values, symmetric quartic) it
/// checks every domain's part index and scale, that every part is placed, the domain tree (domain 0
/// the root with parent -1, every other parent an earlier domain), rest rotations, interfaces (at
/// least 3 vertices, indices within the parent's and the child's meshes, both copies the same
/// global vertex, bases 3 by r_parent and 3 by 3 r_parent), system-force shapes, global vertex
/// maps, the global surface, the embedded surface and subtree masses (docs/FORMAT.md lists every
/// rule). A model of one domain may leave the substructuring data at its defaults: no global vertex
/// map (the identity; num_global_vertices 0 = its #V), no system-force integrals (all empty) and
/// subtree_mass 0 (not computed).
std::string find_model_inconsistency(const ReducedModel& model);

/// Group of domain k in a model file: "/domains/domain_<k>".
std::string domain_group_path(int k);
/// Group of part k in a model file: "/parts/part_<k>".
std::string part_group_path(int k);

/// Upper triangle (i <= j) of a symmetric n by n matrix, row by row: n (n + 1) / 2 entries in
/// the order of pair_index(i, j, n), as the file stores polynomial/quartic.
Eigen::VectorXd pack_upper_triangle(const Eigen::MatrixXd& symmetric);
/// Inverse of pack_upper_triangle: the full symmetric n by n matrix.
Eigen::MatrixXd unpack_upper_triangle(const Eigen::VectorXd& packed, Eigen::Index n);

}  // namespace ramus
