// The consistency rules of a part's render surface (/parts/part_<k>/render_surface, schema 10):
// triangles on its vertices, tets of the part, barycentric weights summing to 1 (runtime
// internals, called by find_model_inconsistency after the fields' shapes).
#pragma once

#include <string>

#include "ramus/runtime/data/reduced_model.h"

namespace ramus {

/// The first problem of part k's render surface, naming its dataset and entry; "" when none.
std::string part_render_surface_problem(const ReducedPart& part, int k);

}  // namespace ramus
