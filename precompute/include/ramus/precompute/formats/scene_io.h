// Scenes from 3D packages (glTF 2 .gltf/.glb, FBX, COLLADA .dae) read with Assimp as one triangle
// soup: every node's meshes with the node's transform applied (an instanced mesh repeated), in
// metres, z up, for `ramus author` and for specs that name such a file as a surface.
#pragma once

#include <string>

#include "ramus/precompute/mesh/surface_mesh.h"

namespace ramus {

/// Whether read_scene reads files with this name's extension (case-insensitive).
bool is_scene_file(const std::string& path);

/// The scene at `path` as one soup (SurfaceMesh groups: one per mesh, named after it). glTF and
/// COLLADA are y up (their standards: Assimp gives COLLADA so) and FBX says its up axis; each is
/// turned z up (x, y, z) -> (x, -z, y). FBX in centimetres is scaled to metres. Throws
/// InputError naming the file and Assimp's reason when it cannot be read or holds no triangles.
SurfaceMesh read_scene(const std::string& path);

}  // namespace ramus
