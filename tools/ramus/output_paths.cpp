#include "output_paths.h"

#include <filesystem>

#include "ramus/error.h"

namespace ramus::cli {

namespace {

// Whether `output` names the file `input` is: the same file (hard or symbolic links included)
// when both exist, else the same normalized path.
bool same_file(const std::string& input, const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(input, ec) && fs::exists(output, ec)) {
    const bool same = fs::equivalent(input, output, ec);
    if (!ec) return same;
  }
  return fs::weakly_canonical(input, ec) == fs::weakly_canonical(output, ec);
}

}  // namespace

void refuse_outputs_over_inputs(const std::vector<std::string>& inputs,
                                const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (const auto& [option, output] : outputs) {
    if (output.empty()) continue;
    for (const std::string& input : inputs)
      if (!input.empty() && same_file(input, output))
        throw OptionError(option + " '" + output + "' is the input '" + input +
                          "': writing it would destroy the input; choose another output");
  }
}

std::vector<std::string> spec_input_files(const ModelSpec& spec) {
  std::vector<std::string> files = {spec.spec_path, spec.mesh_path, spec.render_surface_path};
  if (spec.domains) files.push_back(spec.domains->label_file_path);
  if (spec.assembly)
    for (const PartSpec& part : spec.assembly->parts) {
      files.push_back(part.mesh_path);
      files.push_back(part.render_surface_path);
      if (part.domains) files.push_back(part.domains->label_file_path);
    }
  return files;
}

}  // namespace ramus::cli
