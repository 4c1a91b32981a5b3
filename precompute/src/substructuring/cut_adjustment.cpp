#include "ramus/precompute/substructuring/cut_adjustment.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "ramus/error.h"
#include "ramus/runtime/data/reduced_model.h"
#include "tet_graph.h"

namespace ramus {

namespace {

std::size_t sz(int i) {
  return static_cast<std::size_t>(i);
}

// The domain and every domain below it.
std::vector<int> subtree_domains(const DomainTree& tree, int domain) {
  std::vector<int> domains{domain};
  for (std::size_t k = 0; k < domains.size(); ++k)
    for (const int child : tree.children[sz(domains[k])]) domains.push_back(child);
  return domains;
}

// The area-weighted rigid fit u ≈ t + θ × (X − c) of a field over an interface (linearized
// rotation), its RMS residual ρ and the interface's RMS radius a.
struct RigidFit {
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero(), translation = Eigen::Vector3d::Zero();
  Eigen::Vector3d rotation = Eigen::Vector3d::Zero();
  double residual = 0, radius = 0;
  Eigen::Vector3d at(const Eigen::Vector3d& X) const {
    return translation + rotation.cross(X - centroid);
  }
};

RigidFit fit_rigid(const TetMesh& mesh, const std::map<int, double>& areas,
                   const Eigen::MatrixX3d& field) {
  RigidFit fit;
  double w_sum = 0;
  for (const auto& [v, w] : areas) {
    w_sum += w;
    fit.centroid += w * mesh.rest_positions.row(v).transpose();
    fit.translation += w * field.row(v).transpose();
  }
  if (!(w_sum > 0)) return fit;
  fit.centroid /= w_sum;
  fit.translation /= w_sum;
  // The rotation's normal equations: Σ w (|p|² I − p pᵀ) θ = Σ w p × (u − t).
  Eigen::Matrix3d A = Eigen::Matrix3d::Zero();
  Eigen::Vector3d b = Eigen::Vector3d::Zero();
  double radius2 = 0;
  for (const auto& [v, w] : areas) {
    const Eigen::Vector3d p = mesh.rest_positions.row(v).transpose() - fit.centroid;
    A += w * (p.squaredNorm() * Eigen::Matrix3d::Identity() - p * p.transpose());
    b += w * p.cross(field.row(v).transpose() - fit.translation);
    radius2 += w * p.squaredNorm();
  }
  fit.rotation = A.completeOrthogonalDecomposition().solve(b);
  // The residual and the radius.
  double residual2 = 0;
  for (const auto& [v, w] : areas) {
    const Eigen::Vector3d X = mesh.rest_positions.row(v).transpose();
    residual2 += w * (field.row(v).transpose() - fit.at(X)).squaredNorm();
  }
  fit.residual = std::sqrt(residual2 / w_sum);
  fit.radius = std::sqrt(radius2 / w_sum);
  return fit;
}

// One interface's error (see the header): the fit's residual carried over the subtree's reach.
double interface_error(const TetMesh& mesh, const DomainTree& tree, int domain,
                       const std::map<int, double>& areas, const Eigen::MatrixX3d& field,
                       double largest) {
  if (areas.empty() || !(largest > 0)) return 0.0;
  const RigidFit fit = fit_rigid(mesh, areas, field);
  double reach = 0;
  for (const int d : subtree_domains(tree, domain))
    for (const int v : tree.domain_vertices[sz(d)])
      reach = std::max(reach, (mesh.rest_positions.row(v).transpose() - fit.centroid).norm());
  return fit.residual * (1 + (fit.radius > 0 ? reach / fit.radius : 0.0)) / largest;
}

// One domain's basis residual (see the header).
double basis_error(const TetMesh& mesh, const ReducedDomain& domain, const ReducedPart& part,
                   const std::map<int, double>& areas, const Eigen::MatrixX3d& field,
                   double largest) {
  // The field in the domain's frame, less its interface's rigid motion (a child).
  const RigidFit fit = areas.empty() ? RigidFit{} : fit_rigid(mesh, areas, field);
  const Eigen::Index n = domain.global_vertices.size();
  Eigen::VectorXd local(3 * n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const int g = domain.global_vertices(i);
    const Eigen::Vector3d u =
        field.row(g).transpose() - fit.at(mesh.rest_positions.row(g).transpose());
    local.segment<3>(3 * i) = domain.frame_rotation.transpose() * u;
  }
  // Its least-squares fit by the basis; the largest residual off the held vertices.
  Eigen::VectorXd residual = local;
  if (part.basis.cols() > 0 && part.basis.rows() == local.size()) {
    const Eigen::MatrixXd& U = part.basis;
    residual -= U * (U.transpose() * U).ldlt().solve(U.transpose() * local);
  }
  std::vector<char> held(static_cast<std::size_t>(n), 0);
  for (const int v : part.fixed_vertices) held[sz(v)] = 1;
  double worst = 0;
  for (Eigen::Index i = 0; i < n; ++i)
    if (!held[static_cast<std::size_t>(i)])
      worst = std::max(worst, residual.segment<3>(3 * i).norm());
  return worst / largest;
}

// Graph distance (m) over the mesh edges of `domain`'s tets from its interface vertices; every
// vertex of the domain reached (it is one piece), others infinite.
std::vector<double> distance_from_interface(const TetMesh& mesh, const DomainTree& tree,
                                            int domain) {
  std::vector<std::vector<std::pair<int, double>>> edges(sz(mesh.num_vertices()));
  for (const int t : tree.domain_tets[sz(domain)])
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        const int a = mesh.tets(t, i), b = mesh.tets(t, j);
        if (a != b)
          edges[sz(a)].emplace_back(
              b, (mesh.rest_positions.row(a) - mesh.rest_positions.row(b)).norm());
      }
  return tet_graph::dijkstra(edges, tree.interface_vertices[sz(domain)]);
}

// The names by domain id, for build_domain_tree.
std::map<int, std::string> names_by_id(const DomainTree& tree) {
  std::map<int, std::string> names;
  for (int d = 0; d < tree.num_domains; ++d) names[d] = tree.names[sz(d)];
  return names;
}

// The tree with `domain` merged into its parent, ids after it shifted down.
DomainTree merged_into_parent(const TetMesh& mesh, const DomainTree& tree,
                              const std::vector<int>& anchored_vertices, int domain) {
  const int parent = tree.parent[sz(domain)];
  Eigen::VectorXi tet_domain = tree.tet_domain;
  std::map<int, std::string> names;
  for (int d = 0; d < tree.num_domains; ++d)
    if (d != domain) names[d < domain ? d : d - 1] = tree.names[sz(d)];
  for (Eigen::Index t = 0; t < tet_domain.size(); ++t) {
    int& d = tet_domain(t);
    if (d == domain) d = parent;
    if (d > domain) --d;
  }
  return build_domain_tree(mesh, tet_domain, anchored_vertices, names);
}

// The field's largest vertex displacement, after checking it has a row per mesh vertex.
double largest_displacement(const TetMesh& mesh, const Eigen::MatrixX3d& field, const char* who) {
  if (field.rows() != mesh.num_vertices())
    throw OptionError(std::string(who) + ": the field has " + std::to_string(field.rows()) +
                      " rows, the mesh " + std::to_string(mesh.num_vertices()) + " vertices");
  return field.rows() ? field.rowwise().norm().maxCoeff() : 0.0;
}

}  // namespace

std::vector<double> interface_rigidity_errors(const TetMesh& mesh, const DomainTree& tree,
                                              const Eigen::MatrixX3d& field) {
  const double largest = largest_displacement(mesh, field, "interface_rigidity_errors");
  const std::vector<std::map<int, double>> areas = interface_vertex_areas(mesh, tree);
  std::vector<double> errors(sz(tree.num_domains), 0.0);
  for (int d = 0; d < tree.num_domains; ++d)
    if (tree.parent[sz(d)] >= 0)
      errors[sz(d)] = interface_error(mesh, tree, d, areas[sz(d)], field, largest);
  return errors;
}

std::vector<double> basis_residual_errors(const TetMesh& mesh, const DomainTree& tree,
                                          const ReducedModel& model,
                                          const Eigen::MatrixX3d& field) {
  const double largest = largest_displacement(mesh, field, "basis_residual_errors");
  const std::vector<std::map<int, double>> areas = interface_vertex_areas(mesh, tree);
  std::vector<double> errors(sz(tree.num_domains), 0.0);
  if (!(largest > 0)) return errors;
  for (const ReducedDomain& domain : model.domains) {
    const auto it = std::find(tree.names.begin(), tree.names.end(), domain.name);
    if (it == tree.names.end()) continue;
    const auto d = static_cast<std::size_t>(it - tree.names.begin());
    errors[d] = basis_error(mesh, domain, model.parts[sz(domain.part)], areas[d], field, largest);
  }
  return errors;
}

DomainTree move_cut_outward(const TetMesh& mesh, const DomainTree& tree,
                            const std::vector<int>& anchored_vertices, int domain, double fraction,
                            int min_tets, CutMove* move) {
  if (domain < 0 || domain >= tree.num_domains || tree.parent[sz(domain)] < 0)
    throw OptionError("move_cut_outward: domain " + std::to_string(domain) +
                      " is not a child domain of the tree");
  if (!(fraction > 0 && fraction < 1))
    throw OptionError("move_cut_outward: fraction must lie in (0, 1)");
  const int parent = tree.parent[sz(domain)];
  CutMove done;
  done.domain = domain;
  done.parent = tree.names[sz(parent)];
  // The domain's tets by their mean vertex distance from the interface, nearest first.
  const std::vector<double> distance = distance_from_interface(mesh, tree, domain);
  std::vector<std::pair<double, int>> tets;
  for (const int t : tree.domain_tets[sz(domain)]) {
    double mean = 0;
    for (int i = 0; i < 4; ++i) mean += distance[sz(mesh.tets(t, i))] / 4;
    tets.emplace_back(mean, t);
  }
  std::sort(tets.begin(), tets.end());
  const auto count = static_cast<std::size_t>(std::lround(fraction * double(tets.size())));
  // The nearer part to the parent, or the whole domain.
  DomainTree moved;
  bool merged = count == 0 || tets.size() - count < sz(std::max(1, min_tets));
  if (!merged) {
    Eigen::VectorXi tet_domain = tree.tet_domain;
    for (std::size_t k = 0; k < count; ++k) tet_domain(tets[k].second) = parent;
    try {
      moved = build_domain_tree(mesh, tet_domain, anchored_vertices, names_by_id(tree));
      done.moved_tets = static_cast<int>(count);
    } catch (const MeshError&) {
      merged = true;  // (pieces or a loop)
    }
  }
  if (merged) {
    moved = merged_into_parent(mesh, tree, anchored_vertices, domain);
    done.moved_tets = static_cast<int>(tets.size());
  }
  done.merged = merged;
  if (move != nullptr) *move = done;
  return moved;
}

}  // namespace ramus
