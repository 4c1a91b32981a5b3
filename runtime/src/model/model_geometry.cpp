#include "ramus/runtime/model/model_geometry.h"

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

std::pair<int, int> vertex_copy(const Model& model, int global_vertex) {
  for (int i = 0; i < model.num_domains(); ++i) {
    const Eigen::VectorXi& g = model.domains[static_cast<std::size_t>(i)].global_vertices;
    for (Eigen::Index v = 0; v < g.size(); ++v)
      if (g(v) == global_vertex) return {i, static_cast<int>(v)};
  }
  return {-1, -1};
}

}  // namespace ramus
