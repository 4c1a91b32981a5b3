// Scenes from 3D packages through Assimp: a generated tree written as glTF and FBX by Assimp's
// exporter (y up, as those formats are), read back z up, and authored as from OBJ. (FBX in
// ASCII: Assimp 5.2's binary FBX exporter writes files its own importer refuses.)
#include <assimp/scene.h>
#include <assimp/Exporter.hpp>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "ramus/error.h"
#include "ramus/precompute/authoring/tree_authoring.h"
#include "ramus/precompute/formats/scene_io.h"
#include "ramus/precompute/formats/surface_mesh_io.h"
#include "ramus/precompute/generators/tree_generator.h"
#include "support/small_trees.h"
#include "support/temp_dir.h"

using namespace ramus;
using Catch::Matchers::Contains;

namespace {

// `soup` (z up) as a one-mesh Assimp scene, y up: (x, y, z) -> (x, z, -y).
void export_scene(const SurfaceMesh& soup, const std::string& format, const std::string& path) {
  aiScene scene;
  scene.mRootNode = new aiNode();
  scene.mMaterials = new aiMaterial* [1] { new aiMaterial() };
  scene.mNumMaterials = 1;
  scene.mMeshes = new aiMesh* [1] { new aiMesh() };
  scene.mNumMeshes = 1;
  scene.mRootNode->mMeshes = new unsigned[1]{0};
  scene.mRootNode->mNumMeshes = 1;
  aiMesh& mesh = *scene.mMeshes[0];
  mesh.mMaterialIndex = 0;
  mesh.mPrimitiveTypes = aiPrimitiveType_TRIANGLE;
  mesh.mNumVertices = static_cast<unsigned>(soup.num_vertices());
  mesh.mVertices = new aiVector3D[mesh.mNumVertices];
  for (int v = 0; v < soup.num_vertices(); ++v)
    mesh.mVertices[v] =
        aiVector3D(static_cast<float>(soup.vertices(v, 0)), static_cast<float>(soup.vertices(v, 2)),
                   static_cast<float>(-soup.vertices(v, 1)));
  mesh.mNumFaces = static_cast<unsigned>(soup.num_triangles());
  mesh.mFaces = new aiFace[mesh.mNumFaces];
  for (int t = 0; t < soup.num_triangles(); ++t) {
    aiFace& face = mesh.mFaces[t];
    face.mNumIndices = 3;
    face.mIndices = new unsigned[3];
    for (int c = 0; c < 3; ++c) face.mIndices[c] = static_cast<unsigned>(soup.triangles(t, c));
  }
  Assimp::Exporter exporter;
  REQUIRE(exporter.Export(&scene, format, path) == aiReturn_SUCCESS);
}

}  // namespace

TEST_CASE("A tree written as glTF or FBX reads back z up and authors as from OBJ",
          "[precompute][formats]") {
  const TreeOptions options = test::small_tree_options();
  const SurfaceMesh soup = tree_surface_soup(make_tree(options));
  const test::TempDir dir("scene_io");
  for (const auto& [format, name] : {std::pair<std::string, std::string>{"glb2", "tree.glb"},
                                     {"gltf2", "tree.gltf"},
                                     {"fbxa", "tree.fbx"}}) {
    INFO(format);
    const std::string path = (dir.path() / name).string();
    export_scene(soup, format, path);
    CHECK(is_scene_file(path));
    const SurfaceMesh read = read_surface_mesh(path);
    REQUIRE(read.num_triangles() == soup.num_triangles());
    // The same place (float precision), z up: the bounding boxes agree.
    const double size =
        (soup.vertices.colwise().maxCoeff() - soup.vertices.colwise().minCoeff()).norm();
    CHECK((read.vertices.colwise().minCoeff() - soup.vertices.colwise().minCoeff()).norm() <
          1e-5 * size);
    CHECK((read.vertices.colwise().maxCoeff() - soup.vertices.colwise().maxCoeff()).norm() <
          1e-5 * size);
    // Authored (float coordinates: repeats within 1e-5 of their size).
    AuthoringOptions authoring;
    authoring.similarity = 1e-5;
    const AuthoredTree tree = author_tree(read, path, "", authoring);
    CHECK(tree.num_pieces == 26);
    CHECK(tree.part_surfaces.size() == 6);
  }
}

TEST_CASE("A scene that cannot be read is named", "[precompute][formats]") {
  const test::TempDir dir("scene_io_bad");
  const std::string path = (dir.path() / "broken.glb").string();
  { std::ofstream(path) << "not a glTF"; }
  CHECK_THROWS_WITH(read_surface_mesh(path),
                    Contains("broken.glb") && Contains("cannot read the scene"));
  CHECK_THROWS_WITH(read_surface_mesh((dir.path() / "none.fbx").string()),
                    Contains("cannot open file"));
}
