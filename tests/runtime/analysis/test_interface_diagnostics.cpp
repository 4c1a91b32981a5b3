// Interface diagnostics (issue 12, item 2): size, relative area and non-rigidity of each
// interface against their definitions, the warnings, and the runtime measure |A - R| / |A|.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ramus/runtime/analysis/interface_diagnostics.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"
#include "support/split_beams.h"

using namespace ramus;
using Catch::Matchers::Contains;

namespace {

Simulator make_simulator(const ReducedModel& data) {
  RuntimeSettings settings;
  settings.time_step = 0.01;
  settings.gravity = Eigen::Vector3d(0, 0, -9.81);
  const auto model = compile_model(data);
  settings.domains.assign(static_cast<std::size_t>(model->num_domains()), DomainSettings{});
  return Simulator(model, settings);
}

bool any_contains(const std::vector<std::string>& texts, const std::string& part) {
  return std::any_of(texts.begin(), texts.end(),
                     [&](const std::string& t) { return t.find(part) != std::string::npos; });
}

}  // namespace

TEST_CASE("Interface diagnostics of a beam cut in two match their definitions",
          "[runtime][analysis]") {
  // 1 x 0.2 x 0.2 m, 16 x 2 x 2 cells, cut at x = 0.5: a 3 x 3 vertex cross-section of 0.04 m^2;
  // the child is a 0.5 x 0.2 x 0.2 box of surface 2 (0.04) + 4 (0.1) = 0.48 m^2.
  const auto beam = test::split_beam({8, 8});
  const std::vector<InterfaceDiagnostics> found = interface_diagnostics(*beam);
  REQUIRE(found.size() == 1);
  const InterfaceDiagnostics& d = found[0];
  CHECK(d.domain == 1);
  CHECK(d.parent == 0);
  CHECK(d.depth == 1);
  CHECK(d.vertices == 9);
  CHECK(d.area == Approx(0.04).epsilon(1e-12));
  CHECK(d.relative_area == Approx(0.04 / 0.48).epsilon(1e-12));
  REQUIRE(d.worst_column >= 0);
  CHECK(d.nonrigidity > 0);
  CHECK(interface_warnings(*beam, found).empty());

  // The estimate is the runtime's measure at the state it describes: the parent at
  // q = α_l e_l, α_l from the lowest column's amplitude (10 % of the diagonal) at equal energy.
  const ReducedPart& parent = beam->parts[0];
  double largest = 0;
  for (Eigen::Index v = 0; v < parent.basis.rows() / 3; ++v)
    largest = std::max(largest, parent.basis.col(0).segment<3>(3 * v).norm());
  const double diagonal =
      (parent.rest_positions.colwise().maxCoeff() - parent.rest_positions.colwise().minCoeff())
          .norm();
  const auto l = static_cast<Eigen::Index>(d.worst_column);
  const double alpha = 0.1 * diagonal / largest *
                       std::sqrt(parent.basis_eigenvalues(0) / parent.basis_eigenvalues(l));
  Simulator sim = make_simulator(*beam);
  DomainState state = sim.domain_state(0);
  state.q.setZero();
  state.q(l) = alpha;
  sim.set_domain_state(0, state);
  REQUIRE(sim.initialize() == StepStatus::kOk);
  // (The runtime holds A^l in float: 1e-6 relative.)
  CHECK(sim.interface_nonrigidity(1) == Approx(d.nonrigidity).epsilon(1e-5));
  CHECK(sim.interface_nonrigidity(0) == 0.0);  // the root has no interface
}

TEST_CASE("Interface warnings name soft and large interfaces and deep chains",
          "[runtime][analysis]") {
  // Eight discs of 0.125 m: each interface is 0.04 / (0.08 + 0.1) = 22 % of a disc's surface,
  // and the chain is 7 deep.
  const auto discs = test::split_beam(std::vector<int>(8, 4));
  const std::vector<InterfaceDiagnostics> found = interface_diagnostics(*discs);
  REQUIRE(found.size() == 7);
  CHECK(found.back().depth == 7);
  CHECK(found[0].relative_area == Approx(0.04 / 0.18).epsilon(1e-12));
  const std::vector<std::string> warnings = interface_warnings(*discs, found);
  CHECK(any_contains(warnings, "interface 'domain_1' on 'domain_0' is large: 9 vertices, 22.2 %"));
  CHECK(any_contains(warnings, "the domain tree is 7 deep at 'domain_7' (limit 5)"));
  // Stricter limits flag the soft ones too, naming the parent that deforms.
  InterfaceLimits strict;
  strict.nonrigidity = 0.0;
  CHECK(any_contains(interface_warnings(*discs, found, strict), "is soft: " /* any percentage */));
  CHECK(any_contains(interface_warnings(*discs, found, strict), "when 'domain_0' deforms"));
}

TEST_CASE("The runtime interface measure is 0 at rest and grows as the parent bends",
          "[runtime][analysis]") {
  const auto beam = test::split_beam({8, 8});
  Simulator sim = make_simulator(*beam);
  REQUIRE(sim.initialize() == StepStatus::kOk);
  CHECK(sim.interface_nonrigidity(1) == Approx(0.0).margin(1e-12));
  for (int step = 0; step < 20; ++step) REQUIRE(sim.step() == StepStatus::kOk);
  const double bent = sim.interface_nonrigidity(1);
  CHECK(bent > 1e-6);
  CHECK(bent < 0.1);  // a beam's cross-section stays nearly rigid in bending
  CHECK_THROWS(sim.interface_nonrigidity(2));
}
