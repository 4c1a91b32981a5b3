#include "ramus/runtime/model/state_snapshot.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "ramus/runtime/data/settings_table.h"

namespace ramus {

namespace {

// The blob's header (docs/STATES.md), native byte order, then the payload, then the CRC-32 of
// both as 4 bytes.
struct Header {
  char magic[8];
  std::uint32_t version, byte_order, parts, num_domains, num_dofs, reserved;
  std::uint64_t fingerprint, payload_bytes;
};
static_assert(sizeof(Header) == 48);
constexpr char kMagic[8] = {'R', 'A', 'M', 'U', 'S', 'S', 'T', 'A'};
constexpr std::uint32_t kByteOrder = 0x01020304;
constexpr std::size_t kTrailerBytes = 4;

// The settings a snapshot holds: the whole object's, the wind's and the per-domain ones.
bool object_setting(const SettingInfo& info) {
  return info.scope == SettingScope::kObject || info.scope == SettingScope::kWind;
}

// CRC-32 of the model's tree: its coordinate count, each part's r and vertex count, each
// domain's part, r and parent. A snapshot restores only into a model of the same tree.
std::uint64_t tree_fingerprint(const Model& model) noexcept {
  uLong crc = crc32(0L, Z_NULL, 0);
  const auto add = [&crc](const std::array<std::int32_t, 3>& v) {
    crc = crc32(crc, reinterpret_cast<const Bytef*>(v.data()), sizeof(v));
  };
  add({model.num_dofs, model.num_domains(), static_cast<std::int32_t>(model.parts.size())});
  for (const Part& part : model.parts)
    add({part.r, static_cast<std::int32_t>(part.rest_positions.rows()), 0});
  for (const Domain& domain : model.domains) add({domain.part, domain.r, domain.parent});
  return crc;
}

// A run of doubles of a State.
struct Span {
  double* data = nullptr;
  Eigen::Index size = 0;
};
using Spans = std::array<Span, 16>;

template <typename Matrix>
Span span(const Matrix& m) {
  return {const_cast<double*>(m.data()), m.size()};
}

// The fixed-size arrays of one part of a State (their sizes are the model's), in blob order.
int fixed_arrays(const State& s, unsigned part, Spans& out) {
  int n = 0;
  const auto add = [&](Span x) { out[static_cast<std::size_t>(n++)] = x; };
  if (part == kStateTime) add({const_cast<double*>(&s.time), 1});
  if (part == kStateCoordinates)
    for (Span x : {span(s.q), span(s.frame_rotation), span(s.frame_origin),
                   span(s.relative_position), span(s.relative_rotation), span(s.relative_stretch)})
      add(x);
  if (part == kStateVelocities)
    for (Span x :
         {span(s.qdot), span(s.qddot), span(s.frame_velocity), span(s.frame_angular_velocity),
          span(s.frame_acceleration), span(s.frame_angular_acceleration), span(s.relative_velocity),
          span(s.relative_acceleration), span(s.relative_angular_velocity),
          span(s.relative_angular_acceleration),
          span(s.relative_angular_acceleration_without_qddot), span(s.root_momentum),
          span(s.root_angular_momentum), span(s.root_contact_force)})
      add(x);
  if (part == kStateIntegrator)
    for (Span x :
         {span(s.q_history), span(s.qdot_history), span(s.energy_target), span(s.energy_at_end)})
      add(x);
  return n;
}

// The parts in blob order: settings first (they size the integrator memory).
constexpr std::array<unsigned, 7> kPartOrder = {
    kStateSettings,   kStateTime,   kStateCoordinates, kStateVelocities,
    kStateIntegrator, kStateForces, kStateColliders};

// One collider as the blob holds it (a grid's layout, not its values).
struct ColliderRecord {
  std::int32_t id, shape, samples[3], pad;
  double size[4], rotation[9], position[3], velocity[3], angular_velocity[3], friction;
  double grid_origin[3], grid_spacing;
};

ColliderRecord record_of(int id, const Collider& c) {
  ColliderRecord r{};
  r.id = id;
  r.shape = static_cast<std::int32_t>(c.shape);
  for (int k = 0; k < 3; ++k) r.samples[k] = c.grid.samples(k);
  Eigen::Map<Eigen::Vector4d>(r.size) = c.size;
  Eigen::Map<Eigen::Matrix3d>(r.rotation) = c.pose.rotation;
  Eigen::Map<Eigen::Vector3d>(r.position) = c.pose.translation;
  Eigen::Map<Eigen::Vector3d>(r.velocity) = c.velocity;
  Eigen::Map<Eigen::Vector3d>(r.angular_velocity) = c.angular_velocity;
  r.friction = c.friction;
  Eigen::Map<Eigen::Vector3d>(r.grid_origin) = c.grid.origin;
  r.grid_spacing = c.grid.spacing;
  return r;
}

// The collider a record describes, its grid's values taken from `target`'s collider at its id;
// false when that collider has no grid of the same samples (or the shape is unknown).
bool collider_of(const ColliderRecord& r, const ColliderSet& target, Collider& c) {
  if (r.shape < 0 || r.shape > static_cast<int>(ColliderShape::kMesh)) return false;
  c.shape = static_cast<ColliderShape>(r.shape);
  c.size = Eigen::Map<const Eigen::Vector4d>(r.size);
  c.pose.rotation = Eigen::Map<const Eigen::Matrix3d>(r.rotation);
  c.pose.translation = Eigen::Map<const Eigen::Vector3d>(r.position);
  c.velocity = Eigen::Map<const Eigen::Vector3d>(r.velocity);
  c.angular_velocity = Eigen::Map<const Eigen::Vector3d>(r.angular_velocity);
  c.friction = r.friction;
  c.grid = {};
  if (c.shape != ColliderShape::kMesh) return true;
  const Collider* own = target.find(r.id);
  if (!own || own->shape != ColliderShape::kMesh) return false;
  c.grid = own->grid;
  c.grid.origin = Eigen::Map<const Eigen::Vector3d>(r.grid_origin);
  c.grid.spacing = r.grid_spacing;
  return c.grid.samples == Eigen::Vector3i(r.samples[0], r.samples[1], r.samples[2]);
}

// Writes (or, without a buffer, counts) the payload.
struct Writer {
  unsigned char* out = nullptr;
  std::size_t at = 0;
  void bytes(const void* data, std::size_t n) {
    if (out) std::memcpy(out + at, data, n);
    at += n;
  }
  template <typename T>
  void value(const T& v) {
    bytes(&v, sizeof(T));
  }
};

void write_payload(const Model& model, const State& s, unsigned parts, Writer& w) {
  Spans spans;
  for (const unsigned part : kPartOrder) {
    if (!(parts & part)) continue;
    // Settings: each object and wind setting, then each per-domain one for every domain.
    if (part == kStateSettings)
      for (const SettingInfo& info : settings_table()) {
        if (object_setting(info)) w.value(setting_value(s.settings, info));
        if (info.scope == SettingScope::kDomain)
          for (int i = 0; i < model.num_domains(); ++i) w.value(setting_value(s.settings, info, i));
      }
    for (int k = 0, n = fixed_arrays(s, part, spans); k < n; ++k)
      w.bytes(spans[static_cast<std::size_t>(k)].data,
              sizeof(double) * static_cast<std::size_t>(spans[static_cast<std::size_t>(k)].size));
    // Integrator: the history's length and each domain's split modes with their sizes.
    if (part == kStateIntegrator) {
      w.value(static_cast<std::int32_t>(s.history_size));
      for (const SplitModes& m : s.split_modes) {
        w.value(
            std::array<std::int64_t, 4>{m.basis.rows(), m.basis.cols(), m.age, m.decompositions});
        w.bytes(m.basis.data(), sizeof(double) * static_cast<std::size_t>(m.basis.size()));
        w.bytes(m.eigenvalues.data(),
                sizeof(double) * static_cast<std::size_t>(m.eigenvalues.size()));
      }
    }
    if (part == kStateForces) {
      w.value(static_cast<std::int64_t>(s.forces.size()));
      for (const AppliedForce& f : s.forces) {
        w.value(std::array<std::int32_t, 2>{f.domain, f.vertex});
        w.value(std::array<double, 3>{f.force(0), f.force(1), f.force(2)});
      }
    }
    if (part == kStateColliders) {
      w.value(static_cast<std::int64_t>(s.colliders.size()));
      for (int id = 0; id < s.colliders.capacity(); ++id)
        if (s.colliders.contains(id)) w.value(record_of(id, s.colliders[id]));
    }
  }
}

// Reads the payload: a first pass checks everything (target untouched), a second applies it.
struct Reader {
  const unsigned char* in = nullptr;
  std::size_t at = 0, end = 0;
  bool ok = true;
  bool bytes(void* data, std::size_t n) {
    if (!ok || end - at < n) return ok = false;
    if (data) std::memcpy(data, in + at, n);
    at += n;
    return true;
  }
  template <typename T>
  T value() {
    T v{};
    bytes(&v, sizeof(T));
    return v;
  }
  // n doubles into `data` (or nowhere); false when one is not finite.
  bool doubles(double* data, Eigen::Index n) {
    if (!ok || end - at < sizeof(double) * static_cast<std::size_t>(n)) return ok = false;
    bool finite = true;
    for (Eigen::Index k = 0; k < n; ++k) {
      double v;
      std::memcpy(&v, in + at + sizeof(double) * static_cast<std::size_t>(k), sizeof(double));
      finite &= std::isfinite(v);
      if (data) data[k] = v;
    }
    at += sizeof(double) * static_cast<std::size_t>(n);
    return finite;
  }
};

// Where a blob's per-domain integrators and split mode counts lie (Reader offsets): the sizes
// of the integrator memory the restored settings give, read before they are applied.
struct BlobSettings {
  std::size_t integrator_at = 0, split_modes_at = 0;
  bool present = false;
  // Columns of domain i's split modes under the blob's settings.
  std::int64_t split_columns(const Reader& r, const Model& model, int i) const {
    SettingValue integrator, modes;
    std::memcpy(&integrator,
                r.in + integrator_at + sizeof(SettingValue) * static_cast<std::size_t>(i),
                sizeof(SettingValue));
    std::memcpy(&modes, r.in + split_modes_at + sizeof(SettingValue) * static_cast<std::size_t>(i),
                sizeof(SettingValue));
    if (!uses_split_modes(static_cast<Integrator>(static_cast<int>(integrator.v[0])))) return 0;
    return std::min<std::int64_t>(static_cast<std::int64_t>(modes.v[0]),
                                  model.domains[static_cast<std::size_t>(i)].r);
  }
};

SnapshotStatus read_settings(const Model& model, State& s, Reader& r, bool apply,
                             BlobSettings& blob) {
  blob.present = true;
  for (const SettingInfo& info : settings_table()) {
    if (info.scope == SettingScope::kDomain && std::strcmp(info.member, "integrator") == 0)
      blob.integrator_at = r.at;
    if (info.scope == SettingScope::kDomain && std::strcmp(info.member, "split_modes") == 0)
      blob.split_modes_at = r.at;
    const int copies = object_setting(info)                  ? 1
                       : info.scope == SettingScope::kDomain ? model.num_domains()
                                                             : 0;
    for (int i = 0; i < copies; ++i) {
      const auto value = r.value<SettingValue>();
      if (!r.ok) return SnapshotStatus::kTooShort;
      if (!setting_value_ok(info, value)) return SnapshotStatus::kInvalidValue;
      if (apply) set_setting(s.settings, info, value, object_setting(info) ? -1 : i);
    }
  }
  if (apply) prepare_integrator_memory(model, s);
  return SnapshotStatus::kOk;
}

SnapshotStatus read_integrator(const Model& model, State& s, Reader& r, bool apply,
                               const BlobSettings& blob) {
  const auto history = r.value<std::int32_t>();
  if (history < 0 || history > kHistoryCapacity) return SnapshotStatus::kInvalidValue;
  if (apply) s.history_size = history;
  for (int i = 0; i < model.num_domains(); ++i) {
    const auto [rows, cols, age, decompositions] = r.value<std::array<std::int64_t, 4>>();
    if (!r.ok) return SnapshotStatus::kTooShort;
    SplitModes& m = s.split_modes[static_cast<std::size_t>(i)];
    // The memory's sizes: the target's, or those the restored settings will give it.
    const std::int64_t expected = blob.present ? blob.split_columns(r, model, i) : m.basis.cols();
    if (rows != model.domains[static_cast<std::size_t>(i)].r || cols != expected)
      return SnapshotStatus::kIntegratorMismatch;
    if (!r.doubles(apply ? m.basis.data() : nullptr, rows * cols) ||
        !r.doubles(apply ? m.eigenvalues.data() : nullptr, cols))
      return r.ok ? SnapshotStatus::kInvalidValue : SnapshotStatus::kTooShort;
    if (age < -1 || decompositions < 0) return SnapshotStatus::kInvalidValue;
    if (apply) {
      m.age = static_cast<int>(age);
      m.decompositions = decompositions;
    }
  }
  return SnapshotStatus::kOk;
}

SnapshotStatus read_forces(const Model& model, State& s, Reader& r, bool apply) {
  const auto count = r.value<std::int64_t>();
  if (!r.ok) return SnapshotStatus::kTooShort;
  if (count < 0 || static_cast<std::size_t>(count) > (r.end - r.at) / 32)
    return SnapshotStatus::kTooShort;
  if (apply) s.forces.clear();
  for (std::int64_t k = 0; k < count; ++k) {
    const auto [domain, vertex] = r.value<std::array<std::int32_t, 2>>();
    Eigen::Vector3d force;
    if (!r.doubles(force.data(), 3)) return SnapshotStatus::kInvalidValue;
    if (domain < 0 || domain >= model.num_domains() || vertex < 0 ||
        vertex >= model.part_of(domain).rest_positions.rows())
      return SnapshotStatus::kInvalidValue;
    if (apply) s.forces.push_back({domain, vertex, force});
  }
  return SnapshotStatus::kOk;
}

SnapshotStatus read_colliders(State& s, Reader& r, bool apply) {
  const auto count = r.value<std::int64_t>();
  if (!r.ok) return SnapshotStatus::kTooShort;
  if (count < 0 || count > s.colliders.capacity()) return SnapshotStatus::kNoRoom;
  // The target's own colliders give the grids their values: read them all before changing any.
  std::array<Collider, kMaxColliders> restored;
  std::array<int, kMaxColliders> ids{};
  for (std::int64_t k = 0; k < count; ++k) {
    const auto record = r.value<ColliderRecord>();
    if (!r.ok) return SnapshotStatus::kTooShort;
    if (record.id < 0 || record.id >= s.colliders.capacity()) return SnapshotStatus::kNoRoom;
    Collider& c = restored[static_cast<std::size_t>(k)];
    if (!collider_of(record, s.colliders, c)) return SnapshotStatus::kNoRoom;
    if (collider_problem(c)) return SnapshotStatus::kInvalidValue;
    ids[static_cast<std::size_t>(k)] = record.id;
  }
  if (!apply) return SnapshotStatus::kOk;
  s.colliders.clear();
  for (std::int64_t k = 0; k < count; ++k)
    s.colliders.place(ids[static_cast<std::size_t>(k)], restored[static_cast<std::size_t>(k)]);
  return SnapshotStatus::kOk;
}

SnapshotStatus read_payload(const Model& model, State& s, unsigned parts, Reader& r, bool apply) {
  Spans spans;
  BlobSettings blob;
  for (const unsigned part : kPartOrder) {
    if (!(parts & part)) continue;
    SnapshotStatus status = SnapshotStatus::kOk;
    if (part == kStateSettings) status = read_settings(model, s, r, apply, blob);
    for (int k = 0, n = fixed_arrays(s, part, spans); k < n && status == SnapshotStatus::kOk; ++k) {
      const Span x = spans[static_cast<std::size_t>(k)];
      if (!r.doubles(apply ? x.data : nullptr, x.size))
        status = r.ok ? SnapshotStatus::kInvalidValue : SnapshotStatus::kTooShort;
    }
    if (status == SnapshotStatus::kOk && part == kStateIntegrator)
      status = read_integrator(model, s, r, apply, blob);
    if (part == kStateForces) status = read_forces(model, s, r, apply);
    if (part == kStateColliders) status = read_colliders(s, r, apply);
    if (status != SnapshotStatus::kOk) return status;
  }
  return r.at == r.end ? SnapshotStatus::kOk : SnapshotStatus::kTooShort;
}

}  // namespace

const char* to_string(SnapshotStatus status) {
  switch (status) {
    case SnapshotStatus::kOk:
      return "ok";
    case SnapshotStatus::kTooShort:
      return "truncated snapshot";
    case SnapshotStatus::kNotASnapshot:
      return "not a Ramus state snapshot";
    case SnapshotStatus::kVersion:
      return "snapshot of another version";
    case SnapshotStatus::kChecksum:
      return "checksum mismatch (corrupt snapshot)";
    case SnapshotStatus::kWrongModel:
      return "snapshot of another model";
    case SnapshotStatus::kInvalidParts:
      return "unknown state parts";
    case SnapshotStatus::kInvalidValue:
      return "invalid value in snapshot";
    case SnapshotStatus::kIntegratorMismatch:
      return "integrator memory does not fit the settings";
    case SnapshotStatus::kNoRoom:
      return "no room for the snapshot's colliders or forces";
  }
  return "unknown";
}

std::size_t state_snapshot_size(const Model& model, const State& state, unsigned parts) noexcept {
  if (!state_fits(model, state) || (parts & ~static_cast<unsigned>(kStateAll))) return 0;
  Writer counter;
  write_payload(model, state, parts, counter);
  return sizeof(Header) + counter.at + kTrailerBytes;
}

std::size_t save_state(const Model& model, const State& state, unsigned parts, void* out,
                       std::size_t capacity) noexcept {
  const std::size_t size = state_snapshot_size(model, state, parts);
  if (size == 0 || !out || capacity < size) return 0;
  auto* bytes = static_cast<unsigned char*>(out);
  // Header, payload, then the CRC-32 of both.
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kStateSnapshotVersion;
  h.byte_order = kByteOrder;
  h.parts = parts;
  h.num_domains = static_cast<std::uint32_t>(model.num_domains());
  h.num_dofs = static_cast<std::uint32_t>(model.num_dofs);
  h.fingerprint = tree_fingerprint(model);
  h.payload_bytes = size - sizeof(Header) - kTrailerBytes;
  std::memcpy(bytes, &h, sizeof(Header));
  Writer w{bytes + sizeof(Header), 0};
  write_payload(model, state, parts, w);
  const auto crc = static_cast<std::uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), bytes, static_cast<uInt>(size - kTrailerBytes)));
  std::memcpy(bytes + size - kTrailerBytes, &crc, kTrailerBytes);
  return size;
}

unsigned snapshot_parts(const void* data, std::size_t size) noexcept {
  Header h{};
  if (!data || size < sizeof(Header) + kTrailerBytes) return 0;
  std::memcpy(&h, data, sizeof(Header));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0 || h.byte_order != kByteOrder ||
      h.version != kStateSnapshotVersion ||
      h.payload_bytes != size - sizeof(Header) - kTrailerBytes)
    return 0;
  return h.parts;
}

SnapshotStatus restore_state(const Model& model, State& state, const void* data, std::size_t size) {
  // The header and checksum, then the model.
  if (!data || size < sizeof(Header) + kTrailerBytes) return SnapshotStatus::kTooShort;
  const auto* bytes = static_cast<const unsigned char*>(data);
  Header h{};
  std::memcpy(&h, bytes, sizeof(Header));
  if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0 || h.byte_order != kByteOrder)
    return SnapshotStatus::kNotASnapshot;
  if (h.version != kStateSnapshotVersion) return SnapshotStatus::kVersion;
  if (h.payload_bytes != size - sizeof(Header) - kTrailerBytes) return SnapshotStatus::kTooShort;
  std::uint32_t stored = 0;
  std::memcpy(&stored, bytes + size - kTrailerBytes, kTrailerBytes);
  if (stored != crc32(crc32(0L, Z_NULL, 0), bytes, static_cast<uInt>(size - kTrailerBytes)))
    return SnapshotStatus::kChecksum;
  if (h.parts & ~static_cast<unsigned>(kStateAll)) return SnapshotStatus::kInvalidParts;
  if (!state_fits(model, state) ||
      h.num_domains != static_cast<std::uint32_t>(model.num_domains()) ||
      h.num_dofs != static_cast<std::uint32_t>(model.num_dofs) ||
      h.fingerprint != tree_fingerprint(model))
    return SnapshotStatus::kWrongModel;
  // Everything checked before anything changes.
  Reader check{bytes + sizeof(Header), 0, static_cast<std::size_t>(h.payload_bytes)};
  if (const SnapshotStatus s = read_payload(model, state, h.parts, check, false);
      s != SnapshotStatus::kOk)
    return s;
  Reader apply{bytes + sizeof(Header), 0, static_cast<std::size_t>(h.payload_bytes)};
  return read_payload(model, state, h.parts, apply, true);
}

SnapshotStatus copy_state(const Model& model, const State& from, State& to, unsigned parts) {
  if (parts & ~static_cast<unsigned>(kStateAll)) return SnapshotStatus::kInvalidParts;
  if (!state_fits(model, from) || !state_fits(model, to)) return SnapshotStatus::kWrongModel;
  // What the target must have room for: the integrator memory's sizes and the colliders.
  if ((parts & kStateIntegrator) && !(parts & kStateSettings))
    for (std::size_t i = 0; i < from.split_modes.size(); ++i)
      if (from.split_modes[i].basis.cols() != to.split_modes[i].basis.cols())
        return SnapshotStatus::kIntegratorMismatch;
  if ((parts & kStateColliders) && from.colliders.capacity() > to.colliders.capacity())
    for (int id = to.colliders.capacity(); id < from.colliders.capacity(); ++id)
      if (from.colliders.contains(id)) return SnapshotStatus::kNoRoom;
  // Then the copies, settings first.
  if (parts & kStateSettings) {
    to.settings = from.settings;
    prepare_integrator_memory(model, to);
  }
  Spans source, target;
  for (const unsigned part : {kStateTime, kStateCoordinates, kStateVelocities, kStateIntegrator})
    if (parts & part) {
      const int n = fixed_arrays(from, part, source);
      fixed_arrays(to, part, target);
      for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k)
        std::memcpy(target[k].data, source[k].data,
                    sizeof(double) * static_cast<std::size_t>(source[k].size));
    }
  if (parts & kStateIntegrator) {
    to.history_size = from.history_size;
    for (std::size_t i = 0; i < from.split_modes.size(); ++i)
      to.split_modes[i] = from.split_modes[i];
  }
  if (parts & kStateForces) to.forces = from.forces;
  if (parts & kStateColliders) {
    to.colliders.clear();
    for (int id = 0; id < from.colliders.capacity(); ++id)
      if (from.colliders.contains(id)) to.colliders.place(id, from.colliders[id]);
  }
  return SnapshotStatus::kOk;
}

}  // namespace ramus
