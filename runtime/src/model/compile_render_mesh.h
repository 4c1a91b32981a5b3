// Builds a compiled model's RenderMesh (model/render_mesh.h) from its file's render surfaces
// (runtime internals, called by compile_model once the parts and domains are compiled).
#pragma once

#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/model/model.h"

namespace ramus {

/// The pieces: each part's own render surface (drawn by all its domains); the model's embedded
/// surface split by domain (seam triangles across them); and, for a part with neither, its
/// outer surface (the part's surface triangles on the undivided mesh's boundary). Needs `model`'s
/// parts, domains and global surface; throws OptionError for a surface on a missing tet.
RenderMesh compile_render_mesh(const ReducedModel& data, const Model& model);

}  // namespace ramus
