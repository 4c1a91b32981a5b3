#include "ramus/error.h"

namespace ramus {

namespace {
std::string located(const std::string& file, long line, const std::string& message) {
  if (file.empty()) return message;
  if (line <= 0) return file + ": " + message;
  return file + ":" + std::to_string(line) + ": " + message;
}
}  // namespace

InputError::InputError(std::string file, long line, const std::string& message)
    : Error(located(file, line, message)), file_(std::move(file)), line_(line) {}

MeshError::MeshError(const std::string& message, long element, long vertex)
    : Error(message), element_(element), vertex_(vertex) {}

}  // namespace ramus
