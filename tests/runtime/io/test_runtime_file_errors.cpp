// A model file's /runtime group read back wrong (docs/FORMAT.md, "runtime fields"): bad settings,
// a bad scenario (its steps, point forces and colliders, grids included) named by their key,
// and the writer refusing what the reader would.
#include <catch2/catch.hpp>

#include <functional>
#include <limits>
#include <string>

#include "io/hdf5/hdf5_file.h"  // runtime internals: the HDF5 wrapper
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/runtime/io/model_file.h"
#include "support/model_file_edits.h"
#include "support/random_models.h"
#include "support/temp_dir.h"

using Catch::Matchers::Contains;

namespace ramus {

using namespace test;

TEST_CASE("bad runtime settings in a file are named", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("settings.h5");
  write_model_file(make_model(), path);
  edit(path, [](const hdf5::Group& root) {
    root.group("runtime").write_string_attribute("lumping", "L7");
  });
  CHECK_THAT(
      read_error(path),
      Contains("settings.h5: attribute 'lumping' of /runtime is 'L7' (must be L1, L2 or L3)"));
  write_model_file(make_model(), path);
  edit(path, [](const hdf5::Group& root) {
    root.remove("runtime/domains/stiffness_scale");
    root.write_vector("runtime/domains/stiffness_scale",
                      Eigen::VectorXd(Eigen::Vector4d(1, -1, 1, 1)));
  });
  CHECK_THAT(
      read_error(path),
      Contains(
          "settings.h5: group /runtime: domains[1].stiffness_scale: must be positive, got -1"));
  write_model_file(make_model(), path);
  edit(path, [](const hdf5::Group& root) {
    root.group("runtime").write_double_attribute("time_step", 0.0);
  });
  CHECK_THAT(read_error(path), Contains("group /runtime: time_step: must lie in (0, 1] s, got 0"));
  write_model_file(make_model(), path);
  edit(path, [](const hdf5::Group& root) { root.remove("runtime"); });
  CHECK_THAT(read_error(path), Contains("settings.h5: missing group /runtime"));
  // The writer refuses what the reader would.
  ReducedModel model = make_model();
  model.settings.domains.resize(2);
  CHECK_THROWS_WITH(write_model_file(model, path),
                    Contains("group /runtime: 2 domain settings given for a model of 4 domains"));
}

TEST_CASE("a bad scenario in a file is named", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const std::string path = dir.file("scenario.h5");
  const ReducedModel model = make_model();
  const auto broken = [&](const std::function<void(const hdf5::Group&)>& change) {
    write_model_file(model, path);
    edit(path, change);
    return read_error(path);
  };
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("runtime/scenario").write_int_attribute("steps", -3);
             }),
             Contains("scenario.h5: group /runtime/scenario: steps: must be between 0 and "
                      "1000000000, got -3"));
  CHECK_THAT(
      broken([&](const hdf5::Group& root) {
        Eigen::VectorXi vertices = model.scenario.force_vertices;
        vertices(1) = model.num_global_vertices;
        root.remove("runtime/scenario/force_vertices");
        root.write_vector("runtime/scenario/force_vertices", vertices);
      }),
      Contains("group /runtime/scenario: forces[1]: vertex " +
               std::to_string(model.num_global_vertices) + " does not exist (the model has " +
               std::to_string(model.num_global_vertices) + " vertices)"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixX2d windows = model.scenario.force_windows;
               windows(2, 0) = 2;
               root.remove("runtime/scenario/force_windows");
               root.write_matrix("runtime/scenario/force_windows", windows);
             }),
             Contains("forces[2]: its window starts at 2 s, after its end 0.1 s"));
  CHECK_THAT(broken([](const hdf5::Group& root) { root.remove("runtime/scenario/forces"); }),
             Contains("scenario.h5") && Contains("forces"));
  // The colliders: a shape no runtime collider has, a negative mu, a missing column.
  const auto set_shapes = [](const hdf5::Group& root, const Eigen::VectorXi& shapes) {
    root.remove("runtime/scenario/colliders/shape");
    root.write_vector("runtime/scenario/colliders/shape", shapes);
  };
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::VectorXi shapes = model.scenario.collider_shapes;
               shapes(1) = 7;
               set_shapes(root, shapes);
             }),
             Contains("colliders[1]: shape 7 is none of the shapes 0 to 6"));
  // A grid: its samples and values disagree, a value is not finite, or a sphere has samples.
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               const Eigen::VectorXf values = model.scenario.collider_grid_values.head(23);
               root.remove("runtime/scenario/colliders/grid_values");
               root.write_vector("runtime/scenario/colliders/grid_values", values);
             }),
             Contains("colliders: the grids hold 24 samples, but grid_values has 23"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::VectorXf values = model.scenario.collider_grid_values;
               values(5) = std::numeric_limits<float>::quiet_NaN();
               root.remove("runtime/scenario/colliders/grid_values");
               root.write_vector("runtime/scenario/colliders/grid_values", values);
             }),
             Contains("colliders: grid value 5 is not finite"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixXi samples = model.scenario.collider_grid_samples;
               samples(2, 1) = 1;
               samples(0, 0) = 24;
               root.remove("runtime/scenario/colliders/grid_samples");
               root.write_matrix("runtime/scenario/colliders/grid_samples", samples);
             }),
             Contains("colliders[0]: not a grid, but it has grid samples"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixXi samples = model.scenario.collider_grid_samples;
               samples(2, 1) = 1;
               root.remove("runtime/scenario/colliders/grid_samples");
               root.write_matrix("runtime/scenario/colliders/grid_samples", samples);
             }),
             Contains("colliders[2]: its grid needs 2 to 4096 samples each way, got 3 by 1 by 4"));
  CHECK_THAT(
      broken([&](const hdf5::Group& root) {
        for (const char* name : {"grid_origin", "grid_spacing", "grid_samples", "grid_values"})
          root.remove(std::string("runtime/scenario/colliders/") + name);
      }),
      Contains("colliders: 3 shapes, but the grid columns have other lengths"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::VectorXd mu = model.scenario.collider_friction;
               mu(0) = -0.5;
               root.remove("runtime/scenario/colliders/friction");
               root.write_vector("runtime/scenario/colliders/friction", mu);
             }),
             Contains("colliders[0]: friction must be >= 0, got -0.5"));
  CHECK_THAT(
      broken([](const hdf5::Group& root) { root.remove("runtime/scenario/colliders/velocity"); }),
      Contains("scenario.h5") && Contains("velocity"));
  // A file written before colliders were stored reads with none.
  write_model_file(model, path);
  edit(path, [](const hdf5::Group& root) { root.remove("runtime/scenario/colliders"); });
  CHECK(read_model_file(path).scenario.collider_shapes.size() == 0);
  CHECK_THAT(broken([](const hdf5::Group& root) { root.remove("runtime/scenario"); }),
             Contains("scenario.h5: missing group /runtime/scenario"));
}

}  // namespace ramus
