// Fuzz target: the `ramus` tool's command lines. An input is an argument list, one argument per
// line; each runs the real tool (a child process, as a user would) in a fresh sandbox holding a
// model, a signed model, specs with their meshes (one with colliders), a surface, keys and links
// to them. Findings:
//  - a crash (any signal the target did not send), a sanitizer report, exit 2 ("unexpected
//    error"), libhdf5's diagnostics on stderr;
//  - an input the command read (a file named on its line, a spec's meshes) changed or gone;
//  - a failed run (exit 1 or a command-line error) that leaves anything behind;
//  - a process left running after the tool ended (an orphaned TetGen child).
// A run over kRunSeconds is stopped by SIGTERM (a user's Ctrl-C) and not judged: a long command
// line may ask for long work. Without coverage from the child, libFuzzer's campaign is a random
// walk through the token-level mutator below; the bounded CTest run is the regression check.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fuzz_target.h"

namespace fs = std::filesystem;

namespace {

constexpr double kRunSeconds = 4;  // then SIGTERM, then after 2 s SIGKILL
constexpr std::size_t kMaxArguments = 40, kMaxArgumentLength = 300;

// The sandbox's fixture: files copied from tests/data (name in the sandbox, source).
const std::vector<std::pair<std::string, std::string>> kFixture = {
    {"model.h5", "models/small_beam_two_domains.h5"},
    {"signed.h5", "models/small_beam_two_domains_signed.h5"},
    {"signer.key", "keys/test_signer.key"},
    {"signer.pub", "keys/test_signer.pub"},
    {"other.pub", "keys/other_signer.pub"},
    {"spec.json", "specs/small_beam_two_domains.json"},
    {"small_beam.node", "specs/small_beam.node"},
    {"small_beam.ele", "specs/small_beam.ele"},
    {"small_beam_surface.obj", "specs/small_beam_surface.obj"},
    {"small_beam_two_domains.labels", "specs/small_beam_two_domains.labels"},
    {"surface.obj", "meshes/cube.obj"},
    {"mesh.msh", "meshes/hex_beam_41.msh"},
    {"contact.json", "../../data/contact/block_on_slope.json"},
    {"block.msh", "../../data/contact/block.msh"}};
// What each spec reads besides itself: inputs of every command given the spec.
const std::map<std::string, std::vector<std::string>> kSpecInputs = {
    {"spec.json",
     {"small_beam.node", "small_beam.ele", "small_beam_surface.obj",
      "small_beam_two_domains.labels"}},
    {"contact.json", {"block.msh"}}};
// Options whose value is an output (never an input of the run).
const std::set<std::string> kOutputOptions = {
    "-o",        "--output", "--csv",       "--png",        "--plot",
    "--summary", "--series", "--spec-name", "--screenshot", "--pulled-screenshot"};

// The sandbox: <scratch>/tree/a/b/work is the tool's working folder, so that "../" and "../../"
// stay inside tree/, which is compared before and after; stderr.txt lies outside it.
struct Sandbox {
  fs::path base = ramus::fuzz::scratch_file("cli");
  fs::path tree = base / "tree";
  fs::path work = tree / "a" / "b" / "work";
  fs::path stderr_file = base / "stderr.txt";
};

// Every entry under `root` (hidden ones too): a regular file's bytes, "dir", or a link's target.
using Snapshot = std::map<std::string, std::string>;

Snapshot take_snapshot(const fs::path& root) {
  Snapshot snapshot;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const fs::path relative = fs::relative(it->path(), root);
    if (it->is_symlink()) {
      snapshot[relative] = "link:" + fs::read_symlink(it->path()).string();
    } else if (it->is_directory()) {
      snapshot[relative] = "dir";
    } else {
      std::ifstream in(it->path(), std::ios::binary);
      snapshot[relative] = std::string(std::istreambuf_iterator<char>(in), {});
    }
  }
  return snapshot;
}

void make_sandbox(const Sandbox& box) {
  fs::remove_all(box.base);
  fs::create_directories(box.work);
  for (const auto& [name, source] : kFixture)
    fs::copy_file(fs::path(RAMUS_TEST_DATA) / source, box.work / name);
  fs::create_symlink("model.h5", box.work / "link.h5");
  fs::create_hard_link(box.work / "model.h5", box.work / "hard.h5");
  fs::create_symlink("spec.json", box.work / "spec_link.json");
}

// The argument list of an input, or nothing for inputs the sandbox cannot hold safely: an
// absolute path or "~" (outside the sandbox), "../../.." (above tree/), `view` (a window).
std::optional<std::vector<std::string>> parse_arguments(const std::uint8_t* data,
                                                        std::size_t size) {
  std::vector<std::string> args;
  std::string text(reinterpret_cast<const char*>(data), size);
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    args.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (!args.empty() && args.back().empty()) args.pop_back();
  if (args.empty() || args.size() > kMaxArguments || args[0] == "view") return std::nullopt;
  static const std::regex unsafe(R"((^|=|^-[A-Za-z])[/~]|\.\./\.\./\.\.|\.\.$)");
  for (std::string& a : args) {
    a = a.substr(0, a.find('\0'));  // (argv cannot hold a NUL)
    if (a.size() > kMaxArgumentLength || std::regex_search(a, unsafe)) return std::nullopt;
  }
  return args;
}

// The fixture files this command line reads: files it names other than as an output option's
// value, through links too, and a spec's own inputs. Keys of the tree's snapshot.
std::set<std::string> files_read(const std::vector<std::string>& args, const Sandbox& box) {
  std::set<std::string> inputs;
  for (std::size_t k = 1; k < args.size(); ++k) {
    std::string value = args[k];
    if (const auto equals = value.find('='); value.starts_with("--") && equals != value.npos) {
      if (kOutputOptions.count(value.substr(0, equals))) continue;
      value = value.substr(equals + 1);
    } else if (kOutputOptions.count(args[k - 1])) {
      continue;
    }
    std::error_code error;
    const fs::path file = fs::canonical(box.work / value, error);
    if (error || !fs::is_regular_file(file)) continue;
    const fs::path relative = fs::relative(file, fs::canonical(box.tree));
    inputs.insert(relative);
    if (const auto spec = kSpecInputs.find(relative.filename()); spec != kSpecInputs.end())
      for (const std::string& name : spec->second) inputs.insert(relative.parent_path() / name);
  }
  return inputs;
}

struct RunResult {
  bool stopped = false;   // ran over kRunSeconds: stopped, not judged
  int status = 0;         // waitpid's status
  bool orphaned = false;  // a process of its group outlived it
};

// The tool in its own process group, in the sandbox, stdin empty, stdout discarded, stderr kept.
RunResult run_tool(const std::vector<std::string>& args, const Sandbox& box) {
  std::vector<char*> argv;
  std::string tool = RAMUS_TOOL;
  argv.push_back(tool.data());
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    ::setpgid(0, 0);
    if (::chdir(box.work.c_str()) != 0) ::_exit(126);
    std::FILE* err = std::freopen(box.stderr_file.c_str(), "w", stderr);
    std::FILE* out = std::freopen("/dev/null", "w", stdout);
    std::FILE* in = std::freopen("/dev/null", "r", stdin);  // (no command may wait on a terminal)
    if (err == nullptr || out == nullptr || in == nullptr) ::_exit(126);
    for (int signal_number : {SIGALRM, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTERM})
      std::signal(signal_number, SIG_DFL);
    ::setenv("ASAN_OPTIONS", "abort_on_error=1:detect_leaks=0", 1);
    ::setenv("UBSAN_OPTIONS", "halt_on_error=1:abort_on_error=1:print_stacktrace=1", 1);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::setpgid(child, child);
  RunResult result;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  bool terminated = false, killed = false;
  while (::waitpid(child, &result.status, WNOHANG) == 0) {
    if (!terminated && elapsed() > kRunSeconds) {
      result.stopped = terminated = true;
      ::kill(-child, SIGTERM);
    } else if (!killed && elapsed() > kRunSeconds + 2) {
      killed = true;
      ::kill(-child, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // A child of the tool (TetGen) must die with it: up to 1 s for the kernel to deliver that.
  for (int k = 0; k < 100 && ::kill(-child, 0) == 0; ++k)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  result.orphaned = ::kill(-child, 0) == 0;
  ::kill(-child, SIGKILL);
  return result;
}

std::string joined(const std::vector<std::string>& args) {
  std::string line = "ramus";
  for (const std::string& a : args) line += " '" + a + "'";
  return line;
}

// What the tool must never do, judged from its exit, its stderr and the sandbox's files.
void judge_run(const std::vector<std::string>& args, const RunResult& run, const Sandbox& box,
               const Snapshot& before) {
  const auto finding = [&](const std::string& what) {
    throw std::runtime_error(what + " for: " + joined(args));
  };
  std::ifstream in(box.stderr_file);
  const std::string err(std::istreambuf_iterator<char>(in), {});
  for (const char* noise : {"unexpected error", "HDF5-DIAG", "infinite loop closing library",
                            "AddressSanitizer", "runtime error:", "terminate called"})
    if (err.find(noise) != std::string::npos)
      finding("stderr holds \"" + std::string(noise) + "\" (" + err.substr(0, 400) + ")");
  if (run.orphaned) finding("a process of the tool's group outlived it");
  if (run.stopped) return;
  if (WIFSIGNALED(run.status))
    finding("the tool died of signal " + std::to_string(WTERMSIG(run.status)));
  const int code = WEXITSTATUS(run.status);
  if (code == 2) finding("exit 2 (an unexpected error)");
  if (code == 126 || code == 127) throw std::logic_error("fuzz: could not run " RAMUS_TOOL);
  const Snapshot after = take_snapshot(box.tree);
  for (const std::string& input : files_read(args, box)) {
    const auto was = before.find(input), is = after.find(input);
    if (was != before.end() && (is == after.end() || is->second != was->second))
      finding("its input " + input + " was changed or removed (exit " + std::to_string(code) + ")");
  }
  // A failed run leaves the files as they were (exit 3: a check ran and wrote its report).
  if (code != 0 && code != 3 && after != before) {
    for (const auto& [name, content] : after)
      if (!before.count(name) || before.at(name) != content)
        finding("exit " + std::to_string(code) + " left " + name + " behind (" +
                err.substr(0, 300) + ")");
    finding("exit " + std::to_string(code) + " removed a file");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto args = parse_arguments(data, size);
  if (!args) return 0;
  static const Sandbox box;
  make_sandbox(box);
  const Snapshot before = take_snapshot(box.tree);
  const RunResult run = run_tool(*args, box);
  // RAMUS_FUZZ_LOG=FILE: one line per run (exit status, or "stopped"; the command line).
  if (const char* log = std::getenv("RAMUS_FUZZ_LOG"))
    std::ofstream(log, std::ios::app)
        << (run.stopped               ? std::string("stopped")
            : WIFSIGNALED(run.status) ? "signal " + std::to_string(WTERMSIG(run.status))
                                      : std::to_string(WEXITSTATUS(run.status)))
        << '\t' << joined(*args) << '\n';
  judge_run(*args, run, box, before);
  fs::remove_all(box.base);
  return 0;
}

#include "cli_options_mutator.h"
