// The seal of a model file cannot be skipped (any damaged byte of it refuses the file before
// libhdf5 parses it), non-regular files are refused, and signed models: keys, trust, strict mode,
// a file changed and re-sealed after signing.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/hdf5/file_seal.h"  // runtime internals: the seal
#include "ramus/error.h"
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/precompute/model/model_signing.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/io/model_signature.h"
#include "support/model_file_edits.h"
#include "support/random_models.h"
#include "support/temp_dir.h"

using Catch::Matchers::Contains;

namespace ramus {

using namespace test;

namespace {

// The error of reading `path` with `trust`, or "" when it loads.
std::string trusted_read_error(const std::string& path, const ModelTrust& trust) {
  try {
    read_model_file(path, trust);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// `bytes` with byte `at` changed and the seal recomputed as an attacker would: the CRC and
// length of the new bytes, the signature lines (if any) kept.
std::string reseal_keeping_signature(std::string bytes, std::size_t at) {
  bytes[at] = static_cast<char>(bytes[at] ^ 0x01);
  std::optional<hdf5::seal::Fields> fields = hdf5::seal::parse(bytes.substr(0, hdf5::kSealBytes));
  REQUIRE(fields);
  std::istringstream in(bytes);
  REQUIRE(hdf5::seal::digest_after_seal(in, fields->crc32, fields->length, nullptr));
  return hdf5::seal::format(*fields) + bytes.substr(hdf5::kSealBytes);
}

}  // namespace

TEST_CASE("a damaged seal refuses the file, whatever its byte", "[runtime][io][model_file]") {
  const TempDir dir("model_seal");
  const std::string path = dir.file("model.h5");
  write_model_file(make_model(), path);
  const std::string bytes = file_bytes(path);
  // Every byte of the block, one bit at a time, and the block zeroed: never parsed by libhdf5
  // (whose own signature still sits after the block), always one of the seal's messages.
  int refused = 0;
  for (std::size_t at = 0; at < hdf5::kSealBytes; ++at) {
    for (const int bit : {0, 7}) {
      std::string changed = bytes;
      changed[at] = static_cast<char>(changed[at] ^ (1 << bit));
      write_bytes(path, changed);
      const std::string error = read_error(path);
      const bool named = error.find("integrity header") != std::string::npos ||
                         error.find("bytes where it was written") != std::string::npos ||
                         error.find("checksum does not match") != std::string::npos;
      if (!named) FAIL("byte " << at << ", bit " << bit << ": " << error);
      ++refused;
    }
  }
  CHECK(refused == 2 * static_cast<int>(hdf5::kSealBytes));
  write_bytes(path, std::string(hdf5::kSealBytes, '\0') + bytes.substr(hdf5::kSealBytes));
  CHECK_THAT(read_error(path), Contains("model.h5: cannot open: corrupt Ramus integrity header"));
}

TEST_CASE("a FIFO, a folder or a missing path is refused before it is read",
          "[runtime][io][model_file]") {
  const TempDir dir("model_seal");
  const std::string fifo = dir.file("pipe.h5");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(read_error(fifo), Contains("pipe.h5: cannot open: not a regular file"));
  CHECK_THAT(read_error(dir.path().string()), Contains("cannot open: it is a directory"));
  CHECK_THAT(read_error(dir.file("none.h5")), Contains("none.h5: cannot open: no such file"));
}

TEST_CASE("a signed model loads with its key and is refused by any other",
          "[runtime][io][model_file]") {
  const TempDir dir("model_signature");
  const ModelPublicKey key = write_key_pair(dir.file("signer"));
  const ModelPublicKey other = write_key_pair(dir.file("other"));
  CHECK(read_public_key_file(dir.file("signer.pub")) == key);
  CHECK((std::filesystem::status(dir.file("signer.key")).permissions() &
         std::filesystem::perms::others_read) == std::filesystem::perms::none);
  const ModelSecretKey secret = read_secret_key_file(dir.file("signer.key"));
  const std::string signed_path = dir.file("signed.h5"), unsigned_path = dir.file("plain.h5");
  write_model_file(make_model(), signed_path, &secret);
  write_model_file(make_model(), unsigned_path);
  REQUIRE(model_file_signer(signed_path) == key);
  REQUIRE_FALSE(model_file_signer(unsigned_path));

  // Trust by key; strict mode; the default (no keys) loads both.
  CHECK(trusted_read_error(signed_path, {{key}, true}).empty());
  CHECK(trusted_read_error(signed_path, {{other, key}, false}).empty());
  CHECK(trusted_read_error(signed_path, {}).empty());
  CHECK(trusted_read_error(unsigned_path, {{key}, false}).empty());
  CHECK_THAT(trusted_read_error(signed_path, {{other}, false}),
             Contains("signed.h5: cannot open: signed by a key that is not trusted here (" +
                      public_key_hex(key) + ")"));
  CHECK_THAT(trusted_read_error(unsigned_path, {{key}, true}),
             Contains("plain.h5: cannot open: the file is not signed"));
  CHECK_THAT(trusted_read_error(unsigned_path, {{}, true}), Contains("at least one trusted key"));

  // Changed after signing and re-sealed (CRC and length right, signature kept): refused before
  // libhdf5 parses it.
  const std::string bytes = file_bytes(signed_path);
  for (const std::size_t at : {hdf5::kSealBytes + 100, bytes.size() / 2, bytes.size() - 1}) {
    write_bytes(signed_path, reseal_keeping_signature(bytes, at));
    CHECK_THAT(trusted_read_error(signed_path, {{key}, true}),
               Contains("its signature does not match its bytes"));
  }
  // The signature stripped (the file re-sealed unsigned): refused in strict mode.
  write_bytes(signed_path, bytes);
  hdf5::seal_file(signed_path);
  CHECK_FALSE(model_file_signer(signed_path));
  CHECK_THAT(trusted_read_error(signed_path, {{key}, true}), Contains("the file is not signed"));
}

TEST_CASE("key files: never overwritten, malformed ones named", "[runtime][io][model_file]") {
  const TempDir dir("model_signature");
  write_key_pair(dir.file("k"));
  CHECK_THROWS_WITH(write_key_pair(dir.file("k")), Contains("keys are never overwritten"));
  const std::string secret_text = file_bytes(dir.file("k.key"));
  // A public key file with a bad digit, of the wrong kind, too large.
  write_bytes(dir.file("bad.pub"), "ramus-ed25519-public " + std::string(63, 'a') + "g\n");
  CHECK_THROWS_WITH(read_public_key_file(dir.file("bad.pub")),
                    Contains("bad.pub: not an Ed25519 public key"));
  CHECK_THROWS_WITH(read_public_key_file(dir.file("k.key")),
                    Contains("k.key:1: not a public key file"));
  write_bytes(dir.file("big.pub"), std::string(5000, 'a'));
  CHECK_THROWS_WITH(read_public_key_file(dir.file("big.pub")), Contains("larger than 4 KiB"));
  CHECK_THROWS_WITH(parse_public_key("12", "--trust"), Contains("--trust: not an Ed25519"));
  // A secret key whose public half was changed.
  std::string changed = secret_text;
  changed[changed.size() - 2] = changed[changed.size() - 2] == '0' ? '1' : '0';
  write_bytes(dir.file("changed.key"), changed);
  CHECK_THROWS_WITH(read_secret_key_file(dir.file("changed.key")),
                    Contains("its public half does not match its seed"));
  CHECK_THROWS_WITH(read_secret_key_file(dir.file("k.pub")), Contains("not a secret key file"));
}

}  // namespace ramus
