// Well-sealed lies: model files whose checksums and seal are right but whose values are absurd
// for their own mesh and materials (a crafted or re-sealed file), refused at load by name.
#include <catch2/catch.hpp>
#include <functional>
#include <string>

#include "io/hdf5/hdf5_file.h"  // runtime internals: the HDF5 wrapper
#include "ramus/error.h"
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/runtime/io/model_file.h"
#include "support/model_file_edits.h"
#include "support/random_models.h"
#include "support/temp_dir.h"

using Catch::Matchers::Contains;

namespace ramus {

using namespace test;

TEST_CASE("values out of the model's own scale are refused at load, by name",
          "[runtime][io][model_file]") {
  const TempDir dir("model_scale");
  const std::string path = dir.file("model.h5");
  const ReducedModel model = make_model();
  // Writes the model, changes one dataset and re-seals the file (as a crafted file would be).
  const auto crafted = [&](const std::string& name, const Eigen::MatrixXd& value) {
    write_model_file(model, path);
    edit(path, [&](const hdf5::Group& root) {
      root.remove(name);
      if (value.cols() == 1)
        root.write_vector(name, Eigen::VectorXd(value.col(0)));
      else
        root.write_matrix(name, value);
    });
    return read_error(path);
  };
  const ReducedPart& trunk = model.parts[0];
  REQUIRE_NOTHROW(read_model_file((write_model_file(model, path), path)));

  // The reproducers: a root origin of -1e300, rest positions times 1e150, cubic
  // coefficients times 1e200 (each ran to the end with inf or 1e149 m, exit 0).
  CHECK_THAT(crafted("domains/domain_0/frame/origin", Eigen::Vector3d(-1e300, 0, 0)),
             Contains("dataset /domains/domain_0/frame/origin: row 0 lies 1e+300 m from the "
                      "origin"));
  CHECK_THAT(crafted("parts/part_0/mesh/rest_positions", trunk.rest_positions * 1e150),
             Contains("dataset /parts/part_0/mesh/rest_positions: row 0 lies"));
  CHECK_THAT(crafted("parts/part_0/polynomial/cubic", trunk.polynomial.cubic * 1e200),
             Contains("dataset /parts/part_0/polynomial/cubic: largest |entry|"));
  // Each bound: positions in a consistent mesh scaled (the mass no longer matches), the mass,
  // the basis, the linear and quartic coefficients.
  CHECK_THAT(crafted("parts/part_1/mesh/rest_positions", model.parts[1].rest_positions * 2),
             Contains("attribute 'mass' of /parts/part_1:"));
  write_model_file(model, path);
  edit(path, [&](const hdf5::Group& root) {
    root.group("parts/part_2").write_double_attribute("mass", model.parts[2].mass * 1.01);
  });
  CHECK_THAT(read_error(path), Contains("attribute 'mass' of /parts/part_2: ") &&
                                   Contains("but its tets and densities weigh"));
  CHECK_THAT(crafted("parts/part_0/basis", trunk.basis * 10),
             Contains("dataset /parts/part_0/basis: column 0 has lumped-mass norm") &&
                 Contains("not that of a mass-orthonormal basis"));
  CHECK_THAT(crafted("parts/part_0/polynomial/quadratic", trunk.polynomial.quadratic * 1e12),
             Contains("dataset /parts/part_0/polynomial/quadratic: largest |entry|"));
  CHECK_THAT(crafted("parts/part_0/polynomial/quartic",
                     pack_upper_triangle(trunk.polynomial.quartic * 1e200)),
             Contains("dataset /parts/part_0/polynomial/quartic: largest |entry|"));
  CHECK_THAT(crafted("domains/domain_1/subtree/center_of_mass", Eigen::Vector3d(0, 2e5, 0)),
             Contains("dataset /domains/domain_1/subtree/center_of_mass: row 0 lies 200000 m"));
}

}  // namespace ramus
