// Private helpers shared by the mesh readers and writers (not installed, not part of the API):
// whole-file reading, a line/token reader that reports "file:line: message" errors, strict
// number parsing.
#pragma once

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace ramus::detail {

/// Whole content of a file; throws InputError(path, 0, "cannot open file") when it can't be read.
std::string read_file_to_string(const std::string& path);

/// Lower-case extension including the dot (".node"), or "" when there is none.
std::string lowercase_extension(const std::string& path);

/// Parses the whole token as an integer / a double; false on garbage or overflow.
/// parse_double accepts "nan" and "inf" (callers check finiteness) and a leading '+'.
bool parse_int(std::string_view token, long long& value);
bool parse_double(std::string_view token, double& value);

/// Shortest text that reads back to exactly the same double (nan / inf / -inf for non-finite).
std::string format_double(double value);

/// Reads an in-memory text line by line, skipping blank lines and (if comment != 0) everything
/// from the comment character on. Errors thrown through it carry the file name and line number.
class LineReader {
 public:
  /// first_line_number: line number of the first line of text minus one (for sub-ranges).
  LineReader(std::string file, std::string_view text, char comment = '#',
             long first_line_number = 0);

  /// Advances to the next non-blank line and splits it at whitespace; false at end of file.
  bool next();
  /// Like next(), but throws "unexpected end of file while reading <context>" at end of file.
  void next_or_fail(const std::string& context);

  const std::vector<std::string_view>& tokens() const { return tokens_; }
  std::string_view line() const { return line_; }
  long line_number() const { return line_number_; }
  const std::string& file() const { return file_; }
  /// Bytes not read yet (an upper bound for the number of records the file can still hold).
  std::size_t remaining_bytes() const { return text_.size() - pos_; }
  /// Offset of the next unread byte (after the current line's newline); seek moves there, for
  /// formats that mix text lines with binary blocks (line numbers then count text lines only).
  std::size_t position() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos < text_.size() ? pos : text_.size(); }

  [[noreturn]] void fail(const std::string& message) const;

  /// Token i of the current line as an integer / double, or an error naming `what`.
  long long int_at(std::size_t i, const std::string& what) const;
  double double_at(std::size_t i, const std::string& what) const;
  /// Same, but the double must be finite ("<what> is not finite").
  double finite_double_at(std::size_t i, const std::string& what) const;

  /// Validates a record count read from a header: non-negative and well inside int range.
  /// Callers must not trust it for allocations: reserve at most remaining_bytes() / k items.
  int checked_count(long long count, const std::string& what) const;

 private:
  std::string file_;
  std::string_view text_;
  char comment_;
  std::size_t pos_ = 0;
  long line_number_ = 0;
  std::string_view line_;
  std::vector<std::string_view> tokens_;
};

/// Splits s at ASCII whitespace.
std::vector<std::string_view> split_whitespace(std::string_view s);

}  // namespace ramus::detail
