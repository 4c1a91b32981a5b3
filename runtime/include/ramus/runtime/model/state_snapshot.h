// Snapshots of a State, as MuJoCo's mjtState bitmask and Jolt's StateRecorder offer them: the
// parts a game selects (time, coordinates, velocities, integrator memory, applied forces,
// colliders, settings) as a versioned binary blob with a CRC-32, to save a game or send over a
// network, or copied straight between two States of one model (a rollback, a spawn from a
// template). Restoring all of kStatePhysics and stepping repeats the original steps bit for bit.
// docs/STATES.md describes the blob.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus {

/// The parts of a State a snapshot holds (bits; or them together).
enum StatePart : unsigned {
  kStateTime = 1u << 0,  ///< State::time
  /// q; every frame's rotation and origin (a free root's placement); the children's relative
  /// positions, rotations and polar stretches
  kStateCoordinates = 1u << 1,
  /// q̇, q̈; the frames' velocities and accelerations and the relative ones; a free root's
  /// momenta and last contact force
  kStateVelocities = 1u << 2,
  /// the integrator history (q, q̇ one step back), the split integrators' modes, im-blend's
  /// tracked energies
  kStateIntegrator = 1u << 3,
  kStateForces = 1u << 4,     ///< the applied vertex forces
  kStateColliders = 1u << 5,  ///< the colliders by id (a grid's values stay the target's)
  kStateSettings = 1u << 6,   ///< every object, wind and per-domain setting (settings_list.h)
  /// What the next step reads of the motion: restored, the steps repeat bit for bit.
  kStatePhysics = kStateTime | kStateCoordinates | kStateVelocities | kStateIntegrator,
  kStateAll = kStatePhysics | kStateForces | kStateColliders | kStateSettings,
};

/// The blob's layout version (docs/STATES.md); a blob of another version is refused.
constexpr std::uint32_t kStateSnapshotVersion = 1;

/// Outcome of a restore or copy; on anything but kOk the target State is unchanged.
enum class SnapshotStatus {
  kOk,
  kTooShort,      ///< fewer bytes than its header says, or than a header
  kNotASnapshot,  ///< no "RAMUSSTA" magic, or another byte order
  kVersion,       ///< a version other than kStateSnapshotVersion
  kChecksum,      ///< its CRC-32 does not match: corrupt
  kWrongModel,    ///< made for a model of another tree (domains, parts, r), or a State not fitting
  kInvalidParts,  ///< parts outside kStateAll
  kInvalidValue,  ///< a non-finite number, a setting out of its bounds, a force on no vertex
  /// the integrator memory does not fit the target's settings (restore kStateSettings with it)
  kIntegratorMismatch,
  /// a collider id beyond the target's capacity, or a grid collider where the target has no grid
  /// of the same samples at that id, or more forces than the target has room for
  kNoRoom,
};

/// The readable name of a status ("ok", "checksum mismatch", ...).
const char* to_string(SnapshotStatus status);

/// Bytes a snapshot of `parts` of `state` takes (0 when the state does not fit the model).
std::size_t state_snapshot_size(const Model& model, const State& state, unsigned parts) noexcept;

/// Writes a snapshot of `parts` of `state` into `out` (`capacity` bytes) and returns its size; 0
/// when capacity is too small or the state does not fit the model. Allocation-free.
std::size_t save_state(const Model& model, const State& state, unsigned parts, void* out,
                       std::size_t capacity) noexcept;

/// The parts a snapshot of `size` bytes holds, or 0 when it is not a whole snapshot of this
/// version (its checksum unchecked).
unsigned snapshot_parts(const void* data, std::size_t size) noexcept;

/// Restores a snapshot into `state` (checked whole before anything changes: header, checksum,
/// model, values). Allocation-free unless restored settings make a split integrator need more
/// memory or restored forces exceed the reserved room (then std::bad_alloc may escape).
/// Restoring only some of kStatePhysics leaves derived quantities to initialize() (step.h).
SnapshotStatus restore_state(const Model& model, State& state, const void* data, std::size_t size);

/// Copies `parts` of `from` into `to`, two States of `model`: restore_state(save_state(...))
/// without the blob. Allocation-free as restore_state.
SnapshotStatus copy_state(const Model& model, const State& from, State& to, unsigned parts);

}  // namespace ramus
