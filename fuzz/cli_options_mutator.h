// The CLI target's structure-aware mutator (libFuzzer's LLVMFuzzerCustomMutator): edits whole
// arguments, drawn from the tool's own vocabulary (its commands and every command's options, read
// from `ramus --help` and `ramus COMMAND --help`), the sandbox's file names and values that break
// parsers (NaN, infinities, huge counts, empty strings, paths that climb out of the folder).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace ramus::fuzz {

/// Commands and, per command, its option names, as the tool's help prints them.
struct ToolVocabulary {
  std::vector<std::string> commands;
  std::map<std::string, std::vector<std::string>> options;
};

inline std::string help_text(const std::string& arguments) {
  std::string text;
  if (std::FILE* pipe =
          ::popen((std::string(RAMUS_TOOL) + " " + arguments + " 2>&1").c_str(), "r")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
      text.append(buffer, n);
    ::pclose(pipe);
  }
  return text;
}

inline const ToolVocabulary& tool_vocabulary() {
  static const ToolVocabulary vocabulary = [] {
    ToolVocabulary v;
    std::istringstream help(help_text("--help"));
    bool in_commands = false;
    for (std::string line; std::getline(help, line);) {
      if (line.starts_with("Subcommands:")) in_commands = true;
      std::smatch m;
      if (in_commands && std::regex_search(line, m, std::regex(R"(^  ([a-z][a-z-]*) )")) &&
          m[1] != "view")
        v.commands.push_back(m[1]);
    }
    static const std::regex option(R"((?:^|[ ,])(--?[A-Za-z][A-Za-z0-9-]*))");
    for (const std::string& command : v.commands) {
      std::istringstream text(help_text(command + " --help"));
      for (std::string line; std::getline(text, line);)
        if (line.starts_with("  -"))
          for (auto it = std::sregex_iterator(line.begin(), line.end(), option);
               it != std::sregex_iterator(); ++it)
            if ((*it)[1] != "-h" && (*it)[1] != "--help") v.options[command].push_back((*it)[1]);
    }
    return v;
  }();
  return vocabulary;
}

/// Option values: the sandbox's files and outputs, and values that break parsers.
inline const std::vector<std::string>& tricky_values() {
  static const std::vector<std::string> values = {"model.h5",
                                                  "signed.h5",
                                                  "link.h5",
                                                  "hard.h5",
                                                  "spec.json",
                                                  "spec_link.json",
                                                  "contact.json",
                                                  "mesh.msh",
                                                  "surface.obj",
                                                  "small_beam.node",
                                                  "signer.key",
                                                  "signer.pub",
                                                  "other.pub",
                                                  "out.h5",
                                                  "out.pvd",
                                                  "frames/run.pvd",
                                                  "out.csv",
                                                  "out.png",
                                                  "out.msh",
                                                  "out.vtu",
                                                  "out",
                                                  "a/b/c.json",
                                                  "../up.h5",
                                                  "../../up.csv",
                                                  ".",
                                                  "..",
                                                  "",
                                                  "-",
                                                  "--",
                                                  "nan",
                                                  "inf",
                                                  "-inf",
                                                  "-1",
                                                  "0",
                                                  "1",
                                                  "3",
                                                  "0.5",
                                                  "1e-300",
                                                  "1e300",
                                                  "2147483647",
                                                  "2147483648",
                                                  "-2147483648",
                                                  "99999999999999999999",
                                                  "0x10",
                                                  "1e",
                                                  "be",
                                                  "si",
                                                  "sbdf2",
                                                  "newmark",
                                                  "l1",
                                                  "l3",
                                                  "tree",
                                                  "beam",
                                                  "bar"};
  return values;
}

/// Arguments of an input (one per line) and back.
inline std::vector<std::string> split_arguments(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  for (std::string line; std::getline(in, line);) args.push_back(line);
  return args;
}

inline std::string join_arguments(const std::vector<std::string>& args) {
  std::string text;
  for (const std::string& a : args) text += a + "\n";
  return text;
}

}  // namespace ramus::fuzz

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

// One argument-level edit: replace, insert (an option of the command, with a value) or remove an
// argument, change the command, or swap a value; one mutant in eight gets libFuzzer's byte edits.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  using namespace ramus::fuzz;
  std::mt19937_64 random(seed);
  const auto pick = [&](const auto& list) -> const auto& {
    return list[random() % list.size()];
  };
  std::vector<std::string> args = split_arguments(data, size);
  const ToolVocabulary& vocabulary = tool_vocabulary();
  if (args.empty() || vocabulary.commands.empty() || random() % 8 == 0)
    return LLVMFuzzerMutate(data, size, max_size);
  const auto known = vocabulary.options.find(args[0]);
  const std::vector<std::string> none = {"--help"};
  const std::vector<std::string>& options =
      known == vocabulary.options.end() ? none : known->second;
  const std::size_t at = 1 + random() % args.size();  // a position after the command
  switch (random() % 6) {
    case 0:  // a value replaced
      if (at < args.size()) args[at] = pick(tricky_values());
      break;
    case 1:  // an option of the command inserted, with a value
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(std::min(at, args.size())),
                  {pick(options), pick(tricky_values())});
      break;
    case 2:  // an option inserted alone (a flag, or a value missing)
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(std::min(at, args.size())),
                  pick(options));
      break;
    case 3:  // an argument removed
      if (at < args.size()) args.erase(args.begin() + static_cast<std::ptrdiff_t>(at));
      break;
    case 4:  // another command with the same arguments
      args[0] = pick(vocabulary.commands);
      break;
    default:  // an option's value given with '='
      if (at + 1 < args.size() && args[at].starts_with("--"))
        args.erase(args.begin() + static_cast<std::ptrdiff_t>(at + 1));
      if (at < args.size() && args[at].starts_with("--")) args[at] += "=" + pick(tricky_values());
      break;
  }
  const std::string text = join_arguments(args);
  if (text.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
