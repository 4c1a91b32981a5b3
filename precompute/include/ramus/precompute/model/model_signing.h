// Signing model files (Ed25519, libsodium): key pairs and secret key files. A signed model's
// seal carries the signer's public key and the signature of every byte after the seal; a game
// that trusts the public key refuses any other (ramus/runtime/data/model_trust.h).
#pragma once

#include <array>
#include <string>

#include "ramus/runtime/data/model_trust.h"

namespace ramus {

/// An Ed25519 secret key in libsodium's layout: 64 bytes (seed, then public key).
using ModelSecretKey = std::array<unsigned char, 64>;

/// Writes a new key pair: `<prefix>.key` (secret, "ramus-ed25519-secret <128 hex digits>",
/// owner-only permissions) and `<prefix>.pub` ("ramus-ed25519-public <64 hex digits>"). Refuses
/// to overwrite either; returns the public key.
ModelPublicKey write_key_pair(const std::string& prefix);
/// Reads a secret key file of write_key_pair; InputError naming the file otherwise (its public
/// half must match its seed).
ModelSecretKey read_secret_key_file(const std::string& path);

}  // namespace ramus
