// Which model files a loader accepts: the seal of a model file (docs/FORMAT.md) may carry an
// Ed25519 signature of every byte after it; docs/RELIABILITY.md says what each mode protects
// against. Keys as text and key files: io/model_signature.h.
#pragma once

#include <array>
#include <vector>

namespace ramus {

/// An Ed25519 public key: 32 bytes.
using ModelPublicKey = std::array<unsigned char, 32>;

/// Which sealed model files a loader accepts. Default: every file whose seal matches its bytes
/// (this catches corruption, not a crafted file). With trusted_keys a signed file must be signed
/// by one of them, checked before libhdf5 parses a byte; require_signature also refuses unsigned
/// files (strict mode, for files from untrusted sources; it needs at least one trusted key).
struct ModelTrust {
  std::vector<ModelPublicKey> trusted_keys;
  bool require_signature = false;
};

}  // namespace ramus
