// The seal of a Ramus HDF5 file (file_seal.h) and its check before libhdf5 parses a byte
// (verify_seal, hdf5_file.h).
#include "file_seal.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <streambuf>
#include <system_error>
#include <vector>

#include "ramus/error.h"

namespace ramus::hdf5 {

namespace seal {

namespace {

// Exactly 2 N hexadecimal digits of `text` at `at` into `bytes`; false otherwise.
template <std::size_t N>
bool read_hex(const std::string& text, std::size_t at, std::array<unsigned char, N>& bytes) {
  if (text.size() < at + 2 * N) return false;
  std::size_t length = 0;
  const char* end = nullptr;
  return sodium_hex2bin(bytes.data(), N, text.data() + at, 2 * N, nullptr, &length, &end) == 0 &&
         length == N && end == text.data() + at + 2 * N;
}

}  // namespace

void start_sodium() {
  if (sodium_init() < 0) throw Error("libsodium cannot start (no source of randomness?)");
}

std::string format(const Fields& fields) {
  std::string header = std::string(kMagic) + "length " + std::to_string(fields.length) +
                       "\ncrc32 " + std::to_string(fields.crc32) + "\n";
  if (fields.is_signed)
    header += "signed-by " + hex_digits(fields.key) + "\nsignature " +
              hex_digits(fields.signature) + "\n";
  header.resize(kSealBytes, '\0');
  return header;
}

std::optional<Fields> parse(const std::string& header) {
  // The numbers, then an optional signature, then the whole block compared with its format().
  Fields fields;
  unsigned long long crc = 0;
  int consumed = 0;
  if (header.size() != kSealBytes || header.compare(0, std::strlen(kMagic), kMagic) != 0 ||
      std::sscanf(header.c_str() + std::strlen(kMagic), "length %zu\ncrc32 %llu\n%n",
                  &fields.length, &crc, &consumed) != 2)
    return std::nullopt;
  fields.crc32 = crc;
  const std::size_t rest = std::strlen(kMagic) + static_cast<std::size_t>(consumed);
  const std::string signed_by = "signed-by ";
  if (header.compare(rest, signed_by.size(), signed_by) == 0) {
    const std::size_t key_at = rest + signed_by.size();
    const std::size_t signature_at = key_at + 2 * fields.key.size() + std::strlen("\nsignature ");
    if (!read_hex(header, key_at, fields.key) || !read_hex(header, signature_at, fields.signature))
      return std::nullopt;
    fields.is_signed = true;
  }
  if (format(fields) != header) return std::nullopt;
  return fields;
}

bool digest_after_seal(std::istream& in, std::uint64_t& crc32, std::size_t& length,
                       crypto_sign_state* signature_state) {
  in.seekg(0, std::ios::end);
  length = static_cast<std::size_t>(in.tellg());
  in.seekg(static_cast<std::streamoff>(std::min(length, kSealBytes)));
  std::vector<char> piece(std::size_t{1} << 20);
  uLong crc = ::crc32_z(0L, Z_NULL, 0);
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
    const auto count = static_cast<std::size_t>(in.gcount());
    crc = ::crc32_z(crc, bytes, count);
    if (signature_state != nullptr) crypto_sign_update(signature_state, bytes, count);
  }
  crc32 = crc;
  return in.eof();
}

}  // namespace seal

namespace {

// A path that names a regular file (not a FIFO, device, socket or folder, which could block or
// never end); InputError otherwise.
void require_regular_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw InputError(path, 0, "cannot open: no such file");
  if (std::filesystem::is_directory(status))
    throw InputError(path, 0, "cannot open: it is a directory");
  if (!std::filesystem::is_regular_file(status))
    throw InputError(path, 0, "cannot open: not a regular file (a FIFO, device or socket)");
}

// Refuses a header that is not a seal, naming what it is instead.
[[noreturn]] void refuse_header(const std::string& path, const std::string& header,
                                std::istream& file) {
  if (header.compare(0, 4, "\x89HDF") == 0)
    throw InputError(path, 0,
                     "cannot open: no Ramus integrity header (a model written by Ramus schema 4 "
                     "or older, or another tool's HDF5 file); re-run `ramus precompute`");
  char signature[4] = {};
  file.clear();
  if (file.seekg(static_cast<std::streamoff>(kSealBytes)) && file.read(signature, 4) &&
      std::memcmp(signature, "\x89HDF", 4) == 0)
    throw InputError(path, 0,
                     "cannot open: corrupt Ramus integrity header (the file's first " +
                         std::to_string(kSealBytes) + " bytes were changed)");
  throw InputError(path, 0, "cannot open: not an HDF5 file (no Ramus integrity header)");
}

// The signature policy of `trust` applied to a file whose bytes match its seal.
void check_signature(const std::string& path, const seal::Fields& fields, const ModelTrust& trust,
                     crypto_sign_state& state) {
  if (!fields.is_signed) {
    if (trust.require_signature)
      throw InputError(path, 0,
                       "cannot open: the file is not signed, and only signed models are "
                       "accepted here");
    return;
  }
  if (trust.trusted_keys.empty()) return;
  if (std::find(trust.trusted_keys.begin(), trust.trusted_keys.end(), fields.key) ==
      trust.trusted_keys.end())
    throw InputError(path, 0,
                     "cannot open: signed by a key that is not trusted here (" +
                         public_key_hex(fields.key) + ")");
  if (crypto_sign_final_verify(&state, fields.signature.data(), fields.key.data()) != 0)
    throw InputError(path, 0,
                     "cannot open: its signature does not match its bytes (changed after it was "
                     "signed)");
}

}  // namespace

namespace {

// A seekable read-only stream buffer over bytes in memory (a model handed over by a game).
class MemoryBuffer : public std::streambuf {
 public:
  MemoryBuffer(const void* data, std::size_t size) {
    char* begin = const_cast<char*>(static_cast<const char*>(data));
    setg(begin, begin, begin + size);
  }

 protected:
  pos_type seekoff(off_type offset, std::ios_base::seekdir dir, std::ios_base::openmode) override {
    const off_type from = dir == std::ios_base::beg   ? 0
                          : dir == std::ios_base::cur ? gptr() - eback()
                                                      : egptr() - eback();
    const off_type target = from + offset;
    if (target < 0 || target > egptr() - eback()) return pos_type(off_type(-1));
    setg(eback(), eback() + target, egptr());
    return pos_type(target);
  }
  pos_type seekpos(pos_type position, std::ios_base::openmode mode) override {
    return seekoff(off_type(position), std::ios_base::beg, mode);
  }
};

void require_usable_trust(const ModelTrust& trust) {
  if (trust.require_signature && trust.trusted_keys.empty())
    throw OptionError("a loader that accepts signed models only needs at least one trusted key");
}

// The seal of the bytes `file` reads, named `path` in messages.
void verify_seal_stream(std::istream& file, const std::string& path, const ModelTrust& trust) {
  // The header, exactly as format() writes it.
  std::string header(kSealBytes, '\0');
  file.read(header.data(), static_cast<std::streamsize>(header.size()));
  header.resize(static_cast<std::size_t>(file.gcount()));
  const std::optional<seal::Fields> fields = seal::parse(header);
  if (!fields) {
    if (header.compare(0, std::strlen(seal::kMagic), seal::kMagic) == 0)
      throw InputError(path, 0, "cannot open: corrupt Ramus integrity header");
    refuse_header(path, header, file);
  }
  // One pass over the bytes after it: length, checksum and, when it is to be checked, signature.
  file.clear();
  seal::start_sodium();
  crypto_sign_state state;
  crypto_sign_init(&state);
  const bool check = fields->is_signed && !trust.trusted_keys.empty();
  std::size_t found_length = 0;
  std::uint64_t found_checksum = 0;
  if (!seal::digest_after_seal(file, found_checksum, found_length, check ? &state : nullptr))
    throw InputError(path, 0, "cannot open: the file cannot be read");
  if (found_length != fields->length)
    throw InputError(path, 0,
                     "cannot open: the file has " + std::to_string(found_length) +
                         " bytes where it was written with " + std::to_string(fields->length) +
                         " (truncated or appended to)");
  if (found_length < kSealBytes || found_checksum != fields->crc32)
    throw InputError(path, 0,
                     "cannot open: the file's bytes changed since it was written (corrupt: its "
                     "checksum does not match); re-run `ramus precompute`");
  check_signature(path, *fields, trust, state);
}

}  // namespace

void verify_seal(const std::string& path, const ModelTrust& trust) {
  require_usable_trust(trust);
  require_regular_file(path);
  std::ifstream file(path, std::ios::binary);
  if (!file) throw InputError(path, 0, "cannot open: unreadable file");
  verify_seal_stream(file, path, trust);
}

void verify_seal_memory(const void* data, std::size_t size, const std::string& name,
                        const ModelTrust& trust) {
  require_usable_trust(trust);
  if (!data) throw InputError(name, 0, "cannot open: no bytes (NULL)");
  MemoryBuffer buffer(data, size);
  std::istream bytes(&buffer);
  verify_seal_stream(bytes, name, trust);
}

}  // namespace ramus::hdf5
