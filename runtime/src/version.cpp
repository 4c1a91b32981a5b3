#include "ramus/runtime/version.h"

namespace ramus {

const char* version_string() {
  return RAMUS_VERSION_STRING;
}

}  // namespace ramus
