// The HDF5 model file: bitwise round trip, the documented layout (read with the raw HDF5 API),
// reader errors naming the file and the problem, and the atomic writer.
#include <hdf5.h>
#include <unistd.h>

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

#include "ramus/error.h"
#include "ramus/precompute/model_file_writer.h"
#include "ramus/runtime/hdf5_file.h"
#include "ramus/runtime/model_file.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace ramus {
namespace {

// A fresh folder per test case, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() / ("ramus_test_model_file_" + std::to_string(::getpid()) +
                                        "_" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(path)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }
};

// Random values with full mantissas (so the round trip really is checked bit for bit).
class Random {
 public:
  explicit Random(unsigned seed) : engine_(seed) {}
  double uniform(double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(engine_); }
  int integer(int lo, int hi) { return std::uniform_int_distribution<>(lo, hi)(engine_); }
  Eigen::MatrixXd matrix(Eigen::Index rows, Eigen::Index cols, double scale = 1) {
    Eigen::MatrixXd m(rows, cols);
    for (Eigen::Index j = 0; j < cols; ++j) {
      for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = scale * uniform(-1, 1);
    }
    return m;
  }
  Eigen::MatrixXi indices(Eigen::Index rows, Eigen::Index cols, int n) {
    Eigen::MatrixXi m(rows, cols);
    for (Eigen::Index j = 0; j < cols; ++j) {
      for (Eigen::Index i = 0; i < rows; ++i) m(i, j) = integer(0, n - 1);
    }
    return m;
  }
  Eigen::VectorXd between(Eigen::Index n, double lo, double hi) {
    Eigen::VectorXd v(n);
    for (Eigen::Index i = 0; i < n; ++i) v(i) = uniform(lo, hi);
    return v;
  }

 private:
  std::mt19937 engine_;
};

ReducedDomain make_domain(Random& random, const std::string& name, int V, int T, int F, int r,
                          bool labelled, bool anchored) {
  ReducedDomain d;
  d.name = name;
  d.rest_positions = random.matrix(V, 3, 0.5);
  d.tets = random.indices(T, 4, V);
  d.surface_triangles = random.indices(F, 3, V);
  if (labelled) d.labels = random.indices(T, 1, 7);
  d.youngs_modulus = random.between(T, 1e5, 1e7);
  d.poisson_ratio = random.between(T, 0.2, 0.49);
  d.density = random.between(T, 500, 2000);
  if (anchored) {
    d.fixed_vertices.resize(4);
    d.fixed_vertices << 0, 3, 4, V - 1;
  } else {
    d.num_rigid_modes = 6;
  }
  d.basis = random.matrix(3 * V, r);
  d.basis_eigenvalues = random.between(r, 1, 1e5);
  d.linear_mode_eigenvalues = random.between(r - 1, 1, 1e5);
  d.gravity_basis = random.matrix(r, 3, 10);
  d.mass = random.uniform(0.1, 100);
  const int p = num_pairs(r);
  d.polynomial.r = r;
  d.polynomial.quadratic = random.matrix(p, 1, 1e4);
  d.polynomial.cubic = random.matrix(p, r, 1e3);
  const Eigen::MatrixXd a = random.matrix(p, p, 1e2);
  d.polynomial.quartic = a + a.transpose();  // exactly symmetric
  return d;
}

ReducedModel make_model(unsigned seed = 1) {
  Random random(seed);
  ReducedModel model;
  ModelProvenance& p = model.provenance;
  p.tool_version = "0.1.0";
  p.created_utc = "2024-05-01T12:34:56Z";
  p.spec_path = "/data/specs/plant.json";
  p.spec_json = "{\"name\": \"plante \xc3\xa0 fleurs \xe2\x9c\xbf\", \"pad\": \"" +
                std::string(100000, 'x') + "\"}";
  p.mesh_path = "/data/meshes/plant.msh";
  p.input_hash = 0xfedcba9876543210ULL;
  p.options_json = R"({"linear_modes": 4, "r": 5, "modal_derivatives": true})";
  model.domains.push_back(make_domain(random, "trunk", 300, 900, 200, 5, true, true));
  model.domains.push_back(make_domain(random, "leaf", 12, 20, 16, 3, false, false));
  return model;
}

template <typename A, typename B>
bool bitwise_equal(const Eigen::DenseBase<A>& a, const Eigen::DenseBase<B>& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return false;
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    for (Eigen::Index i = 0; i < a.rows(); ++i) {
      const auto x = a(i, j);
      const auto y = b(i, j);
      if (sizeof(x) != sizeof(y) || std::memcmp(&x, &y, sizeof(x)) != 0) return false;
    }
  }
  return true;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

void require_equal(const ReducedModel& a, const ReducedModel& b) {
  REQUIRE(b.format_version == a.format_version);
  CHECK(b.provenance.tool_version == a.provenance.tool_version);
  CHECK(b.provenance.created_utc == a.provenance.created_utc);
  CHECK(b.provenance.spec_path == a.provenance.spec_path);
  CHECK(b.provenance.spec_json == a.provenance.spec_json);
  CHECK(b.provenance.mesh_path == a.provenance.mesh_path);
  CHECK(b.provenance.input_hash == a.provenance.input_hash);
  CHECK(b.provenance.options_json == a.provenance.options_json);
  REQUIRE(b.domains.size() == a.domains.size());
  for (std::size_t k = 0; k < a.domains.size(); ++k) {
    INFO("domain " << k);
    const ReducedDomain& x = a.domains[k];
    const ReducedDomain& y = b.domains[k];
    CHECK(y.name == x.name);
    CHECK(bitwise_equal(y.rest_positions, x.rest_positions));
    CHECK(bitwise_equal(y.tets, x.tets));
    CHECK(bitwise_equal(y.surface_triangles, x.surface_triangles));
    CHECK(bitwise_equal(y.labels, x.labels));
    CHECK(bitwise_equal(y.youngs_modulus, x.youngs_modulus));
    CHECK(bitwise_equal(y.poisson_ratio, x.poisson_ratio));
    CHECK(bitwise_equal(y.density, x.density));
    CHECK(bitwise_equal(y.fixed_vertices, x.fixed_vertices));
    CHECK(y.num_rigid_modes == x.num_rigid_modes);
    CHECK(bitwise_equal(y.basis, x.basis));
    CHECK(bitwise_equal(y.basis_eigenvalues, x.basis_eigenvalues));
    CHECK(bitwise_equal(y.linear_mode_eigenvalues, x.linear_mode_eigenvalues));
    CHECK(bitwise_equal(y.gravity_basis, x.gravity_basis));
    CHECK(same_bits(y.mass, x.mass));
    CHECK(y.polynomial.r == x.polynomial.r);
    CHECK(bitwise_equal(y.polynomial.quadratic, x.polynomial.quadratic));
    CHECK(bitwise_equal(y.polynomial.cubic, x.polynomial.cubic));
    CHECK(bitwise_equal(y.polynomial.quartic, x.polynomial.quartic));
  }
}

// what() of the InputError `f` throws; fails the test when it throws nothing or something else.
std::string input_error(const std::string& path, const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    CHECK(e.file() == path);
    return e.what();
  }
  FAIL("expected an InputError");
  return "";
}

std::string read_error(const std::string& path) {
  return input_error(path, [&] { read_model_file(path); });
}

// Opens a written model read-write and lets `edit` change it.
void edit(const std::string& path, const std::function<void(const hdf5::Group&)>& change) {
  hdf5::File file = hdf5::File::open_read_write(path);
  {
    const hdf5::Group root = file.root();
    change(root);
  }
  file.close();
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("model file round trip is bitwise exact", "[model_file]") {
  const TempDir dir;
  const ReducedModel model = make_model();
  const std::string path = dir.file("model.h5");
  write_model_file(model, path);
  CHECK(dir.entries() == std::vector<std::string>{"model.h5"});
  require_equal(model, read_model_file(path));

  // Overwriting an existing model with another valid one replaces it.
  const ReducedModel other = make_model(2);
  write_model_file(other, path);
  require_equal(other, read_model_file(path));
  CHECK(dir.entries() == std::vector<std::string>{"model.h5"});
}

TEST_CASE("model file layout matches docs/FORMAT.md (raw HDF5 API)", "[model_file]") {
  const TempDir dir;
  const ReducedModel model = make_model();
  const std::string path = dir.file("model.h5");
  write_model_file(model, path);
  const ReducedDomain& d = model.domains[0];

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
  using Dims = std::vector<hsize_t>;
  CHECK(dims(d0("mesh/rest_positions").c_str()) == Dims{300, 3});
  CHECK(dims(d0("mesh/tets").c_str()) == Dims{900, 4});
  CHECK(dims(d0("mesh/surface_triangles").c_str()) == Dims{200, 3});
  CHECK(dims(d0("mesh/labels").c_str()) == Dims{900});
  CHECK(dims(d0("fixed_vertices").c_str()) == Dims{4});
  CHECK(dims(d0("basis").c_str()) == Dims{900, 5});
  CHECK(dims(d0("gravity_basis").c_str()) == Dims{5, 3});
  CHECK(dims(d0("polynomial/quadratic").c_str()) == Dims{15});
  CHECK(dims(d0("polynomial/cubic").c_str()) == Dims{15, 5});
  CHECK(dims(d0("polynomial/quartic").c_str()) == Dims{15 * 16 / 2});
  CHECK(H5Lexists(file, "/domains/domain_1/mesh/labels", H5P_DEFAULT) == 0);
  CHECK(dims("/domains/domain_1/fixed_vertices") == Dims{0});

  // Row-major: row i of the (#V, 3) dataset is vertex i; (#T, 4) int32 tets likewise.
  std::vector<double> positions(300 * 3);
  hid_t ds = H5Dopen2(file, d0("mesh/rest_positions").c_str(), H5P_DEFAULT);
  REQUIRE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, positions.data()) >= 0);
  H5Dclose(ds);
  CHECK(same_bits(positions[3 * 7 + 2], d.rest_positions(7, 2)));
  std::vector<int> tets(900 * 4);
  ds = H5Dopen2(file, d0("mesh/tets").c_str(), H5P_DEFAULT);
  const hid_t tet_type = H5Dget_type(ds);
  CHECK(H5Tequal(tet_type, H5T_STD_I32LE) > 0);
  H5Tclose(tet_type);
  REQUIRE(H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, tets.data()) >= 0);
  H5Dclose(ds);
  CHECK(tets[4 * 11 + 3] == d.tets(11, 3));
  // Packed quartic: row by row over the upper triangle.
  std::vector<double> quartic(120);
  ds = H5Dopen2(file, d0("polynomial/quartic").c_str(), H5P_DEFAULT);
  REQUIRE(H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, quartic.data()) >= 0);
  H5Dclose(ds);
  CHECK(same_bits(quartic[static_cast<std::size_t>(pair_index(2, 9, 15))],
                  d.polynomial.quartic(2, 9)));
  CHECK(H5Fclose(file) >= 0);

  const hdf5::File reopened = hdf5::File::open(path);
  const hdf5::Group root = reopened.root();
  CHECK(root.read_string_attribute("format") == "ramus-model");
  CHECK(root.read_int_attribute("format_version") == kModelFormatVersion);
  CHECK(root.read_string_attribute("ramus_version") == std::string(RAMUS_VERSION_STRING));
  CHECK(root.group("domains").read_int_attribute("num_domains") == 2);
  const hdf5::Group leaf = root.group("domains/domain_1");
  CHECK(leaf.read_string_attribute("name") == "leaf");
  CHECK(leaf.read_int_attribute("num_rigid_modes") == 6);
  CHECK(leaf.read_int_attribute("r") == 3);
  CHECK(root.group("provenance").read_uint64_attribute("input_hash") == 0xfedcba9876543210ULL);
}

TEST_CASE("hdf5 wrapper reads files written by other tools", "[model_file]") {
  const TempDir dir;
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
  Eigen::MatrixXi expected(2, 3);
  expected << 1, 2, 3, 4, 5, 6;
  CHECK(root.read_matrix_int("ints") == expected);
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
  CHECK_THAT(read_error(path), Contains("missing attribute 'format_version' of /"));
}

TEST_CASE("reading a missing, truncated or non-HDF5 file names the problem", "[model_file]") {
  const TempDir dir;
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
  CHECK_THAT(read_error(truncated), Contains("truncated.h5: cannot open: not a valid HDF5 file "
                                             "(truncated or corrupt)"));

  const std::string plain = dir.file("plain.h5");
  hdf5::File::create(plain).close();
  CHECK_THAT(read_error(plain), Contains("plain.h5: not a Ramus model file"));
}

TEST_CASE("reading a model of another schema version asks to re-run precompute", "[model_file]") {
  const TempDir dir;
  const std::string path = dir.file("old.h5");
  write_model_file(make_model(), path);
  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 0); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: schema version 0 is not supported by this Ramus (expects 1); "
                      "re-run ramus precompute"));

  edit(path, [](const hdf5::Group& root) {
    root.write_int_attribute("format_version", 2);
    root.write_string_attribute("ramus_version", "9.0.0");
  });
  CHECK_THAT(read_error(path), Contains("schema version 2 is not supported by this Ramus "
                                        "(expects 1); it was written by Ramus 9.0.0"));
}

TEST_CASE("reading an inconsistent model names the dataset", "[model_file]") {
  const TempDir dir;
  const std::string path = dir.file("model.h5");
  const ReducedModel model = make_model();
  const auto broken = [&](const std::function<void(const hdf5::Group&)>& change) {
    write_model_file(model, path);
    edit(path, change);
    return read_error(path);
  };

  CHECK_THAT(broken([](const hdf5::Group& root) { root.remove("domains/domain_0/basis"); }),
             Contains("model.h5: missing dataset /domains/domain_0/basis"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("domains/domain_0/basis");
               root.write_matrix("domains/domain_0/basis", Eigen::MatrixXd::Zero(899, 5));
             }),
             Contains("model.h5: wrong shape of dataset /domains/domain_0/basis: expected (900, "
                      "5), found (899, 5)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("domains/domain_1/mesh/tets");
               root.write_matrix("domains/domain_1/mesh/tets", Eigen::MatrixXd::Zero(20, 4));
             }),
             Contains("wrong type of dataset /domains/domain_1/mesh/tets: expected integers"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.remove("domains/domain_1/material/density");
               root.write_vector("domains/domain_1/material/density", Eigen::VectorXd::Ones(19));
             }),
             Contains("wrong shape of dataset /domains/domain_1/material/density: expected "
                      "(20), found (19)"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixXi tets = model.domains[1].tets;
               tets(5, 2) = 12;
               root.remove("domains/domain_1/mesh/tets");
               root.write_matrix("domains/domain_1/mesh/tets", tets);
             }),
             Contains("dataset /domains/domain_1/mesh/tets: tet 5 references vertex 12, but "
                      "there are 12 vertices"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixXd basis = model.domains[1].basis;
               basis(7, 1) = std::numeric_limits<double>::quiet_NaN();
               root.remove("domains/domain_1/basis");
               root.write_matrix("domains/domain_1/basis", basis);
             }),
             Contains("non-finite value in dataset /domains/domain_1/basis at (7, 1)"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains").write_int_attribute("num_domains", 3);
             }),
             Contains("missing group /domains/domain_2"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains/domain_0").write_int_attribute("r", 4);
             }),
             Contains("wrong shape of dataset /domains/domain_0/basis: expected (900, 4), found "
                      "(900, 5)"));
}

TEST_CASE("an inconsistent model is not written", "[model_file]") {
  const TempDir dir;
  const std::string path = dir.file("model.h5");
  ReducedModel bad = make_model();
  bad.domains[1].basis.conservativeResize(35, Eigen::NoChange);  // 3 #V = 36

  try {
    write_model_file(bad, path);
    FAIL("expected an Error");
  } catch (const Error& e) {
    CHECK_THAT(std::string(e.what()),
               Contains("model.h5") && Contains("wrong shape of dataset /domains/domain_1/basis: "
                                                "expected (36, 3), found (35, 3)"));
  }
  CHECK(dir.entries().empty());

  // An existing model stays as it was.
  const ReducedModel good = make_model();
  write_model_file(good, path);
  const std::string before = file_bytes(path);
  CHECK_THROWS_AS(write_model_file(bad, path), Error);
  ReducedModel asymmetric = make_model();
  asymmetric.domains[0].polynomial.quartic(3, 5) += 1;
  CHECK_THROWS_WITH(write_model_file(asymmetric, path),
                    Contains("/domains/domain_0/polynomial/quartic: not symmetric at (5, 3)"));
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
