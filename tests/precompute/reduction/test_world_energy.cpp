// The energy audit's measure (world_energy.h) against its definitions: on one domain it equals
// the runtime's reduced energies (the exact cubic StVK polynomial, Σ q̇ᵀq̇ / 2 of a
// mass-orthonormal basis) and gravity's potential −m g · Δc of the centre of mass; on a tree,
// the kinetic energy equals ½ vᵀ M v with v from finite differences of the positions; a
// dissipative run gains nothing and an energy-injecting force's work is counted.
#include <Eigen/Dense>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <vector>

#include "ramus/precompute/reduction/reduced_vs_full.h"
#include "ramus/precompute/reduction/world_energy.h"
#include "ramus/runtime/contact/contact_samples.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"
#include "support/reduced_beams.h"
#include "support/split_beams.h"

namespace {

using ramus::RuntimeSettings;
using ramus::Simulator;

RuntimeSettings drop_settings(int domains, double h) {
  RuntimeSettings settings;
  settings.time_step = h;
  settings.gravity = Eigen::Vector3d(0, 0, -9.81);
  settings.domains.resize(static_cast<std::size_t>(domains));
  return settings;
}

// The clamped beam of split_beams (1 m, every surface vertex a contact sample), no gravity, and
// a sphere of radius 0.1 m 2 cm under its free end moving at `velocity` (m/s) with `friction`.
struct BeamAndSphere {
  std::shared_ptr<ramus::ReducedModel> model = ramus::test::split_beam(1, 12);
  RuntimeSettings settings = drop_settings(1, 0.01);
  ramus::Collider sphere;
  BeamAndSphere(const Eigen::Vector3d& velocity, double friction) {
    for (ramus::ReducedPart& part : model->parts)
      ramus::attach_contact_samples(part, ramus::kMaxContactSamples);
    settings.gravity.setZero();
    settings.domains[0].rayleigh_mass = 1;
    sphere.shape = ramus::ColliderShape::kSphere;
    sphere.size(0) = 0.1;
    sphere.pose.translation = Eigen::Vector3d(0.8, 0.1, -0.12);
    sphere.velocity = velocity;
    sphere.friction = friction;
  }
};

}  // namespace

TEST_CASE("world energy of one domain equals the reduced energies and the weight's work",
          "[precompute][reduction]") {
  ramus::ReductionSpec reduction;
  reduction.r = 10;
  reduction.linear_modes = 5;
  const auto model = ramus::test::reduced_beam({}, reduction);
  const RuntimeSettings settings = drop_settings(1, 0.01);
  Simulator rest(ramus::compile_model(ramus::ReducedModel(*model)), settings);
  REQUIRE(rest.initialize() == ramus::StepStatus::kOk);
  ramus::WorldEnergyMeter meter(*model, rest, settings.gravity);
  Simulator sim(ramus::compile_model(ramus::ReducedModel(*model)), settings);
  REQUIRE(sim.initialize() == ramus::StepStatus::kOk);
  Eigen::MatrixX3d x0;
  sim.domain_world_positions(0, x0);
  for (int k = 0; k < 15; ++k) REQUIRE(sim.step() == ramus::StepStatus::kOk);
  const ramus::WorldEnergy e = meter.measure(sim);
  CHECK(e.elastic > 0);
  CHECK(e.elastic == Approx(sim.elastic_energy()).epsilon(1e-9));
  CHECK(e.kinetic == Approx(sim.kinetic_energy()).epsilon(1e-9));
  // −m g·Δc with the lumped masses (their centre of mass moves as the consistent one's).
  const ramus::StvkFemModel full = ramus::full_space_model(ramus::part_of(*model, 0));
  const Eigen::VectorXd m = full.lumped_vertex_masses();
  Eigen::MatrixX3d x;
  sim.domain_world_positions(0, x);
  double potential = 0;
  for (Eigen::Index v = 0; v < x.rows(); ++v)
    potential -= m(v) * settings.gravity.dot((x.row(v) - x0.row(v)).transpose());
  CHECK(e.gravity == Approx(potential).epsilon(1e-9));
}

TEST_CASE("world kinetic energy of a tree equals that of finite-difference velocities",
          "[precompute][reduction]") {
  const auto model = ramus::test::split_beam(2, 8);
  const RuntimeSettings settings = drop_settings(2, 1e-4);
  Simulator sim(ramus::compile_model(ramus::ReducedModel(*model)), settings);
  REQUIRE(sim.initialize() == ramus::StepStatus::kOk);
  ramus::WorldEnergyMeter meter(*model, sim, settings.gravity);
  for (int k = 0; k < 200; ++k) REQUIRE(sim.step() == ramus::StepStatus::kOk);
  // Central differences of every domain's own vertex copies over two steps.
  std::vector<Eigen::MatrixX3d> before(2), after(2);
  for (int i = 0; i < 2; ++i) sim.domain_world_positions(i, before[static_cast<std::size_t>(i)]);
  REQUIRE(sim.step() == ramus::StepStatus::kOk);
  const ramus::WorldEnergy mid = meter.measure(sim);
  REQUIRE(sim.step() == ramus::StepStatus::kOk);
  double kinetic = 0;
  for (int i = 0; i < 2; ++i) {
    const auto ui = static_cast<std::size_t>(i);
    sim.domain_world_positions(i, after[ui]);
    const ramus::StvkFemModel full =
        ramus::full_space_model(ramus::part_of(*model, i), model->domains[ui].scale);
    const Eigen::MatrixX3d v = (after[ui] - before[ui]) / (2 * settings.time_step);
    const Eigen::VectorXd flat = v.transpose().reshaped();
    kinetic += 0.5 * flat.dot(full.consistent_mass_matrix() * flat);
  }
  CHECK(mid.kinetic > 0);
  CHECK(mid.kinetic == Approx(kinetic).epsilon(1e-3));
}

TEST_CASE("energy audit: a damped drop gains nothing, a pushing force's work is counted",
          "[precompute][reduction]") {
  ramus::ReductionSpec reduction;
  reduction.r = 10;
  reduction.linear_modes = 5;
  const auto model = ramus::test::reduced_beam({}, reduction);
  const RuntimeSettings settings = drop_settings(1, 0.01);
  const ramus::EnergyAudit drop = ramus::audit_energy(model, settings, 300, {});
  CHECK(drop.ok);
  CHECK(drop.steps == 300);
  CHECK(drop.max_elastic > 0);
  CHECK(drop.max_gain <= 1e-9 * drop.max_elastic);
  CHECK(drop.final_total < 0);  // SBDF2 dissipates: below the start, at rest sagging

  // A constant push at the tip from rest: the energy rises by the force's work, no more.
  RuntimeSettings still = settings;
  still.gravity.setZero();
  ramus::PointForce push;
  push.at = Eigen::Vector3d(1.0, 0.1, 0.1);
  push.force = Eigen::Vector3d(0, 0, 5.0);
  const ramus::EnergyAudit pushed = ramus::audit_energy(model, still, 100, {push});
  CHECK(pushed.ok);
  CHECK(pushed.work > 0);
  CHECK(pushed.final_total > 0);
  CHECK(pushed.final_total <= pushed.work);
  CHECK(pushed.max_gain <= 1e-3 * pushed.max_elastic);
}

TEST_CASE("energy audit: a sphere pushing the beam up, its barrier's potential and work counted",
          "[precompute][reduction][contact]") {
  // The sphere under the beam's free end rises at 1 m/s for 0.3 s, lifting it.
  const BeamAndSphere scene(Eigen::Vector3d(0, 0, 1), 0);
  const ramus::EnergyAudit audit =
      ramus::audit_energy(scene.model, scene.settings, 30, {}, 1, {}, {scene.sphere});
  REQUIRE(audit.ok);
  double contact = 0;
  for (const ramus::WorldEnergy& e : audit.energy) contact = std::max(contact, e.contact);
  CHECK(contact > 0);            // the barrier's potential is in H
  CHECK(audit.work > 0);         // the rising sphere does work on the beam
  CHECK(audit.final_total > 0);  // which it keeps, as motion and strain
  CHECK(audit.final_total <= audit.work);
  CHECK(audit.max_gain <= 0.01 * audit.max_elastic);
}

TEST_CASE("energy audit: a sphere dragging the beam sideways, its friction's work counted",
          "[precompute][reduction][contact]") {
  // The sphere rises at 1 m/s and slides across the beam at 1 m/s with mu = 0.8, so that its
  // friction drags the beam sideways.
  const BeamAndSphere scene(Eigen::Vector3d(0, 1, 1), 0.8);
  const auto& [model, settings, sphere] = scene;
  // The friction's power, measured as the steps go: positive while the sphere drags the beam.
  ramus::Simulator simulator(ramus::compile_model(ramus::ReducedModel(*model)), settings);
  REQUIRE(simulator.add_collider(sphere).status == ramus::ColliderStatus::kOk);
  double friction_work = 0, barrier_work = 0;
  for (int step = 0; step < 30; ++step) {
    REQUIRE(simulator.step() == ramus::StepStatus::kOk);
    const ramus::ContactReport contact = simulator.contact();
    friction_work += settings.time_step * contact.friction_power;
    barrier_work += settings.time_step * contact.power;
  }
  CHECK(friction_work > 0.05 * barrier_work);
  // With it in W, the audit finds no energy made.
  const ramus::EnergyAudit audit = ramus::audit_energy(model, settings, 30, {}, 1, {}, {sphere});
  REQUIRE(audit.ok);
  CHECK(audit.work == Approx(barrier_work + friction_work).epsilon(1e-9));
  CHECK(audit.max_gain <= 0.01 * audit.max_elastic);
}
