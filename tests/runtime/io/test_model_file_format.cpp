// The HDF5 model file: bitwise round trip, the documented layout (read with the raw HDF5 API),
// files written by other tools, single-domain defaults and rigid domains.
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
#include "ramus/runtime/version.h"
#include "support/model_file_edits.h"
#include "support/random_models.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace ramus {

using namespace test;

TEST_CASE("model file round trip is bitwise exact", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const ReducedModel model = make_model();
  const std::string path = dir.file("model.h5");
  write_model_file(model, path);
  CHECK(dir.entries() == std::vector<std::string>{"model.h5"});
  REQUIRE(model.domains.size() == 4);
  REQUIRE(model.parts.size() == 3);
  CHECK(model.domains[2].parent == 0);
  CHECK(model.domains[3].part == 1);  // the leaf part placed twice
  CHECK(model.domains[3].scale == 1.3);
  CHECK(model.domains[2].interface.child_vertices.size() == 6);
  CHECK(model.embedded_surface.rest_positions.rows() == 30);
  require_equal(model, read_model_file(path));

  // Overwriting an existing model with another valid one replaces it.
  const ReducedModel other = make_model(2);
  write_model_file(other, path);
  require_equal(other, read_model_file(path));
  CHECK(dir.entries() == std::vector<std::string>{"model.h5"});
}

TEST_CASE("model file layout matches docs/FORMAT.md (raw HDF5 API)", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const ReducedModel model = make_model();
  const std::string path = dir.file("model.h5");
  write_model_file(model, path);
  const ReducedDomain& d = model.domains[0];
  const ReducedPart& d_part = model.parts[0];

  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const auto dims = [&](const char* name) {
    const hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    const hid_t space = H5Dget_space(ds);
    std::vector<hsize_t> out(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, out.data(), nullptr);
    H5Sclose(space);
    H5Dclose(ds);
    return out;
  };
  const auto d0 = [](const char* name) { return std::string("/domains/domain_0/") + name; };
  const auto p0 = [](const char* name) { return std::string("/parts/part_0/") + name; };
  using Dims = std::vector<hsize_t>;
  CHECK(dims(p0("mesh/rest_positions").c_str()) == Dims{300, 3});
  CHECK(dims(p0("mesh/tets").c_str()) == Dims{900, 4});
  CHECK(dims(p0("mesh/surface_triangles").c_str()) == Dims{200, 3});
  CHECK(dims(p0("mesh/labels").c_str()) == Dims{900});
  CHECK(dims(p0("fixed_vertices").c_str()) == Dims{4});
  CHECK(dims(p0("basis").c_str()) == Dims{900, 5});
  CHECK(dims(p0("gravity_basis").c_str()) == Dims{5, 3});
  CHECK(dims(p0("polynomial/quadratic").c_str()) == Dims{15});
  CHECK(dims(p0("polynomial/cubic").c_str()) == Dims{15, 5});
  CHECK(dims(p0("polynomial/quartic").c_str()) == Dims{15 * 16 / 2});
  CHECK(H5Lexists(file, "/parts/part_1/mesh/labels", H5P_DEFAULT) == 0);
  CHECK(dims("/parts/part_1/fixed_vertices") == Dims{0});
  // Schema version 6: parts placed by domains; a domain holds no mesh or basis.
  CHECK(H5Lexists(file, "/domains/domain_3/basis", H5P_DEFAULT) == 0);
  CHECK(H5Lexists(file, "/domains/domain_3/mesh", H5P_DEFAULT) == 0);

  // Schema version 2: frames, global vertex maps, interfaces, system forces, subtrees.
  CHECK(dims(d0("frame/origin").c_str()) == Dims{3});
  CHECK(dims(d0("frame/rotation").c_str()) == Dims{3, 3});
  CHECK(dims(d0("global_vertices").c_str()) == Dims{300});
  CHECK(H5Lexists(file, "/domains/domain_0/interface", H5P_DEFAULT) == 0);
  CHECK(dims(p0("system_force/w1").c_str()) == Dims{3, 5});
  CHECK(dims(p0("system_force/w2").c_str()) == Dims{3, 5});
  CHECK(dims(p0("system_force/w3").c_str()) == Dims{5});
  CHECK(dims(p0("system_force/w4").c_str()) == Dims{5, 5});
  CHECK(dims(p0("system_force/w5").c_str()) == Dims{3, 15});
  CHECK(dims(p0("system_force/w6").c_str()) == Dims{5, 15});
  CHECK(dims(p0("system_force/w7").c_str()) == Dims{15, 15});
  CHECK(dims(d0("subtree/center_of_mass").c_str()) == Dims{3});
  CHECK(dims(d0("subtree/inertia").c_str()) == Dims{3, 3});
  const auto d1 = [](const char* name) { return std::string("/domains/domain_1/") + name; };
  CHECK(dims(d1("global_vertices").c_str()) == Dims{12});
  CHECK(dims(d1("interface/parent_vertices").c_str()) == Dims{4});
  CHECK(dims(d1("interface/child_vertices").c_str()) == Dims{4});
  CHECK(dims(d1("interface/weights").c_str()) == Dims{4});
  CHECK(dims(d1("interface/centroid").c_str()) == Dims{3});
  CHECK(dims(d1("interface/centroid_basis").c_str()) == Dims{3, 5});  // r of the parent
  CHECK(dims(d1("interface/rest_rotation").c_str()) == Dims{3, 3});
  CHECK(dims(d1("interface/rotation_basis").c_str()) == Dims{3, 15});
  CHECK(dims(d1("interface/covariance").c_str()) == Dims{3, 3});
  CHECK(dims("/parts/part_1/system_force/w7") == Dims{9, 9});
  CHECK(dims("/global_surface_triangles") == Dims{50, 3});
  CHECK(dims("/embedded_surface/rest_positions") == Dims{30, 3});
  CHECK(dims("/embedded_surface/triangles") == Dims{40, 3});
  CHECK(dims("/embedded_surface/domain") == Dims{30});
  CHECK(dims("/embedded_surface/tet") == Dims{30});
  CHECK(dims("/embedded_surface/barycentric") == Dims{30, 4});

  // Row-major: row i of the (#V, 3) dataset is vertex i; (#T, 4) int32 tets likewise.
  std::vector<double> positions(300 * 3);
  hid_t ds = H5Dopen2(file, p0("mesh/rest_positions").c_str(), H5P_DEFAULT);
  REQUIRE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, positions.data()) >= 0);
  H5Dclose(ds);
  CHECK(same_bits(positions[3 * 7 + 2], d_part.rest_positions(7, 2)));
  std::vector<int> tets(900 * 4);
  ds = H5Dopen2(file, p0("mesh/tets").c_str(), H5P_DEFAULT);
  const hid_t tet_type = H5Dget_type(ds);
  CHECK(H5Tequal(tet_type, H5T_STD_I32LE) > 0);
  H5Tclose(tet_type);
  REQUIRE(H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tets.data()) >= 0);
  H5Dclose(ds);
  CHECK(tets[4 * 11 + 3] == d_part.tets(11, 3));
  // Packed quartic: row by row over the upper triangle.
  std::vector<double> quartic(120);
  ds = H5Dopen2(file, p0("polynomial/quartic").c_str(), H5P_DEFAULT);
  REQUIRE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, quartic.data()) >= 0);
  H5Dclose(ds);
  CHECK(same_bits(quartic[static_cast<std::size_t>(pair_index(2, 9, 15))],
                  d_part.polynomial.quartic(2, 9)));
  // The new matrices are row-major too: element (i, j) of an (n, c) dataset is entry c i + j.
  const auto raw = [&](const std::string& name, std::size_t size) {
    std::vector<double> values(size);
    const hid_t set = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
    CHECK(H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
    H5Dclose(set);
    return values;
  };
  const ReducedDomain& leaf_domain = model.domains[1];
  CHECK(same_bits(raw(d0("frame/rotation"), 9)[3 * 0 + 2], d.frame_rotation(0, 2)));
  CHECK(same_bits(raw(d1("interface/rotation_basis"), 45)[15 * 1 + 7],
                  leaf_domain.interface.rotation_basis(1, 7)));
  CHECK(same_bits(raw(d1("interface/rest_rotation"), 9)[3 * 2 + 1],
                  leaf_domain.interface.rest_rotation(2, 1)));
  CHECK(same_bits(raw(p0("system_force/w7"), 225)[15 * 2 + 9], d_part.system_force.w7(2, 9)));
  CHECK(same_bits(raw(p0("system_force/w6"), 75)[15 * 4 + 1], d_part.system_force.w6(4, 1)));
  CHECK(same_bits(raw("/embedded_surface/barycentric", 120)[4 * 5 + 1],
                  model.embedded_surface.barycentric(5, 1)));
  CHECK(H5Fclose(file) >= 0);

  const hdf5::File reopened = hdf5::File::open(path);
  const hdf5::Group root = reopened.root();
  CHECK(root.read_string_attribute("format") == "ramus-model");
  CHECK(root.read_int_attribute("format_version") == kModelFormatVersion);
  CHECK(root.read_string_attribute("ramus_version") == std::string(version_string()));
  CHECK(root.group("domains").read_int_attribute("num_domains") == 4);
  CHECK(root.group("parts").read_int_attribute("num_parts") == 3);
  CHECK(root.group("domains/domain_3").read_int_attribute("part") == 1);
  CHECK(root.group("domains/domain_3").read_double_attribute("scale") == 1.3);
  CHECK(root.group("domains").read_int_attribute("num_global_vertices") ==
        model.num_global_vertices);
  CHECK(root.group("domains/domain_0").read_int_attribute("parent") == -1);
  const hdf5::Group leaf = root.group("domains/domain_1");
  CHECK(leaf.read_string_attribute("name") == "leaf");
  CHECK(leaf.read_int_attribute("part") == 1);
  CHECK(root.group("parts/part_1").read_int_attribute("num_rigid_modes") == 6);
  CHECK(root.group("parts/part_1").read_int_attribute("r") == 3);
  CHECK(leaf.read_int_attribute("parent") == 0);
  CHECK(leaf.group("interface").read_int_attribute("planar") == 1);
  CHECK(root.group("domains/domain_2/interface").read_int_attribute("planar") == 0);
  CHECK(same_bits(leaf.group("subtree").read_double_attribute("mass"), leaf_domain.subtree_mass));
  CHECK(root.group("provenance").read_uint64_attribute("input_hash") == 0xfedcba9876543210ULL);
}

TEST_CASE("hdf5 wrapper reads files written by other tools", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("other.h5");
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  {
    // numpy's defaults: int64 arrays, fixed-length byte strings.
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hsize_t dims[2] = {2, 3};
    const long long values[6] = {1, 2, 3, 4, 5, 6};
    hid_t space = H5Screate_simple(2, dims, nullptr);
    hid_t ds =
        H5Dcreate2(file, "ints", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
    H5Dclose(ds);
    const long long big[6] = {1, 2, 3, 4, 5, 1LL << 40};
    ds = H5Dcreate2(file, "big", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(ds, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, big);
    H5Dclose(ds);
    H5Sclose(space);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, 16);
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    space = H5Screate(H5S_SCALAR);
    const char text[16] = "ramus-model";
    const hid_t attribute = H5Acreate2(file, "format", type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attribute, type, text);
    H5Aclose(attribute);
    H5Sclose(space);
    H5Tclose(type);
    H5Fclose(file);
  }
  const hdf5::File file = hdf5::File::open(path);
  const hdf5::Group root = file.root();
  CHECK(root.read_string_attribute("format") == "ramus-model");
  // Shapes and types as anyone writes them; values only with Ramus's checksum beside them.
  CHECK_THAT(input_error(path, [&] { root.read_matrix_int("ints"); }),
             Contains("dataset /ints has no checksum"));
  CHECK_THAT(input_error(path, [&] { root.read_matrix_int("big"); }),
             Contains("does not fit in a 32-bit integer") && Contains("/big"));
  CHECK_THAT(input_error(path, [&] { root.read_matrix_double("ints"); }),
             Contains("wrong type of dataset /ints: expected floating-point numbers, found "
                      "64-bit integers"));
  CHECK_THAT(input_error(path, [&] { root.read_matrix_int("ints", 2, 4); }),
             Contains("wrong shape of dataset /ints: expected (2, 4), found (2, 3)"));
  CHECK_THAT(input_error(path, [&] { root.read_vector_int("ints"); }),
             Contains("wrong shape of dataset /ints: expected (?), found (2, 3)"));
  CHECK_THAT(input_error(path, [&] { root.read_int_attribute("format"); }),
             Contains("wrong type of attribute 'format' of /: expected an integer"));
  CHECK_THAT(input_error(path, [&] { root.read_double_attribute("mass"); }),
             Contains("missing attribute 'mass' of /"));
  CHECK_THAT(read_error(path), Contains("other.h5: cannot open: no Ramus integrity header"));
}

TEST_CASE("a single-domain model may leave the substructuring data at its defaults",
          "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("beam.h5");
  const ReducedModel model = make_single_domain_model();
  REQUIRE(find_model_inconsistency(model).empty());
  write_model_file(model, path);
  const ReducedModel back = read_model_file(path);
  require_equal(model, back);
  CHECK(!has_system_force(back.parts[0]));
  {
    const hdf5::File file = hdf5::File::open(path);
    const hdf5::Group root = file.root();
    CHECK(root.group("domains").read_int_attribute("num_global_vertices") == 0);
    CHECK(root.shape("global_surface_triangles") == std::vector<Eigen::Index>{0, 3});
    CHECK(root.shape("domains/domain_0/global_vertices") == std::vector<Eigen::Index>{0});
    CHECK(!root.has("domains/domain_0/system_force"));
    CHECK(!root.has("domains/domain_0/interface"));
    CHECK(!root.has("embedded_surface"));
    CHECK(root.group("domains/domain_0/subtree").read_double_attribute("mass") == 0);
  }

  // The same data with everything given (identity map, integrals, subtree mass) is fine too.
  ReducedModel complete = model;
  Random random(9);
  ReducedDomain& d = complete.domains[0];
  ReducedPart& d_part = complete.parts[0];
  d.global_vertices = Eigen::VectorXi::LinSpaced(40, 0, 39);
  complete.num_global_vertices = 40;
  d_part.system_force = random_system_force(random, 4);
  d.subtree_mass = d_part.mass;
  complete.global_surface_triangles = d_part.surface_triangles;
  write_model_file(complete, path);
  require_equal(complete, read_model_file(path));

  // An empty map is the identity: it cannot stand for another number of global vertices.
  ReducedModel identity = model;
  identity.num_global_vertices = 41;
  CHECK_THAT(find_model_inconsistency(identity),
             Contains("dataset /domains/domain_0/global_vertices is empty (the identity), but "
                      "attribute 'num_global_vertices' of /domains is 41, not the domain's 40 "
                      "vertices"));
  // Partly computed integrals are not "not computed".
  ReducedModel partial = model;
  partial.parts[0].system_force.w1 = random.matrix(3, 4);
  CHECK_THAT(find_model_inconsistency(partial),
             Contains("wrong shape of dataset /parts/part_0/system_force/w2: expected (3, 4), "
                      "found (0, 0)"));

  // Several domains: the defaults are no longer allowed.
  ReducedModel tree = make_model();
  tree.parts[1].system_force = {};
  CHECK_THAT(find_model_inconsistency(tree),
             Contains("wrong shape of dataset /parts/part_1/system_force/w1: expected (3, 3), "
                      "found (0, 0)"));
  tree = make_model();
  tree.domains[2].subtree_mass = 0;
  CHECK_THAT(find_model_inconsistency(tree),
             Contains("attribute 'mass' of /domains/domain_2/subtree: 0 (must be positive and "
                      "finite)"));
  tree = make_model();
  tree.domains[0].global_vertices.resize(0);
  CHECK_THAT(find_model_inconsistency(tree),
             Contains("dataset /domains/domain_0/global_vertices is empty: every domain of a "
                      "model of several domains maps its vertices"));
  tree = make_model();
  tree.num_global_vertices = 0;
  CHECK_THAT(find_model_inconsistency(tree),
             Contains("attribute 'num_global_vertices' of /domains: 0 (a model of several "
                      "domains needs the size of its undivided mesh)"));
}

TEST_CASE("a rigid domain (r = 0) round trips with empty bases", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("rigid.h5");
  ReducedModel model = make_model();
  Random random(5);
  RandomDomain rigid = make_domain(random, "pot", 10, 12, 8, 0, false, false);
  rigid.part.num_rigid_modes = 0;
  rigid.part.system_force = {};  // nothing to integrate: written as (3, 0), (3, 0), (0,), ...
  attach(model, random, rigid.domain, 2, 3, false);
  add_domain(model, rigid);  // domain 4, part 3
  // A child of the rigid domain: its interface bases have no columns.
  RandomDomain bud = make_domain(random, "bud", 8, 10, 6, 2, false, false);
  attach(model, random, bud.domain, 4, 3, true);
  add_domain(model, bud);
  model.settings.domains.resize(model.domains.size());  // runtime settings: one per domain
  REQUIRE(find_model_inconsistency(model).empty());
  write_model_file(model, path);
  const ReducedModel back = read_model_file(path);
  REQUIRE(back.domains.size() == 6);
  const ReducedPart& r_part = part_of(back, 4);
  CHECK(r_part.basis.rows() == 30);
  CHECK(r_part.basis.cols() == 0);
  CHECK(r_part.polynomial.r == 0);
  CHECK(has_system_force(r_part));
  CHECK(r_part.system_force.w1.rows() == 3);
  CHECK(r_part.system_force.w7.size() == 0);
  CHECK(back.domains[5].interface.centroid_basis.rows() == 3);
  CHECK(back.domains[5].interface.centroid_basis.cols() == 0);
  model.parts[3].system_force = back.parts[3].system_force;
  require_equal(model, back);
}

}  // namespace ramus

namespace ramus {

TEST_CASE("the field list covers every field: a change anywhere shows at its path",
          "[runtime][io][model_file]") {
  const ReducedModel a = test::make_model();
  const auto differing = [&](const std::function<void(ReducedModel&)>& change) {
    ReducedModel b = a;
    change(b);
    const auto x = test::model_fields_of(a), y = test::model_fields_of(b);
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
      if (x[i] != y[i]) paths.push_back(x[i].first);
    return paths;
  };
  using Paths = std::vector<std::string>;
  CHECK(differing([](ReducedModel& m) { m.domains[1].interface.weights(0) += 1e-12; }) ==
        Paths{"/domains/domain_1/interface/weights"});
  CHECK(differing([](ReducedModel& m) { m.parts[2].system_force.w7(3, 4) *= 2; }) ==
        Paths{"/parts/part_2/system_force/w7"});
  CHECK(differing([](ReducedModel& m) { m.parts[0].polynomial.quartic(1, 1) += 1; }) ==
        Paths{"/parts/part_0/polynomial/quartic"});
  CHECK(differing([](ReducedModel& m) { m.domains[3].scale = 1.25; }) ==
        Paths{"/domains/domain_3/scale"});
  CHECK(differing([](ReducedModel& m) { m.domains[3].part = 2; }) ==
        Paths{"/domains/domain_3/part"});
  CHECK(differing([](ReducedModel& m) { m.settings.domains[1].stiffness_scale = 3; }) ==
        Paths{"/runtime/domains/stiffness_scale"});
  CHECK(differing([](ReducedModel& m) { m.provenance.input_hash ^= 1; }) ==
        Paths{"/provenance/input_hash"});
  CHECK(differing([](ReducedModel& m) { m.embedded_surface.barycentric(0, 0) += 1e-9; }) ==
        Paths{"/embedded_surface/barycentric"});
}

}  // namespace ramus
