// The runtime step allocates nothing: every operator new in this executable is counted.
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <new>

#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/reduced_beams.h"

using namespace ramus;

TEST_CASE("A one-domain Simulator's step, forces, energies and reconstruction allocate nothing",
          "[runtime][dynamics]") {
  test::BeamSetup beam;
  beam.nx = 6;
  beam.ny = beam.nz = 2;
  const auto model = test::reduced_beam(beam, {6, 12, true});
  const auto compiled = compile_model(*model);
  RuntimeSettings options = compiled->settings;
  options.gravity = {0, 0, -9.81};
  options.domains[0].rayleigh_mass = 0.1;
  options.domains[0].rayleigh_stiffness = 0.001;
  options.newton_iterations = 3;
  Simulator simulator(compiled, options);
  simulator.reserve_vertex_forces(4);
  Eigen::MatrixX3d positions(model->parts.front().rest_positions.rows(), 3);
  // Nothing but the simulator runs while counting (no Catch2 macros either).
  bool all_ok = true;
  double energy = 0;
  const long allocations = test::count_allocations([&] {
    simulator.add_vertex_force(0, 20, Eigen::Vector3d(0, 0.5, 0));
    for (int k = 0; k < 50; ++k) {
      all_ok &= simulator.step() == StepStatus::kOk;
      simulator.domain_world_positions(0, positions);
      energy += simulator.elastic_energy() + simulator.kinetic_energy();
    }
    simulator.clear_vertex_forces();
    all_ok &= simulator.step() == StepStatus::kOk;
  });
  CHECK(all_ok);
  CHECK(allocations == 0);
  CHECK(energy > 0);
  // The counter sees Eigen's heap storage (malloc) too.
  CHECK(test::count_allocations([] {
          Eigen::VectorXd v(1000);
          v.setOnes();
        }) >= 1);
}
