#include "ramus/precompute/formats/scene_io.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/Importer.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "ramus/error.h"

namespace ramus {

namespace {

std::string lowercase_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// Whether the scene's y axis is up: glTF and COLLADA always, FBX when its UpAxis says 1.
bool y_up(const aiScene& scene, const std::string& ext) {
  if (ext != ".fbx") return true;
  int axis = 1;
  if (scene.mMetaData) scene.mMetaData->Get("UpAxis", axis);
  return axis == 1;
}

}  // namespace

bool is_scene_file(const std::string& path) {
  const std::string ext = lowercase_extension(path);
  return ext == ".gltf" || ext == ".glb" || ext == ".fbx" || ext == ".dae";
}

SurfaceMesh read_scene(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw InputError(path, 0, "cannot open file");
  const std::string ext = lowercase_extension(path);
  // Stages: import with every node's transform baked into its meshes' vertices, triangles only.
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_FBX_CONVERT_TO_M, true);
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                              aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_Triangulate | aiProcess_PreTransformVertices | aiProcess_SortByPType);
  if (!scene || (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE) || !scene->mRootNode)
    throw InputError(path, 0, std::string("cannot read the scene: ") + importer.GetErrorString());
  // One soup, sized first: each mesh's vertices and triangles in order, its name a group.
  Eigen::Index num_vertices = 0, num_triangles = 0;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    num_vertices += scene->mMeshes[m]->mNumVertices;
    for (unsigned f = 0; f < scene->mMeshes[m]->mNumFaces; ++f)
      num_triangles += scene->mMeshes[m]->mFaces[f].mNumIndices == 3 ? 1 : 0;
  }
  if (num_triangles == 0) throw InputError(path, 0, "the scene holds no triangles");
  SurfaceMesh soup;
  soup.vertices.resize(num_vertices, 3);
  soup.triangles.resize(num_triangles, 3);
  soup.groups.resize(num_triangles);
  const bool turn = y_up(*scene, ext);
  Eigen::Index v0 = 0, t = 0;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh& mesh = *scene->mMeshes[m];
    for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
      const aiVector3D& p = mesh.mVertices[v];
      soup.vertices.row(v0 + v) << p.x, turn ? -p.z : p.y, turn ? p.y : p.z;
    }
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices != 3) continue;
      for (int c = 0; c < 3; ++c)
        soup.triangles(t, c) = static_cast<int>(v0) + static_cast<int>(face.mIndices[c]);
      soup.groups(t++) = static_cast<int>(m);
    }
    soup.group_names.emplace_back(mesh.mName.length ? mesh.mName.C_Str()
                                                    : "mesh_" + std::to_string(m));
    v0 += mesh.mNumVertices;
  }
  if (!soup.vertices.allFinite())
    throw InputError(path, 0, "the scene has non-finite vertex coordinates");
  return soup;
}

}  // namespace ramus
