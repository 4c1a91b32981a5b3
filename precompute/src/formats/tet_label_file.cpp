#include "ramus/precompute/formats/tet_label_file.h"

#include <limits>
#include <set>
#include <vector>

#include "ramus/error.h"
#include "text_io.h"

namespace ramus {

TetLabels read_tet_label_file(const std::string& path, int num_tets) {
  const std::string text = detail::read_file_to_string(path);
  detail::LineReader in(path, text);
  std::vector<int> labels;
  labels.reserve(static_cast<std::size_t>(num_tets));
  struct Name {
    std::string text;
    long line;
  };
  std::map<int, Name> names;
  while (in.next()) {
    const auto& tokens = in.tokens();
    if (tokens[0] == "name") {
      if (tokens.size() < 3) in.fail("expected 'name <label> <text>'");
      const long long label = in.int_at(1, "the label");
      if (label < std::numeric_limits<int>::min() || label > std::numeric_limits<int>::max())
        in.fail("label " + std::to_string(label) + " is out of range");
      const std::string_view line = in.line();
      const std::size_t start = static_cast<std::size_t>(tokens[2].data() - line.data());
      const std::size_t end =
          static_cast<std::size_t>(tokens.back().data() - line.data()) + tokens.back().size();
      if (!names
               .emplace(static_cast<int>(label),
                        Name{std::string(line.substr(start, end - start)), in.line_number()})
               .second)
        in.fail("label " + std::to_string(label) + " is named twice");
      continue;
    }
    if (tokens.size() != 1)
      in.fail("expected one label per line (the label of tet " + std::to_string(labels.size()) +
              "), found " + std::to_string(tokens.size()) + " fields");
    const long long label = in.int_at(0, "the label of tet " + std::to_string(labels.size()));
    if (label < std::numeric_limits<int>::min() || label > std::numeric_limits<int>::max())
      in.fail("label " + std::to_string(label) + " is out of range");
    if (static_cast<long long>(labels.size()) == num_tets)
      in.fail("more labels than the mesh's " + std::to_string(num_tets) + " tets");
    labels.push_back(static_cast<int>(label));
  }
  if (static_cast<long long>(labels.size()) != num_tets)
    throw InputError(path, 0,
                     std::to_string(labels.size()) + " labels for a mesh of " +
                         std::to_string(num_tets) + " tets: expected one label per tet");
  TetLabels result;
  result.labels = Eigen::Map<const Eigen::VectorXi>(labels.data(), num_tets);
  const std::set<int> used(labels.begin(), labels.end());
  for (const auto& [label, name] : names) {
    if (!used.count(label))
      throw InputError(path, name.line,
                       "names label " + std::to_string(label) + ", which no tet has");
    result.label_names[label] = name.text;
  }
  return result;
}

}  // namespace ramus
