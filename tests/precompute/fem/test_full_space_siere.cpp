// Full-space SIERE (survey Eq. 18-25, Eq. 25 by Sherman-Morrison-Woodbury on the SI factor)
// against the runtime's reduced SIERE on the same clamped beam, within the band the reduction
// itself allows (reduced BE against full BE on the same run).
#include <Eigen/Dense>
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_siere.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"
#include "support/reduced_beams.h"

using namespace ramus;

namespace {

struct Setup {
  test::BeamSetup beam;
  TetMesh mesh;
  std::unique_ptr<StvkFemModel> fem;
  std::vector<int> fixed, tip;
  Setup() {
    beam.nx = 8;
    beam.ny = beam.nz = 2;
    mesh = test::beam_mesh(beam);
    fem = std::make_unique<StvkFemModel>(mesh, assign_materials(mesh, beam.material));
    fixed = test::clamped_vertices(mesh);
    for (int v = 0; v < mesh.num_vertices(); ++v)
      if (mesh.rest_positions(v, 0) == beam.length) tip.push_back(v);
  }
  double tip_z(const Eigen::VectorXd& displacement) const {
    double sum = 0;
    for (int v : tip) sum += displacement(3 * v + 2);
    return sum / static_cast<double>(tip.size());
  }
};

const Eigen::Vector3d kGravity(0, 0, -9.81);
constexpr double kStep = 0.01;
constexpr int kSteps = 60;

enum class Full { kBackwardEuler, kNewmark, kSiere };

// Tip z over the run, full space: BE or Newmark (to tolerance), or SIERE with s modes.
std::vector<double> full_tip(const Setup& setup, Full method, int modes) {
  FullSpaceOptions options;
  options.time_step = kStep;
  options.gravity = kGravity;
  const DofMap dofs(setup.mesh.num_vertices(), setup.fixed);
  FullSpaceSimulator be(*setup.fem, dofs, options);
  FullSpaceSiere split(*setup.fem, dofs, options, {modes, 1});
  FullSpaceState state = be.rest_state();
  if (method == Full::kNewmark) be.initialize_acceleration(state);
  std::vector<double> tip;
  for (int k = 0; k < kSteps; ++k) {
    if (method == Full::kSiere)
      split.step(state);
    else if (method == Full::kNewmark)
      be.step_newmark(state);
    else
      be.step_backward_euler(state);
    REQUIRE(state.positions.allFinite());
    tip.push_back(setup.tip_z(state.positions - setup.fem->rest_positions()));
  }
  return tip;
}

// The same, reduced (r = 10: 5 linear modes and their derivatives).
std::vector<double> reduced_tip(const Setup& setup, Integrator integrator, int modes) {
  const auto data = test::reduced_beam(setup.beam, {5, 10, true});
  const auto model = compile_model(*data);
  RuntimeSettings settings;
  settings.time_step = kStep;
  settings.gravity = kGravity;
  settings.implicit_tolerance = 1e-12;
  settings.newton_iterations = 30;  // Newmark to convergence, as the full-space one
  settings.newton_tolerance = 1e-12;
  DomainSettings domain;
  domain.integrator = integrator;
  domain.split_modes = modes;
  settings.domains = {domain};
  Simulator sim(model, settings);
  std::vector<double> tip;
  for (int k = 0; k < kSteps; ++k) {
    REQUIRE(sim.step() == StepStatus::kOk);
    const Eigen::VectorXd u = data->parts[0].basis * sim.domain_state(0).q;
    tip.push_back(setup.tip_z(u));
  }
  return tip;
}

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t k = 0; k < a.size(); ++k) worst = std::max(worst, std::abs(a[k] - b[k]));
  return worst;
}

}  // namespace

TEST_CASE("Full-space SIERE against reduced SIERE on the same beam, within the reduction's band",
          "[precompute][fem]") {
  const Setup setup;
  const int s = 3;
  const std::vector<double> full_siere = full_tip(setup, Full::kSiere, s);
  const std::vector<double> full_be = full_tip(setup, Full::kBackwardEuler, s);
  const std::vector<double> full_newmark = full_tip(setup, Full::kNewmark, s);
  const std::vector<double> reduced_siere = reduced_tip(setup, Integrator::kSiere, s);
  const std::vector<double> reduced_be = reduced_tip(setup, Integrator::kBackwardEuler, 0);
  const std::vector<double> reduced_newmark = reduced_tip(setup, Integrator::kNewmark, 0);
  double amplitude = 0;
  for (double z : full_siere) amplitude = std::max(amplitude, std::abs(z));
  // The reduction's band: reduced against full with the same method, damped (BE) and undamped
  // (Newmark, where the reduction's frequency error accumulates).
  const double be_band = max_difference(reduced_be, full_be);
  const double newmark_band = max_difference(reduced_newmark, full_newmark);
  const double siere_gap = max_difference(reduced_siere, full_siere);
  const double method_gap = max_difference(full_siere, full_be);
  WARN("tip amplitude " << amplitude << " m; reduced vs full: BE " << be_band << " m, Newmark "
                        << newmark_band << " m, SIERE " << siere_gap << " m; full SIERE vs full BE "
                        << method_gap << " m");
  // SIERE swings its low modes undamped where BE damps them: the methods differ by far more
  // than the reduction does, and reduced SIERE follows full SIERE within the reduction's band.
  CHECK(amplitude > 0.05);
  CHECK(method_gap > 2.5 * std::max(be_band, newmark_band));
  CHECK(siere_gap <= std::max(be_band, newmark_band));
}

TEST_CASE("Full-space SIERE: bad options are clear errors", "[precompute][fem]") {
  const Setup setup;
  FullSpaceOptions options;
  const DofMap dofs(setup.mesh.num_vertices(), setup.fixed);
  CHECK_THROWS_AS(FullSpaceSiere(*setup.fem, dofs, options, {0, 1}), OptionError);
  CHECK_THROWS_AS(FullSpaceSiere(*setup.fem, dofs, options, {100000, 1}), OptionError);
  CHECK_THROWS_AS(FullSpaceSiere(*setup.fem, dofs, options, {3, 0}), OptionError);
}
