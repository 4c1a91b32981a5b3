// The runtime's architecture: a compiled, immutable Model shared by many per-object States, each
// stepped with a Workspace; derived model data checked against their full-space definitions.
#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/runtime/dynamics/reconstruction.h"
#include "ramus/runtime/dynamics/step.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/kernels/polar_decomposition.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"
#include "ramus/runtime/simulator.h"
#include "support/split_beams.h"

using namespace ramus;

namespace {

RuntimeSettings beam_settings(const Model& model) {
  RuntimeSettings settings = model.settings;
  settings.time_step = 0.01;
  settings.gravity = Eigen::Vector3d(0, 0, -9.81);
  settings.lumping = InterfaceLumping::kCenterOfMass;
  for (DomainSettings& domain : settings.domains) domain.rayleigh_stiffness = 1e-3;
  return settings;
}

}  // namespace

TEST_CASE("compile_model: parts, domains, layout and first moments", "[runtime][model]") {
  const auto data = test::split_beam(3, 8);
  const auto model = compile_model(*data);
  REQUIRE(model->num_domains() == 3);
  REQUIRE(model->parts.size() == 3);
  CHECK(model->num_dofs == 24);
  CHECK(model->max_r == 8);
  for (int i = 0; i < 3; ++i) {
    const Domain& domain = model->domains[static_cast<std::size_t>(i)];
    CHECK(domain.parent == data->domains[static_cast<std::size_t>(i)].parent);
    CHECK(domain.dof_offset == 8 * i);
    const Part& proto = model->parts[static_cast<std::size_t>(domain.part)];
    // The first moment from its definition ∫ρ X dV = Σ_ab M_ab X_b (consistent mass).
    const ReducedPart& d_part = data->parts[static_cast<std::size_t>(i)];
    TetMesh mesh;
    mesh.rest_positions = d_part.rest_positions;
    mesh.tets = d_part.tets;
    const StvkFemModel fem(mesh, assign_materials(mesh, test::kSplitBeamMaterial));
    const Eigen::VectorXd moment = fem.consistent_mass_matrix() * fem.rest_positions();
    Eigen::Vector3d expected = Eigen::Vector3d::Zero();
    for (Eigen::Index v = 0; v < mesh.rest_positions.rows(); ++v)
      expected += moment.segment<3>(3 * v);
    CHECK((proto.first_moment - expected).norm() < 1e-12 * expected.norm() + 1e-15);
    CHECK(proto.mass == Approx(d_part.mass).epsilon(1e-12));
  }
  // Children listed under their parents.
  CHECK(model->domains[0].num_children == 1);
  CHECK(model->children[static_cast<std::size_t>(model->domains[0].first_child)] == 1);
  CHECK(model->domains[2].num_children == 0);
}

TEST_CASE("Two objects of one model step independently", "[runtime][model][state]") {
  const auto model = compile_model(*test::split_beam(2, 8));
  const RuntimeSettings settings = beam_settings(*model);
  // One Workspace steps both States in turn: it holds no state of its own.
  Workspace workspace(*model);
  State pulled = make_state(*model), resting = make_state(*model);
  pulled.settings = resting.settings = settings;
  pulled.forces.push_back({1, 0, Eigen::Vector3d(0, 3, 0)});
  REQUIRE(initialize(*model, pulled, workspace) == StepStatus::kOk);
  REQUIRE(initialize(*model, resting, workspace) == StepStatus::kOk);
  // References: each alone, with its own workspace.
  Simulator pulled_alone(model, settings), resting_alone(model, settings);
  pulled_alone.add_vertex_force(1, 0, Eigen::Vector3d(0, 3, 0));
  REQUIRE(pulled_alone.initialize() == StepStatus::kOk);
  REQUIRE(resting_alone.initialize() == StepStatus::kOk);
  for (int k = 0; k < 40; ++k) {
    REQUIRE(step(*model, pulled, workspace) == StepStatus::kOk);
    REQUIRE(step(*model, resting, workspace) == StepStatus::kOk);
    REQUIRE(pulled_alone.step() == StepStatus::kOk);
    REQUIRE(resting_alone.step() == StepStatus::kOk);
  }
  CHECK(pulled.q == pulled_alone.state().q);
  CHECK(resting.q == resting_alone.state().q);
  CHECK(pulled.frame_rotation == pulled_alone.state().frame_rotation);
  CHECK((pulled.q - resting.q).norm() > 1e-3);  // the pull made a difference
  CHECK(pulled.time == Approx(0.4));
  // The integrator history holds the previous step.
  CHECK(pulled.history_size == 1);
}

TEST_CASE("A State or Workspace of another model is refused, never read",
          "[runtime][model][state]") {
  // (Before: heap overflow in relative_rotation_jacobian, or kOk with invalid writes; run under
  // the asan-ubsan preset to see that nothing is touched.)
  const auto beam_2 = compile_model(*test::split_beam(2, 8));
  const auto beam_3 = compile_model(*test::split_beam(3, 6));
  const auto beam_2_again = compile_model(*test::split_beam(2, 8));  // same sizes, other model
  Workspace workspace_2(*beam_2), workspace_3(*beam_3);
  State state_2 = make_state(*beam_2), state_3 = make_state(*beam_3);
  REQUIRE(initialize(*beam_2, state_2, workspace_2) == StepStatus::kOk);
  CHECK(step(*beam_2, state_3, workspace_2) == StepStatus::kWrongModel);
  CHECK(step(*beam_2, state_2, workspace_3) == StepStatus::kWrongModel);
  CHECK(step(*beam_2_again, state_2, workspace_2) == StepStatus::kWrongModel);
  CHECK(initialize(*beam_3, state_2, workspace_3) == StepStatus::kWrongModel);
  std::vector<double> out(3 * static_cast<std::size_t>(beam_3->num_global_vertices));
  std::vector<float> out_f(out.size());
  CHECK(render_positions(*beam_3, state_2, workspace_3, out.data()) == StepStatus::kWrongModel);
  CHECK(render_positions(*beam_3, state_3, workspace_2, out_f.data()) == StepStatus::kWrongModel);
  CHECK(std::isnan(elastic_energy(*beam_3, state_2, workspace_3)));
  Eigen::MatrixX3d positions;
  CHECK_THROWS_WITH(global_positions(*beam_3, state_2, positions),
                    Catch::Matchers::Contains("the State was made for another model"));
  CHECK_THROWS_WITH(domain_world_positions(*beam_2, state_2, 7, positions),
                    Catch::Matchers::Contains("domain 7 is out of range [0, 2)"));
  // A State resized by hand is not its model's either; its own pair still steps.
  State resized = make_state(*beam_2);
  resized.qdot.resize(3);
  CHECK(step(*beam_2, resized, workspace_2) == StepStatus::kWrongModel);
  CHECK(step(*beam_2, state_2, workspace_2) == StepStatus::kOk);
  CHECK(std::string(to_string(StepStatus::kWrongModel)) == "state or workspace of another model");
}

TEST_CASE("A State costs at most 64 r + 1 KB per domain", "[runtime][model][state]") {
  for (const int r : {8, 20}) {
    const auto model = compile_model(*test::split_beam(4, r));
    // (No force or collider slots: theirs is a cost per object, not per domain.)
    const State state = make_state(*model, 0, 0);
    const double per_domain =
        static_cast<double>(state_bytes(*model, state)) / model->num_domains();
    INFO("r = " << r << ": " << per_domain << " bytes per domain");
    CHECK(per_domain <= 64.0 * r + 1024.0);
  }
}

TEST_CASE("Domains sharing a part step as if each had its own copy", "[runtime][model]") {
  // A root with two identical children in the same place: shared (one part placed twice) and
  // unshared (a copy of the part for each) compile to the same dynamics.
  ReducedModel unshared_data = *test::split_beam(2, 8);
  unshared_data.settings = {};
  ReducedModel shared_data = unshared_data;
  unshared_data.parts.push_back(unshared_data.parts[1]);
  unshared_data.domains.push_back(unshared_data.domains[1]);
  unshared_data.domains[2].name = "copy";
  unshared_data.domains[2].part = 2;
  shared_data.domains.push_back(shared_data.domains[1]);
  shared_data.domains[2].name = "copy";
  REQUIRE(find_model_inconsistency(shared_data).empty());
  const auto unshared = compile_model(unshared_data);
  const auto shared = compile_model(shared_data);
  REQUIRE(unshared->parts.size() == 3);
  REQUIRE(shared->parts.size() == 2);
  CHECK(shared->parts[1].domains == std::vector<int>{1, 2});
  // The shared part's domains are one contiguous r by 2 block.
  CHECK(shared->domains[2].dof_offset == shared->domains[1].dof_offset + 8);
  Simulator a(unshared, beam_settings(*unshared)), b(shared, beam_settings(*shared));
  a.add_vertex_force(2, 0, Eigen::Vector3d(0, 1, 0));
  b.add_vertex_force(2, 0, Eigen::Vector3d(0, 1, 0));
  for (int k = 0; k < 30; ++k) {
    REQUIRE(a.step() == StepStatus::kOk);
    REQUIRE(b.step() == StepStatus::kOk);
  }
  for (int i = 0; i < 3; ++i) CHECK(a.domain_state(i).q == b.domain_state(i).q);
  const Eigen::MatrixXd block = part_q(*shared, b.state(), 1);
  CHECK(block.cols() == 2);
  CHECK(block.col(1) == b.domain_state(2).q);
  // A part index out of range, or a part nobody places, is refused.
  ReducedModel bad = shared_data;
  bad.domains[2].part = 5;
  CHECK_THROWS_AS(compile_model(bad), OptionError);
  bad = unshared_data;
  bad.domains[2].part = 1;  // part 2 is now placed by no domain
  CHECK_THROWS_AS(compile_model(bad), OptionError);
}

TEST_CASE("A domain's float interface bases give the file's double interface kinematics",
          "[runtime][model]") {
  const auto data = test::split_beam(3, 8);
  const auto model = compile_model(*data);
  Simulator sim(model, beam_settings(*model));
  sim.add_vertex_force(2, 0, Eigen::Vector3d(0, 5, -5));
  REQUIRE(sim.initialize() == StepStatus::kOk);
  for (int k = 0; k < 30; ++k) REQUIRE(sim.step() == StepStatus::kOk);
  const State& state = sim.state();
  for (int i = 1; i < 3; ++i) {
    INFO("domain " << i);
    const ParentInterface& file = data->domains[static_cast<std::size_t>(i)].interface;
    const Domain& domain = model->domains[static_cast<std::size_t>(i)];
    const Domain& parent = model->domains[static_cast<std::size_t>(domain.parent)];
    // The compact columns are the file's numbers to 16 bits: off by at most half a step of
    // 1/32,767 of each group's largest magnitude (and float's rounding of the scale).
    const InterfaceBases bases = model->interface_bases_of(i);
    REQUIRE(bases.cols() == parent.r);
    for (Eigen::Index l = 0; l < parent.r; ++l) {
      const Eigen::Vector3d a = file.centroid_basis.col(l);
      const Eigen::Matrix3d A = file.rotation_basis.block<3, 3>(0, 3 * l);
      CHECK((centroid_column(bases, l) - a).cwiseAbs().maxCoeff() <=
            0.51 / 32767 * a.cwiseAbs().maxCoeff());
      CHECK((rotation_block(bases, l) - A).cwiseAbs().maxCoeff() <=
            0.51 / 32767 * A.cwiseAbs().maxCoeff());
      CHECK(a.cwiseAbs().maxCoeff() > 0);  // (the bound is not vacuous)
    }
    // Eq. 1-2 in double from the file: x = x̂ + â q, A = R̂ + Σ A^l q_l and its polar rotation.
    const Eigen::VectorXd q = state.q.segment(parent.dof_offset, parent.r);
    const Eigen::Vector3d displacement = file.centroid_basis * q;
    Eigen::Matrix3d A = file.rest_rotation;
    for (Eigen::Index l = 0; l < parent.r; ++l)
      A += q(l) * file.rotation_basis.block<3, 3>(0, 3 * l);
    REQUIRE(displacement.norm() > 1e-3);  // the pull bends the beam
    // Within the columns' rounding: Σ_l |q_l| (half a step of each group) per entry.
    double centroid_bound = 0, rotation_bound = 0;
    for (Eigen::Index l = 0; l < parent.r; ++l) {
      centroid_bound +=
          std::abs(q(l)) * 0.51 / 32767 * file.centroid_basis.col(l).cwiseAbs().maxCoeff();
      rotation_bound += std::abs(q(l)) * 0.51 / 32767 *
                        file.rotation_basis.block<3, 3>(0, 3 * l).cwiseAbs().maxCoeff();
    }
    CHECK(centroid_bound < 1e-4 * displacement.norm());  // (16 bits: well below the fit's error)
    const Eigen::Vector3d x = state.relative_position.col(i);
    CHECK((x - file.centroid - displacement).cwiseAbs().maxCoeff() <= centroid_bound + 1e-12);
    const Eigen::Matrix3d R = state.relative_rotation.middleCols<3>(3 * i);
    CHECK((R - polar_decomposition(A).R).norm() < 3 * 3 * rotation_bound + 1e-12);
  }
}
