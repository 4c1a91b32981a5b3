// One fuzz target: LLVMFuzzerTestOneInput (libFuzzer's entry point) runs a reader on one input.
// Inputs that are wrong must end in a ramus::Error; anything else (another exception, a crash, a
// hang, under the sanitizers a memory error) is a finding. Built against libFuzzer with clang
// (preset "fuzz"), or against fuzz_driver.cpp, which replays the corpus and mutates it for a
// bounded time (the "fuzz" CTest label). docs/RELIABILITY.md.
#pragma once

#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace ramus::fuzz {

/// A file of this process for inputs that readers take by path (in /dev/shm when present).
inline std::string scratch_file(const std::string& name) {
  const std::string folder = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return folder + "/ramus_fuzz_" + std::to_string(::getpid()) + "_" + name;
}

inline void write_input(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

}  // namespace ramus::fuzz
