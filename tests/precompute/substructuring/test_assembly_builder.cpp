// Assemblies (precompute/substructuring/assembly_builder.h): parts reduced once and placed many
// times equal the same assembly with a copy of each part per instance; a non-conforming
// attachment behaves like the conforming mesh of the same shape; bad placements are named.
#include <Eigen/Geometry>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/material.h"
#include "ramus/precompute/mesh/boundary_surface.h"
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/precompute/substructuring/assembly_builder.h"
#include "ramus/precompute/substructuring/domain_tree.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"
#include "ramus/runtime/dynamics/render_vertices.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/simulator.h"
#include "support/random_models.h"
#include "support/temp_dir.h"
#include "support/test_meshes.h"

using namespace ramus;
using Catch::Matchers::Contains;

namespace {

// A box part of nx by ny by nz cells, its base the vertices at x = 0 (none: a free part).
AssemblyPart box_part(const std::string& name, int nx, int ny, int nz, Eigen::Vector3d size,
                      double youngs_modulus, int r, bool based = true) {
  AssemblyPart part;
  part.name = name;
  part.mesh = test::box_mesh(nx, ny, nz, size(0), size(1), size(2));
  part.materials.assign(static_cast<std::size_t>(part.mesh.num_tets()),
                        Material{youngs_modulus, 0.4, 1000});
  if (based)
    for (int v = 0; v < part.mesh.num_vertices(); ++v)
      if (part.mesh.rest_positions(v, 0) == 0.0) part.base.push_back(v);
  part.reduction.r = r;
  part.reduction.linear_modes = r / 2;
  return part;
}

Eigen::Matrix3d about_z(double degrees) {
  return Eigen::AngleAxisd(degrees * M_PI / 180, Eigen::Vector3d::UnitZ()).toRotationMatrix();
}

// A small tree: a trunk anchored at z = 0 (its base the vertices at z = 0), two branches of one
// part (the second turned 180° and at scale 0.8), a leaf part on each branch.
Assembly small_tree() {
  Assembly t;
  AssemblyPart trunk = box_part("trunk", 2, 2, 8, {0.1, 0.1, 0.6}, 1e7, 10, false);
  for (int v = 0; v < trunk.mesh.num_vertices(); ++v)
    if (trunk.mesh.rest_positions(v, 2) == 0.0) trunk.base.push_back(v);
  t.parts = {trunk, box_part("branch", 8, 1, 1, {0.4, 0.05, 0.05}, 5e6, 8),
             box_part("leaf", 4, 2, 1, {0.12, 0.04, 0.01}, 1e6, 6)};
  const auto place = [&](const std::string& name, int part, int parent, double degrees,
                         Eigen::Vector3d translation, double scale) {
    t.instances.push_back({name, part, parent, about_z(degrees), translation, scale, "", -1});
  };
  place("trunk", 0, -1, 0, {0, 0, 0}, 1);
  place("branch_0", 1, 0, 0, {0.09, 0.025, 0.3}, 1);      // base 1 cm inside the trunk
  place("branch_1", 1, 0, 180, {0.01, 0.07, 0.45}, 0.8);  // pointing -x
  place("leaf_0", 2, 1, 0, {0.48, 0.03, 0.32}, 1);        // at branch_0's tip
  place("leaf_1", 2, 2, 180, {-0.30, 0.07, 0.46}, 1);     // at branch_1's tip
  return t;
}

// World positions of every domain's vertices after `steps` steps under gravity and a pull on the
// last domain's vertex 0.
Eigen::MatrixX3d run(const ReducedModel& data, int steps) {
  const auto model = compile_model(data);
  RuntimeSettings settings = model->settings;
  settings.time_step = 1.0 / 200;
  settings.gravity = Eigen::Vector3d(0, 0, -9.81);
  for (DomainSettings& n : settings.domains) {
    n.integrator = Integrator::kSemiImplicitEuler;
    n.rayleigh_mass = 0.5;
  }
  Simulator sim(model, settings);
  sim.add_vertex_force(sim.num_domains() - 1, 0, Eigen::Vector3d(0.2, 0.1, 0.3));
  REQUIRE(sim.initialize() == StepStatus::kOk);
  for (int k = 0; k < steps; ++k) REQUIRE(sim.step() == StepStatus::kOk);
  Eigen::MatrixX3d all(model->num_global_vertices, 3);
  sim.global_positions(all);
  return all;
}

}  // namespace

TEST_CASE(
    "An assembly of parts placed many times equals one with a copy of each part per "
    "instance",
    "[precompute][assembly]") {
  const Assembly tree = small_tree();
  const ReducedModel instanced = build_assembly_model(tree.parts, tree.instances, 1e-9, 2);
  REQUIRE(find_model_inconsistency(instanced).empty());
  CHECK(instanced.parts.size() == 3);
  CHECK(instanced.domains.size() == 5);
  CHECK(instanced.domains[2].part == 1);
  CHECK(instanced.domains[2].scale == 0.8);
  // Every instance its own part (the same meshes reduced again, once each).
  Assembly copies = tree;
  copies.parts = {tree.parts[0], tree.parts[1], tree.parts[1], tree.parts[2], tree.parts[2]};
  for (std::size_t k = 0; k < copies.instances.size(); ++k)
    copies.instances[k].part = static_cast<int>(k);
  const ReducedModel unshared = build_assembly_model(copies.parts, copies.instances, 1e-9, 1);
  CHECK(unshared.parts.size() == 5);
  // The placements agree: frames, interfaces, subtrees.
  for (std::size_t k = 0; k < 5; ++k) {
    const ReducedDomain &a = instanced.domains[k], &b = unshared.domains[k];
    CHECK((a.frame_origin - b.frame_origin).norm() < 1e-15);
    CHECK(a.subtree_mass == Approx(b.subtree_mass).epsilon(1e-14));
  }
  // A child's rest frame: the placement's axes, origin at its base centroid on the parent.
  CHECK((instanced.domains[2].frame_rotation - about_z(180)).norm() < 1e-12);
  const Eigen::MatrixX3d x_instanced = run(instanced, 200), x_unshared = run(unshared, 200);
  const Eigen::MatrixX3d rest = run(instanced, 0);
  const double moved = (x_unshared - rest).rowwise().norm().maxCoeff();
  CHECK(moved > 1e-3);
  CHECK((x_instanced - x_unshared).rowwise().norm().maxCoeff() < 1e-12 * moved);
  // It round trips through a file, each part once.
  CHECK(instanced.parts[2].rest_positions.rows() == 5 * 3 * 2);
}

TEST_CASE("A part attached through embedded base points behaves like the conforming mesh",
          "[precompute][assembly]") {
  // A 1 m cantilever (0.1 by 0.1 m) as two halves: conforming (one mesh of 10 by 2 by 2 cells cut
  // at x = 0.5) and non-conforming (a root half of 5 by 2 by 2 cells and a tip half of 4 by 3 by
  // 3 cells whose base lies on the root's end face, between its vertices).
  const Material material{2e6, 0.4, 1000};
  TetMesh mesh = test::box_mesh(10, 2, 2, 1.0, 0.1, 0.1);
  Eigen::VectorXi halves(mesh.num_tets());
  for (int t = 0; t < mesh.num_tets(); ++t) {
    double x = 0;
    for (int c = 0; c < 4; ++c) x += mesh.rest_positions(mesh.tets(t, c), 0) / 4;
    halves(t) = x < 0.5 ? 0 : 1;
  }
  std::vector<int> anchors;
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (mesh.rest_positions(v, 0) == 0.0) anchors.push_back(v);
  ReductionSpec reduction;
  reduction.r = 12;
  reduction.linear_modes = 6;
  const ReducedModel conforming = build_substructured_model(
      mesh, assign_materials(mesh, material), build_domain_tree(mesh, halves, anchors), anchors,
      {reduction, reduction});

  AssemblyPart root = box_part("root", 5, 2, 2, {0.5, 0.1, 0.1}, material.youngs_modulus, 12);
  AssemblyPart tip = box_part("tip", 4, 3, 3, {0.5, 0.1, 0.1}, material.youngs_modulus, 12);
  const ReducedModel embedded = build_assembly_model(
      {root, tip},
      {{"root", 0, -1, Eigen::Matrix3d::Identity(), Eigen::Vector3d::Zero(), 1, "", -1},
       {"tip", 1, 0, Eigen::Matrix3d::Identity(), Eigen::Vector3d(0.5, 0, 0), 1, "", -1}},
      1e-9);
  REQUIRE(find_model_inconsistency(embedded).empty());
  CHECK(embedded.domains[1].interface.parent_vertices.size() == 0);
  CHECK(embedded.domains[1].interface.parent_tets.size() == 16);  // the 4 by 4 base vertices
  CHECK(conforming.domains[1].interface.parent_vertices.size() == 9);

  // Static deflection under gravity (damped to rest) and the first frequency (free swing after
  // gravity is switched off), measured at the free end's centre.
  struct Response {
    double deflection = 0, frequency = 0;
  };
  const auto respond = [](const ReducedModel& data) {
    const auto model = compile_model(data);
    RuntimeSettings settings = model->settings;
    settings.time_step = 1.0 / 500;
    settings.gravity = Eigen::Vector3d(0, 0, -9.81);
    for (DomainSettings& n : settings.domains) {
      n.integrator = Integrator::kSemiImplicitEuler;
      n.rayleigh_mass = 30;
    }
    Simulator sim(model, settings);
    const auto tip_z = [&] {
      Eigen::MatrixX3d x(model->num_global_vertices, 3);
      sim.global_positions(x);
      const Eigen::MatrixX3d rest = global_rest_positions(*model);
      double z = 0;
      int count = 0;
      for (Eigen::Index v = 0; v < x.rows(); ++v)
        if (rest(v, 0) > 1.0 - 1e-9) {
          z += x(v, 2) - rest(v, 2);
          ++count;
        }
      return z / count;
    };
    REQUIRE(sim.initialize() == StepStatus::kOk);
    for (int k = 0; k < 1500; ++k) REQUIRE(sim.step() == StepStatus::kOk);
    Response out;
    out.deflection = tip_z();
    settings.gravity.setZero();
    for (DomainSettings& n : settings.domains) n.rayleigh_mass = 0;
    sim.set_settings(settings);
    REQUIRE(sim.initialize() == StepStatus::kOk);
    // Upward zero crossings of the tip's swing about rest.
    std::vector<double> crossings;
    double previous = tip_z();
    for (int k = 1; k <= 1500; ++k) {
      REQUIRE(sim.step() == StepStatus::kOk);
      const double z = tip_z();
      if (previous < 0 && z >= 0) crossings.push_back((k - z / (z - previous)) / 500.0);
      previous = z;
    }
    REQUIRE(crossings.size() >= 3);
    out.frequency = static_cast<double>(crossings.size() - 1) / (crossings.back() - crossings[0]);
    return out;
  };
  const Response a = respond(conforming), b = respond(embedded);
  INFO("conforming: " << a.deflection << " m, " << a.frequency << " Hz; embedded: " << b.deflection
                      << " m, " << b.frequency << " Hz");
  CHECK(a.deflection < -1e-3);
  // The band (measured: 0.16 % and 0.07 %; the two tip halves are different meshes).
  CHECK(std::abs(b.deflection - a.deflection) < 0.02 * std::abs(a.deflection));
  CHECK(std::abs(b.frequency - a.frequency) < 0.01 * a.frequency);
}

TEST_CASE("A part placed away from its parent, or on a base too small, is named",
          "[precompute][assembly]") {
  Assembly tree = small_tree();
  tree.instances[3].translation += Eigen::Vector3d(0.02, 0, 0);  // leaf_0 1 cm past the tip
  CHECK_THROWS_WITH(build_assembly_model(tree.parts, tree.instances, 1e-3),
                    Contains("instance 'leaf_0' (part 'leaf') on 'branch_0'") &&
                        Contains("m from 'branch_0', more than the attachment tolerance 0.001 m"));
  // Within the tolerance it is snapped onto the branch.
  const ReducedModel snapped = build_assembly_model(tree.parts, tree.instances, 0.02);
  CHECK(find_model_inconsistency(snapped).empty());
  tree = small_tree();
  tree.parts[2].base.resize(2);
  CHECK_THROWS_WITH(build_assembly_model(tree.parts, tree.instances, 1e-3),
                    Contains("instance 'leaf_0' (part 'leaf') on 'branch_0': its part's base has "
                             "2 vertices; attaching it needs at least 3"));
  tree = small_tree();
  tree.instances[4].parent = 4;
  CHECK_THROWS_WITH(build_assembly_model(tree.parts, tree.instances, 1e-3),
                    Contains("instance 'leaf_1': its parent must be an earlier instance"));
}

TEST_CASE("An assembly round trips through its file, and its embedded interfaces are checked",
          "[precompute][assembly]") {
  const Assembly tree = small_tree();
  const ReducedModel model = build_assembly_model(tree.parts, tree.instances, 1e-9);
  const test::TempDir dir("assembly");
  const std::string path = dir.file("tree.h5");
  write_model_file(model, path);
  test::require_equal(model, read_model_file(path));
  const auto problem = [&](const std::function<void(ParentInterface&)>& change) {
    ReducedModel bad = model;
    change(bad.domains[3].interface);
    return find_model_inconsistency(bad);
  };
  CHECK_THAT(
      problem([](ParentInterface& f) { f.parent_vertices = f.child_vertices; }),
      Contains("group /domains/domain_3/interface has both parent_vertices and parent_tets"));
  CHECK_THAT(problem([](ParentInterface& f) {
               f.parent_tets.resize(0);
               f.parent_barycentric.resize(0, 4);
             }),
             Contains("has neither parent_vertices nor parent_tets"));
  CHECK_THAT(problem([](ParentInterface& f) { f.parent_tets(1) = 48; }),
             Contains("dataset /domains/domain_3/interface/parent_tets: entry 1 references tet 48, "
                      "but there are 48 tets in the parent /domains/domain_1"));
  CHECK_THAT(problem([](ParentInterface& f) { f.parent_barycentric(2, 0) += 0.01; }),
             Contains("dataset /domains/domain_3/interface/parent_barycentric: row 2 sums to"));
  CHECK_THAT(problem([](ParentInterface& f) { f.parent_barycentric.conservativeResize(3, 4); }),
             Contains("wrong shape of dataset /domains/domain_3/interface/parent_barycentric"));
}

namespace {

// A 0.9 m cantilever along x (9 by 2 by 2 cells, anchored at x = 0) cut into thirds: "root",
// "mid", "tip" (a chain), r = 8 each.
AssemblyPart cut_beam() {
  AssemblyPart beam = box_part("beam", 9, 2, 2, {0.9, 0.1, 0.1}, 2e6, 8);
  Eigen::VectorXi third(beam.mesh.num_tets());
  for (int t = 0; t < beam.mesh.num_tets(); ++t) {
    double x = 0;
    for (int c = 0; c < 4; ++c) x += beam.mesh.rest_positions(beam.mesh.tets(t, c), 0) / 4;
    third(t) = x < 0.3 ? 0 : x < 0.6 ? 1 : 2;
  }
  beam.domains =
      build_domain_tree(beam.mesh, third, beam.base, {{0, "root"}, {1, "mid"}, {2, "tip"}});
  beam.domain_reductions.assign(3, beam.reduction);
  return beam;
}

}  // namespace

TEST_CASE("A part cut into domains, placed once, equals the one-mesh substructured model",
          "[precompute][assembly]") {
  const AssemblyPart beam = cut_beam();
  const ReducedModel one_mesh = build_substructured_model(beam.mesh, beam.materials, *beam.domains,
                                                          beam.base, beam.domain_reductions);
  const ReducedModel assembled = build_assembly_model(
      {beam}, {{"beam", 0, -1, Eigen::Matrix3d::Identity(), Eigen::Vector3d::Zero(), 1, "", -1}},
      1e-9);
  REQUIRE(find_model_inconsistency(assembled).empty());
  REQUIRE(assembled.domains.size() == 3);
  CHECK(assembled.domains[2].name == "beam/tip");
  CHECK(assembled.parts[2].name == "beam/tip");
  // One vertex numbering, the mesh's: interface vertices shared, the cut faces not on the surface.
  CHECK(assembled.num_global_vertices == beam.mesh.num_vertices());
  CHECK(assembled.global_surface_triangles.rows() == one_mesh.global_surface_triangles.rows());
  for (std::size_t k = 0; k < 3; ++k)
    CHECK(assembled.domains[k].global_vertices == one_mesh.domains[k].global_vertices);
  // The same interfaces (area weights over the cut faces), frames and subtrees.
  for (std::size_t k = 1; k < 3; ++k) {
    const ReducedDomain &a = assembled.domains[k], &b = one_mesh.domains[k];
    CHECK((a.frame_origin - b.frame_origin).norm() < 1e-14);
    CHECK(a.subtree_mass == Approx(b.subtree_mass).epsilon(1e-13));
    const auto world_centroid = [](const ReducedModel& m, const ReducedDomain& d) {
      const ReducedDomain& p = m.domains[static_cast<std::size_t>(d.parent)];
      return (p.frame_origin + p.frame_rotation * d.interface.centroid).eval();
    };
    CHECK((world_centroid(assembled, a) - world_centroid(one_mesh, b)).norm() < 1e-14);
    CHECK((a.interface.rotation_basis - b.interface.rotation_basis).norm() <
          1e-12 * b.interface.rotation_basis.norm());
  }
  // World trajectories under gravity and a pull at the tip agree (different root frames: the
  // assembly's at the anchors' centroid, the one-mesh model's at the world origin).
  const Eigen::MatrixX3d x_assembled = run(assembled, 200), x_one_mesh = run(one_mesh, 200);
  const double moved = (x_one_mesh - run(one_mesh, 0)).rowwise().norm().maxCoeff();
  INFO("moved " << moved << " m, apart " << (x_assembled - x_one_mesh).rowwise().norm().maxCoeff()
                << " m");
  CHECK(moved > 1e-3);
  CHECK((x_assembled - x_one_mesh).rowwise().norm().maxCoeff() < 1e-12 * moved);  // 4e-15
}

TEST_CASE("A part cut into domains is reduced once per domain however it is placed",
          "[precompute][assembly]") {
  Assembly a;
  a.parts = {cut_beam(), AssemblyPart{}, box_part("leaf", 4, 2, 1, {0.12, 0.04, 0.01}, 1e6, 6)};
  a.parts[1].name = "tip_again";  // the beam's tip domain on its own, its base the cut face
  a.parts[1].source_part = 0;
  a.parts[1].source_domain = "tip";
  const Eigen::Matrix3d I = Eigen::Matrix3d::Identity();
  a.instances = {
      {"beam", 0, -1, I, Eigen::Vector3d::Zero(), 1, "", -1},
      // The tip once more past the beam's end (its cut face at x = 0.6 moved to x = 0.9).
      {"extension", 1, 0, I, Eigen::Vector3d(0.3, 0, 0), 1, "", -1},
      // A second whole beam turned about z on the middle third, at scale 0.5 (its base inside).
      {"side", 0, 0, about_z(90), Eigen::Vector3d(0.45, 0.05, 0.02), 0.5, "", -1},
      // Leaves: on the side beam's tip (found from its base), and named on the beam's root.
      {"leaf_a", 2, 2, about_z(90), Eigen::Vector3d(0.45, 0.5, 0.03), 1, "", -1},
      {"leaf_b", 2, 0, about_z(90), Eigen::Vector3d(0.2, 0.1, 0.03), 1, "root", -1}};
  a.parts[0].render_surface.vertices = a.parts[0].mesh.rest_positions;
  a.parts[0].render_surface.triangles = boundary_triangles(a.parts[0].mesh.tets);
  const Assembly expanded = expand_domain_parts(a);
  // The beam's surface placed twice, over all three domains of each placement.
  REQUIRE(expanded.surfaces.size() == 2);
  CHECK(expanded.surfaces[1].instances == std::vector<int>{4, 5, 6});
  REQUIRE(expanded.parts.size() == 4);  // beam/root, beam/mid, beam/tip, leaf
  REQUIRE(expanded.instances.size() == 9);
  std::vector<std::string> names, parents;
  for (const AssemblyInstance& i : expanded.instances) {
    names.push_back(i.name);
    parents.push_back(i.parent < 0 ? ""
                                   : expanded.instances[static_cast<std::size_t>(i.parent)].name);
  }
  CHECK(names == std::vector<std::string>{"beam/root", "beam/mid", "beam/tip", "extension",
                                          "side/root", "side/mid", "side/tip", "leaf_a", "leaf_b"});
  CHECK(parents == std::vector<std::string>{"", "beam/root", "beam/mid", "beam/tip", "beam/mid",
                                            "side/root", "side/mid", "side/tip", "beam/root"});
  CHECK(expanded.instances[3].part == 2);  // the extension is the beam's tip part
  CHECK(expanded.instances[6].part == 2);
  CHECK(expanded.parts[2].base_weights.size() == expanded.parts[2].base.size());
  const ReducedModel model = build_assembly_model(a.parts, a.instances, 1e-9, 2);
  REQUIRE(find_model_inconsistency(model).empty());
  CHECK(model.parts.size() == 4);
  CHECK(model.domains[6].scale == 0.5);
  // Each surface vertex in the domain holding it: the side beam's tip end in side/tip.
  const Eigen::Index S = a.parts[0].mesh.num_vertices();
  for (Eigen::Index v = 0; v < S; ++v) {
    const double x = a.parts[0].mesh.rest_positions(v, 0);
    const int domain = model.embedded_surface.domain(S + v);
    if (x < 0.29) CHECK(domain == 4);
    if (x > 0.61) CHECK(domain == 6);
  }
  // The extension moves like the tip it continues: rest frames one third of a beam apart.
  CHECK((model.domains[3].frame_origin - model.domains[2].frame_origin - Eigen::Vector3d(0.3, 0, 0))
            .norm() < 1e-12);
  const Eigen::MatrixX3d x = run(model, 50);
  CHECK(x.allFinite());

  // Errors name the part or instance.
  Assembly bad = a;
  bad.parts[1].source_domain = "twig";
  CHECK_THROWS_WITH(expand_domain_parts(bad),
                    Contains("part 'tip_again': part 'beam' has no domain named 'twig' (its "
                             "domains: root, mid, tip)"));
  bad = a;
  bad.instances[4].parent_domain = "stem";
  CHECK_THROWS_WITH(expand_domain_parts(bad),
                    Contains("instance 'leaf_b': its parent 'beam' has no domain 'stem'"));
  bad = a;
  bad.instances[1].name = "side/mid";
  CHECK_THROWS_WITH(expand_domain_parts(bad), Contains("instance 'side/mid': the name is taken"));
}

TEST_CASE("A part's render surface is stored once, drawn by every placement and moves with it",
          "[precompute][assembly]") {
  Assembly tree = small_tree();
  // The leaf's render surface: its own boundary, so each surface vertex is a leaf vertex.
  AssemblyPart& leaf = tree.parts[2];
  leaf.render_surface.vertices = leaf.mesh.rest_positions;
  leaf.render_surface.triangles = boundary_triangles(leaf.mesh.tets);
  const Eigen::Index S = leaf.render_surface.vertices.rows();
  const Eigen::Index F = leaf.render_surface.triangles.rows();
  const ReducedModel model = build_assembly_model(tree.parts, tree.instances, 1e-9);
  REQUIRE(find_model_inconsistency(model).empty());
  // Once, in the leaf part's frame; nothing per placement.
  CHECK(model.embedded_surface.rest_positions.rows() == 0);
  const int leaf_part = model.domains[3].part;
  CHECK(model.domains[4].part == leaf_part);
  const PartRenderSurface& own = model.parts[static_cast<std::size_t>(leaf_part)].render_surface;
  REQUIRE(own.size() == S);
  CHECK(own.triangles.rows() == F);
  // The render mesh draws it for leaf_0 and leaf_1 (domains 3 and 4), then the wood's boundary.
  const auto compiled = compile_model(model);
  CHECK(global_boundary_triangles(*compiled).rows() == model.global_surface_triangles.rows());
  const RenderMesh& mesh = compiled->render;
  const auto piece = std::find_if(mesh.pieces.begin(), mesh.pieces.end(),
                                  [&](const RenderPiece& p) { return p.part == leaf_part; });
  REQUIRE(piece != mesh.pieces.end());
  CHECK(piece->domains == std::vector<int>{3, 4});
  CHECK_FALSE(piece->from_boundary);
  for (const RenderPiece& p : mesh.pieces)
    if (p.part != leaf_part) CHECK(p.from_boundary);
  // At rest and after 100 steps the leaves' render vertices are where their vertices are.
  RuntimeSettings settings = compiled->settings;
  settings.time_step = 1.0 / 200;
  settings.gravity = Eigen::Vector3d(0, 0, -9.81);
  Simulator sim(compiled, settings);
  sim.add_vertex_force(4, 0, Eigen::Vector3d(0.2, 0.1, 0.3));
  REQUIRE(sim.initialize() == StepStatus::kOk);
  const Eigen::MatrixX3d rest = global_rest_positions(*compiled);
  using Rows = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>;
  Rows at_rest(mesh.num_vertices, 3);
  render_rest_vertices(*compiled, at_rest.data());
  for (int k = 0; k < 100; ++k) REQUIRE(sim.step() == StepStatus::kOk);
  Eigen::MatrixX3d x(compiled->num_global_vertices, 3);
  Rows drawn(mesh.num_vertices, 3);
  sim.global_positions(x);
  sim.render_vertices(drawn.data());
  double moved = 0, apart = 0, rest_apart = 0;
  for (int k = 0; k < 2; ++k)
    for (Eigen::Index v = 0; v < S; ++v) {
      const int g = model.domains[static_cast<std::size_t>(3 + k)].global_vertices(v);
      const Eigen::Index drawn_vertex = piece->first_vertex + k * S + v;
      moved = std::max(moved, (x.row(g) - rest.row(g)).norm());
      apart = std::max(apart, (x.row(g) - drawn.row(drawn_vertex)).norm());
      rest_apart = std::max(rest_apart, (rest.row(g) - at_rest.row(drawn_vertex)).norm());
    }
  INFO("moved " << moved << " m, apart " << apart << " m, at rest " << rest_apart << " m");
  CHECK(moved > 1e-3);
  // (The render tables are float: 7 digits of coordinates about 1 m.)
  CHECK(apart < 1e-6);
  CHECK(rest_apart < 1e-6);
}
