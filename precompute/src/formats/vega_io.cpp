#include "ramus/precompute/formats/vega_io.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ramus/error.h"
#include "text_io.h"
#include "volume_elements.h"

namespace ramus {

namespace {

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return u;
}

bool is_keyword(const detail::LineReader& in) {
  return in.tokens()[0].front() == '*';
}

// Reads "<count> ..." then count lines "idx a b c [d]" with 1-based consecutive indices; stops
// with a clear error at a premature keyword or end of file.
template <typename Record>
int read_records(detail::LineReader& in, const std::string& section, const std::string& noun,
                 Record record) {
  in.next_or_fail(section);
  if (is_keyword(in)) in.fail("expected the number of " + noun + " after " + section);
  const int count = in.checked_count(in.int_at(0, "the number of " + noun), "number of " + noun);
  for (int i = 0; i < count; ++i) {
    const std::string counts =
        "expected " + std::to_string(count) + " " + noun + ", found " + std::to_string(i);
    if (!in.next()) in.fail("unexpected end of file while reading " + section + ": " + counts);
    if (is_keyword(in)) in.fail("unexpected " + std::string(in.tokens()[0]) + ": " + counts);
    const long long index = in.int_at(0, "an index");
    if (index != i + 1)
      in.fail("index " + std::to_string(index) + " out of sequence in " + section + " (expected " +
              std::to_string(i + 1) + ")");
    record(i);
  }
  return count;
}

}  // namespace

TetMesh read_vega(const std::string& path) {
  const std::string text = detail::read_file_to_string(path);
  detail::LineReader in(path, text);
  std::vector<double> xyz;
  std::vector<int> tets;
  long long num_vertices = -1;
  long long num_tets = -1;
  std::vector<long> tet_lines;
  bool pending = in.next();
  while (pending) {
    if (!is_keyword(in)) {  // content of an ignored section
      pending = in.next();
      continue;
    }
    const std::string keyword = upper(in.tokens()[0]);
    if (keyword == "*VERTICES") {
      if (num_vertices >= 0) in.fail("second *VERTICES section");
      num_vertices = read_records(in, "*VERTICES", "vertices", [&](int i) {
        if (in.tokens().size() != 4)
          in.fail("expected 'index x y z' for vertex " + std::to_string(i + 1) + ", found " +
                  std::to_string(in.tokens().size()) + " values");
        for (int c = 0; c < 3; ++c) {
          const double x = in.double_at(1 + c, "a coordinate of vertex " + std::to_string(i + 1));
          if (!std::isfinite(x))
            in.fail("vertex " + std::to_string(i + 1) + " has a non-finite coordinate (" +
                    std::string(in.tokens()[1 + c]) + ")");
          xyz.push_back(x);
        }
      });
    } else if (keyword == "*ELEMENTS") {
      if (num_tets >= 0) in.fail("second *ELEMENTS section");
      in.next_or_fail("*ELEMENTS");
      const std::string type = upper(in.tokens()[0]);
      if (type == "CUBIC") in.fail("CUBIC (hexahedral) elements are not supported; only TET");
      if (type != "TET") in.fail("unknown element type '" + type + "', expected TET");
      num_tets = read_records(in, "*ELEMENTS", "tets", [&](int t) {
        if (in.tokens().size() != 5)
          in.fail("expected 4 vertex indices for tet " + std::to_string(t + 1) + ", found " +
                  std::to_string(in.tokens().size() - 1));
        for (int c = 0; c < 4; ++c) {
          const long long v = in.int_at(1 + c, "a vertex index of tet " + std::to_string(t + 1));
          if (v < 1 || v > std::numeric_limits<int>::max())
            in.fail("tet " + std::to_string(t + 1) + " references vertex " + std::to_string(v) +
                    " (vertices are numbered from 1)");
          tets.push_back(static_cast<int>(v - 1));
        }
        tet_lines.push_back(in.line_number());
      });
    } else if (keyword == "*INCLUDE") {
      in.fail("*INCLUDE is not supported; paste the included file into this one");
    }
    pending = in.next();
  }
  if (num_vertices < 0) in.fail("no *VERTICES section");
  if (num_tets < 0) in.fail("no *ELEMENTS section");
  const int nv = static_cast<int>(num_vertices);
  const int nt = static_cast<int>(num_tets);
  for (int t = 0; t < nt; ++t)
    for (int c = 0; c < 4; ++c)
      if (tets[4 * t + c] >= nv)
        throw InputError(path, tet_lines[t],
                         "tet " + std::to_string(t + 1) + " references vertex " +
                             std::to_string(tets[4 * t + c] + 1) + " but the file defines " +
                             std::to_string(nv) + " vertices");
  TetMesh mesh;
  mesh.rest_positions.resize(nv, 3);
  for (int i = 0; i < nv; ++i)
    for (int c = 0; c < 3; ++c) mesh.rest_positions(i, c) = xyz[3 * i + c];
  mesh.tets.resize(nt, 4);
  for (int t = 0; t < nt; ++t)
    for (int c = 0; c < 4; ++c) mesh.tets(t, c) = tets[4 * t + c];
  detail::drop_unused_vertices(mesh);
  return mesh;
}

}  // namespace ramus
