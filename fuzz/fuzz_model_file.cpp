// Fuzz target: the model file reader, then compiling and stepping what it accepted. Built twice:
// fuzz_model_file takes the bytes as they are (most mutations stop at the integrity header);
// fuzz_model_file_sealed (RAMUS_FUZZ_RESEAL) re-seals every mutated file first, so that the
// mutations reach libhdf5's parser and Ramus's own checks (dataset checksums, shapes, semantics).
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>

#include "fuzz_target.h"
#ifdef RAMUS_FUZZ_RESEAL
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include "model_value_mutator.h"
#endif
#include "io/hdf5/hdf5_file.h"  // runtime internals: seal_file
#include "ramus/error.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"

#ifdef RAMUS_FUZZ_RESEAL
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

// Three mutants in four edit values inside a well-sealed file (model_value_mutator.h); the rest,
// and inputs that are not well sealed, get byte edits.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size,
                                               std::size_t max_size, unsigned int seed) {
  static const std::string path = ramus::fuzz::scratch_file("mutant.h5");
  std::mt19937_64 random(seed);
  if (random() % 4 == 0) return LLVMFuzzerMutate(data, size, max_size);
  ramus::fuzz::write_input(path, data, size);
  std::string bytes;
  if (ramus::fuzz::mutate_model_values(path, random)) {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::remove(path.c_str());
  if (bytes.empty() || bytes.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, bytes.data(), bytes.size());
  return bytes.size();
}
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = ramus::fuzz::scratch_file("model.h5");
  ramus::fuzz::write_input(path, data, size);
  try {
#ifdef RAMUS_FUZZ_RESEAL
    ramus::hdf5::seal_file(path);  // (an input without HDF5's signature after the user block stops)
#endif
    const auto model = ramus::compile_model(ramus::read_model_file(path));
    ramus::Simulator simulator(model);
    // An accepted model steps, or reports why not (a status, never a crash or an exception).
    for (int k = 0; k < 3 && simulator.step() == ramus::StepStatus::kOk; ++k) {
    }
  } catch (const ramus::Error&) {
  }
  std::remove(path.c_str());
  // Every HDF5 object the reader opened is closed again, on every error path: a leaked file
  // handle makes HDF5 serve the next open of the same path from stale cached state.
  if (const ssize_t open = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL); open != 0) {
    std::fprintf(stderr, "fuzz: %zd HDF5 objects left open after reading\n", open);
    std::abort();
  }
  return 0;
}
