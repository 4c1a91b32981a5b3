// The HDF5 model file: bitwise round trip, the documented layout (read with the raw HDF5 API),
// reader errors naming the file and the problem, and the atomic writer.
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

#include "ramus/error.h"
#include "ramus/precompute/model/model_file_writer.h"
#include "io/hdf5/hdf5_file.h"  // runtime internals: the HDF5 wrapper
#include "ramus/runtime/io/model_file.h"
#include "support/temp_dir.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace ramus {
namespace {

using test::TempDir;

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

// A uniformly random rotation (QR of a Gaussian-like matrix, determinant +1).
Eigen::Matrix3d random_rotation(Random& random) {
  const Eigen::HouseholderQR<Eigen::Matrix3d> qr(Eigen::Matrix3d(random.matrix(3, 3)));
  Eigen::Matrix3d q = qr.householderQ();
  if (q.determinant() < 0) q.col(0) *= -1;
  return q;
}

SystemForceIntegrals random_system_force(Random& random, int r) {
  SystemForceIntegrals w;
  w.w1 = random.matrix(3, r);
  w.w2 = random.matrix(3, r);
  w.w3 = random.matrix(r, 1);
  w.w4 = random.matrix(r, r);
  w.w5 = random.matrix(3, 3 * r);
  w.w6 = random.matrix(r, 3 * r);
  w.w7 = random.matrix(3 * r, 3 * r);
  return w;
}

// A domain with random data everywhere; its place in the tree (parent, global vertices,
// interface) is the root's until make_model links it.
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
  d.linear_mode_eigenvalues = random.between(std::max(r - 1, 0), 1, 1e5);
  d.gravity_basis = random.matrix(r, 3, 10);
  d.mass = random.uniform(0.1, 100);
  const int p = num_pairs(r);
  d.polynomial.r = r;
  d.polynomial.quadratic = random.matrix(p, 1, 1e4);
  d.polynomial.cubic = random.matrix(p, r, 1e3);
  const Eigen::MatrixXd a = random.matrix(p, p, 1e2);
  d.polynomial.quartic = a + a.transpose();  // exactly symmetric

  d.frame_origin = random.matrix(3, 1, 2);
  d.frame_rotation = random_rotation(random);
  d.system_force = random_system_force(random, r);
  d.subtree_mass = d.mass * random.uniform(1, 3);
  d.subtree_center_of_mass = random.matrix(3, 1);
  const Eigen::Matrix3d b = random.matrix(3, 3);
  d.subtree_inertia = b * b.transpose();
  d.global_vertices = Eigen::VectorXi::LinSpaced(V, 0, V - 1);
  return d;
}

// Makes `child` a child of domain `parent` of `model` whose first m vertices are copies of m
// distinct random vertices of the parent (random interface data), and gives the child's other
// vertices new global indices.
void attach(ReducedModel& model, Random& random, ReducedDomain& child, int parent, int m,
            bool planar) {
  const ReducedDomain& p = model.domains[static_cast<std::size_t>(parent)];
  const int parent_r = static_cast<int>(p.basis.cols());
  std::vector<int> candidates(static_cast<std::size_t>(p.rest_positions.rows()));
  for (std::size_t i = 0; i < candidates.size(); ++i) candidates[i] = static_cast<int>(i);
  child.parent = parent;
  ParentInterface& f = child.interface;
  f.parent_vertices.resize(m);
  f.child_vertices.resize(m);
  for (int i = 0; i < m; ++i) {
    const auto pick =
        static_cast<std::size_t>(random.integer(i, static_cast<int>(candidates.size()) - 1));
    std::swap(candidates[static_cast<std::size_t>(i)], candidates[pick]);
    f.parent_vertices(i) = candidates[static_cast<std::size_t>(i)];
    f.child_vertices(i) = i;
  }
  f.weights = random.between(m, 1e-4, 1e-2);
  f.centroid = random.matrix(3, 1);
  f.centroid_basis = random.matrix(3, parent_r);
  f.rest_rotation = random_rotation(random);
  f.rotation_basis = random.matrix(3, 3 * parent_r);
  const Eigen::Matrix3d c = random.matrix(3, 3);
  f.covariance = c * c.transpose();
  f.planar = planar;
  // The child's rest frame is the interface's frame (x̂_ij, R̂_ij) in the parent's.
  child.frame_rotation = p.frame_rotation * f.rest_rotation;
  child.frame_origin = p.frame_origin + p.frame_rotation * f.centroid;
  for (Eigen::Index v = 0; v < child.global_vertices.size(); ++v) {
    child.global_vertices(v) =
        v < m ? p.global_vertices(f.parent_vertices(v)) : model.num_global_vertices++;
  }
}

// A tree of three domains: "trunk" (root, anchored, labelled) with the children "leaf" (free) and
// "branch" (anchored), every substructuring field filled with random data, a global surface and
// an embedded surface.
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
  model.num_global_vertices = 300;
  ReducedDomain leaf = make_domain(random, "leaf", 12, 20, 16, 3, false, false);
  attach(model, random, leaf, 0, 4, true);
  model.domains.push_back(leaf);
  ReducedDomain branch = make_domain(random, "branch", 40, 90, 30, 4, false, true);
  attach(model, random, branch, 0, 6, false);
  model.domains.push_back(branch);
  // Scramble the global numbering (keeping both copies of an interface vertex together).
  std::vector<int> permutation(static_cast<std::size_t>(model.num_global_vertices));
  for (std::size_t i = 0; i < permutation.size(); ++i) permutation[i] = static_cast<int>(i);
  std::shuffle(permutation.begin(), permutation.end(), std::mt19937(seed));
  for (ReducedDomain& d : model.domains) {
    for (Eigen::Index v = 0; v < d.global_vertices.size(); ++v) {
      d.global_vertices(v) = permutation[static_cast<std::size_t>(d.global_vertices(v))];
    }
  }
  model.global_surface_triangles = random.indices(50, 3, model.num_global_vertices);

  EmbeddedSurface& s = model.embedded_surface;
  const int S = 30;
  s.rest_positions = random.matrix(S, 3);
  s.triangles = random.indices(40, 3, S);
  s.domain.resize(S);
  s.tet.resize(S);
  s.barycentric.resize(S, 4);
  for (int i = 0; i < S; ++i) {
    s.domain(i) = random.integer(0, 2);
    s.tet(i) = random.integer(
        0, static_cast<int>(model.domains[static_cast<std::size_t>(s.domain(i))].tets.rows()) - 1);
    const Eigen::Vector4d w = random.between(4, 0.01, 1);
    s.barycentric.row(i) = w.transpose() / w.sum();
  }
  // Runtime settings away from every default.
  RuntimeSettings& rs = model.settings;
  rs.time_step = 0.0037;
  rs.gravity = random.between(3, -10, 10);
  rs.lumping = InterfaceLumping::kRigidSubtree;
  rs.newmark_beta = 0.3;
  rs.newmark_gamma = 0.6;
  rs.newton_iterations = 3;
  rs.newton_tolerance = 1e-9;
  rs.max_coordinate = 1e4;
  for (int k = 0; k < 3; ++k)
    rs.nodes.push_back({Integrator::kNewmark, random.between(1, 0, 1)(0),
                        random.between(1, 0, 1e-3)(0), random.between(1, 0.5, 2)(0)});
  return model;
}

// One domain as `ramus precompute` (single domain) writes it: substructuring fields at their
// defaults (no global vertex map, no system-force integrals, subtree mass 0).
ReducedModel make_single_domain_model(unsigned seed = 3) {
  Random random(seed);
  ReducedModel model;
  model.provenance.tool_version = "0.1.0";
  ReducedDomain d = make_domain(random, "beam", 40, 90, 30, 4, false, true);
  d.frame_origin.setZero();
  d.frame_rotation.setIdentity();
  d.global_vertices.resize(0);
  d.system_force = {};
  d.subtree_mass = 0;
  d.subtree_center_of_mass.setZero();
  d.subtree_inertia.setZero();
  model.domains.push_back(d);
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

    CHECK(y.parent == x.parent);
    CHECK(bitwise_equal(y.frame_origin, x.frame_origin));
    CHECK(bitwise_equal(y.frame_rotation, x.frame_rotation));
    CHECK(bitwise_equal(y.global_vertices, x.global_vertices));
    const ParentInterface& f = x.interface;
    const ParentInterface& g = y.interface;
    CHECK(bitwise_equal(g.parent_vertices, f.parent_vertices));
    CHECK(bitwise_equal(g.child_vertices, f.child_vertices));
    CHECK(bitwise_equal(g.weights, f.weights));
    CHECK(bitwise_equal(g.centroid, f.centroid));
    CHECK(bitwise_equal(g.centroid_basis, f.centroid_basis));
    CHECK(bitwise_equal(g.rest_rotation, f.rest_rotation));
    CHECK(bitwise_equal(g.rotation_basis, f.rotation_basis));
    CHECK(bitwise_equal(g.covariance, f.covariance));
    CHECK(g.planar == f.planar);
    const SystemForceIntegrals& v = x.system_force;
    const SystemForceIntegrals& w = y.system_force;
    CHECK(bitwise_equal(w.w1, v.w1));
    CHECK(bitwise_equal(w.w2, v.w2));
    CHECK(bitwise_equal(w.w3, v.w3));
    CHECK(bitwise_equal(w.w4, v.w4));
    CHECK(bitwise_equal(w.w5, v.w5));
    CHECK(bitwise_equal(w.w6, v.w6));
    CHECK(bitwise_equal(w.w7, v.w7));
    CHECK(same_bits(y.subtree_mass, x.subtree_mass));
    CHECK(bitwise_equal(y.subtree_center_of_mass, x.subtree_center_of_mass));
    CHECK(bitwise_equal(y.subtree_inertia, x.subtree_inertia));
  }
  CHECK(b.num_global_vertices == a.num_global_vertices);
  CHECK(bitwise_equal(b.global_surface_triangles, a.global_surface_triangles));
  const EmbeddedSurface& s = a.embedded_surface;
  const EmbeddedSurface& t = b.embedded_surface;
  CHECK(bitwise_equal(t.rest_positions, s.rest_positions));
  CHECK(bitwise_equal(t.triangles, s.triangles));
  CHECK(bitwise_equal(t.domain, s.domain));
  CHECK(bitwise_equal(t.tet, s.tet));
  CHECK(bitwise_equal(t.barycentric, s.barycentric));
  const RuntimeSettings& u = a.settings;
  const RuntimeSettings& v = b.settings;
  CHECK(same_bits(v.time_step, u.time_step));
  CHECK(bitwise_equal(v.gravity, u.gravity));
  CHECK(v.lumping == u.lumping);
  CHECK(same_bits(v.newmark_beta, u.newmark_beta));
  CHECK(same_bits(v.newmark_gamma, u.newmark_gamma));
  CHECK(v.newton_iterations == u.newton_iterations);
  CHECK(same_bits(v.newton_tolerance, u.newton_tolerance));
  CHECK(same_bits(v.max_coordinate, u.max_coordinate));
  REQUIRE(v.nodes.size() == a.domains.size());
  for (std::size_t k = 0; k < v.nodes.size(); ++k) {
    const NodeSettings expected = u.nodes.empty() ? NodeSettings{} : u.nodes[k];
    CHECK(v.nodes[k].integrator == expected.integrator);
    CHECK(same_bits(v.nodes[k].rayleigh_mass, expected.rayleigh_mass));
    CHECK(same_bits(v.nodes[k].rayleigh_stiffness, expected.rayleigh_stiffness));
    CHECK(same_bits(v.nodes[k].stiffness_scale, expected.stiffness_scale));
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

TEST_CASE("model file round trip is bitwise exact", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
  const ReducedModel model = make_model();
  const std::string path = dir.file("model.h5");
  write_model_file(model, path);
  CHECK(dir.entries() == std::vector<std::string>{"model.h5"});
  REQUIRE(model.domains.size() == 3);
  CHECK(model.domains[2].parent == 0);
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

  // Schema version 2: frames, global vertex maps, interfaces, system forces, subtrees.
  CHECK(dims(d0("frame/origin").c_str()) == Dims{3});
  CHECK(dims(d0("frame/rotation").c_str()) == Dims{3, 3});
  CHECK(dims(d0("global_vertices").c_str()) == Dims{300});
  CHECK(H5Lexists(file, "/domains/domain_0/interface", H5P_DEFAULT) == 0);
  CHECK(dims(d0("system_force/w1").c_str()) == Dims{3, 5});
  CHECK(dims(d0("system_force/w2").c_str()) == Dims{3, 5});
  CHECK(dims(d0("system_force/w3").c_str()) == Dims{5});
  CHECK(dims(d0("system_force/w4").c_str()) == Dims{5, 5});
  CHECK(dims(d0("system_force/w5").c_str()) == Dims{3, 15});
  CHECK(dims(d0("system_force/w6").c_str()) == Dims{5, 15});
  CHECK(dims(d0("system_force/w7").c_str()) == Dims{15, 15});
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
  CHECK(dims(d1("system_force/w7").c_str()) == Dims{9, 9});
  CHECK(dims("/global_surface_triangles") == Dims{50, 3});
  CHECK(dims("/embedded_surface/rest_positions") == Dims{30, 3});
  CHECK(dims("/embedded_surface/triangles") == Dims{40, 3});
  CHECK(dims("/embedded_surface/domain") == Dims{30});
  CHECK(dims("/embedded_surface/tet") == Dims{30});
  CHECK(dims("/embedded_surface/barycentric") == Dims{30, 4});

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
  CHECK(same_bits(raw(d0("system_force/w7"), 225)[15 * 2 + 9], d.system_force.w7(2, 9)));
  CHECK(same_bits(raw(d0("system_force/w6"), 75)[15 * 4 + 1], d.system_force.w6(4, 1)));
  CHECK(same_bits(raw("/embedded_surface/barycentric", 120)[4 * 5 + 1],
                  model.embedded_surface.barycentric(5, 1)));
  CHECK(H5Fclose(file) >= 0);

  const hdf5::File reopened = hdf5::File::open(path);
  const hdf5::Group root = reopened.root();
  CHECK(root.read_string_attribute("format") == "ramus-model");
  CHECK(root.read_int_attribute("format_version") == kModelFormatVersion);
  CHECK(root.read_string_attribute("ramus_version") == std::string(RAMUS_VERSION_STRING));
  CHECK(root.group("domains").read_int_attribute("num_domains") == 3);
  CHECK(root.group("domains").read_int_attribute("num_global_vertices") ==
        model.num_global_vertices);
  CHECK(root.group("domains/domain_0").read_int_attribute("parent") == -1);
  const hdf5::Group leaf = root.group("domains/domain_1");
  CHECK(leaf.read_string_attribute("name") == "leaf");
  CHECK(leaf.read_int_attribute("num_rigid_modes") == 6);
  CHECK(leaf.read_int_attribute("r") == 3);
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
  CHECK_THAT(read_error(truncated), Contains("truncated.h5: cannot open: not a valid HDF5 file "
                                             "(truncated or corrupt)"));

  const std::string plain = dir.file("plain.h5");
  hdf5::File::create(plain).close();
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
    root.group("domains").write_int_attribute("num_domains", 1);
    for (const char* name : {"frame", "global_vertices", "system_force", "subtree"}) {
      root.remove(std::string("domains/domain_0/") + name);
    }
  });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 1 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 3)"));
  // Version 2: no runtime settings yet.
  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 2); });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 2 was written by an older Ramus; re-run "
                      "`ramus precompute` (this Ramus reads schema version 3)"));

  edit(path, [](const hdf5::Group& root) { root.write_int_attribute("format_version", 0); });
  CHECK_THAT(read_error(path), Contains("old.h5: model schema version 0 does not exist; re-run "
                                        "`ramus precompute`"));

  edit(path, [](const hdf5::Group& root) {
    root.write_int_attribute("format_version", 4);
    root.write_string_attribute("ramus_version", "9.0.0");
  });
  CHECK_THAT(read_error(path),
             Contains("old.h5: model schema version 4 was written by a newer Ramus (9.0.0); "
                      "upgrade Ramus, or re-run `ramus precompute` with this one (this Ramus "
                      "reads schema version 3)"));
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
  CHECK(!has_system_force(back.domains[0]));
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
  d.global_vertices = Eigen::VectorXi::LinSpaced(40, 0, 39);
  complete.num_global_vertices = 40;
  d.system_force = random_system_force(random, 4);
  d.subtree_mass = d.mass;
  complete.global_surface_triangles = d.surface_triangles;
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
  partial.domains[0].system_force.w1 = random.matrix(3, 4);
  CHECK_THAT(find_model_inconsistency(partial),
             Contains("wrong shape of dataset /domains/domain_0/system_force/w2: expected (3, 4), "
                      "found (0, 0)"));

  // Several domains: the defaults are no longer allowed.
  ReducedModel tree = make_model();
  tree.domains[1].system_force = {};
  CHECK_THAT(find_model_inconsistency(tree),
             Contains("wrong shape of dataset /domains/domain_1/system_force/w1: expected (3, 3), "
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
  ReducedDomain rigid = make_domain(random, "pot", 10, 12, 8, 0, false, false);
  rigid.num_rigid_modes = 0;
  rigid.system_force = {};  // nothing to integrate: written as (3, 0), (3, 0), (0,), ...
  attach(model, random, rigid, 2, 3, false);
  model.domains.push_back(rigid);
  // A child of the rigid domain: its interface bases have no columns.
  ReducedDomain bud = make_domain(random, "bud", 8, 10, 6, 2, false, false);
  attach(model, random, bud, 3, 3, true);
  model.domains.push_back(bud);
  model.settings.nodes.resize(model.domains.size());  // runtime settings: one per domain
  REQUIRE(find_model_inconsistency(model).empty());
  write_model_file(model, path);
  const ReducedModel back = read_model_file(path);
  REQUIRE(back.domains.size() == 5);
  const ReducedDomain& r = back.domains[3];
  CHECK(r.basis.rows() == 30);
  CHECK(r.basis.cols() == 0);
  CHECK(r.polynomial.r == 0);
  CHECK(has_system_force(r));
  CHECK(r.system_force.w1.rows() == 3);
  CHECK(r.system_force.w7.size() == 0);
  CHECK(back.domains[4].interface.centroid_basis.rows() == 3);
  CHECK(back.domains[4].interface.centroid_basis.cols() == 0);
  model.domains[3].system_force = back.domains[3].system_force;
  require_equal(model, back);
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
               root.group("domains").write_int_attribute("num_domains", 4);
             }),
             Contains("missing group /domains/domain_3"));
  CHECK_THAT(broken([](const hdf5::Group& root) {
               root.group("domains/domain_0").write_int_attribute("r", 4);
             }),
             Contains("wrong shape of dataset /domains/domain_0/basis: expected (900, 4), found "
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
               root.remove("domains/domain_0/system_force/w7");
               root.write_matrix("domains/domain_0/system_force/w7", Eigen::MatrixXd::Zero(14, 15));
             }),
             Contains("model.h5: wrong shape of dataset /domains/domain_0/system_force/w7: "
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
             Contains("dataset /domains/domain_1/interface/parent_vertices: the interface has 2 "
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
  CHECK_THAT(
      broken([&](const hdf5::Group& root) {
        Eigen::VectorXi tet = model.embedded_surface.tet;
        tet(3) = static_cast<int>(
            model.domains[static_cast<std::size_t>(model.embedded_surface.domain(3))].tets.rows());
        replace_vector(root, "embedded_surface/tet", tet);
      }),
      Contains("dataset /embedded_surface/tet: entry 3 references tet"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::VectorXi domain = model.embedded_surface.domain;
               domain(4) = 3;
               replace_vector(root, "embedded_surface/domain", domain);
             }),
             Contains("dataset /embedded_surface/domain: entry 4 references domain 3, but there "
                      "are 3 domains"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               Eigen::MatrixXd barycentric = model.embedded_surface.barycentric;
               barycentric(6, 2) += 1e-5;
               root.remove("embedded_surface/barycentric");
               root.write_matrix("embedded_surface/barycentric", barycentric);
             }),
             Contains("dataset /embedded_surface/barycentric: row 6 sums to 1.00001, not 1"));
  CHECK_THAT(broken([&](const hdf5::Group& root) {
               root.group("domains/domain_2/subtree")
                   .write_double_attribute("mass", 0.5 * model.domains[2].mass);
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
  bad.domains[1].system_force.w3(2) = std::numeric_limits<double>::infinity();
  CHECK(find_model_inconsistency(bad) ==
        "non-finite value in dataset /domains/domain_1/system_force/w3 at 2");

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

  const TempDir dir("model_file");
  const std::string path = dir.file("model.h5");
  bad = good;
  bad.domains[2].system_force.w7.resize(12, 11);
  CHECK_THROWS_WITH(
      write_model_file(bad, path),
      Contains("model.h5") && Contains("wrong shape of dataset /domains/domain_2/system_force/w7: "
                                       "expected (12, 12), found (12, 11)"));
  CHECK(dir.entries().empty());
}

TEST_CASE("an inconsistent model is not written", "[runtime][io][model_file]") {
  const TempDir dir("model_file");
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
    root.remove("runtime/nodes/stiffness_scale");
    root.write_vector("runtime/nodes/stiffness_scale", Eigen::VectorXd(Eigen::Vector3d(1, -1, 1)));
  });
  CHECK_THAT(
      read_error(path),
      Contains("settings.h5: group /runtime: nodes[1].stiffness_scale = -1 must be positive"));
  write_model_file(make_model(), path);
  edit(path, [](const hdf5::Group& root) {
    root.group("runtime").write_double_attribute("time_step", 0.0);
  });
  CHECK_THAT(read_error(path), Contains("group /runtime: time_step = 0 must be positive"));
  write_model_file(make_model(), path);
  edit(path, [](const hdf5::Group& root) { root.remove("runtime"); });
  CHECK_THAT(read_error(path), Contains("settings.h5: missing group /runtime"));
  // The writer refuses what the reader would.
  ReducedModel model = make_model();
  model.settings.nodes.resize(2);
  CHECK_THROWS_WITH(write_model_file(model, path),
                    Contains("group /runtime: 2 node settings given for a model of 3 nodes"));
}

}  // namespace ramus
