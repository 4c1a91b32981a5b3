// Test helper: copies a model file with its stored spec replaced by text that does not parse, for
// the CLI test that `ramus simulate` still runs the model's stored scenario (no JSON at run time).
//   write_broken_stored_spec <model.h5> <out.h5>
#include <cstdio>
#include <exception>

#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/runtime/io/model_file.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <model.h5> <out.h5>\n", argv[0]);
    return 64;
  }
  try {
    ramus::ReducedModel model = ramus::read_model_file(argv[1]);
    model.provenance.spec_json = "{\"mesh\": \"beam.node\", \"simulation\": {\"steps\": ";
    ramus::write_model_file(model, argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
