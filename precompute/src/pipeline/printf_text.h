// printf-style formatting into a std::string, for report lines (C++20 without <format>).
#pragma once

#include <string>

namespace ramus {

/// The text std::printf(format, ...) would print.
std::string printf_text(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace ramus
