#include "ramus/runtime/model/model_geometry.h"

#include <algorithm>
#include <array>
#include <vector>

namespace ramus {

namespace {

// Global index of local vertex v of domain d (identity for a model without a numbering).
int global_index(const ReducedDomain& domain, Eigen::Index v) {
  return domain.global_vertices.size() ? domain.global_vertices(v) : static_cast<int>(v);
}

}  // namespace

int global_vertex_count(const ReducedModel& model) {
  if (model.num_global_vertices > 0) return model.num_global_vertices;
  return model.domains.empty() ? 0 : static_cast<int>(part_of(model, 0).rest_positions.rows());
}

Eigen::MatrixX3d global_rest_positions(const ReducedModel& model) {
  Eigen::MatrixX3d positions = Eigen::MatrixX3d::Zero(global_vertex_count(model), 3);
  for (std::size_t k = 0; k < model.domains.size(); ++k) {
    const ReducedDomain& d = model.domains[k];
    const Eigen::MatrixX3d& X = part_of(model, static_cast<int>(k)).rest_positions;
    for (Eigen::Index v = 0; v < X.rows(); ++v)
      positions.row(global_index(d, v)) =
          (d.frame_rotation * (d.scale * X.row(v).transpose()) + d.frame_origin).transpose();
  }
  return positions;
}

Eigen::MatrixX4i global_tets(const ReducedModel& model, Eigen::VectorXi* tet_domain) {
  Eigen::Index count = 0;
  for (std::size_t k = 0; k < model.domains.size(); ++k)
    count += part_of(model, static_cast<int>(k)).tets.rows();
  Eigen::MatrixX4i tets(count, 4);
  if (tet_domain) tet_domain->resize(count);
  Eigen::Index row = 0;
  for (std::size_t k = 0; k < model.domains.size(); ++k) {
    const ReducedDomain& d = model.domains[k];
    const Eigen::MatrixX4i& local = part_of(model, static_cast<int>(k)).tets;
    for (Eigen::Index t = 0; t < local.rows(); ++t, ++row) {
      for (int c = 0; c < 4; ++c) tets(row, c) = global_index(d, local(t, c));
      if (tet_domain) (*tet_domain)(row) = static_cast<int>(k);
    }
  }
  return tets;
}

std::pair<int, int> vertex_copy(const ReducedModel& model, int global_vertex) {
  for (std::size_t k = 0; k < model.domains.size(); ++k) {
    const ReducedDomain& d = model.domains[k];
    for (Eigen::Index v = 0; v < part_of(model, static_cast<int>(k)).rest_positions.rows(); ++v)
      if (global_index(d, v) == global_vertex) return {static_cast<int>(k), static_cast<int>(v)};
  }
  return {-1, -1};
}

Eigen::MatrixX3d global_rest_positions(const Model& model) {
  Eigen::MatrixX3d positions = Eigen::MatrixX3d::Zero(model.num_global_vertices, 3);
  for (const Domain& domain : model.domains) {
    const Eigen::MatrixX3d& X = model.parts[static_cast<std::size_t>(domain.part)].rest_positions;
    for (Eigen::Index v = 0; v < X.rows(); ++v)
      positions.row(domain.global_vertices(v)) =
          (domain.rest_rotation * (domain.scale.length * X.row(v).transpose()) + domain.rest_origin)
              .transpose();
  }
  return positions;
}

Eigen::MatrixX4i global_tets(const Model& model, Eigen::VectorXi* tet_domain) {
  Eigen::Index count = 0;
  for (const Domain& domain : model.domains)
    count += model.parts[static_cast<std::size_t>(domain.part)].tets.rows();
  Eigen::MatrixX4i tets(count, 4);
  if (tet_domain) tet_domain->resize(count);
  Eigen::Index row = 0;
  for (int i = 0; i < model.num_domains(); ++i) {
    const Domain& domain = model.domains[static_cast<std::size_t>(i)];
    const Eigen::MatrixX4i& local = model.parts[static_cast<std::size_t>(domain.part)].tets;
    for (Eigen::Index t = 0; t < local.rows(); ++t, ++row) {
      for (int c = 0; c < 4; ++c) tets(row, c) = domain.global_vertices(local(t, c));
      if (tet_domain) (*tet_domain)(row) = i;
    }
  }
  return tets;
}

Eigen::MatrixX3i global_boundary_triangles(const Model& model) {
  // Every domain's part surface in global vertices (a domain without a numbering: its own).
  std::vector<std::array<int, 3>> faces;
  for (const Domain& domain : model.domains) {
    const Eigen::MatrixX3i& local =
        model.parts[static_cast<std::size_t>(domain.part)].surface_triangles;
    for (Eigen::Index f = 0; f < local.rows(); ++f) {
      std::array<int, 3> face;
      for (int c = 0; c < 3; ++c)
        face[static_cast<std::size_t>(c)] =
            domain.global_vertices.size() > 0 ? domain.global_vertices(local(f, c)) : local(f, c);
      faces.push_back(face);
    }
  }
  // A face two domains hold (a cut between them) lies inside: dropped.
  std::vector<std::size_t> order(faces.size());
  std::vector<std::array<int, 3>> keys(faces.size());
  for (std::size_t f = 0; f < faces.size(); ++f) {
    order[f] = f;
    keys[f] = faces[f];
    std::sort(keys[f].begin(), keys[f].end());
  }
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  std::vector<char> inside(faces.size(), 0);
  for (std::size_t k = 1; k < order.size(); ++k)
    if (keys[order[k]] == keys[order[k - 1]]) inside[order[k]] = inside[order[k - 1]] = 1;
  Eigen::MatrixX3i out(static_cast<Eigen::Index>(faces.size()) -
                           static_cast<Eigen::Index>(std::count(inside.begin(), inside.end(), 1)),
                       3);
  Eigen::Index row = 0;
  for (std::size_t f = 0; f < faces.size(); ++f)
    if (!inside[f]) {
      for (int c = 0; c < 3; ++c) out(row, c) = faces[f][static_cast<std::size_t>(c)];
      ++row;
    }
  return out;
}

std::pair<int, int> vertex_copy(const Model& model, int global_vertex) {
  for (int i = 0; i < model.num_domains(); ++i) {
    const Eigen::VectorXi& g = model.domains[static_cast<std::size_t>(i)].global_vertices;
    for (Eigen::Index v = 0; v < g.size(); ++v)
      if (g(v) == global_vertex) return {i, static_cast<int>(v)};
  }
  return {-1, -1};
}

}  // namespace ramus
