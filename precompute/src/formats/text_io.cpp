#include "text_io.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

#include "ramus/error.h"

namespace ramus::detail {

std::string read_file_to_string(const std::string& path) {
  // Regular files only: a FIFO would block the open forever, a device never end.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw InputError(path, 0,
                     std::filesystem::is_directory(status)
                         ? "cannot open file: it is a directory"
                         : "cannot open file: not a regular file (a FIFO, device or socket)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open file");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "cannot read file");
  return std::move(buffer).str();
}

std::string lowercase_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

bool parse_int(std::string_view token, long long& value) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  if (token.empty()) return false;
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, value);
  return ec == std::errc() && ptr == end;
}

bool parse_double(std::string_view token, double& value) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  if (token.empty()) return false;
  const char* end = token.data() + token.size();
  auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec == std::errc::result_out_of_range && ptr == end) {
    // Overflow gives +-inf (rejected later as non-finite), underflow a tiny number or zero.
    value = std::strtod(std::string(token).c_str(), nullptr);
    return true;
  }
  return ec == std::errc() && ptr == end;
}

std::string format_double(double value) {
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (ec != std::errc()) return "nan";
  return std::string(buffer, ptr);
}

std::vector<std::string_view> split_whitespace(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

LineReader::LineReader(std::string file, std::string_view text, char comment,
                       long first_line_number)
    : file_(std::move(file)), text_(text), comment_(comment), line_number_(first_line_number) {}

bool LineReader::next() {
  while (pos_ < text_.size()) {
    std::size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view raw = text_.substr(pos_, end - pos_);
    pos_ = end < text_.size() ? end + 1 : end;
    ++line_number_;
    if (comment_ != 0) {
      const std::size_t c = raw.find(comment_);
      if (c != std::string_view::npos) raw = raw.substr(0, c);
    }
    tokens_ = split_whitespace(raw);
    if (tokens_.empty()) continue;
    // Trimmed line: from the first to the end of the last token.
    const char* first = tokens_.front().data();
    const char* last = tokens_.back().data() + tokens_.back().size();
    line_ = std::string_view(first, static_cast<std::size_t>(last - first));
    return true;
  }
  tokens_.clear();
  line_ = {};
  return false;
}

void LineReader::next_or_fail(const std::string& context) {
  if (!next()) fail("unexpected end of file while reading " + context);
}

void LineReader::fail(const std::string& message) const {
  throw InputError(file_, line_number_, message);
}

namespace {
std::string quoted(std::string_view token) {
  constexpr std::size_t kMax = 40;
  std::string s(token.substr(0, kMax));
  for (char& c : s)
    if (!std::isprint(static_cast<unsigned char>(c))) c = '?';
  if (token.size() > kMax) s += "...";
  return "'" + s + "'";
}
}  // namespace

long long LineReader::int_at(std::size_t i, const std::string& what) const {
  if (i >= tokens_.size()) fail("missing " + what);
  long long value = 0;
  if (!parse_int(tokens_[i], value))
    fail("expected an integer for " + what + ", found " + quoted(tokens_[i]));
  return value;
}

double LineReader::double_at(std::size_t i, const std::string& what) const {
  if (i >= tokens_.size()) fail("missing " + what);
  double value = 0;
  if (!parse_double(tokens_[i], value))
    fail("expected a number for " + what + ", found " + quoted(tokens_[i]));
  return value;
}

double LineReader::finite_double_at(std::size_t i, const std::string& what) const {
  const double value = double_at(i, what);
  if (!std::isfinite(value)) fail(what + " is not finite (" + std::string(tokens_[i]) + ")");
  return value;
}

int LineReader::checked_count(long long count, const std::string& what) const {
  if (count < 0) fail("negative " + what + " (" + std::to_string(count) + ")");
  if (count > std::numeric_limits<int>::max() / 4)
    fail("implausible " + what + " (" + std::to_string(count) + ")");
  return static_cast<int>(count);
}

}  // namespace ramus::detail
