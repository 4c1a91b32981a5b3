// Fuzz target: the JSON model spec parser, and the runtime settings it derives.
#include <string>

#include "fuzz_target.h"
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
