// Key pairs and secret key files of signed model files (model_signing.h).
#include "ramus/precompute/model/model_signing.h"

#include <fcntl.h>
#include <sodium.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "ramus/error.h"
#include "ramus/runtime/io/model_signature.h"

namespace ramus {

namespace {

// Creates `path` with `text`, refusing an existing file (O_EXCL) and giving it `mode`.
void write_new_file(const std::string& path, const std::string& text, mode_t mode) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0)
    throw InputError(path, 0,
                     std::string("cannot create the key file: ") + std::strerror(errno) +
                         (errno == EEXIST ? " (keys are never overwritten)" : ""));
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const bool closed = ::close(fd) == 0;
  if (!written || !closed) {
    ::unlink(path.c_str());
    throw InputError(path, 0, "cannot write the key file");
  }
}

}  // namespace

ModelPublicKey write_key_pair(const std::string& prefix) {
  if (sodium_init() < 0) throw Error("libsodium cannot start (no source of randomness?)");
  ModelPublicKey public_key{};
  ModelSecretKey secret_key{};
  crypto_sign_keypair(public_key.data(), secret_key.data());
  std::string secret_hex(2 * secret_key.size() + 1, '\0');
  sodium_bin2hex(secret_hex.data(), secret_hex.size(), secret_key.data(), secret_key.size());
  secret_hex.pop_back();
  sodium_memzero(secret_key.data(), secret_key.size());
  // The public key first: a failure leaves no secret without its public half.
  write_new_file(prefix + ".pub", "ramus-ed25519-public " + public_key_hex(public_key) + "\n",
                 0644);
  try {
    write_new_file(prefix + ".key", "ramus-ed25519-secret " + secret_hex + "\n", 0600);
  } catch (const Error&) {
    std::filesystem::remove(prefix + ".pub");
    throw;
  }
  sodium_memzero(secret_hex.data(), secret_hex.size());
  return public_key;
}

ModelSecretKey read_secret_key_file(const std::string& path) {
  std::string hex = read_key_file_digits(path, "ramus-ed25519-secret", "secret", 128);
  ModelSecretKey key{};
  std::size_t length = 0;
  const char* end = nullptr;
  if (hex.size() != 2 * key.size() ||
      sodium_hex2bin(key.data(), key.size(), hex.data(), hex.size(), nullptr, &length, &end) != 0 ||
      length != key.size())
    throw InputError(path, 1,
                     "not a secret key file: expected 'ramus-ed25519-secret <128 hexadecimal "
                     "digits>' (written by `ramus keygen`)");
  sodium_memzero(hex.data(), hex.size());
  // The public half stored in the key must be the one its seed makes.
  ModelPublicKey derived{};
  if (sodium_init() < 0) throw Error("libsodium cannot start");
  crypto_sign_ed25519_sk_to_pk(derived.data(), key.data());
  unsigned char seed[crypto_sign_SEEDBYTES];
  unsigned char check_public[crypto_sign_PUBLICKEYBYTES];
  unsigned char check_secret[crypto_sign_SECRETKEYBYTES];
  crypto_sign_ed25519_sk_to_seed(seed, key.data());
  crypto_sign_seed_keypair(check_public, check_secret, seed);
  sodium_memzero(seed, sizeof seed);
  sodium_memzero(check_secret, sizeof check_secret);
  if (std::memcmp(check_public, derived.data(), derived.size()) != 0)
    throw InputError(path, 1, "not a secret key file: its public half does not match its seed");
  return key;
}

}  // namespace ramus
