// Public keys of signed model files (Ed25519, libsodium) as text and key files; which files a
// loader accepts is data/model_trust.h.
#pragma once

#include <optional>
#include <string>

#include "ramus/runtime/data/model_trust.h"

namespace ramus {

/// 64 hexadecimal digits as a key; InputError naming `source` (a file or an option) otherwise.
ModelPublicKey parse_public_key(const std::string& hex, const std::string& source);
/// The digits of a key file "<tag> <digits>" (`ramus keygen`'s format; `kind` "public" or
/// "secret" and the expected count of digits name it in messages); InputError naming the file
/// when it is missing, not regular, over 4 KiB or of another form.
std::string read_key_file_digits(const std::string& path, const std::string& tag,
                                 const std::string& kind, int digits);
/// Reads a public key file written by `ramus keygen` ("ramus-ed25519-public <64 hex digits>");
/// InputError naming the file when it is missing, not regular or malformed.
ModelPublicKey read_public_key_file(const std::string& path);
/// The key that signed a model file, or nullopt when it is unsigned; reads the seal only (check
/// the file with read_model_file). InputError naming the file when it has no valid seal.
std::optional<ModelPublicKey> model_file_signer(const std::string& path);
/// The key as 64 lowercase hexadecimal digits.
std::string public_key_hex(const ModelPublicKey& key);

}  // namespace ramus
