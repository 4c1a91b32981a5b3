// The procedural tree (mesh/tree_generator.h): the paper's oak in counts and scales, valid limb
// meshes, every base inside its parent; the small variant assembles, and its step allocates
// nothing.
#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "ramus/precompute/generators/tree_generator.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/substructuring/assembly_builder.h"
#include "ramus/precompute/substructuring/surface_embedding.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"

using namespace ramus;

namespace {

// The assembly of a generated tree.
ReducedModel assemble(const Tree& tree, int threads) {
  const Assembly assembly = tree_assembly(tree);
  return build_assembly_model(assembly.parts, assembly.instances, 1e-9, threads);
}

// A small tree: 40 leaves (r = 4) on main and sub-branches (r = 8).
TreeOptions small_tree(int main_branches, int sub_branches) {
  TreeOptions options;
  options.small = true;
  options.main_branches = main_branches;
  options.sub_branches = sub_branches;
  options.leaves = 40;
  options.branch_r = options.trunk_r = 8;
  options.leaf_r = 4;
  return options;
}

// h = 0.01 s, gravity, a turbulent wind, Rayleigh damping and `integrator` on every domain.
RuntimeSettings windy_settings(const Model& model, Integrator integrator) {
  RuntimeSettings settings = model.settings;
  settings.time_step = 0.01;
  settings.gravity = Eigen::Vector3d(0, 0, -9.81);
  settings.wind.mean_velocity = Eigen::Vector3d(6, 2, 0);
  settings.wind.turbulence = 2;
  for (DomainSettings& n : settings.domains) {
    n.integrator = integrator;
    n.rayleigh_mass = 0.5;
    n.rayleigh_stiffness = 0.002;
  }
  return settings;
}

// The largest |q_lanes - q_domain_by_domain| / |q_domain_by_domain| over `steps` steps of
// `settings`, a force `pull` on vertex 5 of domain 47 throughout; every step must succeed, and the
// tree move.
double worst_lane_difference(const std::shared_ptr<const Model>& model,
                             const RuntimeSettings& settings, int steps,
                             const Eigen::Vector3d& pull) {
  Simulator on(model, settings), off(model, settings);
  off.set_batched_evaluation(false);
  for (Simulator* sim : {&on, &off}) {
    REQUIRE(sim->initialize() == StepStatus::kOk);
    if (pull.norm() > 0) sim->add_vertex_force(47, 5, pull);
  }
  double worst = 0;
  for (int k = 0; k < steps; ++k) {
    REQUIRE(on.step() == StepStatus::kOk);
    REQUIRE(off.step() == StepStatus::kOk);
    worst = std::max(worst, (on.state().q - off.state().q).norm() / off.state().q.norm());
  }
  CHECK(off.state().q.norm() > 0);
  return worst;
}

// Domain `domain`, whose stage matrix H = (1 + h α) M' + (h² + h β) s K(q) becomes indefinite at a
// q within the divergence bound (a direction, lengthened until it does; M' = `mass`), steps from
// that q in lanes as domain by domain: its lane group's other domains in lanes, it by the LDLT.
void check_indefinite_stage(const std::shared_ptr<const Model>& model,
                            const RuntimeSettings& settings, int domain,
                            const Eigen::MatrixXd& mass) {
  const Domain& n = model->domains[static_cast<std::size_t>(domain)];
  const Part& proto = model->part_of(domain);
  REQUIRE(proto.batched);
  ReducedStvkForces forces = proto.forces;
  const DomainSettings& o = settings.domains[static_cast<std::size_t>(domain)];
  const double h = settings.time_step;
  Eigen::VectorXd direction = Eigen::VectorXd::LinSpaced(n.r, 1.0, -0.5);
  direction.normalize();
  Eigen::VectorXd q, g;
  Eigen::MatrixXd K;
  double smallest = 1;
  for (double length = 1e-4 * proto.divergence_norm * n.scale.moment;
       length < proto.divergence_norm * n.scale.moment && smallest > 0; length *= 1.25) {
    q = length * direction;
    forces.evaluate(Eigen::VectorXd(n.scale.coordinate * q), g, K);
    const Eigen::MatrixXd H =
        (1 + h * o.rayleigh_mass) * mass +
        (h * h + h * o.rayleigh_stiffness) * o.stiffness_scale * n.scale.stiffness * K;
    smallest = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(H).eigenvalues()(0);
  }
  REQUIRE(smallest < 0);
  Simulator on(model, settings), off(model, settings);
  off.set_batched_evaluation(false);
  for (Simulator* sim : {&on, &off}) {
    sim->set_domain_state(domain, {q, Eigen::VectorXd::Zero(n.r), Eigen::VectorXd::Zero(n.r)});
    REQUIRE(sim->initialize() == StepStatus::kOk);
  }
  const StepStatus status = off.step();
  CHECK(on.step() == status);
  CHECK((on.state().q - off.state().q).norm() < 1e-12 * off.state().q.norm());
  CHECK((on.state().q.segment(n.dof_offset, n.r) - q).norm() > 0);
}

}  // namespace

TEST_CASE(
    "The generated oak has the paper's counts: 41 branches of 5 meshes at scales 0.6-1.4, "
    "1,394 leaves of one mesh",
    "[precompute][generators][tree]") {
  const Tree tree = make_tree();
  REQUIRE(tree.parts.size() == 7);
  std::map<std::string, int> placed;
  double smallest = 1e9, largest = 0;
  for (const TreePlacement& p : tree.placements) {
    ++placed[p.part];
    if (p.part != "leaf" && p.part != "trunk") {
      smallest = std::min(smallest, p.scale);
      largest = std::max(largest, p.scale);
    }
  }
  CHECK(placed["trunk"] == 1);
  CHECK(placed["leaf"] == 1394);
  int branches = 0;
  for (const char* limb : {"limb_a", "limb_b", "limb_c", "limb_d", "limb_e"}) {
    CHECK(placed[limb] >= 1);
    branches += placed[limb];
  }
  CHECK(branches == 41);
  CHECK(smallest >= 0.6 - 1e-12);
  CHECK(smallest < 0.7);
  CHECK(largest <= 1.4 + 1e-12);
  CHECK(largest > 1.3);
  // Valid meshes (positive tets, no duplicates), deterministic for the seed.
  for (const Tree::Part& part : tree.parts) CHECK_NOTHROW(validate_tet_mesh(part.mesh, part.name));
  const Tree again = make_tree();
  REQUIRE(again.placements.size() == tree.placements.size());
  for (std::size_t k = 0; k < tree.placements.size(); ++k) {
    CHECK(again.placements[k].rotation == tree.placements[k].rotation);
    CHECK(again.placements[k].translation == tree.placements[k].translation);
  }
}

TEST_CASE(
    "The small generated tree assembles on any number of threads alike and steps without "
    "allocating",
    "[precompute][generators][tree]") {
  const Tree tree = make_tree(small_tree(3, 4));
  const ReducedModel one = assemble(tree, 1), two = assemble(tree, 2);
  REQUIRE(find_model_inconsistency(two).empty());
  CHECK(two.domains.size() == 48);
  for (std::size_t k = 0; k < one.parts.size(); ++k) {
    CHECK(one.parts[k].basis == two.parts[k].basis);
    CHECK(one.parts[k].polynomial.quartic == two.parts[k].polynomial.quartic);
  }
  const auto model = compile_model(two);
  RuntimeSettings settings = model->settings;
  settings.time_step = 0.01;
  for (DomainSettings& n : settings.domains) {
    n.integrator = Integrator::kSemiImplicitEuler;
    n.rayleigh_mass = 0.5;
  }
  Simulator sim(model, settings);
  sim.reserve_vertex_forces(1);
  REQUIRE(sim.initialize() == StepStatus::kOk);
  bool ok = true;
  const long allocations = test::count_allocations([&] {
    sim.add_vertex_force(47, 5, Eigen::Vector3d(0, 0.01, 0.02));
    for (int k = 0; k < 50; ++k) ok &= sim.step() == StepStatus::kOk;
    sim.clear_vertex_forces();
  });
  CHECK(ok);
  CHECK(allocations == 0);
  CHECK(sim.state().q.norm() > 0);
}

TEST_CASE(
    "A small tree steps alike with its childless instances in SIMD lanes and domain by domain",
    "[precompute][generators][tree][batch]") {
  TreeOptions options = small_tree(4, 12);
  options.leaves = 42;  // five groups of eight leaves and one of two
  const auto model = compile_model(assemble(make_tree(options), 0));
  // Lane groups of leaves, and of a branch class placed at several scales (its childless
  // instances), some groups shorter than eight.
  int full = 0, partial = 0, scaled = 0;
  for (std::size_t g = 0; g + 1 < model->childless_groups.size(); ++g) {
    const int begin = model->childless_groups[g], end = model->childless_groups[g + 1];
    const Part& p = model->part_of(model->childless_domains[static_cast<std::size_t>(begin)]);
    if (!p.batched || end - begin < 2) continue;
    (end - begin == static_cast<int>(kLaneGroupSize) ? full : partial) += 1;
    for (int k = begin; k < end; ++k)
      scaled += model->domains[static_cast<std::size_t>(
                                   model->childless_domains[static_cast<std::size_t>(k)])]
                        .scale.identity()
                    ? 0
                    : 1;
  }
  REQUIRE(full >= 5);
  REQUIRE(partial >= 1);
  REQUIRE(scaled >= 2);
  // And domains with children whose stages are factored in lanes before the pass, at several
  // scales.
  REQUIRE(model->parent_lane_groups.size() >= 2);
  int scaled_parents = 0;
  for (const int i : model->parent_lane_domains)
    scaled_parents += model->domains[static_cast<std::size_t>(i)].scale.identity() ? 0 : 1;
  REQUIRE(scaled_parents >= 2);
  for (const Integrator integrator :
       {Integrator::kSemiImplicitEuler, Integrator::kSemiImplicitBdf2, Integrator::kNewmark,
        Integrator::kSiere, Integrator::kImplicitMidpointBlend}) {
    INFO("integrator " << to_string(integrator));
    const RuntimeSettings settings = windy_settings(*model, integrator);
    Simulator on(model, settings), off(model, settings);
    off.set_batched_evaluation(false);
    for (Simulator* sim : {&on, &off}) {
      REQUIRE(sim->initialize() == StepStatus::kOk);
      sim->add_vertex_force(47, 5, Eigen::Vector3d(0, 0.05, 0.1));
    }
    double worst = 0, first_step = 0;
    for (int k = 0; k < 200; ++k) {
      if (k == 100) {
        on.clear_vertex_forces();
        off.clear_vertex_forces();
      }
      REQUIRE(on.step() == StepStatus::kOk);
      REQUIRE(off.step() == StepStatus::kOk);
      worst = std::max(worst, (on.state().q - off.state().q).norm() / off.state().q.norm());
      if (k == 0) first_step = worst;
    }
    // One step: rounding (3e-18 relative for SI on this machine); 200 steps: 2e-16 (SI) to 2e-14
    // (SIERE). im-blend stops its energy blend within a tolerance (implicit_tolerance on its
    // Newton stages, energy_tolerance on the blend): inputs that differ by rounding (the lanes'
    // kinematics) move its result within those, not to rounding (1e-11 after one step).
    const bool blend = integrator == Integrator::kImplicitMidpointBlend;
    CHECK(first_step < (blend ? 1e-9 : 1e-14));
    CHECK(worst < (blend ? 1e-8 : 1e-12));
    CHECK(off.state().q.norm() > 0);
  }
  // The lumpings that read the subtree sums of line 3 (L3 its torques, which the lanes compute
  // for the leaves) and the children's centres of mass.
  for (const InterfaceLumping lumping :
       {InterfaceLumping::kCenterOfMass, InterfaceLumping::kRigidSubtree}) {
    INFO("lumping " << to_string(lumping));
    RuntimeSettings settings = windy_settings(*model, Integrator::kSemiImplicitEuler);
    settings.lumping = lumping;
    CHECK(worst_lane_difference(model, settings, 100, Eigen::Vector3d::Zero()) < 1e-12);
  }
}

TEST_CASE(
    "A lane whose stage matrix is indefinite is solved by the pivoted LDLT as domain by domain, "
    "its "
    "neighbours in lanes",
    "[precompute][generators][tree][batch]") {
  const auto model = compile_model(assemble(make_tree(small_tree(4, 12)), 0));
  const RuntimeSettings settings = windy_settings(*model, Integrator::kSemiImplicitEuler);
  // The second domain of the first full lane group of leaves.
  int domain = -1;
  for (std::size_t g = 0; g + 1 < model->childless_groups.size() && domain < 0; ++g)
    if (model->childless_groups[g + 1] - model->childless_groups[g] ==
        static_cast<int>(kLaneGroupSize))
      domain = model->childless_domains[static_cast<std::size_t>(model->childless_groups[g] + 1)];
  REQUIRE(domain > 0);
  const int r = model->domains[static_cast<std::size_t>(domain)].r;
  check_indefinite_stage(model, settings, domain, Eigen::MatrixXd::Identity(r, r));
}

TEST_CASE("Lane groups whose domains run different integrators step as domain by domain",
          "[precompute][generators][tree][batch]") {
  const auto model = compile_model(assemble(make_tree(small_tree(4, 12)), 0));
  REQUIRE(model->parent_lane_groups.size() >= 2);
  // SBDF2 everywhere but on the second domain of every lane group of leaves and of domains with
  // children (SI there): the lanes run one integrator, so those groups go domain by domain.
  RuntimeSettings settings = windy_settings(*model, Integrator::kSemiImplicitBdf2);
  int mixed = 0;
  for (const auto& [domains, groups] :
       {std::pair{&model->childless_domains, &model->childless_groups},
        std::pair{&model->parent_lane_domains, &model->parent_lane_groups}})
    for (std::size_t g = 0; g + 1 < groups->size(); ++g)
      if ((*groups)[g + 1] - (*groups)[g] >= 2) {
        const int domain = (*domains)[static_cast<std::size_t>((*groups)[g] + 1)];
        settings.domains[static_cast<std::size_t>(domain)].integrator =
            Integrator::kSemiImplicitEuler;
        ++mixed;
      }
  REQUIRE(mixed >= 6);
  CHECK(worst_lane_difference(model, settings, 50, Eigen::Vector3d(0, 0.05, 0.1)) < 1e-12);
}

TEST_CASE(
    "A domain with children whose stage matrix is indefinite is solved by the pivoted LDLT, the "
    "rest of its lane group from the lanes' factors",
    "[precompute][generators][tree][batch]") {
  const auto model = compile_model(assemble(make_tree(small_tree(4, 12)), 0));
  const RuntimeSettings settings = windy_settings(*model, Integrator::kSemiImplicitEuler);
  REQUIRE(model->parent_lane_groups.size() >= 2);
  REQUIRE(model->parent_lane_groups[1] >= 2);
  // The second domain of the first group; M' = the model's L1 lumped mass.
  REQUIRE(settings.lumping == InterfaceLumping::kInterface);
  const int domain = model->parent_lane_domains[1];
  check_indefinite_stage(model, settings, domain,
                         model->domains[static_cast<std::size_t>(domain)].interface_lumped_mass);
}

TEST_CASE("A small tree steps on two threads as on one, to the last bit, without allocating",
          "[precompute][generators][tree][threads]") {
  const auto model = compile_model(assemble(make_tree(small_tree(3, 4)), 0));
  REQUIRE(model->childless_domains.size() >= 40);
  RuntimeSettings settings = windy_settings(*model, Integrator::kSemiImplicitBdf2);
  Simulator one(model, settings), two(model, settings), three(model, settings);
  two.set_threads(2);
  three.set_threads(3);
  for (Simulator* sim : {&one, &two, &three}) {
    sim->reserve_vertex_forces(1);
    REQUIRE(sim->initialize() == StepStatus::kOk);
    sim->add_vertex_force(47, 5, Eigen::Vector3d(0, 0.05, 0.1));
    REQUIRE(sim->step() == StepStatus::kOk);  // (OpenMP's thread pool starts here)
  }
  // libgomp keeps the team of its last parallel region only: a step on another thread count than
  // the last one's (three's, here) allocates a team (1.8 kB, memalign). The steady state is one
  // simulator stepped on and on, as counted here; the switch itself is counted below.
  REQUIRE(one.step() == StepStatus::kOk);
  REQUIRE(three.step() == StepStatus::kOk);
  CHECK(test::count_allocations([&] { REQUIRE(two.step() == StepStatus::kOk); }) <= 1);
  bool ok = true;
  const long allocations = test::count_allocations([&] {
    for (int k = 0; k < 60; ++k) ok &= two.step() == StepStatus::kOk;
  });
  CHECK(ok);
  CHECK(allocations == 0);
  for (int k = 0; k < 60; ++k) {
    REQUIRE(one.step() == StepStatus::kOk);
    REQUIRE(three.step() == StepStatus::kOk);
  }
  CHECK(one.state().q.norm() > 0);
  CHECK(two.state().q == one.state().q);
  CHECK(two.state().qdot == one.state().qdot);
  CHECK(two.state().frame_rotation == one.state().frame_rotation);
  CHECK(two.state().frame_origin == one.state().frame_origin);
  CHECK(three.state().q == one.state().q);
  // A leaf flung off in the second thread's range: the state stays as it was, with one thread's
  // status.
  const State before = two.state();
  for (Simulator* sim : {&one, &two}) {
    sim->clear_vertex_forces();
    sim->add_vertex_force(model->childless_domains.back(), 0, Eigen::Vector3d(0, 0, 1e15));
  }
  const StepStatus alone = one.step();
  CHECK(alone != StepStatus::kOk);
  CHECK(two.step() == alone);
  CHECK(two.state().q == before.q);
  CHECK(two.state().frame_rotation == before.frame_rotation);
  // Every lumping (L2 and L3 fill the parents' lumped inertia on the threads) and a free root.
  for (const InterfaceLumping lumping :
       {InterfaceLumping::kInterface, InterfaceLumping::kCenterOfMass,
        InterfaceLumping::kRigidSubtree}) {
    INFO("lumping " << to_string(lumping));
    settings.lumping = lumping;
    Simulator single(model, settings), threaded(model, settings);
    threaded.set_threads(2);
    for (Simulator* sim : {&single, &threaded}) {
      REQUIRE(sim->initialize() == StepStatus::kOk);
      for (int k = 0; k < 30; ++k) REQUIRE(sim->step() == StepStatus::kOk);
    }
    CHECK(threaded.state().q == single.state().q);
    CHECK(threaded.state().frame_origin == single.state().frame_origin);
  }
}

namespace {

// Bytes the heap is asked for per candidate of a Workspace's contact pool (its capacity set).
long workspace_bytes_per_candidate() {
  const auto model = compile_model(assemble(make_tree(small_tree(1, 1)), 0));
  Workspace w(*model);
  w.set_contact_capacity(0);
  const long bytes = test::count_allocated_bytes([&] { w.set_contact_capacity(1000); });
  return bytes / 1000;
}

}  // namespace

TEST_CASE("Per-domain memory accounts for what eight more leaves cost a Model and a Workspace",
          "[precompute][generators][tree][memory]") {
  // Two small trees alike but for 8 more leaves (each part's render block full at 64 in
  // both, the leaf lane groups full): what copying the Model and building a Workspace ask of the
  // heap more is exactly the accounted bytes that grew (the new leaves', and their parents' for
  // the lumping of more children; the Workspace's shared contact pool, below its cap, by the new
  // leaves' samples), and each whole is at least its domains' sum.
  TreeOptions fewer = small_tree(2, 2), more = small_tree(2, 2);
  fewer.leaves = 64;
  more.leaves = 72;
  const auto model_a = compile_model(assemble(make_tree(fewer), 0));
  const auto model_b = compile_model(assemble(make_tree(more), 0));
  REQUIRE(model_b->num_domains() == model_a->num_domains() + 8);
  REQUIRE(model_b->childless_groups.size() == model_a->childless_groups.size() + 1);
  const auto copy_bytes = [](const Model& m) {
    return test::count_allocated_bytes([&] {
      const Model copy = m;
      CHECK(copy.num_domains() == m.num_domains());
    });
  };
  const auto workspace_bytes = [](const Model& m) {
    return test::count_allocated_bytes([&] { const Workspace w(m); });
  };
  const auto domain_sums = [](const Model& m) {
    const Workspace w(m);
    std::pair<long, long> sums{0, 0};
    for (int i = 0; i < m.num_domains(); ++i) {
      sums.first += static_cast<long>(domain_model_bytes(m, i));
      sums.second += static_cast<long>(domain_workspace_bytes(m, w, i));
    }
    return sums;
  };
  const auto [model_sum_a, workspace_sum_a] = domain_sums(*model_a);
  const auto [model_sum_b, workspace_sum_b] = domain_sums(*model_b);
  const long model_a_bytes = copy_bytes(*model_a), workspace_a_bytes = workspace_bytes(*model_a);
  // (The added lane group's int in childless_groups is the Model's, no domain's.)
  const long model_gap = copy_bytes(*model_b) - model_a_bytes - (model_sum_b - model_sum_a);
  const long workspace_gap =
      workspace_bytes(*model_b) - workspace_a_bytes - (workspace_sum_b - workspace_sum_a);
  CHECK(model_gap == static_cast<long>(sizeof(int)));
  const Workspace w_a(*model_a), w_b(*model_b);
  const long pool_growth = w_b.contact_capacity() - w_a.contact_capacity();
  CHECK(pool_growth == 8 * model_b->parts.back().contact.size());
  CHECK(workspace_gap == pool_growth * workspace_bytes_per_candidate());
  CHECK(model_sum_a <= model_a_bytes);
  CHECK(workspace_sum_a <= workspace_a_bytes);
}

TEST_CASE("The leaf's blade lies in the leaf's tets and faces +z", "[precompute][tree]") {
  const Tree tree = make_tree();
  const Tree::Part& leaf = tree.parts.back();
  REQUIRE(leaf.name == "leaf");
  const SurfaceMesh& blade = leaf.render_surface;
  CHECK(blade.num_vertices() == 50);
  CHECK(blade.triangles.rows() == 48);
  for (const Tree::Part& part : tree.parts)
    if (part.name != "leaf") CHECK(part.render_surface.num_vertices() == 0);
  // Every vertex in (or on) a tet: within 1e-9 of the leaf's 0.12 m.
  ReducedPart mesh_only;
  mesh_only.rest_positions = leaf.mesh.rest_positions;
  mesh_only.tets = leaf.mesh.tets;
  SurfaceEmbeddingStats stats;
  embed_surface(single_domain_model(std::move(mesh_only)), blade.vertices, blade.triangles, {},
                &stats);
  CHECK(stats.max_distance < 1e-9);
  for (Eigen::Index f = 0; f < blade.triangles.rows(); ++f) {
    const Eigen::Vector3d a = blade.vertices.row(blade.triangles(f, 0)).transpose();
    const Eigen::Vector3d b = blade.vertices.row(blade.triangles(f, 1)).transpose();
    const Eigen::Vector3d c = blade.vertices.row(blade.triangles(f, 2)).transpose();
    CHECK((b - a).cross(c - a)(2) > 0);
  }
}
