// Random model files with full-mantissa values (so a round trip is checked bit for bit) and the
// bitwise comparison of two models, field by field (tests only).
#pragma once

#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "io/model_fields.h"  // runtime internals: the one list of the file's fields
#include "ramus/runtime/data/reduced_model.h"

namespace ramus::test {

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
inline Eigen::Matrix3d random_rotation(Random& random) {
  const Eigen::HouseholderQR<Eigen::Matrix3d> qr(Eigen::Matrix3d(random.matrix(3, 3)));
  Eigen::Matrix3d q = qr.householderQ();
  if (q.determinant() < 0) q.col(0) *= -1;
  return q;
}

inline SystemForceIntegrals random_system_force(Random& random, int r) {
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

// Makes a random part's mass and basis agree with its mesh, as the reader's scale checks ask
// (model_scale_checks.h): mass = Σ ρ V, every basis column of lumped-mass norm 2 (a
// mass-orthonormal basis has 1 to 5).
inline void match_mesh_scale(ReducedPart& d) {
  Eigen::VectorXd vertex_mass = Eigen::VectorXd::Zero(d.rest_positions.rows());
  d.mass = 0;
  for (Eigen::Index t = 0; t < d.tets.rows(); ++t) {
    Eigen::Matrix3d edges;
    for (int k = 0; k < 3; ++k)
      edges.row(k) = d.rest_positions.row(d.tets(t, k + 1)) - d.rest_positions.row(d.tets(t, 0));
    const double mass = d.density(t) * std::abs(edges.determinant()) / 6;
    d.mass += mass;
    for (int a = 0; a < 4; ++a) vertex_mass(d.tets(t, a)) += mass / 4;
  }
  for (Eigen::Index l = 0; l < d.basis.cols(); ++l) {
    double norm = 0;
    for (Eigen::Index v = 0; v < vertex_mass.size(); ++v)
      norm += vertex_mass(v) * d.basis.block<3, 1>(3 * v, l).squaredNorm();
    d.basis.col(l) *= std::sqrt(2 / norm);
  }
}

// A part and a domain placing it, random data everywhere; its place in the tree (parent, global
// vertices, interface) is the root's until make_model links it.
struct RandomDomain {
  ReducedPart part;
  ReducedDomain domain;
};

inline RandomDomain make_domain(Random& random, const std::string& name, int V, int T, int F, int r,
                                bool labelled, bool anchored) {
  RandomDomain made;
  ReducedPart& d = made.part;
  ReducedDomain& n = made.domain;
  d.name = name;
  n.name = name;
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
  match_mesh_scale(d);
  const int p = num_pairs(r);
  d.polynomial.r = r;
  d.polynomial.quadratic = random.matrix(p, 1, 1e4);
  d.polynomial.cubic = random.matrix(p, r, 1e3);
  const Eigen::MatrixXd a = random.matrix(p, p, 1e2);
  d.polynomial.quartic = a + a.transpose();  // exactly symmetric

  d.system_force = random_system_force(random, r);

  n.frame_origin = random.matrix(3, 1, 2);
  n.frame_rotation = random_rotation(random);
  n.subtree_mass = d.mass * random.uniform(1, 3);
  n.subtree_center_of_mass = random.matrix(3, 1);
  const Eigen::Matrix3d b = random.matrix(3, 3);
  n.subtree_inertia = b * b.transpose();
  n.global_vertices = Eigen::VectorXi::LinSpaced(V, 0, V - 1);
  return made;
}

// Appends the part and its domain (which places it).
inline void add_domain(ReducedModel& model, RandomDomain made) {
  made.domain.part = static_cast<int>(model.parts.size());
  model.parts.push_back(std::move(made.part));
  model.domains.push_back(std::move(made.domain));
}

// Makes `child` a child of domain `parent` of `model` whose first m vertices are copies of m
// distinct random vertices of the parent (random interface data), and gives the child's other
// vertices new global indices.
inline void attach(ReducedModel& model, Random& random, ReducedDomain& child, int parent, int m,
                   bool planar) {
  const ReducedDomain& p = model.domains[static_cast<std::size_t>(parent)];
  const ReducedPart& p_part = part_of(model, parent);
  const int parent_r = static_cast<int>(p_part.basis.cols());
  std::vector<int> candidates(static_cast<std::size_t>(p_part.rest_positions.rows()));
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
inline ReducedModel make_model(unsigned seed = 1) {
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
  add_domain(model, make_domain(random, "trunk", 300, 900, 200, 5, true, true));
  model.num_global_vertices = 300;
  RandomDomain leaf = make_domain(random, "leaf", 12, 20, 16, 3, false, false);
  attach(model, random, leaf.domain, 0, 4, true);
  add_domain(model, leaf);
  RandomDomain branch = make_domain(random, "branch", 40, 90, 30, 4, false, true);
  attach(model, random, branch.domain, 0, 6, false);
  add_domain(model, branch);
  // A second leaf: the leaf part placed again, on the branch, at scale 1.3.
  ReducedDomain leaf_2 = make_domain(random, "leaf_2", 12, 20, 16, 3, false, false).domain;
  leaf_2.part = 1;
  leaf_2.scale = 1.3;
  leaf_2.subtree_mass = model.parts[1].mass * 1.3 * 1.3 * 1.3 * 1.5;  // (its own: of part 1)
  attach(model, random, leaf_2, 2, 4, false);
  model.domains.push_back(leaf_2);
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
    s.domain(i) = random.integer(0, 3);
    s.tet(i) = random.integer(0, static_cast<int>(part_of(model, s.domain(i)).tets.rows()) - 1);
    const Eigen::Vector4d w = random.between(4, 0.01, 1);
    s.barycentric.row(i) = w.transpose() / w.sum();
  }
  // The last part's own render surface (drawn by every domain placing it).
  ReducedPart& surfaced = model.parts.back();
  PartRenderSurface& own = surfaced.render_surface;
  const int P = 12;
  own.rest_positions = random.matrix(P, 3);
  own.triangles.resize(P - 2, 3);
  for (int f = 0; f < P - 2; ++f) own.triangles.row(f) << f, f + 1, f + 2;
  own.tet.resize(P);
  own.barycentric.resize(P, 4);
  for (int i = 0; i < P; ++i) {
    own.tet(i) = random.integer(0, static_cast<int>(surfaced.tets.rows()) - 1);
    const Eigen::Vector4d w = random.between(4, 0.01, 1);
    own.barycentric.row(i) = w.transpose() / w.sum();
  }
  // Precompute's check against the full FEM.
  ModelAccuracy& accuracy = model.accuracy;
  accuracy.measured = true;
  accuracy.gravity = random.between(3, -10, 10);
  accuracy.static_full_max = random.between(1, 0, 1)(0);
  accuracy.static_reduced_max = random.between(1, 0, 1)(0);
  accuracy.static_error = random.between(1, 0, 1)(0);
  accuracy.full_frequencies = random.between(3, 1, 10);
  accuracy.reduced_frequencies = random.between(3, 1, 10);
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
  for (std::size_t k = 0; k < model.domains.size(); ++k)
    rs.domains.push_back({Integrator::kNewmark, random.between(1, 0, 1)(0),
                          random.between(1, 0, 1e-3)(0), random.between(1, 0.5, 2)(0)});
  // A scenario away from the defaults: 3 forces, one without a window's end.
  ScenarioSettings& scenario = model.scenario;
  scenario.steps = 77;
  scenario.output_every = 7;
  scenario.force_vertices = random.indices(3, 1, model.num_global_vertices);
  scenario.forces = random.between(9, -5, 5).reshaped(3, 3);
  scenario.force_windows.resize(3, 2);
  scenario.force_windows << 0, 0.5, 0.25, 1e300, 0.1, 0.1;
  // And 3 colliders: a sphere and a turned capsule, moving, and a grid of 3 by 2 by 4 samples.
  scenario.collider_shapes.resize(3);
  scenario.collider_shapes << 1, 2, 6;
  scenario.collider_sizes = random.between(12, 0.1, 0.5).reshaped(3, 4);
  scenario.collider_sizes.row(2).setZero();
  scenario.collider_rotations.resize(3, 9);
  for (int c = 0; c < 3; ++c)
    scenario.collider_rotations.row(c) = random_rotation(random).transpose().reshaped().transpose();
  scenario.collider_positions = random.between(9, -2, 2).reshaped(3, 3);
  scenario.collider_velocities = random.between(9, -1, 1).reshaped(3, 3);
  scenario.collider_angular_velocities = random.between(9, -1, 1).reshaped(3, 3);
  scenario.collider_friction = random.between(3, 0, 1);
  scenario.collider_grid_origins.setZero(3, 3);
  scenario.collider_grid_origins.row(2) = random.between(3, -1, 1).transpose();
  scenario.collider_grid_spacings.setZero(3);
  scenario.collider_grid_spacings(2) = 0.05;
  scenario.collider_grid_samples.setZero(3, 3);
  scenario.collider_grid_samples.row(2) << 3, 2, 4;
  scenario.collider_grid_values = random.between(24, -0.1, 0.1).cast<float>();
  return model;
}

// One domain as `ramus precompute` (single domain) writes it: substructuring fields at their
// defaults (no global vertex map, no system-force integrals, subtree mass 0).
inline ReducedModel make_single_domain_model(unsigned seed = 3) {
  Random random(seed);
  ReducedModel model;
  model.provenance.tool_version = "0.1.0";
  RandomDomain made = make_domain(random, "beam", 40, 90, 30, 4, false, true);
  ReducedDomain& d = made.domain;
  d.frame_origin.setZero();
  d.frame_rotation.setIdentity();
  d.global_vertices.resize(0);
  made.part.system_force = {};
  d.subtree_mass = 0;
  d.subtree_center_of_mass.setZero();
  d.subtree_inertia.setZero();
  add_domain(model, made);
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

inline bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

// Every field of a model as (path, bytes), in the order of the one field list
// (io/model_fields.h), so two models compare field by field, bit for bit.
class FieldRecorder : public model_fields::InMemoryGroups {
 public:
  using Fields = std::vector<std::pair<std::string, std::string>>;
  explicit FieldRecorder(std::string prefix) : InMemoryGroups(std::move(prefix) + "/") {}
  Fields fields;

  void attribute(const char* name, const std::string& value) { add(name, value); }
  void text(const char* name, const std::string& value) { add(name, value); }
  template <typename T>
  void attribute(const char* name, const T& value) {
    add(name, std::string(reinterpret_cast<const char*>(&value), sizeof(T)));
  }
  void require_nonnegative(const char* name, const int& value) { attribute(name, value); }
  void flag(const char* name, const bool& value) { attribute(name, value); }
  void lumping(const char* name, const InterfaceLumping& value) { attribute(name, value); }
  template <typename M>
  void dataset(const char* name, const M& value, model_fields::Shape) {
    const typename M::PlainObject plain = value;
    const Eigen::Index dims[2] = {plain.rows(), plain.cols()};
    add(name, std::string(reinterpret_cast<const char*>(dims), sizeof(dims)) +
                  std::string(reinterpret_cast<const char*>(plain.data()),
                              sizeof(typename M::Scalar) * static_cast<std::size_t>(plain.size())));
  }
  void packed_symmetric(const char* name, const Eigen::MatrixXd& value, Eigen::Index) {
    dataset(name, value, {});
  }
  template <typename T>
  void column(const char* name, const std::vector<DomainSettings>& domains,
              T DomainSettings::*member, int n) {
    std::string bytes;
    for (int i = 0; i < n; ++i) {
      // No settings: the defaults, as the writer stores them.
      const T value =
          domains.empty() ? DomainSettings{}.*member : domains[static_cast<std::size_t>(i)].*member;
      bytes += std::string(reinterpret_cast<const char*>(&value), sizeof(T));
    }
    add(name, bytes);
  }

 private:
  void add(const char* name, std::string bytes) {
    fields.emplace_back(path(name), std::move(bytes));
  }
};

/// All fields of `model` (FieldRecorder), plus the whole-model ones the list leaves to the
/// reader and writer (format version, domain count, undivided mesh).
inline FieldRecorder::Fields model_fields_of(const ReducedModel& model) {
  FieldRecorder recorder("");
  recorder.attribute("format_version", model.format_version);
  recorder.attribute("domains/num_domains", static_cast<int>(model.domains.size()));
  recorder.attribute("parts/num_parts", static_cast<int>(model.parts.size()));
  recorder.attribute("domains/num_global_vertices", model.num_global_vertices);
  recorder.dataset("global_surface_triangles", model.global_surface_triangles, {});
  recorder.group("provenance", {true, true},
                 [&] { model_fields::visit_provenance(model.provenance, recorder); });
  const int num = static_cast<int>(model.domains.size());
  for (std::size_t k = 0; k < model.parts.size(); ++k) {
    const std::string name = "parts/part_" + std::to_string(k);
    recorder.group(name.c_str(), {true, true},
                   [&] { model_fields::visit_part(model.parts[k], num, recorder); });
  }
  const auto part_vertices = [&](int p) -> Eigen::Index {
    return model.parts[static_cast<std::size_t>(p)].rest_positions.rows();
  };
  const auto domain_r = [&](int i) -> Eigen::Index { return part_of(model, i).polynomial.r; };
  for (int k = 0; k < num; ++k) {
    const std::string name = "domains/domain_" + std::to_string(k);
    recorder.group(name.c_str(), {true, true}, [&] {
      model_fields::visit_domain(model.domains[static_cast<std::size_t>(k)], k, part_vertices,
                                 domain_r, recorder);
    });
  }
  recorder.group("embedded_surface", {false, model.embedded_surface.rest_positions.rows() > 0},
                 [&] { model_fields::visit_embedded_surface(model.embedded_surface, recorder); });
  recorder.group("runtime", {true, true}, [&] {
    model_fields::visit_runtime_settings(model.settings, model.scenario, num, recorder);
  });
  recorder.group("accuracy", {false, model.accuracy.measured},
                 [&] { model_fields::visit_accuracy(model.accuracy, recorder); });
  return recorder.fields;
}

/// `b` has every field of `a`, bit for bit (the field list names the one that differs).
inline void require_equal(const ReducedModel& a, const ReducedModel& b) {
  const FieldRecorder::Fields x = model_fields_of(a), y = model_fields_of(b);
  REQUIRE(x.size() == y.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    INFO("field " << x[i].first);
    REQUIRE(y[i].first == x[i].first);
    CHECK(y[i].second == x[i].second);
  }
  CHECK(x.size() > 40);  // the list is really walked (one domain: ~48 fields)
}

}  // namespace ramus::test
