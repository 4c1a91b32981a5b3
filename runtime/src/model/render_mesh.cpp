#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <string>

#include "../data/heap_bytes.h"
#include "compile_render_mesh.h"
#include "ramus/error.h"

namespace ramus {

namespace {

std::size_t sz(int i) {
  return static_cast<std::size_t>(i);
}

// A mesh of one part before its normals: rest positions (part frame, unit scale) and, per
// vertex, the part vertices and weights whose basis rows move it.
struct PieceSource {
  Eigen::Matrix3Xd rest;
  Eigen::MatrixX4i corners;  // part vertices (a vertex of the part itself: all four the same)
  Eigen::MatrixX4d weights;
  Eigen::MatrixX3i triangles;
  // Triangles across into other domains (seams): they shape the rest normals and, their other
  // corners held still, the normals' change. Vertices from `own` on are those other corners
  // (no weights), drawn by their own pieces.
  Eigen::MatrixX3i seam_triangles;
  Eigen::Index own = -1;  // -1: every vertex is the piece's
};

// Rows of the basis at each vertex: Σ_c b_c U_(corner c).
Eigen::MatrixXd position_rows(const Part& part, const PieceSource& source) {
  const Eigen::Index S = source.rest.cols();
  Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(3 * S, part.r);
  if (part.r == 0) return rows;
  for (Eigen::Index v = 0; v < S; ++v)
    for (int c = 0; c < 4; ++c)
      rows.middleRows<3>(3 * v) +=
          source.weights(v, c) * part.basis.middleRows<3>(3 * source.corners(v, c));
  return rows;
}

// [a]_x: the cross product with a as a matrix.
Eigen::Matrix3d cross_matrix(const Eigen::Vector3d& a) {
  Eigen::Matrix3d m;
  m << 0, -a(2), a(1), a(2), 0, -a(0), -a(1), a(0), 0;
  return m;
}

// The piece with its float tables: rest normals N_v = Σ_f (x_b - x_a) × (x_c - x_a) over the
// triangles at v, normalized; their derivative per coordinate dN_v/dq = Σ_f [e1]_x (P_c - P_a)
// - [e2]_x (P_b - P_a), projected off n_v and divided by |N_v| (the unit normal's first-order
// change). An isolated vertex gets +z and no change.
RenderPiece make_piece(const Part& part, int part_index, const PieceSource& source) {
  const Eigen::Index all = source.rest.cols();
  const Eigen::Index S = source.own < 0 ? all : source.own;
  const Eigen::MatrixXd P = position_rows(part, source);
  Eigen::Matrix3Xd N = Eigen::Matrix3Xd::Zero(3, all);
  Eigen::MatrixXd dN = Eigen::MatrixXd::Zero(3 * all, part.r);
  const Eigen::Index own_triangles = source.triangles.rows();
  for (Eigen::Index f = 0; f < own_triangles + source.seam_triangles.rows(); ++f) {
    const Eigen::MatrixX3i& list = f < own_triangles ? source.triangles : source.seam_triangles;
    const Eigen::Index row = f < own_triangles ? f : f - own_triangles;
    const int a = list(row, 0), b = list(row, 1), c = list(row, 2);
    const Eigen::Vector3d e1 = source.rest.col(b) - source.rest.col(a);
    const Eigen::Vector3d e2 = source.rest.col(c) - source.rest.col(a);
    const Eigen::Vector3d n = e1.cross(e2);
    Eigen::MatrixXd d(3, part.r);
    if (part.r > 0)
      d = cross_matrix(e1) * (P.middleRows<3>(3 * c) - P.middleRows<3>(3 * a)) -
          cross_matrix(e2) * (P.middleRows<3>(3 * b) - P.middleRows<3>(3 * a));
    for (const int v : {a, b, c}) {
      N.col(v) += n;
      if (part.r > 0) dN.middleRows<3>(3 * v) += d;
    }
  }
  // Into the piece's float tables, by coordinate (row c S + v of a basis).
  RenderPiece piece;
  piece.part = part_index;
  piece.rest = source.rest.leftCols(S).transpose().cast<float>();
  piece.rest_normals.resize(S, 3);
  piece.position_basis.resize(3 * S, part.r);
  piece.normal_basis = Eigen::MatrixXf::Zero(3 * S, part.r);
  for (Eigen::Index v = 0; v < S; ++v) {
    for (int c = 0; c < 3; ++c)
      piece.position_basis.row(c * S + v) = P.row(3 * v + c).cast<float>();
    const double length = N.col(v).norm();
    if (!(length > 0)) {
      piece.rest_normals.row(v) = Eigen::RowVector3f::UnitZ();
      continue;
    }
    const Eigen::Vector3d n = N.col(v) / length;
    piece.rest_normals.row(v) = n.transpose().cast<float>();
    if (part.r == 0) continue;
    const Eigen::MatrixXd change =
        (Eigen::Matrix3d::Identity() - n * n.transpose()) * dN.middleRows<3>(3 * v) / length;
    for (int c = 0; c < 3; ++c) piece.normal_basis.row(c * S + v) = change.row(c).cast<float>();
  }
  piece.triangles = source.triangles;
  piece.nearest_part_vertex.resize(S);
  for (Eigen::Index v = 0; v < S; ++v) {
    Eigen::Index c = 0;
    source.weights.row(v).maxCoeff(&c);
    piece.nearest_part_vertex(v) = source.corners(v, c);
  }
  return piece;
}

// A part's own render surface, embedded in its tets.
PieceSource part_surface_source(const Part& part, const PartRenderSurface& s, int k) {
  PieceSource source;
  source.rest = s.rest_positions.transpose();
  source.corners.resize(s.size(), 4);
  for (Eigen::Index v = 0; v < s.size(); ++v) {
    if (s.tet(v) < 0 || s.tet(v) >= part.tets.rows())
      throw OptionError("part " + std::to_string(k) + ": render surface vertex " +
                        std::to_string(v) + " lies in a tet the part does not have");
    source.corners.row(v) = part.tets.row(s.tet(v));
  }
  source.weights = s.barycentric;
  source.triangles = s.triangles;
  return source;
}

// A part's surface triangles on the undivided mesh's boundary (all of them without a global
// numbering), its vertices compacted.
using TriangleSet = std::set<std::array<int, 3>>;

// The undivided mesh's surface triangles, each as its sorted global vertices.
TriangleSet boundary_triangles(const ReducedModel& data) {
  TriangleSet boundary;
  const Eigen::MatrixX3i& faces = data.global_surface_triangles;
  for (Eigen::Index f = 0; f < faces.rows(); ++f) {
    std::array<int, 3> t = {faces(f, 0), faces(f, 1), faces(f, 2)};
    std::sort(t.begin(), t.end());
    boundary.insert(t);
  }
  return boundary;
}

PieceSource outer_surface_source(const TriangleSet& boundary, const Part& part,
                                 const Domain& first) {
  const bool global = first.global_vertices.size() > 0 && !boundary.empty();
  std::vector<int> kept;
  for (Eigen::Index f = 0; f < part.surface_triangles.rows(); ++f) {
    if (global) {
      std::array<int, 3> t;
      for (int c = 0; c < 3; ++c) t[sz(c)] = first.global_vertices(part.surface_triangles(f, c));
      std::sort(t.begin(), t.end());
      if (boundary.count(t) == 0) continue;
    }
    kept.push_back(static_cast<int>(f));
  }
  std::vector<int> local(static_cast<std::size_t>(part.rest_positions.rows()), -1);
  std::vector<int> vertices;
  PieceSource source;
  source.triangles.resize(static_cast<Eigen::Index>(kept.size()), 3);
  for (std::size_t j = 0; j < kept.size(); ++j)
    for (int c = 0; c < 3; ++c) {
      int& l = local[sz(part.surface_triangles(kept[j], c))];
      if (l < 0) {
        l = static_cast<int>(vertices.size());
        vertices.push_back(part.surface_triangles(kept[j], c));
      }
      source.triangles(static_cast<Eigen::Index>(j), c) = l;
    }
  const auto S = static_cast<Eigen::Index>(vertices.size());
  source.rest.resize(3, S);
  source.corners.resize(S, 4);
  source.weights = Eigen::MatrixX4d::Zero(S, 4);
  for (Eigen::Index v = 0; v < S; ++v) {
    source.rest.col(v) = part.rest_positions.row(vertices[sz(static_cast<int>(v))]).transpose();
    source.corners.row(v).setConstant(vertices[sz(static_cast<int>(v))]);
    source.weights(v, 0) = 1;
  }
  return source;
}

// Each seam triangle in the pieces it touches, its corners in other pieces appended to a piece
// as foreign vertices at their rest positions in its part's frame (no weights).
void add_seams_to_pieces(const ReducedModel& data, const Model& model,
                         const std::vector<int>& domain_of,
                         const std::vector<std::vector<int>>& members,
                         const std::vector<std::array<std::pair<int, int>, 3>>& seams,
                         std::vector<PieceSource>& sources) {
  const EmbeddedSurface& s = data.embedded_surface;
  std::vector<std::map<int, int>> foreign(sources.size());  // surface vertex -> local index
  std::vector<std::vector<std::array<int, 3>>> lists(sources.size());
  // The surface vertex at (piece, local).
  const auto surface_vertex = [&](const std::pair<int, int>& at) {
    return members[sz(at.first)][sz(at.second)];
  };
  for (const auto& seam : seams)
    for (const auto& [p, unused] : seam) {
      (void)unused;
      std::array<int, 3> local{};
      for (int c = 0; c < 3; ++c) {
        if (seam[sz(c)].first == p) {
          local[sz(c)] = seam[sz(c)].second;
          continue;
        }
        const int v = surface_vertex(seam[sz(c)]);
        auto [it, added] = foreign[sz(p)].try_emplace(
            v, static_cast<int>(sources[sz(p)].rest.cols() + foreign[sz(p)].size()));
        (void)added;
        local[sz(c)] = it->second;
      }
      if (lists[sz(p)].empty() || lists[sz(p)].back() != local) lists[sz(p)].push_back(local);
    }
  for (std::size_t p = 0; p < sources.size(); ++p) {
    PieceSource& source = sources[p];
    const Domain& d = model.domains[sz(domain_of[p])];
    source.own = source.rest.cols();
    const Eigen::Index all = source.own + static_cast<Eigen::Index>(foreign[p].size());
    source.rest.conservativeResize(3, all);
    source.corners.conservativeResize(all, 4);
    source.weights.conservativeResize(all, 4);
    for (const auto& [v, k] : foreign[p]) {
      source.rest.col(k) = d.rest_rotation.transpose() *
                           (s.rest_positions.row(v).transpose() - d.rest_origin) / d.scale.length;
      source.corners.row(k).setZero();
      source.weights.row(k).setZero();
    }
    source.seam_triangles.resize(static_cast<Eigen::Index>(lists[p].size()), 3);
    for (std::size_t f = 0; f < lists[p].size(); ++f)
      for (int c = 0; c < 3; ++c)
        source.seam_triangles(static_cast<Eigen::Index>(f), c) = lists[p][f][sz(c)];
  }
}

// The model's embedded surface, split by the domain holding each vertex: one piece per such
// domain (its vertices brought to the part's frame: X = R0ᵀ (x - o0) / s), triangles within
// one domain kept there, the others returned as seams in (piece, vertex) pairs.
void split_embedded_surface(const ReducedModel& data, const Model& model, RenderMesh& mesh,
                            std::vector<std::pair<int, int>>& where,
                            std::vector<std::array<std::pair<int, int>, 3>>& seams) {
  const EmbeddedSurface& s = data.embedded_surface;
  std::vector<int> piece_of(sz(model.num_domains()), -1);
  where.resize(static_cast<std::size_t>(s.rest_positions.rows()));
  std::vector<PieceSource> sources;
  std::vector<std::vector<int>> members;
  for (Eigen::Index v = 0; v < s.rest_positions.rows(); ++v) {
    const int i = s.domain(v);
    if (piece_of[sz(i)] < 0) {
      piece_of[sz(i)] = static_cast<int>(sources.size());
      sources.emplace_back();
      members.emplace_back();
    }
    where[sz(static_cast<int>(v))] = {piece_of[sz(i)],
                                      static_cast<int>(members[sz(piece_of[sz(i)])].size())};
    members[sz(piece_of[sz(i)])].push_back(static_cast<int>(v));
  }
  std::vector<int> domain_of(sources.size());
  for (int i = 0; i < model.num_domains(); ++i)
    if (piece_of[sz(i)] >= 0) domain_of[sz(piece_of[sz(i)])] = i;
  for (std::size_t p = 0; p < sources.size(); ++p) {
    const Domain& d = model.domains[sz(domain_of[p])];
    const Part& part = model.parts[sz(d.part)];
    PieceSource& source = sources[p];
    const auto S = static_cast<Eigen::Index>(members[p].size());
    source.rest.resize(3, S);
    source.corners.resize(S, 4);
    source.weights.resize(S, 4);
    for (Eigen::Index j = 0; j < S; ++j) {
      const int v = members[p][sz(static_cast<int>(j))];
      if (s.tet(v) < 0 || s.tet(v) >= part.tets.rows())
        throw OptionError("embedded surface vertex " + std::to_string(v) + ": its tet " +
                          std::to_string(s.tet(v)) + " is not in " +
                          domain_label(model, domain_of[p]));
      source.rest.col(j) = d.rest_rotation.transpose() *
                           (s.rest_positions.row(v).transpose() - d.rest_origin) / d.scale.length;
      source.corners.row(j) = part.tets.row(s.tet(v));
      source.weights.row(j) = s.barycentric.row(v);
    }
  }
  // Triangles: within one piece, or a seam.
  std::vector<std::vector<std::array<int, 3>>> own(sources.size());
  for (Eigen::Index f = 0; f < s.triangles.rows(); ++f) {
    std::array<std::pair<int, int>, 3> corners;
    for (int c = 0; c < 3; ++c) corners[sz(c)] = where[sz(s.triangles(f, c))];
    if (corners[0].first == corners[1].first && corners[1].first == corners[2].first)
      own[sz(corners[0].first)].push_back(
          {corners[0].second, corners[1].second, corners[2].second});
    else
      seams.push_back(corners);
  }
  add_seams_to_pieces(data, model, domain_of, members, seams, sources);
  for (std::size_t p = 0; p < sources.size(); ++p) {
    sources[p].triangles.resize(static_cast<Eigen::Index>(own[p].size()), 3);
    for (std::size_t f = 0; f < own[p].size(); ++f)
      for (int c = 0; c < 3; ++c)
        sources[p].triangles(static_cast<Eigen::Index>(f), c) = own[p][f][sz(c)];
    const int part = model.domains[sz(domain_of[p])].part;
    mesh.pieces.push_back(make_piece(model.parts[sz(part)], part, sources[p]));
    mesh.pieces.back().domains = {domain_of[p]};
  }
}

}  // namespace

std::size_t render_piece_bytes(const RenderPiece& piece) {
  return sizeof(RenderPiece) + eigen_heap_bytes(piece.rest) + eigen_heap_bytes(piece.rest_normals) +
         eigen_heap_bytes(piece.position_basis) + eigen_heap_bytes(piece.normal_basis) +
         eigen_heap_bytes(piece.triangles) + eigen_heap_bytes(piece.nearest_part_vertex) +
         sizeof(int) * piece.domains.capacity();
}

RenderMesh compile_render_mesh(const ReducedModel& data, const Model& model) {
  RenderMesh mesh;
  std::vector<std::pair<int, int>> embedded;  // (piece, vertex) of each embedded vertex
  std::vector<std::array<std::pair<int, int>, 3>> seams;
  split_embedded_surface(data, model, mesh, embedded, seams);
  std::vector<bool> covered(model.parts.size(), false);
  for (const RenderPiece& piece : mesh.pieces) covered[sz(piece.part)] = true;
  // Each part's own render surface, else (not covered by the embedded one) its outer surface.
  const TriangleSet boundary = boundary_triangles(data);
  for (std::size_t k = 0; k < model.parts.size(); ++k) {
    const Part& part = model.parts[k];
    const bool own = k < data.parts.size() && data.parts[k].render_surface.size() > 0;
    if (part.domains.empty() || (!own && covered[k])) continue;
    const PieceSource source =
        own ? part_surface_source(part, data.parts[k].render_surface, static_cast<int>(k))
            : outer_surface_source(boundary, part, model.domains[sz(part.domains[0])]);
    if (source.rest.cols() == 0) continue;
    mesh.pieces.push_back(make_piece(part, static_cast<int>(k), source));
    mesh.pieces.back().domains = part.domains;
    mesh.pieces.back().from_boundary = !own;
  }
  // Numbering: pieces in order, each domain's copy after the other.
  for (RenderPiece& piece : mesh.pieces) {
    const auto n = static_cast<int>(piece.domains.size());
    piece.first_vertex = mesh.num_vertices;
    piece.first_triangle = mesh.num_triangles;
    mesh.num_vertices += n * piece.size();
    mesh.num_triangles += n * static_cast<int>(piece.triangles.rows());
  }
  mesh.seam_triangles.resize(static_cast<Eigen::Index>(seams.size()), 3);
  for (std::size_t f = 0; f < seams.size(); ++f)
    for (int c = 0; c < 3; ++c)
      mesh.seam_triangles(static_cast<Eigen::Index>(f), c) =
          mesh.pieces[sz(seams[f][sz(c)].first)].first_vertex + seams[f][sz(c)].second;
  mesh.num_triangles += static_cast<int>(seams.size());
  mesh.embedded_surface_vertices.resize(static_cast<Eigen::Index>(embedded.size()));
  for (std::size_t v = 0; v < embedded.size(); ++v)
    mesh.embedded_surface_vertices(static_cast<Eigen::Index>(v)) =
        mesh.pieces[sz(embedded[v].first)].first_vertex + embedded[v].second;
  return mesh;
}

}  // namespace ramus
