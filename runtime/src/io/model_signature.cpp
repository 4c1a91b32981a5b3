// Public keys of signed model files (model_signature.h): hexadecimal text, key files.
#include "ramus/runtime/io/model_signature.h"

#include <sodium.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "hdf5/file_seal.h"
#include "ramus/error.h"

namespace ramus {

ModelPublicKey parse_public_key(const std::string& hex, const std::string& source) {
  ModelPublicKey key{};
  std::size_t length = 0;
  const char* end = nullptr;
  if (hex.size() != 2 * key.size() ||
      sodium_hex2bin(key.data(), key.size(), hex.data(), hex.size(), nullptr, &length, &end) != 0 ||
      length != key.size() || end != hex.data() + hex.size())
    throw InputError(source, 0,
                     "not an Ed25519 public key: expected 64 hexadecimal digits, found '" +
                         hex.substr(0, 80) + "'");
  return key;
}

std::string read_key_file_digits(const std::string& path, const std::string& tag,
                                 const std::string& kind, int digits) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw InputError(path, 0, "cannot read the " + kind + " key: no such regular file");
  if (std::filesystem::file_size(path, ec) > 4096)
    throw InputError(path, 0, "not a " + kind + " key file: larger than 4 KiB");
  std::ifstream file(path);
  std::string found_tag, hex, extra;
  if (!(file >> found_tag >> hex) || found_tag != tag || (file >> extra))
    throw InputError(path, 1,
                     "not a " + kind + " key file: expected '" + tag + " <" +
                         std::to_string(digits) +
                         " hexadecimal digits>' (written by `ramus keygen`)");
  return hex;
}

ModelPublicKey read_public_key_file(const std::string& path) {
  return parse_public_key(read_key_file_digits(path, "ramus-ed25519-public", "public", 64), path);
}

std::optional<ModelPublicKey> model_file_signer(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::string header(hdf5::kSealBytes, '\0');
  if (!std::filesystem::is_regular_file(path) || !file ||
      !file.read(header.data(), static_cast<std::streamsize>(header.size())))
    throw InputError(path, 0, "cannot read the integrity header");
  const std::optional<hdf5::seal::Fields> fields = hdf5::seal::parse(header);
  if (!fields) throw InputError(path, 0, "corrupt or missing Ramus integrity header");
  if (!fields->is_signed) return std::nullopt;
  return fields->key;
}

std::string public_key_hex(const ModelPublicKey& key) {
  return hdf5::seal::hex_digits(key);
}

}  // namespace ramus
