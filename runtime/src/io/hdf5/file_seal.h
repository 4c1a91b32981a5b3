// The seal (integrity header) of a Ramus HDF5 file, runtime internals: HDF5's user block of
// kSealBytes holds, as text, "RAMUS-SEAL 1", the file's length, the CRC-32 of every byte after the
// block and, for a signed file, the signer's Ed25519 public key and its Ed25519ph signature of
// those bytes (libsodium). The block must be exactly what format() writes for its fields.
#pragma once

#include <sodium.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>

#include "hdf5_file.h"
#include "ramus/runtime/io/model_signature.h"

namespace ramus::hdf5::seal {

inline constexpr const char* kMagic = "RAMUS-SEAL 1\n";

/// What a seal says.
struct Fields {
  std::size_t length = 0;   ///< the whole file's size, bytes
  std::uint64_t crc32 = 0;  ///< zlib's CRC-32 of the bytes after the seal
  bool is_signed = false;   ///< key and signature hold a signature
  ModelPublicKey key{};     ///< the signer's public key
  std::array<unsigned char, crypto_sign_BYTES> signature{};  ///< Ed25519ph of the bytes after it
};

/// Lowercase hexadecimal digits of `bytes` (keys, signatures).
template <std::size_t N>
std::string hex_digits(const std::array<unsigned char, N>& bytes) {
  std::string text(2 * N + 1, '\0');
  sodium_bin2hex(text.data(), text.size(), bytes.data(), N);
  text.pop_back();
  return text;
}

/// The kSealBytes of a seal: text, NUL-padded.
std::string format(const Fields& fields);
/// The fields of a seal; nullopt unless `header` is exactly format() of what it states.
std::optional<Fields> parse(const std::string& header);

/// One pass over the bytes of `in` after the seal (1 MiB at a time): their CRC-32, the whole
/// file's length and, when `signature_state` is not null, the Ed25519ph state updated with them.
/// False when the stream fails.
bool digest_after_seal(std::istream& in, std::uint64_t& crc32, std::size_t& length,
                       crypto_sign_state* signature_state);

/// libsodium ready (idempotent, thread-safe); Error when it cannot start.
void start_sodium();

}  // namespace ramus::hdf5::seal
