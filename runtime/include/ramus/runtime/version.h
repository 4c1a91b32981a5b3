// Library version and model-file schema version shared by precompute and runtime.
#pragma once

namespace ramus {

/// Version of the Ramus library, e.g. "0.1.0".
const char* version_string();

}  // namespace ramus
