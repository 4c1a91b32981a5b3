// The docs' generated tables, for the tests that check them against the lists they are made
// from: a file of docs/ as text, and the part of it between a table's markers.
#pragma once

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

namespace ramus::test {

/// The text of a file of the source tree's docs/.
inline std::string read_doc(const std::string& name) {
  std::ifstream in(std::string(RAMUS_TEST_DATA_DIR) + "/../../docs/" + name);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The part of `text` between "<!-- marker: begin -->" and "<!-- marker: end -->".
inline std::string generated_part(const std::string& text, const std::string& marker) {
  const std::string begin = "<!-- " + marker + ": begin -->", end = "<!-- " + marker + ": end -->";
  const std::size_t a = text.find(begin), b = text.find(end);
  REQUIRE(a != std::string::npos);
  REQUIRE(b != std::string::npos);
  return text.substr(a + begin.size(), b - a - begin.size());
}

}  // namespace ramus::test
