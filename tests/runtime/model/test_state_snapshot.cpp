// State snapshots (model/state_snapshot.h) and reset: a restored snapshot replays the following
// steps bit for bit (a tree with lanes, mixed integrators, a moving collider, wind and a force;
// a free root), in the same object, a new one, or by copy, without allocating; partial
// snapshots; reset equals a fresh object; and every malformed blob is refused with the state
// left as it was.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <limits>
#include <vector>

#include "ramus/runtime/model/state_snapshot.h"
#include "ramus/runtime/simulator.h"
#include "support/allocation_counter.h"
#include "support/small_trees.h"
#include "support/split_beams.h"

namespace ramus {
namespace {

// Mixed integrators (SIERE on the trunk: split modes; im-blend on a branch: tracked energies;
// SBDF2 in lanes elsewhere), gusty turbulent wind, damping.
RuntimeSettings busy_settings(const Model& model) {
  RuntimeSettings settings = model.settings;
  settings.time_step = 0.01;
  settings.wind.mean_velocity = Eigen::Vector3d(3, 1, 0);
  settings.wind.gust = 0.3;
  settings.wind.turbulence = 0.5;
  for (DomainSettings& d : settings.domains) {
    d.rayleigh_mass = 0.2;
    d.rayleigh_stiffness = 0.002;
  }
  settings.domains[0].integrator = Integrator::kSiere;
  settings.domains[1].integrator = Integrator::kImplicitMidpointBlend;
  return settings;
}

// A capsule walking through the crown, and a pull on a leaf.
void start_busy(Simulator& sim) {
  Collider capsule;
  capsule.shape = ColliderShape::kCapsule;
  capsule.size = Eigen::Vector4d(0.05, 0.4, 0, 0);
  capsule.pose.translation = Eigen::Vector3d(-0.6, 0.9, 2.0);
  capsule.velocity = Eigen::Vector3d(1.2, 0, 0);
  capsule.friction = 0.3;
  REQUIRE(sim.add_collider(capsule).status == ColliderStatus::kOk);
  sim.add_vertex_force(sim.model().childless_domains.back(), 0, Eigen::Vector3d(0, 0, 0.2));
  REQUIRE(sim.initialize() == StepStatus::kOk);
}

std::vector<unsigned char> snapshot(const Simulator& sim, unsigned parts) {
  std::vector<unsigned char> blob(sim.state_size(parts));
  REQUIRE(sim.save_state(parts, blob.data(), blob.size()) == blob.size());
  return blob;
}

// Everything a step reads or writes of the motion, equal to the last bit.
void require_same_motion(const State& a, const State& b) {
  CHECK(a.time == b.time);
  CHECK(a.q == b.q);
  CHECK(a.qdot == b.qdot);
  CHECK(a.qddot == b.qddot);
  CHECK(a.frame_rotation == b.frame_rotation);
  CHECK(a.frame_origin == b.frame_origin);
  CHECK(a.frame_velocity == b.frame_velocity);
  CHECK(a.energy_target == b.energy_target);
  CHECK(a.root_momentum == b.root_momentum);
}

void run(Simulator& sim, int steps) {
  for (int k = 0; k < steps; ++k) REQUIRE(sim.step() == StepStatus::kOk);
}

// The blob with its CRC-32 recomputed (a well-formed blob whose fields a test changed).
void reseal(std::vector<unsigned char>& blob) {
  const auto crc = static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), blob.data(), static_cast<uInt>(blob.size() - 4)));
  std::memcpy(blob.data() + blob.size() - 4, &crc, 4);
}

TEST_CASE("A restored snapshot replays the steps bit for bit, without allocating",
          "[runtime][model][snapshot]") {
  const auto model = test::small_tree();
  Simulator original(model, busy_settings(*model));
  original.set_threads(2);
  start_busy(original);
  run(original, 30);
  const std::vector<unsigned char> blob = snapshot(original, kStateAll);
  CHECK(snapshot_parts(blob.data(), blob.size()) == kStateAll);
  run(original, 25);
  const State expected = original.state();

  SECTION("into the same object, allocation-free") {
    bool ok = true;
    const long allocations = test::count_allocations([&] {
      ok &= original.restore_state(blob.data(), blob.size()) == SnapshotStatus::kOk;
      for (int k = 0; k < 25; ++k) ok &= original.step() == StepStatus::kOk;
    });
    CHECK(ok);
    CHECK(allocations == 0);
    require_same_motion(original.state(), expected);
  }
  SECTION("into a new object of the model's own settings, on one thread") {
    Simulator restored(model);
    REQUIRE(restored.restore_state(blob.data(), blob.size()) == SnapshotStatus::kOk);
    CHECK(restored.colliders().size() == 1);
    CHECK(restored.state().forces.size() == 1);
    run(restored, 25);
    require_same_motion(restored.state(), expected);
    CHECK(restored.colliders()[0].pose.translation == original.colliders()[0].pose.translation);
  }
  SECTION("by copy from an object at the snapshot") {
    Simulator source(model), copy(model);
    REQUIRE(source.restore_state(blob.data(), blob.size()) == SnapshotStatus::kOk);
    REQUIRE(copy.copy_state_from(source, kStateAll) == SnapshotStatus::kOk);
    run(copy, 25);
    require_same_motion(copy.state(), expected);
  }
}

TEST_CASE("A free root's snapshot replays its flight bit for bit", "[runtime][model][snapshot]") {
  const auto model = compile_model(*test::split_beam(3, 6, false));
  REQUIRE(model->free_root);
  Simulator sim(model);
  sim.set_root_motion(Eigen::Vector3d(0, 0, 1), Eigen::Matrix3d::Identity(),
                      Eigen::Vector3d(1, 0, 2), Eigen::Vector3d(0.5, 3, 0));
  REQUIRE(sim.initialize() == StepStatus::kOk);
  run(sim, 20);
  const std::vector<unsigned char> blob = snapshot(sim, kStatePhysics);
  run(sim, 30);
  Simulator replay(model);
  REQUIRE(replay.restore_state(blob.data(), blob.size()) == SnapshotStatus::kOk);
  run(replay, 30);
  require_same_motion(replay.state(), sim.state());
  CHECK(replay.state().root_angular_momentum == sim.state().root_angular_momentum);
}

TEST_CASE("Partial snapshots restore their parts and leave the rest to initialize",
          "[runtime][model][snapshot]") {
  const auto model = test::small_tree();
  Simulator sim(model, busy_settings(*model));
  start_busy(sim);
  run(sim, 20);
  // Coordinates and time: q and the frames come back; velocities are the target's (zero).
  Simulator target(model, busy_settings(*model));
  const auto coordinates = snapshot(sim, kStateTime | kStateCoordinates);
  REQUIRE(target.restore_state(coordinates.data(), coordinates.size()) == SnapshotStatus::kOk);
  CHECK(target.state().q == sim.state().q);
  CHECK(target.time() == sim.time());
  CHECK(target.state().qdot.isZero());
  CHECK((target.state().frame_origin - sim.state().frame_origin).norm() < 1e-12);
  CHECK(target.state().history_size == 0);  // (initialize cleared it)
  // Settings alone: a new object takes the busy settings (SIERE's memory sized for them).
  Simulator plain(model);
  const auto settings = snapshot(sim, kStateSettings);
  REQUIRE(plain.restore_state(settings.data(), settings.size()) == SnapshotStatus::kOk);
  CHECK(plain.settings().domains[0].integrator == Integrator::kSiere);
  CHECK(plain.settings().wind.turbulence == 0.5);
  CHECK(plain.state().split_modes[0].basis.cols() == 5);
  CHECK(integrator_memory_fits(*model, plain.state()));
}

TEST_CASE("Reset puts an object back at rest, as a fresh one, without allocating",
          "[runtime][model][snapshot]") {
  const auto model = test::small_tree();
  Simulator used(model, busy_settings(*model)), fresh(model, busy_settings(*model));
  start_busy(used);
  run(used, 30);
  const Collider capsule_now = used.colliders()[0];
  StepStatus status = StepStatus::kNonFinite;
  const long allocations = test::count_allocations([&] { status = used.reset(); });
  CHECK(status == StepStatus::kOk);
  CHECK(allocations == 0);
  CHECK(used.time() == 0);
  CHECK(used.state().q.isZero());
  CHECK(used.state().forces.empty());
  CHECK(used.colliders().size() == 1);  // (kept where the game put it)
  // Stepping it equals a fresh object with the same collider.
  REQUIRE(fresh.add_collider(capsule_now).status == ColliderStatus::kOk);
  REQUIRE(fresh.initialize() == StepStatus::kOk);
  run(used, 10);
  run(fresh, 10);
  require_same_motion(used.state(), fresh.state());
}

TEST_CASE("Malformed, foreign and mismatched snapshots are refused, the state unchanged",
          "[runtime][model][snapshot]") {
  const auto model = test::small_tree();
  Simulator sim(model, busy_settings(*model));
  start_busy(sim);
  run(sim, 10);
  const std::vector<unsigned char> good = snapshot(sim, kStateAll);
  Simulator target(model);
  run(target, 3);
  const State before = target.state();
  const auto refused = [&](std::vector<unsigned char> blob, SnapshotStatus expected) {
    CHECK(target.restore_state(blob.data(), blob.size()) == expected);
    CHECK(target.state().q == before.q);
    CHECK(target.time() == before.time);
    CHECK(target.settings().domains[0].integrator == before.settings.domains[0].integrator);
  };
  // Corrupt bytes anywhere; truncated; not a snapshot.
  for (const std::size_t at : {std::size_t{60}, good.size() / 2, good.size() - 10}) {
    std::vector<unsigned char> corrupt = good;
    corrupt[at] ^= 0x10;
    refused(corrupt, SnapshotStatus::kChecksum);
  }
  refused(std::vector<unsigned char>(good.begin(), good.end() - 1), SnapshotStatus::kTooShort);
  refused(std::vector<unsigned char>(good.begin(), good.begin() + 20), SnapshotStatus::kTooShort);
  std::vector<unsigned char> other = good;
  std::memcpy(other.data(), "HDF5FILE", 8);
  refused(other, SnapshotStatus::kNotASnapshot);
  // Another version (well formed otherwise).
  std::vector<unsigned char> old = good;
  const std::uint32_t version = kStateSnapshotVersion + 1;
  std::memcpy(old.data() + 8, &version, 4);
  reseal(old);
  refused(old, SnapshotStatus::kVersion);
  // Unknown parts.
  std::vector<unsigned char> parts = good;
  const std::uint32_t unknown = kStateAll | 0x100u;
  std::memcpy(parts.data() + 16, &unknown, 4);
  reseal(parts);
  refused(parts, SnapshotStatus::kInvalidParts);
  // A non-finite coordinate in a sealed blob.
  {
    State poisoned = sim.state();
    poisoned.q(3) = std::numeric_limits<double>::quiet_NaN();
    std::vector<unsigned char> blob(state_snapshot_size(*model, poisoned, kStateAll));
    REQUIRE(save_state(*model, poisoned, kStateAll, blob.data(), blob.size()) == blob.size());
    refused(blob, SnapshotStatus::kInvalidValue);
  }
  // Another model's tree.
  Simulator beam(compile_model(*test::split_beam(3, 6)));
  const auto foreign = snapshot(beam, kStateAll);
  refused(foreign, SnapshotStatus::kWrongModel);
  // Integrator memory without the settings that size it (SIERE's modes into an SBDF2 object).
  refused(snapshot(sim, kStateIntegrator), SnapshotStatus::kIntegratorMismatch);
  // A grid collider into an object with no grid at its id.
  {
    Simulator gridded(model);
    std::vector<float> values(27, 1.0f);
    Collider grid;
    grid.shape = ColliderShape::kMesh;
    grid.pose.translation = Eigen::Vector3d(5, 5, 5);
    grid.grid.samples = Eigen::Vector3i(3, 3, 3);
    grid.grid.spacing = 0.1;
    grid.grid.values = values.data();
    REQUIRE(gridded.add_collider(grid).status == ColliderStatus::kOk);
    refused(snapshot(gridded, kStateColliders), SnapshotStatus::kNoRoom);
    // (into an object that has that grid, it restores)
    Simulator same_grid(model);
    REQUIRE(same_grid.add_collider(grid).status == ColliderStatus::kOk);
    const auto colliders = snapshot(gridded, kStateColliders);
    CHECK(same_grid.restore_state(colliders.data(), colliders.size()) == SnapshotStatus::kOk);
  }
  // A good one still restores after all that.
  CHECK(target.restore_state(good.data(), good.size()) == SnapshotStatus::kOk);
  CHECK(target.state().q == sim.state().q);
}

}  // namespace
}  // namespace ramus
