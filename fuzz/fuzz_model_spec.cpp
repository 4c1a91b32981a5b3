// Fuzz target: the JSON model spec parser (one mesh or an assembly), and the runtime settings it
// derives. Its custom mutator edits the JSON tree (json_mutator.h) and, one time in four, bytes.
#include <cstring>
#include <random>
#include <string>

#include "fuzz_target.h"
#include "json_mutator.h"
#include "ramus/error.h"
#include "ramus/precompute/model/model_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const ramus::ModelSpec spec = ramus::parse_model_spec(text, "/fuzz/spec.json");
    ramus::spec_runtime_settings(spec, {"body"});
  } catch (const ramus::Error&) {
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  std::mt19937_64 random(seed);
  std::string text(reinterpret_cast<const char*>(data), size);
  if (random() % 4 == 0 || !ramus::fuzz::mutate_json(text, random) || text.size() > max_size)
    return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}
