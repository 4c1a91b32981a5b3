#include "vtk_binary.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

namespace ramus::detail {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::size_t kBlockBytes = 32768;  // VTK's default block size

// The characters of base64 text with whitespace removed, up to `count` of them (fewer: at end).
std::string take_base64(std::string_view text, std::size_t& pos, std::size_t count) {
  std::string out;
  out.reserve(count);
  while (pos < text.size() && out.size() < count) {
    const char c = text[pos++];
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    out.push_back(c);
  }
  return out;
}

std::size_t base64_chars(std::size_t bytes) {
  return 4 * ((bytes + 2) / 3);
}

// Reads `bytes` bytes (one base64 stream of exactly that many) or raw bytes from `pos` on.
std::vector<std::uint8_t> read_stream(const BinaryArraySource& s, std::size_t& pos,
                                      std::size_t bytes, const char* what) {
  if (s.base64) {
    const std::string chars = take_base64(s.stored, pos, base64_chars(bytes));
    if (chars.size() < base64_chars(bytes))
      throw std::runtime_error(std::string("truncated base64 data (") + what + ")");
    std::vector<std::uint8_t> out = base64_decode(chars);
    if (out.size() < bytes)
      throw std::runtime_error(std::string("truncated base64 data (") + what + ")");
    out.resize(bytes);
    return out;
  }
  if (pos > s.stored.size() || s.stored.size() - pos < bytes)
    throw std::runtime_error(std::string("truncated binary data (") + what + ")");
  std::vector<std::uint8_t> out(bytes);
  if (bytes > 0) std::memcpy(out.data(), s.stored.data() + pos, bytes);  // (data() may be null)
  pos += bytes;
  return out;
}

std::uint64_t header_integer(const std::vector<std::uint8_t>& bytes, std::size_t index,
                             int header_bytes) {
  if (header_bytes == 4) {
    std::uint32_t v = 0;
    std::memcpy(&v, bytes.data() + 4 * index, 4);
    return v;
  }
  std::uint64_t v = 0;
  std::memcpy(&v, bytes.data() + 8 * index, 8);
  return v;
}

}  // namespace

std::string base64_encode(const std::uint8_t* data, std::size_t size) {
  std::string out;
  out.reserve(base64_chars(size));
  for (std::size_t i = 0; i < size; i += 3) {
    const std::uint32_t b0 = data[i];
    const std::uint32_t b1 = i + 1 < size ? data[i + 1] : 0;
    const std::uint32_t b2 = i + 2 < size ? data[i + 2] : 0;
    const std::uint32_t triple = (b0 << 16) | (b1 << 8) | b2;
    out.push_back(kAlphabet[(triple >> 18) & 63]);
    out.push_back(kAlphabet[(triple >> 12) & 63]);
    out.push_back(i + 1 < size ? kAlphabet[(triple >> 6) & 63] : '=');
    out.push_back(i + 2 < size ? kAlphabet[triple & 63] : '=');
  }
  return out;
}

std::vector<std::uint8_t> base64_decode(std::string_view text) {
  std::array<int, 256> value{};
  value.fill(-1);
  for (int k = 0; k < 64; ++k) value[static_cast<unsigned char>(kAlphabet[k])] = k;
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t buffer = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {  // padding: what is buffered is complete
      bits = 0;
      buffer = 0;
      continue;
    }
    const int v = value[static_cast<unsigned char>(c)];
    if (v < 0)
      throw std::runtime_error("invalid base64 character (code " +
                               std::to_string(static_cast<unsigned char>(c)) + ")");
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

namespace {

// VTK's compressed layout: the UInt64 header [blocks, block size, last size, sizes...] and the
// compressed blocks.
void compress_blocks(const std::uint8_t* data, std::size_t size, std::vector<std::uint64_t>& header,
                     std::vector<std::uint8_t>& compressed) {
  const std::size_t blocks = (size + kBlockBytes - 1) / kBlockBytes;
  header = {blocks, kBlockBytes, blocks == 0 ? 0 : size - (blocks - 1) * kBlockBytes};
  compressed.clear();
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t first = b * kBlockBytes, length = std::min(kBlockBytes, size - first);
    uLongf bound = compressBound(static_cast<uLong>(length));
    const std::size_t at = compressed.size();
    compressed.resize(at + bound);
    if (compress2(compressed.data() + at, &bound, data + first, static_cast<uLong>(length),
                  Z_BEST_SPEED) != Z_OK)
      throw std::runtime_error("zlib could not compress a block");
    compressed.resize(at + bound);
    header.push_back(bound);
  }
}

}  // namespace

void append_compressed_array(const std::uint8_t* data, std::size_t size, std::string& out) {
  std::vector<std::uint64_t> header;
  std::vector<std::uint8_t> compressed;
  compress_blocks(data, size, header, compressed);
  out.append(reinterpret_cast<const char*>(header.data()), header.size() * sizeof(std::uint64_t));
  out.append(reinterpret_cast<const char*>(compressed.data()), compressed.size());
}

std::vector<std::uint8_t> decode_binary_array(const BinaryArraySource& s) {
  if (s.header_bytes != 4 && s.header_bytes != 8)
    throw std::runtime_error("header_type must be UInt32 or UInt64");
  const auto h = static_cast<std::size_t>(s.header_bytes);
  std::size_t pos = 0;
  if (!s.compressed) {
    // [byte count][bytes]: one base64 stream for both (or raw bytes).
    if (s.base64) {
      const std::string first = take_base64(s.stored, pos, base64_chars(h));
      const std::vector<std::uint8_t> head = base64_decode(first);
      if (head.size() < h) throw std::runtime_error("truncated base64 data (size header)");
      const std::uint64_t bytes = header_integer(head, 0, s.header_bytes);
      if (bytes > s.max_bytes)
        throw std::runtime_error("an array claims " + std::to_string(bytes) +
                                 " bytes, more than the file can hold");
      pos = 0;
      std::vector<std::uint8_t> all = read_stream(s, pos, h + bytes, "array");
      return {all.begin() + static_cast<std::ptrdiff_t>(h), all.end()};
    }
    const std::vector<std::uint8_t> head = read_stream(s, pos, h, "size header");
    const std::uint64_t bytes = header_integer(head, 0, s.header_bytes);
    if (bytes > s.max_bytes)
      throw std::runtime_error("an array claims " + std::to_string(bytes) +
                               " bytes, more than the file can hold");
    return read_stream(s, pos, bytes, "array");
  }
  // [blocks, block size, last block size, compressed sizes...]: a stream of its own (base64).
  const std::vector<std::uint8_t> first = read_stream(s, pos, 3 * h, "compression header");
  const std::uint64_t blocks = header_integer(first, 0, s.header_bytes);
  const std::uint64_t block = header_integer(first, 1, s.header_bytes);
  std::uint64_t last = header_integer(first, 2, s.header_bytes);
  if (blocks > s.max_bytes / 8 + 1 || block > (1ull << 31) ||
      (blocks > 0 && (blocks - 1) * block + (last == 0 ? block : last) > s.max_bytes))
    throw std::runtime_error("the compression header claims " + std::to_string(blocks) +
                             " blocks of " + std::to_string(block) +
                             " bytes, more than the file can hold");
  pos = 0;
  const std::vector<std::uint8_t> head =
      read_stream(s, pos, (3 + blocks) * h, "compression header");
  std::uint64_t stored_total = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t c = header_integer(head, 3 + b, s.header_bytes);
    if (c > s.stored.size()) throw std::runtime_error("a compressed block is longer than the file");
    stored_total += c;
  }
  const std::vector<std::uint8_t> packed = read_stream(s, pos, stored_total, "compressed blocks");
  if (last == 0) last = block;
  std::vector<std::uint8_t> out(blocks == 0 ? 0 : (blocks - 1) * block + last);
  std::size_t in = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t c = header_integer(head, 3 + b, s.header_bytes);
    uLongf length = static_cast<uLongf>(b + 1 == blocks ? last : block);
    const uLongf expected = length;
    if (uncompress(out.data() + b * block, &length, packed.data() + in, static_cast<uLong>(c)) !=
            Z_OK ||
        length != expected)
      throw std::runtime_error("compressed block " + std::to_string(b) +
                               " does not inflate to its " + std::to_string(expected) + " bytes");
    in += c;
  }
  return out;
}

}  // namespace ramus::detail
