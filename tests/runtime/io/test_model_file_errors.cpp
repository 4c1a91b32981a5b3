// Bad model files: missing, truncated, other schema versions, inconsistent data, each named by
// file and dataset; the atomic writer refuses what the reader would (the /runtime group's
// settings and scenario: test_runtime_file_errors.cpp).
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

TEST_CASE("reading a missing, truncated or non-HDF5 file names the problem",
          "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string missing = dir.file("missing.h5");
  CHECK_THAT(read_error(missing), Contains("missing.h5: cannot open: no such file"));

  const std::string text = dir.file("text.h5");
  write_bytes(text, "this is not an HDF5 file\n");
  CHECK_THAT(read_error(text), Contains("text.h5: cannot open: not an HDF5 file"));

  const std::string valid = dir.file("valid.h5");
  write_model_file(make_model(), valid);
  const std::string bytes = file_bytes(valid);
  const std::string truncated = dir.file("truncated.h5");
  write_bytes(truncated, bytes.substr(0, bytes.size() / 2));
  CHECK_THAT(read_error(truncated),
             Contains("truncated.h5: cannot open: the file has " +
                      std::to_string(bytes.size() / 2) + " bytes where it was written with " +
                      std::to_string(bytes.size()) + " (truncated or appended to)"));

  const std::string plain = dir.file("plain.h5");
  hdf5::File::create(plain).close();
  hdf5::seal_file(plain);
  CHECK_THAT(read_error(plain), Contains("plain.h5: not a Ramus model file"));
}

TEST_CASE("reading a model of another schema version asks to re-run precompute",
          "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("old.h5");
  write_model_file(make_model(), path);
  // A schema version 1 file: one domain, none of the substructuring data.
  edit(path, [](const hdf5::Group& root) {
    root.write_int_attribute("format_version", 1);
    root.write_string_attribute("ramus_version", "0.1.0");
    root.remove("global_surface_triangles");
    root.remove("embedded_surface");
    root.remove("domains/domain_1");
    root.remove("domains/domain_2");
    root.remove("domains/domain_3");
    root.remove("parts");
    root.group("domains").write_int_attribute("num_domains", 1);
    for (const char* name : {"frame", "global_vertices", "subtree"}) {
      root.remove(std::string("domains/domain_0/") + name);
    }
  });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 1 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 10)"));
  // Version 2: no runtime settings yet.
  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 2); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 2 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 10)"));

  // Version 3: the Newmark-only runtime settings.
  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 3); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 3 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 10)"));
  // Version 4: variable-length strings, no checksums. The version is read before any string.
  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 4); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 4 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 10)"));
  // Version 5: every domain its own mesh and basis (no parts).
  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 5); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 5 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 10)"));

  // Version 6: the run's scenario (steps, forces) in the stored spec, not in /runtime/scenario.
  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 6); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 6 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 10)"));

  // Version 7: the per-domain settings under /runtime/nodes.
  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 7); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 7 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 10)"));

  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 8); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 8 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 10)"));

  // Version 9: an assembly part's render surface copied into /embedded_surface per placement.
  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 9); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 9 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 10)"));

  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 0); });
  CHECK_THAT(read_error(path), Contains("old.h5: model schema version 0 does not exist; re-run "
                                        "`ramus precompute`"));

  edit(path, [](const hdf5::Group& root) {
    root.write_int_attribute("format_version", 11);
    root.write_string_attribute("ramus_version", "9.0.0");
  });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 11 was written by a newer Ramus (9.0.0); "
                      "upgrade Ramus, or re-run `ramus precompute` with this one (this Ramus "
                      "reads schema version 10)"));
}

TEST_CASE("reading an inconsistent model names the dataset", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("model.h5");
  const ReducedModel model = make_model();
  const auto broken = [&](const std::function<void(const hdf5::Group&)>& change) {
    write_model_file(model, path);
    edit(path, change);
    return read_error(path);
  };

  CHECK_THAT(broken([](const hdf5::Group& root) { root.remove("parts/part_0/basis"); }),
             Contains("model.h5: missing dataset /parts/part_0/basis"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("parts/part_0/basis");
               root.write_matrix("parts/part_0/basis", Eigen::MatrixXd::Zero(899, 5));
             }),
             Contains("model.h5: wrong shape of dataset /parts/part_0/basis: expected (900, "
                      "5), found (899, 5)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("parts/part_1/mesh/tets");
               root.write_matrix("parts/part_1/mesh/tets", Eigen::MatrixXd::Zero(20, 4));
             }),
             Contains("wrong type of dataset /parts/part_1/mesh/tets: expected integers"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("parts/part_1/material/density");
               root.write_vector("parts/part_1/material/density", Eigen::VectorXd::Ones(19));
             }),
             Contains("wrong shape of dataset /parts/part_1/material/density: expected "
                      "(20), found (19)"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixXi tets = model.parts[1].tets;
               tets(5, 2) = 12;
               root.remove("parts/part_1/mesh/tets");
               root.write_matrix("parts/part_1/mesh/tets", tets);
             }),
             Contains("dataset /parts/part_1/mesh/tets: tet 5 references vertex 12, but "
                      "there are 12 vertices"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixXd basis = model.parts[1].basis;
               basis(7, 1) = std::numeric_limits<double>::quiet_NaN();
               root.remove("parts/part_1/basis");
               root.write_matrix("parts/part_1/basis", basis);
             }),
             Contains("non-finite value in dataset /parts/part_1/basis at (7, 1)"));
  // Counts bounded by the groups the file holds before anything is allocated for them (a
  // mutation found by fuzz_model_file_sealed: 2^31 - 1 domains cleared gigabytes for minutes).
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains").write_int_attribute("num_domains", 5);
             }),
             Contains("attribute 'num_domains' of /domains is 5 (must be in [1, 4], the groups "
                      "/domains holds)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains").write_int_attribute("num_domains", 2147483647);
             }),
             Contains("attribute 'num_domains' of /domains is 2147483647"));
  // Parts: counted, indexed, scaled and all placed.
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("parts").write_int_attribute("num_parts", 5);
             }),
             Contains("attribute 'num_parts' of /parts is 5 (must be in [1, num_domains = 4]"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("parts").write_int_attribute("num_parts", 4);
             }),
             Contains("attribute 'num_parts' of /parts is 4 (must be in [1, num_domains = 4] and "
                      "at most the 3 groups /parts holds)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains/domain_3").write_int_attribute("part", 3);
             }),
             Contains("attribute 'part' of /domains/domain_3: 3 (there are 3 parts)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains/domain_3").write_double_attribute("scale", 0.0);
             }),
             Contains("attribute 'scale' of /domains/domain_3: 0 (must be in [0.001, 1000])"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains/domain_3")
                   .write_double_attribute("scale", std::numeric_limits<double>::quiet_NaN());
             }),
             Contains("attribute 'scale' of /domains/domain_3: nan"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains/domain_1").write_int_attribute("part", 0);
               root.group("domains/domain_3").write_int_attribute("part", 0);
             }),
             Contains("global_vertices"));  // (the trunk part has 300 vertices, not 12)
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("parts/part_0").write_int_attribute("r", 4);
             }),
             Contains("wrong shape of dataset /parts/part_0/basis: expected (900, 4), found "
                      "(900, 5)"));
}

TEST_CASE("reading an inconsistent domain tree names the dataset", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("model.h5");
  const ReducedModel model = make_model();
  const auto broken = [&](const std::function<void(const hdf5::Group&)>& change) {
    write_model_file(model, path);
    edit(path, change);
    return read_error(path);
  };
  const auto replace_vector = [](const hdf5::Group& root, const std::string& name,
                                 const Eigen::VectorXi& v) {
    root.remove(name);
    root.write_vector(name, v);
  };

  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains/domain_2").write_int_attribute("parent", 2);
             }),
             Contains("model.h5: attribute 'parent' of /domains/domain_2: 2 (the parent of domain "
                      "2 must be an earlier domain, 0 <= parent < 2)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains/domain_0").write_int_attribute("parent", 1);
             }),
             Contains("attribute 'parent' of /domains/domain_0: 1 (domain 0 is the root of the "
                      "tree: its parent must be -1)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("parts/part_0/system_force/w7");
               root.write_matrix("parts/part_0/system_force/w7", Eigen::MatrixXd::Zero(14, 15));
             }),
             Contains("model.h5: wrong shape of dataset /parts/part_0/system_force/w7: "
                      "expected (15, 15), found (14, 15)"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::VectorXi v = model.domains[1].interface.parent_vertices;
               v(2) = 300;
               replace_vector(root, "domains/domain_1/interface/parent_vertices", v);
             }),
             Contains("model.h5: dataset /domains/domain_1/interface/parent_vertices: entry 2 "
                      "references vertex 300, but there are 300 vertices in the parent "
                      "/domains/domain_0"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::VectorXi v = model.domains[2].interface.child_vertices;
               v(1) = -1;
               replace_vector(root, "domains/domain_2/interface/child_vertices", v);
             }),
             Contains("dataset /domains/domain_2/interface/child_vertices: entry 1 references "
                      "vertex -1, but there are 40 vertices in this domain"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               for (const char* name : {"parent_vertices", "child_vertices"}) {
                 const std::string dataset = std::string("domains/domain_1/interface/") + name;
                 replace_vector(root, dataset, root.read_vector_int(dataset).head(2));
               }
               root.remove("domains/domain_1/interface/weights");
               root.write_vector("domains/domain_1/interface/weights", Eigen::VectorXd::Ones(2));
             }),
             Contains("dataset /domains/domain_1/interface/child_vertices: the interface has 2 "
                      "vertices (at least 3 are needed)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("domains/domain_1/interface/centroid_basis");
               root.write_matrix("domains/domain_1/interface/centroid_basis",
                                 Eigen::MatrixXd::Zero(3, 4));
             }),
             Contains("wrong shape of dataset /domains/domain_1/interface/centroid_basis: "
                      "expected (3, 5), found (3, 4)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("domains/domain_2/interface/rotation_basis");
               root.write_matrix("domains/domain_2/interface/rotation_basis",
                                 Eigen::MatrixXd::Zero(3, 5));
             }),
             Contains("wrong shape of dataset /domains/domain_2/interface/rotation_basis: "
                      "expected (3, 15), found (3, 5)"));
  CHECK_THAT(broken([](const hdf5::Group& root) { root.remove("domains/domain_1/interface"); }),
             Contains("model.h5: missing group /domains/domain_1/interface"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains/domain_2/interface").write_int_attribute("planar", 2);
             }),
             Contains("attribute 'planar' of /domains/domain_2/interface is 2 (must be 0 or 1)"));
  const int N = model.num_global_vertices;
  CHECK_THAT(
      broken([&](const hdf5::Group& root) {
        Eigen::VectorXi v = model.domains[1].global_vertices;
        v(5) = N;
        replace_vector(root, "domains/domain_1/global_vertices", v);
      }),
      Contains("dataset /domains/domain_1/global_vertices: entry 5 references global vertex " +
               std::to_string(N) + ", but there are " + std::to_string(N) +
               " vertices in the undivided mesh"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("domains/domain_1/global_vertices");
               root.write_vector("domains/domain_1/global_vertices", Eigen::VectorXi::Zero(11));
             }),
             Contains("wrong shape of dataset /domains/domain_1/global_vertices: expected (12), "
                      "found (11)"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixXi triangles = model.global_surface_triangles;
               triangles(7, 1) = N;
               root.remove("global_surface_triangles");
               root.write_matrix("global_surface_triangles", triangles);
             }),
             Contains("dataset /global_surface_triangles: triangle 7 references vertex " +
                      std::to_string(N) + ", but there are " + std::to_string(N) + " vertices"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::VectorXi tet = model.embedded_surface.tet;
               tet(3) =
                   static_cast<int>(part_of(model, model.embedded_surface.domain(3)).tets.rows());
               replace_vector(root, "embedded_surface/tet", tet);
             }),
             Contains("dataset /embedded_surface/tet: entry 3 references tet"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::VectorXi domain = model.embedded_surface.domain;
               domain(4) = 4;
               replace_vector(root, "embedded_surface/domain", domain);
             }),
             Contains("dataset /embedded_surface/domain: entry 4 references domain 4, but there "
                      "are 4 domains"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixXd barycentric = model.embedded_surface.barycentric;
               barycentric(6, 2) += 1e-5;
               root.remove("embedded_surface/barycentric");
               root.write_matrix("embedded_surface/barycentric", barycentric);
             }),
             Contains("dataset /embedded_surface/barycentric: row 6 sums to 1.00001, not 1"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               root.group("domains/domain_2/subtree")
                   .write_double_attribute("mass", 0.5 * model.parts[2].mass);
             }),
             Contains("attribute 'mass' of /domains/domain_2/subtree: ") &&
                 Contains("is less than the domain's own mass"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("domains/domain_1/frame/rotation");
               root.write_matrix("domains/domain_1/frame/rotation",
                                 2 * Eigen::MatrixXd::Identity(3, 3));
             }),
             Contains("dataset /domains/domain_1/frame/rotation: not a rotation matrix (max |R^T R "
                      "- I| = 3, det R = 8)"));
  CHECK_THAT(broken([](const hdf5::Group& root) { root.remove("domains/domain_0/subtree"); }),
             Contains("missing group /domains/domain_0/subtree"));
}

TEST_CASE("an inconsistent domain tree is not written", "[runtime][io][model_file]") {
  const ReducedModel good = make_model();
  REQUIRE(find_model_inconsistency(good).empty());

  ReducedModel bad = good;
  bad.domains[0].interface = bad.domains[1].interface;
  CHECK(find_model_inconsistency(bad) ==
        "group /domains/domain_0/interface: the root domain has no parent, but it has interface "
        "data (4 interface vertices)");

  bad = good;
  std::swap(bad.domains[1].interface.child_vertices(0), bad.domains[1].interface.child_vertices(1));
  CHECK_THAT(find_model_inconsistency(bad),
             Contains("dataset /domains/domain_1/interface/child_vertices: entry 0 is global "
                      "vertex") &&
                 Contains("but its parent copy (vertex " +
                          std::to_string(good.domains[1].interface.parent_vertices(0)) +
                          " of /domains/domain_0) is global vertex"));

  bad = good;
  bad.domains[2].global_vertices(9) = bad.domains[2].global_vertices(8);
  CHECK(find_model_inconsistency(bad) ==
        "dataset /domains/domain_2/global_vertices: entries 8 and 9 are both global vertex " +
            std::to_string(good.domains[2].global_vertices(8)));

  bad = good;
  bad.domains[1].interface.weights(1) = -1e-3;
  CHECK(find_model_inconsistency(bad) ==
        "dataset /domains/domain_1/interface/weights: entry 1 is -0.001 (interface areas must "
        "not be negative)");

  bad = good;
  bad.domains[2].interface.rest_rotation.col(0) *= -1;
  CHECK_THAT(find_model_inconsistency(bad),
             Contains("dataset /domains/domain_2/interface/rest_rotation: not a rotation matrix") &&
                 Contains("det R = -1)"));

  bad = good;
  bad.domains[2].frame_origin(1) += 1e-6;
  CHECK_THAT(find_model_inconsistency(bad),
             Contains("dataset /domains/domain_2/frame/origin is (") &&
                 Contains("), but the rest interface centroid in the world (the parent's "
                          "frame_origin + frame_rotation interface/centroid) is ("));
  bad = good;
  bad.domains[1].frame_rotation = good.domains[0].frame_rotation;
  CHECK_THAT(find_model_inconsistency(bad),
             Contains("dataset /domains/domain_1/frame/rotation is not the parent's "
                      "frame_rotation times interface/rest_rotation (they differ by up to "));

  bad = good;
  bad.parts[1].system_force.w3(2) = std::numeric_limits<double>::infinity();
  CHECK(find_model_inconsistency(bad) ==
        "non-finite value in dataset /parts/part_1/system_force/w3 at 2");

  bad = good;
  bad.domains[1].parent = -1;
  CHECK(find_model_inconsistency(bad) ==
        "attribute 'parent' of /domains/domain_1: -1 (the parent of domain 1 must be an earlier "
        "domain, 0 <= parent < 1)");

  bad = good;
  bad.embedded_surface.rest_positions.resize(0, 3);
  CHECK(find_model_inconsistency(bad) ==
        "dataset /embedded_surface/rest_positions: the embedded surface has no vertices but 40 "
        "triangles and 30 embedded vertices");

  bad = good;
  bad.embedded_surface.triangles(3, 0) = 30;
  CHECK(find_model_inconsistency(bad) ==
        "dataset /embedded_surface/triangles: triangle 3 references vertex 30, but there are 30 "
        "vertices");

  // A part's render surface (schema 10): the part's own tets, weights summing to 1.
  ReducedModel surfaced = good;
  PartRenderSurface& blade = surfaced.parts[1].render_surface;
  blade.rest_positions = surfaced.parts[1].rest_positions.topRows(3);
  blade.triangles = Eigen::MatrixX3i(1, 3);
  blade.triangles << 0, 1, 2;
  blade.tet = Eigen::VectorXi::Zero(3);
  blade.barycentric = Eigen::MatrixX4d::Zero(3, 4);
  blade.barycentric.col(0).setOnes();
  CHECK(find_model_inconsistency(surfaced).empty());
  bad = surfaced;
  bad.parts[1].render_surface.tet(2) = static_cast<int>(bad.parts[1].tets.rows());
  CHECK_THAT(find_model_inconsistency(bad),
             Contains("dataset /parts/part_1/render_surface/tet: entry 2 references tet "));
  bad = surfaced;
  bad.parts[1].render_surface.barycentric(1, 1) = 1e-3;
  CHECK(find_model_inconsistency(bad) ==
        "dataset /parts/part_1/render_surface/barycentric: row 1 sums to 1.001, not 1");
  bad = surfaced;
  bad.parts[1].render_surface.triangles(0, 2) = 3;
  CHECK(find_model_inconsistency(bad) ==
        "dataset /parts/part_1/render_surface/triangles: triangle 0 references vertex 3, but "
        "there are 3 vertices");
  bad = surfaced;
  bad.parts[1].render_surface.tet.resize(2);
  CHECK_THAT(find_model_inconsistency(bad), Contains("/parts/part_1/render_surface/tet"));

  const TempDir dir("model_file");
  const std::string path = dir.file("model.h5");
  bad = good;
  bad.parts[2].system_force.w7.resize(12, 11);
  CHECK_THROWS_WITH(
      write_model_file(bad, path),
      Contains("model.h5") && Contains("wrong shape of dataset /parts/part_2/system_force/w7: "
                                       "expected (12, 12), found (12, 11)"));
  CHECK(dir.entries().empty());
}

TEST_CASE("an inconsistent model is not written", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("model.h5");
  ReducedModel bad = make_model();
  bad.parts[1].basis.conservativeResize(35, Eigen::NoChange);  // 3 #V = 36

  try {
    write_model_file(bad, path);
    FAIL("expected an Error");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()),
               Contains("model.h5") && Contains("wrong shape of dataset /parts/part_1/basis: "
                                                "expected (36, 3), found (35, 3)"));
  }
  CHECK(dir.entries().empty());

  // An existing model stays as it was.
  const ReducedModel good = make_model();
  write_model_file(good, path);
  const std::string before = file_bytes(path);
  CHECK_THROWS_AS(write_model_file(bad, path), Error);
  ReducedModel asymmetric = make_model();
  asymmetric.parts[0].polynomial.quartic(3, 5) += 1;
  CHECK_THROWS_WITH(write_model_file(asymmetric, path),
                    Contains("/parts/part_0/polynomial/quartic: not symmetric at (5, 3)"));
  ReducedModel empty = make_model();
  empty.domains.clear();
  CHECK_THROWS_AS(write_model_file(empty, path), Error);
  CHECK(dir.entries() == std::vector<std::string>{"model.h5"});
  CHECK(file_bytes(path) == before);
  require_equal(good, read_model_file(path));

  // A failure while writing (no such folder) leaves nothing behind either.
  const std::string nowhere = dir.file("no/such/folder/model.h5");
  CHECK_THROWS_WITH(write_model_file(good, nowhere),
                    Contains("cannot write model file") && Contains("does not exist"));
  const std::string folder = dir.file("folder.h5");
  fs::create_directory(folder);
  CHECK_THROWS_WITH(write_model_file(good, folder), Contains("cannot rename"));
  CHECK(dir.entries().size() == 2);
  CHECK(fs::is_directory(folder));
}

}  // namespace ramus
