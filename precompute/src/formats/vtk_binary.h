// VTK XML binary data (internal): base64, and the layout of a binary array, raw ([byte count]
// [bytes]) or zlib-compressed ([blocks, block size, last block size, compressed sizes...]
// [compressed blocks]), with UInt32 or UInt64 header integers (vtkZLibDataCompressor).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ramus::detail {

std::string base64_encode(const std::uint8_t* data, std::size_t size);
/// Throws std::runtime_error on a character outside the alphabet (whitespace is skipped).
std::vector<std::uint8_t> base64_decode(std::string_view text);

/// A binary array zlib-compressed in blocks of 32 KiB, as raw bytes (UInt64 header, then the
/// blocks) appended to `out`, for an AppendedData section with encoding="raw" (ParaView's
/// default layout).
void append_compressed_array(const std::uint8_t* data, std::size_t size, std::string& out);

/// Where a binary array's stored form lies and how it is stored.
struct BinaryArraySource {
  std::string_view stored;    ///< from the array's start to the end of what may hold it
  bool base64 = true;         ///< text (inline or appended base64), else raw bytes
  int header_bytes = 8;       ///< 4 (UInt32) or 8 (UInt64)
  bool compressed = false;    ///< vtkZLibDataCompressor
  std::size_t max_bytes = 0;  ///< refuse arrays that claim more (corrupt headers)
};

/// The array's bytes; throws std::runtime_error saying what is wrong (truncated, too large,
/// a block that does not inflate to its size).
std::vector<std::uint8_t> decode_binary_array(const BinaryArraySource& source);

}  // namespace ramus::detail
