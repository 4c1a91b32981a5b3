#include "ramus/precompute/mesh/boundary_surface.h"

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

namespace ramus {

namespace {

// Outward faces of a positively oriented tet (a, b, c, d): each is opposite one corner.
constexpr int kFaces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

struct FaceKeyHash {
  size_t operator()(const std::array<int, 3>& k) const {
    size_t h = static_cast<size_t>(k[0]);
    h = h * 1000003u ^ static_cast<size_t>(k[1]);
    return h * 1000003u ^ static_cast<size_t>(k[2]);
  }
};

std::array<int, 3> sorted_key(int a, int b, int c) {
  std::array<int, 3> k{a, b, c};
  std::sort(k.begin(), k.end());
  return k;
}

// Faces of the tets for which keep(t) holds that are not shared by two such tets.
template <class Keep>
std::vector<std::array<int, 3>> unshared_faces(const Eigen::MatrixX4i& tets, Keep keep) {
  std::unordered_map<std::array<int, 3>, int, FaceKeyHash> count;
  for (Eigen::Index t = 0; t < tets.rows(); ++t) {
    if (!keep(t)) continue;
    for (const auto& f : kFaces) ++count[sorted_key(tets(t, f[0]), tets(t, f[1]), tets(t, f[2]))];
  }
  std::vector<std::array<int, 3>> faces;
  for (Eigen::Index t = 0; t < tets.rows(); ++t) {
    if (!keep(t)) continue;
    for (const auto& f : kFaces) {
      const std::array<int, 3> face{tets(t, f[0]), tets(t, f[1]), tets(t, f[2])};
      if (count[sorted_key(face[0], face[1], face[2])] == 1) faces.push_back(face);
    }
  }
  return faces;
}

}  // namespace

Eigen::MatrixX3i boundary_triangles(const Eigen::MatrixX4i& tets) {
  const auto faces = unshared_faces(tets, [](Eigen::Index) { return true; });
  Eigen::MatrixX3i triangles(static_cast<Eigen::Index>(faces.size()), 3);
  for (size_t f = 0; f < faces.size(); ++f)
    for (int c = 0; c < 3; ++c)
      triangles(static_cast<Eigen::Index>(f), c) = faces[f][static_cast<size_t>(c)];
  return triangles;
}

SurfaceMesh extract_boundary_surface(const TetMesh& mesh, bool group_by_label) {
  std::vector<std::array<int, 3>> faces;
  std::vector<int> groups;
  SurfaceMesh surface;
  if (group_by_label && mesh.has_labels()) {
    std::vector<int> labels(mesh.labels.data(), mesh.labels.data() + mesh.labels.size());
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    for (size_t g = 0; g < labels.size(); ++g) {
      const int label = labels[g];
      const auto part =
          unshared_faces(mesh.tets, [&](Eigen::Index t) { return mesh.labels(t) == label; });
      faces.insert(faces.end(), part.begin(), part.end());
      groups.insert(groups.end(), part.size(), static_cast<int>(g));
      const auto name = mesh.label_names.find(label);
      surface.group_names.push_back(
          name != mesh.label_names.end() ? name->second : "label_" + std::to_string(label));
    }
  } else {
    faces = unshared_faces(mesh.tets, [](Eigen::Index) { return true; });
  }
  std::vector<int> new_index(static_cast<size_t>(mesh.num_vertices()), -1);
  int used = 0;
  for (const auto& face : faces)
    for (int v : face)
      if (new_index[static_cast<size_t>(v)] < 0) new_index[static_cast<size_t>(v)] = used++;
  surface.vertices.resize(used, 3);
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (new_index[static_cast<size_t>(v)] >= 0)
      surface.vertices.row(new_index[static_cast<size_t>(v)]) = mesh.rest_positions.row(v);
  surface.triangles.resize(static_cast<Eigen::Index>(faces.size()), 3);
  for (size_t f = 0; f < faces.size(); ++f)
    for (int c = 0; c < 3; ++c)
      surface.triangles(static_cast<Eigen::Index>(f), c) =
          new_index[static_cast<size_t>(faces[f][static_cast<size_t>(c)])];
  if (!groups.empty())
    surface.groups =
        Eigen::Map<const Eigen::VectorXi>(groups.data(), static_cast<Eigen::Index>(groups.size()));
  return surface;
}

}  // namespace ramus
