// load_model (model/model.h): the file read (io) and compiled, here so that the model layer never
// includes the io layer above it.
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"

namespace ramus {

std::shared_ptr<const Model> load_model(const std::string& path, const ModelTrust& trust) {
  return compile_model(read_model_file(path, trust));
}

}  // namespace ramus
