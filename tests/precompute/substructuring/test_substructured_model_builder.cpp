// The substructured precompute: a beam cut into slabs along x becomes a tree of reduced domains
// (order, interface copies held fixed, frames, interface weights and centroids, subtree mass
// properties, system-force integrals, rigid r = 0 domains, a free root), and the distribution of
// a total mode count over the domains.
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/mesh/boundary_surface.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"
#include "ramus/runtime/kernels/reduced_stvk_forces.h"
#include "ramus/runtime/model/model_geometry.h"

namespace {

using Catch::Matchers::Contains;
using Eigen::Matrix3d;
using Eigen::Vector3d;
using ramus::distribute_modes;
using ramus::ModeDistribution;
using ramus::OptionError;
using ramus::ReducedDomain;
using ramus::ReducedModel;
using ramus::ReductionSpec;
using ramus::TetMesh;

constexpr double kLength = 1.0;
constexpr double kWidth = 0.2;
constexpr double kDensity = 1000.0;

// 8 x 2 x 2 cells on [0, 1] x [0, 0.2]^2, cut into `slabs` equal slabs along x by tet centroid.
struct Beam {
  TetMesh mesh;
  Eigen::VectorXi tet_domain;
  std::vector<int> clamped;  // vertices on x = 0
};

Beam slab_beam(int slabs) {
  Beam b;
  b.mesh = ramus::make_cantilever_beam(8, 2, 2, kLength, kWidth);
  b.tet_domain.resize(b.mesh.num_tets());
  for (int t = 0; t < b.mesh.num_tets(); ++t) {
    double x = 0.0;
    for (int c = 0; c < 4; ++c) x += 0.25 * b.mesh.rest_positions(b.mesh.tets(t, c), 0);
    b.tet_domain(t) = std::min(slabs - 1, static_cast<int>(x / (kLength / slabs)));
  }
  for (int v = 0; v < b.mesh.num_vertices(); ++v)
    if (b.mesh.vertex_flags(v) == 1) b.clamped.push_back(v);
  return b;
}

std::vector<ramus::Material> uniform_materials(const TetMesh& mesh) {
  ramus::Material m;
  m.youngs_modulus = 1e6;
  m.poisson_ratio = 0.4;
  m.density = kDensity;
  return std::vector<ramus::Material>(static_cast<std::size_t>(mesh.num_tets()), m);
}

ReductionSpec spec(int r, int linear_modes) {
  ReductionSpec s;
  s.r = r;
  s.linear_modes = linear_modes;
  s.modal_derivatives = true;
  return s;
}

// Inertia tensor of a solid box of mass m and edges (a, b, c) about its centre.
Matrix3d box_inertia(double m, double a, double b, double c) {
  return m / 12.0 * Vector3d(b * b + c * c, a * a + c * c, a * a + b * b).asDiagonal();
}

// World rest position of vertex v of domain k.
Vector3d world(const ReducedModel& model, std::size_t k, Eigen::Index v) {
  const ReducedDomain& d = model.domains[k];
  return d.frame_rotation *
             (d.scale *
              ramus::part_of(model, static_cast<int>(k)).rest_positions.row(v).transpose()) +
         d.frame_origin;
}

// The same oriented triangles, in any order and starting at any corner.
bool same_triangles(const Eigen::MatrixX3i& a, const Eigen::MatrixX3i& b) {
  const auto keys = [](const Eigen::MatrixX3i& t) {
    std::vector<std::array<int, 3>> out;
    for (Eigen::Index f = 0; f < t.rows(); ++f) {
      std::array<int, 3> k = {t(f, 0), t(f, 1), t(f, 2)};
      std::rotate(k.begin(), std::min_element(k.begin(), k.end()), k.end());
      out.push_back(k);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  return keys(a) == keys(b);
}

// Checks every property that holds for any slab-cut beam model.
void check_common(const Beam& beam, const ramus::DomainTree& tree, const ReducedModel& model) {
  const TetMesh& mesh = beam.mesh;
  const int d = tree.num_domains;
  REQUIRE(static_cast<int>(model.domains.size()) == d);
  CHECK(model.num_global_vertices == mesh.num_vertices());
  CHECK(model.global_surface_triangles == ramus::boundary_triangles(mesh.tets));
  CHECK(model.global_surface_triangles.rows() == 2 * 2 * (8 * 2 + 8 * 2 + 2 * 2));
  CHECK(model.embedded_surface.rest_positions.rows() == 0);
  // The compiled model derives the same boundary from its parts' surfaces (cuts dropped).
  CHECK(same_triangles(ramus::global_boundary_triangles(*ramus::compile_model(model)),
                       model.global_surface_triangles));

  // Order: root first, every parent before its child; names kept.
  CHECK(model.domains[0].parent == -1);
  std::set<std::string> names(tree.names.begin(), tree.names.end());
  for (int k = 0; k < d; ++k) {
    const ReducedDomain& dom = model.domains[static_cast<std::size_t>(k)];
    CHECK(names.count(dom.name) == 1);
    if (k > 0) {
      CHECK(dom.parent >= 0);
      CHECK(dom.parent < k);
    }
  }

  // Global vertices cover the mesh; world rest positions are the mesh's.
  std::vector<int> covered(static_cast<std::size_t>(mesh.num_vertices()), 0);
  int total_tets = 0;
  double total_mass = 0.0;
  for (std::size_t dom_index = 0; dom_index < model.domains.size(); ++dom_index) {
    const ramus::ReducedDomain& dom = model.domains[dom_index];
    const ramus::ReducedPart& dom_part = ramus::part_of(model, static_cast<int>(dom_index));
    REQUIRE(dom.global_vertices.size() == dom_part.rest_positions.rows());
    total_tets += static_cast<int>(dom_part.tets.rows());
    total_mass += dom_part.mass;
    for (Eigen::Index v = 0; v < dom.global_vertices.size(); ++v) {
      const int g = dom.global_vertices(v);
      REQUIRE(g >= 0);
      REQUIRE(g < mesh.num_vertices());
      ++covered[static_cast<std::size_t>(g)];
      CHECK((world(model, dom_index, v) - mesh.rest_positions.row(g).transpose()).norm() < 1e-14);
    }
    // System-force integrals of a mass-orthonormal basis: W4 = Uᵀ M U = I.
    const Eigen::Index r = dom_part.basis.cols();
    REQUIRE(dom_part.system_force.w4.rows() == r);
    CHECK((dom_part.system_force.w4 - Eigen::MatrixXd::Identity(r, r)).norm() < 1e-9);
    CHECK(dom_part.system_force.w1.cols() == r);
    CHECK(dom_part.system_force.w7.rows() == 3 * r);
  }
  CHECK(total_tets == mesh.num_tets());
  for (int v = 0; v < mesh.num_vertices(); ++v) CHECK(covered[static_cast<std::size_t>(v)] >= 1);

  // Mass properties: the whole beam is a uniform box.
  const double mass = kDensity * kLength * kWidth * kWidth;
  CHECK(std::abs(total_mass - mass) < 1e-12 * mass);
  const ReducedDomain& root = model.domains[0];
  CHECK(std::abs(root.subtree_mass - mass) < 1e-12 * mass);
  const ramus::StvkFemModel whole(mesh, uniform_materials(mesh));
  const Eigen::VectorXd lumped = whole.lumped_vertex_masses();
  const Vector3d com = (mesh.rest_positions.transpose() * lumped) / lumped.sum();
  CHECK((root.frame_rotation * root.subtree_center_of_mass + root.frame_origin - com).norm() <
        1e-14);

  for (int k = 0; k < d; ++k) {
    const ReducedDomain& dom = model.domains[static_cast<std::size_t>(k)];
    const ramus::ReducedPart& dom_part = model.parts[static_cast<std::size_t>(k)];
    double children_mass = 0.0;
    for (const ReducedDomain& other : model.domains)
      if (&other != &dom && other.parent == k) children_mass += other.subtree_mass;
    CHECK(std::abs(dom.subtree_mass - dom_part.mass - children_mass) < 1e-12 * mass);
    CHECK(std::abs(dom_part.mass - kDensity * whole.rest_data()[0].volume * dom_part.tets.rows()) <
          1e-12 * mass);

    if (dom.parent < 0) continue;
    const ReducedDomain& parent = model.domains[static_cast<std::size_t>(dom.parent)];
    const ramus::ReducedPart& parent_part = model.parts[static_cast<std::size_t>(dom.parent)];
    const ramus::ParentInterface& in = dom.interface;
    // The interface is a full 3 x 3 cross-section of the beam, held fixed in the child.
    REQUIRE(in.parent_vertices.size() == 9);
    REQUIRE(in.child_vertices.size() == 9);
    REQUIRE(in.weights.size() == 9);
    CHECK(std::abs(in.weights.sum() - kWidth * kWidth) < 1e-14);
    CHECK(in.planar);
    std::vector<int> fixed(in.child_vertices.data(), in.child_vertices.data() + 9);
    std::sort(fixed.begin(), fixed.end());
    CHECK(std::vector<int>(dom_part.fixed_vertices.data(),
                           dom_part.fixed_vertices.data() + dom_part.fixed_vertices.size()) ==
          fixed);
    double plane_x = -1.0;
    for (int s = 0; s < 9; ++s) {
      const int pv = in.parent_vertices(s);
      const int cv = in.child_vertices(s);
      CHECK(parent.global_vertices(pv) == dom.global_vertices(cv));
      CHECK(dom_part.basis.middleRows(3 * cv, 3).norm() == 0.0);  // held fixed in the child's basis
      plane_x = world(model, k, cv).x();
    }
    // x̂ = the frame origin (in the parent frame, plus the parent origin) = the section's centre.
    CHECK((parent.frame_origin + parent.frame_rotation * in.centroid - dom.frame_origin).norm() <
          1e-14);
    CHECK((dom.frame_origin - Vector3d(plane_x, 0.5 * kWidth, 0.5 * kWidth)).norm() < 1e-14);
    CHECK(in.centroid_basis.cols() == parent_part.basis.cols());
    CHECK(in.rotation_basis.cols() == 3 * parent_part.basis.cols());
    // The subtree is the box from the section to the beam's end on the child's side
    // ([plane_x, L] or [0, plane_x]) times [0, w]^2: centre and inertia in closed form.
    const double side = dom_part.rest_positions.col(0).mean() > 0.0 ? 1.0 : -1.0;
    const double l = side > 0.0 ? kLength - plane_x : plane_x;
    const double m = kDensity * l * kWidth * kWidth;
    CHECK(std::abs(dom.subtree_mass - m) < 1e-12 * mass);
    CHECK((dom.subtree_center_of_mass - Vector3d(0.5 * side * l, 0.0, 0.0)).norm() < 1e-14);
    CHECK((dom.subtree_inertia - box_inertia(m, l, kWidth, kWidth)).norm() <
          1e-12 * box_inertia(m, l, kWidth, kWidth).norm());
  }
  CHECK((root.subtree_inertia - box_inertia(mass, kLength, kWidth, kWidth)).norm() <
        1e-12 * box_inertia(mass, kLength, kWidth, kWidth).norm());
}

}  // namespace

TEST_CASE("substructured model: anchored beam in 2 domains", "[precompute][substructuring]") {
  const Beam beam = slab_beam(2);
  const ramus::DomainTree tree = ramus::build_domain_tree(beam.mesh, beam.tet_domain, beam.clamped);
  REQUIRE(tree.root == 0);
  std::vector<std::string> stages;
  const ReducedModel model = ramus::build_substructured_model(
      beam.mesh, uniform_materials(beam.mesh), tree, beam.clamped, {spec(6, 3), spec(6, 3)},
      [&](const std::string& stage, double seconds) {
        CHECK(seconds >= 0.0);
        stages.push_back(stage);
      });
  check_common(beam, tree, model);
  const ReducedDomain& root = model.domains[0];
  const ramus::ReducedPart& root_part = model.parts[0];
  const ReducedDomain& child = model.domains[1];
  CHECK(root.name == "domain_0");
  CHECK(child.name == "domain_1");
  CHECK(child.parent == 0);
  // Anchored root: world frame, anchors held.
  CHECK(root.frame_origin == Vector3d::Zero());
  CHECK(root.frame_rotation == Matrix3d::Identity());
  CHECK(root_part.num_rigid_modes == 0);
  CHECK(root_part.fixed_vertices.size() == static_cast<Eigen::Index>(beam.clamped.size()));
  CHECK((root.subtree_center_of_mass - Vector3d(0.5, 0.1, 0.1)).norm() < 1e-14);
  CHECK((child.frame_origin - Vector3d(0.5, 0.1, 0.1)).norm() < 1e-14);
  for (std::size_t d_index = 0; d_index < model.domains.size(); ++d_index) {
    const ramus::ReducedPart& d_part = ramus::part_of(model, static_cast<int>(d_index));
    CHECK(d_part.basis.cols() == 6);
    CHECK(d_part.polynomial.r == 6);
    CHECK(d_part.linear_mode_eigenvalues.size() == 3);
    CHECK(d_part.gravity_basis.rows() == 6);
  }
  // The child's interface is planar: the rest fit is the identity (A(0) = R̂ = I).
  CHECK(child.interface.rest_rotation == Matrix3d::Identity());
  // Stages name their domain.
  const auto has = [&](const std::string& s) {
    return std::find(stages.begin(), stages.end(), s) != stages.end();
  };
  CHECK(has("domain_0: linear modes"));
  CHECK(has("domain_1: polynomial"));
  CHECK(has("domain_1: interface"));
  CHECK(has("domain_1: system force integrals"));
}

TEST_CASE("substructured model: anchored beam in 4 domains with a rigid (r = 0) one",
          "[precompute][substructuring]") {
  const Beam beam = slab_beam(4);
  const ramus::DomainTree tree = ramus::build_domain_tree(beam.mesh, beam.tet_domain, beam.clamped);
  // Tree domain 2 (third slab, the parent of the last one) is rigid.
  const ReducedModel model =
      ramus::build_substructured_model(beam.mesh, uniform_materials(beam.mesh), tree, beam.clamped,
                                       {spec(6, 3), spec(4, 2), spec(0, 3), spec(5, 3)});
  check_common(beam, tree, model);
  REQUIRE(model.domains.size() == 4);
  for (int k = 0; k < 4; ++k) {
    const ReducedDomain& d = model.domains[static_cast<std::size_t>(k)];
    CHECK(d.name == "domain_" + std::to_string(k));  // a chain: breadth-first = slab order
    CHECK(d.parent == k - 1);
    const Vector3d origin = k == 0 ? Vector3d::Zero() : Vector3d(0.25 * k, 0.1, 0.1);
    CHECK((d.frame_origin - origin).norm() < 1e-14);
  }
  const ramus::ReducedPart& rigid_part = model.parts[2];
  CHECK(rigid_part.basis.rows() == 3 * rigid_part.rest_positions.rows());
  CHECK(rigid_part.basis.cols() == 0);
  CHECK(rigid_part.polynomial.r == 0);
  CHECK(rigid_part.basis_eigenvalues.size() == 0);
  CHECK(rigid_part.linear_mode_eigenvalues.size() == 0);
  CHECK(rigid_part.gravity_basis.rows() == 0);
  CHECK(rigid_part.gravity_basis.cols() == 3);
  CHECK(rigid_part.num_rigid_modes == 0);
  CHECK(rigid_part.fixed_vertices.size() == 9);
  CHECK(rigid_part.mass > 0.0);
  // The runtime evaluator accepts r = 0.
  ramus::ReducedStvkForces forces(rigid_part.polynomial);
  Eigen::VectorXd gradient;
  Eigen::MatrixXd hessian;
  CHECK(forces.evaluate_energy(Eigen::VectorXd(0), gradient, hessian) == 0.0);
  CHECK(gradient.size() == 0);
  CHECK(hessian.size() == 0);
  // The child of the rigid domain: its interface data has r_i = 0 columns.
  const ReducedDomain& last = model.domains[3];
  const ramus::ReducedPart& last_part = model.parts[3];
  CHECK(last.interface.centroid_basis.rows() == 3);
  CHECK(last.interface.centroid_basis.cols() == 0);
  CHECK(last.interface.rotation_basis.cols() == 0);
  CHECK(model.parts[1].basis.cols() == 4);
  CHECK(last_part.basis.cols() == 5);
}

TEST_CASE("substructured model: free beam in 4 domains, root at the tree's centre",
          "[precompute][substructuring]") {
  const Beam beam = slab_beam(4);
  const ramus::DomainTree tree = ramus::build_domain_tree(beam.mesh, beam.tet_domain, {});
  REQUIRE(tree.root == 1);
  const ReducedModel model =
      ramus::build_substructured_model(beam.mesh, uniform_materials(beam.mesh), tree, {},
                                       {spec(4, 2), spec(6, 3), spec(4, 2), spec(4, 2)});
  check_common(beam, tree, model);
  // Breadth-first from tree domain 1 with children ascending: 1, 0, 2, 3.
  const std::vector<std::string> names{"domain_1", "domain_0", "domain_2", "domain_3"};
  const std::vector<int> parents{-1, 0, 0, 2};
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(model.domains[k].name == names[k]);
    CHECK(model.domains[k].parent == parents[k]);
  }
  const ReducedDomain& root = model.domains[0];
  const ramus::ReducedPart& root_part = model.parts[0];
  CHECK(root_part.num_rigid_modes == 6);
  CHECK(root_part.fixed_vertices.size() == 0);
  CHECK(root_part.basis.cols() == 6);
  // Free root: frame at the whole object's centre of mass.
  CHECK((root.frame_origin - Vector3d(0.5, 0.1, 0.1)).norm() < 1e-14);
  CHECK(root.subtree_center_of_mass.norm() < 1e-14);
  // Domain 0 (x in [0, 0.25]) hangs off the root at x = 0.25.
  CHECK((model.domains[1].frame_origin - Vector3d(0.25, 0.1, 0.1)).norm() < 1e-14);
  CHECK((model.domains[1].interface.centroid - Vector3d(-0.25, 0.0, 0.0)).norm() < 1e-14);
}

TEST_CASE("substructured model: free beam in 2 domains", "[precompute][substructuring]") {
  const Beam beam = slab_beam(2);
  const ramus::DomainTree tree = ramus::build_domain_tree(beam.mesh, beam.tet_domain, {});
  const ReducedModel model = ramus::build_substructured_model(
      beam.mesh, uniform_materials(beam.mesh), tree, {}, {spec(6, 3), spec(6, 3)});
  REQUIRE(model.domains.size() == 2);
  const ReducedDomain& root = model.domains[0];
  const ramus::ReducedPart& root_part = model.parts[0];
  CHECK(root_part.num_rigid_modes == 6);
  CHECK(root_part.fixed_vertices.size() == 0);
  CHECK((root.frame_origin - Vector3d(0.5, 0.1, 0.1)).norm() < 1e-14);
  // The root's interface section is at x = 0.5 = the centre of mass: its centroid is the origin.
  CHECK((model.domains[1].frame_origin - root.frame_origin).norm() < 1e-14);
  CHECK(model.domains[1].interface.centroid.norm() < 1e-14);
  // The root's free-body basis is mass-orthogonal to the rigid motions: no net momentum, so
  // W1 = -∫ρ U_l = 0.
  CHECK(root_part.system_force.w1.norm() < 1e-9);
}

TEST_CASE("substructured model: mismatched inputs are OptionErrors",
          "[precompute][substructuring]") {
  const Beam beam = slab_beam(2);
  const ramus::DomainTree tree = ramus::build_domain_tree(beam.mesh, beam.tet_domain, beam.clamped);
  const auto materials = uniform_materials(beam.mesh);
  CHECK_THROWS_AS(
      ramus::build_substructured_model(beam.mesh, materials, tree, beam.clamped, {spec(6, 3)}),
      OptionError);
  CHECK_THROWS_AS(
      ramus::build_substructured_model(beam.mesh, {materials.begin(), materials.end() - 1}, tree,
                                       beam.clamped, {spec(6, 3), spec(6, 3)}),
      OptionError);
  CHECK_THROWS_WITH(ramus::build_substructured_model(beam.mesh, materials, tree, beam.clamped,
                                                     {spec(6, 3), spec(-1, 3)}),
                    Contains("domain 'domain_1'") && Contains("r = -1"));
  // Impossible mode counts name the domain.
  CHECK_THROWS_WITH(ramus::build_substructured_model(beam.mesh, materials, tree, beam.clamped,
                                                     {spec(6, 3), spec(5, 1)}),
                    Contains("domain 'domain_1'"));
}

TEST_CASE("distribute_modes: sums, shares, clamping and errors", "[precompute][substructuring]") {
  const std::vector<int> tets{1000, 100, 10, 1};
  const auto sum = [](const std::vector<int>& r) { return std::accumulate(r.begin(), r.end(), 0); };

  // Proportional: r_i ∝ #tets, largest remainders.
  const std::vector<int> p = distribute_modes(tets, 40, ModeDistribution::kProportional, 0);
  CHECK(sum(p) == 40);
  CHECK(p == std::vector<int>{36, 4, 0, 0});  // 36.04, 3.60, 0.36, 0.04
  // With the default min_r = 1 every domain gets a mode; the rest is shared among the others.
  const std::vector<int> p1 = distribute_modes(tets, 40, ModeDistribution::kProportional);
  CHECK(sum(p1) == 40);
  CHECK(p1 == std::vector<int>{35, 3, 1, 1});  // 38 modes over 1100 tets: 34.55, 3.45
  // Logarithmic: r_i ∝ log(1 + #tets): far more even.
  const std::vector<int> l = distribute_modes(tets, 40, ModeDistribution::kLogarithmic);
  CHECK(sum(l) == 40);
  CHECK(std::is_sorted(l.rbegin(), l.rend()));
  CHECK(l.front() < p1.front());
  CHECK(l.back() > p1.back());
  // log(1001) : log(101) : log(11) : log(2) = 6.909 : 4.615 : 2.398 : 0.693 (sum 14.615).
  CHECK(l == std::vector<int>{19, 13, 6, 2});  // 18.91, 12.63, 6.56, 1.90
  // Equal counts share equally; a remainder goes to the lower indices.
  CHECK(distribute_modes({5, 5, 5}, 10, ModeDistribution::kProportional) ==
        std::vector<int>{4, 3, 3});
  CHECK(distribute_modes({7}, 12, ModeDistribution::kLogarithmic) == std::vector<int>{12});

  // Clamping to max_r: the excess is redistributed.
  const std::vector<int> c = distribute_modes(tets, 40, ModeDistribution::kProportional, 2, 15);
  CHECK(sum(c) == 40);
  CHECK(c.front() == 15);
  CHECK(c[1] == 15);
  for (const int r : c) {
    CHECK(r >= 2);
    CHECK(r <= 15);
  }
  CHECK(distribute_modes(tets, 8, ModeDistribution::kLogarithmic, 2, 15) ==
        std::vector<int>{2, 2, 2, 2});
  CHECK(distribute_modes(tets, 60, ModeDistribution::kLogarithmic, 2, 15) ==
        std::vector<int>{15, 15, 15, 15});

  // Impossible requests.
  CHECK_THROWS_AS(distribute_modes(tets, 7, ModeDistribution::kProportional, 2, 15), OptionError);
  CHECK_THROWS_AS(distribute_modes(tets, 61, ModeDistribution::kProportional, 2, 15), OptionError);
  CHECK_THROWS_AS(distribute_modes({}, 10, ModeDistribution::kProportional), OptionError);
  CHECK_THROWS_AS(distribute_modes({10, 0}, 10, ModeDistribution::kProportional), OptionError);
  CHECK_THROWS_AS(distribute_modes(tets, 10, ModeDistribution::kProportional, 3, 2), OptionError);
}
