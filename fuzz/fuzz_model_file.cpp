// Fuzz target: the model file reader, then compiling and stepping what it accepted. Built twice:
// fuzz_model_file takes the bytes as they are (most mutations stop at the integrity header);
// fuzz_model_file_sealed (RAMUS_FUZZ_RESEAL) re-seals every mutated file first, so that the
// mutations reach libhdf5's parser and Ramus's own checks (dataset checksums, shapes, semantics).
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>

#include "fuzz_target.h"
#include "io/hdf5/hdf5_file.h"  // runtime internals: seal_file
#include "ramus/error.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"

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
