// The static and modal check: the runtime settled and ringing against the full FEM's static
// solve and eigenfrequencies.
#include <catch2/catch.hpp>
#include <cmath>

#include "ramus/error.h"
#include "ramus/precompute/reduction/static_modal_check.h"
#include "support/split_beams.h"

using namespace ramus;
using Catch::Matchers::Contains;

namespace {

StaticModalOptions beam_options(int domains) {
  StaticModalOptions options;
  options.settings.time_step = 0.01;
  options.settings.gravity = {0, 0, -9.81};
  options.settings.domains.resize(static_cast<std::size_t>(domains));
  options.num_frequencies = 3;
  return options;
}

}  // namespace

TEST_CASE("One domain whose basis holds the lowest modes rings at their frequencies",
          "[precompute][reduction]") {
  // 20 modes of the 1 m beam (its basis: the 10 lowest linear modes and their derivatives).
  const auto beam = test::split_beam({20});
  StaticModalOptions options = beam_options(1);
  options.one_domain_shortcut = false;  // solved and rung, as for a tree
  int calls = 0;
  options.progress = [&calls](int run, int runs) {
    ++calls;
    CHECK(run <= runs);
  };
  const StaticModalCheck c = check_static_and_modal(*beam, options);
  REQUIRE(c.anchored);
  REQUIRE(c.full_hz.size() == 3);
  REQUIRE(c.reduced_hz.size() == 3);
  CHECK(calls == 4);
  // Frequencies: the modes are in the basis and the trapezoidal rule's period error is undone,
  // so only the zero crossings' resolution remains.
  for (int j = 0; j < 3; ++j) {
    INFO("mode " << j + 1 << ": full " << c.full_hz(j) << " Hz, reduced " << c.reduced_hz(j));
    CHECK(c.full_hz(j) > 0.5);
    CHECK(std::abs(c.reduced_hz(j) / c.full_hz(j) - 1) < 0.001);
  }
  CHECK(c.full_hz(0) <= c.full_hz(1));
  CHECK(c.full_hz(1) <= c.full_hz(2));
  // Static: the modal derivatives hold gravity's sag to a fraction of a percent.
  const StaticCheck& s = c.static_deflection;
  INFO("static: full " << s.full_max_displacement << " m, reduced " << s.reduced_max_displacement
                       << " m, error " << s.relative_error);
  CHECK(s.settled);
  CHECK(s.full_max_displacement > 0.05);
  CHECK(s.relative_error < 0.01);
  CHECK(s.gravity.isApprox(Eigen::Vector3d(0, 0, -9.81)));
}

TEST_CASE("One domain's own modes and Ritz values give what solving and ringing give",
          "[precompute][reduction]") {
  for (const int r : {20, 6}) {
    INFO("r = " << r);
    const auto beam = test::split_beam({r});
    StaticModalOptions options = beam_options(1);
    const FullSpaceReference own = full_space_reference(*beam, options);
    CHECK(own.one_domain_omegas);
    CHECK(own.modes.cols() == 0);
    options.one_domain_shortcut = false;
    const FullSpaceReference solved = full_space_reference(*beam, options);
    REQUIRE(!solved.one_domain_omegas);
    const StaticModalCheck a = check_against_reference(*beam, own, beam_options(1));
    const StaticModalCheck b = check_against_reference(*beam, solved, options);
    REQUIRE(a.full_hz.size() == 3);
    REQUIRE(a.reduced_hz.size() == 3);
    for (int j = 0; j < 3; ++j) {
      INFO("mode " << j + 1 << ": full " << a.full_hz(j) << " / " << b.full_hz(j) << " Hz, reduced "
                   << a.reduced_hz(j) << " / " << b.reduced_hz(j));
      CHECK(std::abs(a.full_hz(j) / b.full_hz(j) - 1) < 1e-6);
      // Ringing resolves a period to its zero crossings: 1e-3.
      CHECK(std::abs(a.reduced_hz(j) / b.reduced_hz(j) - 1) < 1e-3);
      CHECK(a.reduced_hz(j) >= a.full_hz(j) * (1 - 1e-9));  // Ritz values bound from above
    }
    CHECK(a.static_deflection.relative_error == b.static_deflection.relative_error);
  }
}

TEST_CASE("The check tells a poor basis from a good one", "[precompute][reduction]") {
  // Two modes: the beam's third frequency is beyond the basis, its sag a rough fit.
  const auto poor = test::split_beam({2});
  const StaticModalCheck c = check_static_and_modal(*poor, beam_options(1));
  INFO("static error " << c.static_deflection.relative_error);
  CHECK(c.static_deflection.relative_error > 0.02);
  CHECK(!(std::abs(c.reduced_hz(2) / c.full_hz(2) - 1) < 0.05));
}

TEST_CASE("A split beam's check measures the rigid interface's stiffening",
          "[precompute][reduction]") {
  // Two domains of 20 modes: the rigid interface stiffens the stubby beam
  // (test_substructured_step: 3-15 % less deflection, up to 25 % higher frequency).
  const auto split = test::split_beam({20, 20});
  StaticModalOptions options = beam_options(2);
  options.settings.lumping = InterfaceLumping::kCenterOfMass;
  const StaticModalCheck c = check_static_and_modal(*split, options);
  const StaticCheck& s = c.static_deflection;
  INFO("static: full " << s.full_max_displacement << " m, reduced " << s.reduced_max_displacement
                       << " m; f1 " << c.full_hz(0) << " Hz, reduced " << c.reduced_hz(0));
  CHECK(s.settled);
  CHECK(s.reduced_max_displacement < s.full_max_displacement);
  CHECK(s.relative_error < 0.2);
  CHECK(c.reduced_hz(0) > c.full_hz(0));
  CHECK(c.reduced_hz(0) < 1.25 * c.full_hz(0));
}

TEST_CASE("The check skips a free body and refuses separate meshes", "[precompute][reduction]") {
  const auto free_beam = test::split_beam(std::vector<int>{8}, false);
  CHECK_FALSE(check_static_and_modal(*free_beam, beam_options(1)).anchored);
  auto scaled = test::split_beam({8, 8});
  scaled->domains[1].scale = 2;
  CHECK_THROWS_WITH(check_static_and_modal(*scaled, beam_options(2)),
                    Contains("no undivided mesh"));
  StaticModalOptions many = beam_options(1);
  many.num_frequencies = 21;
  CHECK_THROWS_WITH(check_static_and_modal(*test::split_beam({8}), many),
                    Contains("must be in [0, 20]"));
}
