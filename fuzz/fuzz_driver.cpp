// The fuzz targets without libFuzzer (GCC builds, the "fuzz" CTest label): runs every input of
// the corpus folders given, then mutated copies of them for a time budget, from a fixed seed (so
// a finding reproduces from its iteration number). libFuzzer's coverage-guided campaign (preset
// "fuzz", clang) is the long run; this is the bounded regression check that CI affords.
//
//   fuzz_model_file [--seconds S] [--seed N] [--max-inputs N] CORPUS_DIR...
//
// Exit 0 with "N inputs" printed; a target that throws anything but ramus::Error makes this exit
// 1 naming the input and writing it to ./fuzz-finding; a crash kills the process (CTest reports
// it); an input that runs over 10 s is a hang (exit 2).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
// A target's own mutator, where it has one (libFuzzer's interface); used for half the mutants.
extern "C" __attribute__((weak)) std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data,
                                                                     std::size_t size,
                                                                     std::size_t max_size,
                                                                     unsigned int seed);

namespace {

using Input = std::vector<std::uint8_t>;

const Input* g_running = nullptr;  // the input being run, for on_alarm

// A hang (SIGALRM) or a crash: the input goes to ./fuzz-finding (open and write are
// async-signal-safe), then the process ends (exit 2 for a hang; a crash re-raises its signal).
void on_fatal(int signal) {
  static const char hang[] = "fuzz: an input ran over 10 s (a hang); written to fuzz-finding\n";
  static const char crash[] = "fuzz: an input crashed the target; written to fuzz-finding\n";
  const bool is_hang = signal == SIGALRM;
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, is_hang ? hang : crash,
                                    is_hang ? sizeof(hang) - 1 : sizeof(crash) - 1);
  const int fd = ::open("fuzz-finding", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0 && g_running != nullptr) {
    n = ::write(fd, g_running->data(), g_running->size());
    ::close(fd);
  }
  if (is_hang) ::_exit(2);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

Input read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Input(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Values that break parsers and size arithmetic, as bytes to overwrite with.
const std::vector<std::string>& interesting_text() {
  static const std::vector<std::string> values = {
      "-1",
      "0",
      "2147483647",
      "2147483648",
      "18446744073709551615",
      "1e400",
      "-1e308",
      "nan",
      "1e-320",
      "\"\"",
      "[]",
      "{}",
      "null",
      "4294967296",
      "99999999999999999999",
      "\n",
      std::string(1, '\0')};  // (a NUL byte: the literal "\0" is the empty string)
  return values;
}

// One random edit of `x`, of the kinds that find reader bugs: bit flips, byte overwrites with
// boundary values, insertions, deletions, duplicated and spliced runs, numbers in text.
void mutate(Input& x, const std::vector<Input>& corpus, std::mt19937_64& random) {
  const auto pick = [&](std::size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(random);
  };
  switch (pick(8)) {
    case 0:  // bit flip
      if (!x.empty()) x[pick(x.size())] ^= static_cast<std::uint8_t>(1u << pick(8));
      break;
    case 1: {  // a byte set to a boundary value
      static const std::uint8_t values[] = {0, 1, 0x7f, 0x80, 0xff, '-', '9', '"'};
      if (!x.empty()) x[pick(x.size())] = values[pick(std::size(values))];
      break;
    }
    case 2: {  // 2, 4 or 8 bytes set to an extreme integer (little-endian)
      static const std::uint64_t values[] = {
          0, ~0ull, 0x7fffffffull, 0x80000000ull, 0x7fffffffffffffffull, 1ull << 40};
      const std::size_t width = std::size_t{2} << pick(3);
      if (x.size() >= width) {
        const std::uint64_t v = values[pick(std::size(values))];
        std::memcpy(&x[pick(x.size() - width + 1)], &v, width);
      }
      break;
    }
    case 3:  // insert random bytes
      x.insert(x.begin() + static_cast<std::ptrdiff_t>(pick(x.size() + 1)), pick(16) + 1,
               static_cast<std::uint8_t>(random()));
      break;
    case 4: {  // delete a run
      if (x.empty()) break;
      const std::size_t at = pick(x.size()), n = std::min(x.size() - at, pick(64) + 1);
      x.erase(x.begin() + static_cast<std::ptrdiff_t>(at),
              x.begin() + static_cast<std::ptrdiff_t>(at + n));
      break;
    }
    case 5: {  // duplicate a run
      if (x.empty()) break;
      const std::size_t at = pick(x.size()), n = std::min(x.size() - at, pick(256) + 1);
      const Input run(x.begin() + static_cast<std::ptrdiff_t>(at),
                      x.begin() + static_cast<std::ptrdiff_t>(at + n));
      x.insert(x.begin() + static_cast<std::ptrdiff_t>(pick(x.size() + 1)), run.begin(), run.end());
      break;
    }
    case 6: {  // splice: the tail of another input
      const Input& other = corpus[pick(corpus.size())];
      if (other.empty() || x.empty()) break;
      const std::size_t cut = pick(x.size()), from = pick(other.size());
      x.resize(cut);
      x.insert(x.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
      break;
    }
    default: {  // a number (or token) in text replaced
      const std::string& v = interesting_text()[pick(interesting_text().size())];
      const std::size_t at = pick(x.size() + 1);
      std::size_t end = at;
      while (end < x.size() && (std::isdigit(x[end]) || x[end] == '.' || x[end] == 'e')) ++end;
      x.erase(x.begin() + static_cast<std::ptrdiff_t>(at),
              x.begin() + static_cast<std::ptrdiff_t>(end));
      x.insert(x.begin() + static_cast<std::ptrdiff_t>(at), v.begin(), v.end());
      break;
    }
  }
}

std::mt19937_64 g_byte_random(1);    // LLVMFuzzerMutate's edits
const std::vector<Input>* g_corpus;  // the corpus, for LLVMFuzzerMutate's splices

bool run_one(const Input& x, const std::string& what) {
  g_running = &x;
  ::alarm(10);
  try {
    LLVMFuzzerTestOneInput(x.data(), x.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: %s threw %s (not a ramus::Error); input written to fuzz-finding\n",
                 what.c_str(), e.what());
    std::ofstream("fuzz-finding", std::ios::binary)
        .write(reinterpret_cast<const char*>(x.data()), static_cast<std::streamsize>(x.size()));
    return false;
  }
  ::alarm(0);
  return true;
}

}  // namespace

// libFuzzer's byte mutator, which a custom mutator calls for inputs it cannot edit.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size,
                                        std::size_t max_size) {
  Input x(data, data + size);
  mutate(x, *g_corpus, g_byte_random);
  x.resize(std::min(x.size(), max_size));
  std::memcpy(data, x.data(), x.size());
  return x.size();
}

int main(int argc, char** argv) {
  double seconds = 10;
  std::uint64_t seed = 1;
  long long max_inputs = std::numeric_limits<long long>::max();
  std::vector<Input> corpus;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--max-inputs" && i + 1 < argc) {
      max_inputs = std::atoll(argv[++i]);
    } else {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(a))
        if (entry.is_regular_file()) corpus.push_back(read_file(entry.path()));
    }
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "usage: %s [--seconds S] [--seed N] [--max-inputs N] CORPUS_DIR...\n",
                 argv[0]);
    return 64;
  }
  for (int signal : {SIGALRM, SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL})
    std::signal(signal, on_fatal);
  long long inputs = 0;
  for (std::size_t k = 0; k < corpus.size(); ++k, ++inputs)
    if (!run_one(corpus[k], "corpus input " + std::to_string(k))) return 1;
  std::mt19937_64 random(seed);
  g_byte_random.seed(seed + 1);
  g_corpus = &corpus;
  const auto stop = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (inputs < max_inputs && std::chrono::steady_clock::now() < stop) {
    Input x = corpus[random() % corpus.size()];
    if (LLVMFuzzerCustomMutator != nullptr && random() % 2 == 0) {
      const std::size_t size = x.size();
      x.resize(4 * size + 65536);
      x.resize(LLVMFuzzerCustomMutator(x.data(), size, x.size(), static_cast<unsigned>(random())));
    } else {
      const int edits = 1 + static_cast<int>(random() % 8);
      for (int e = 0; e < edits; ++e) mutate(x, corpus, random);
    }
    if (!run_one(
            x, "mutated input " + std::to_string(inputs) + " (seed " + std::to_string(seed) + ")"))
      return 1;
    ++inputs;
  }
  std::printf("%lld inputs (%zu in the corpus), no finding\n", inputs, corpus.size());
  return 0;
}
