#include "ramus/precompute/mesh/mesh_checks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "ramus/error.h"

namespace ramus {

namespace {

int find_root(std::vector<int>& parent, int v) {
  while (parent[v] != v) {
    parent[v] = parent[parent[v]];
    v = parent[v];
  }
  return v;
}

std::string short_double(double x) {
  std::ostringstream s;
  s.precision(3);
  s << x;
  return s.str();
}

std::string list_sizes(const std::vector<int>& sizes) {
  constexpr std::size_t kMax = 6;
  std::string out;
  const std::size_t shown = std::min(sizes.size(), kMax);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) out += (i + 1 == shown && sizes.size() <= kMax) ? " and " : ", ";
    out += std::to_string(sizes[i]);
  }
  if (sizes.size() > kMax) out += ", ...";
  return out;
}

template <typename T>
std::string first_items(const std::vector<T>& items, std::size_t max = 8) {
  std::string out;
  for (std::size_t i = 0; i < std::min(items.size(), max); ++i)
    out += (i ? ", " : "") + std::to_string(items[i]);
  if (items.size() > max) out += ", ...";
  return out;
}

}  // namespace

bool MeshReport::ok(bool allow_disconnected) const {
  return num_tets > 0 && bad_indices.empty() && non_finite_vertices.empty() &&
         inverted_tets.empty() && degenerate_tets.empty() && unreferenced_vertices.empty() &&
         duplicate_tets.empty() && !labels_size_mismatch && !vertex_flags_size_mismatch &&
         (allow_disconnected || num_components() <= 1);
}

double tet_quality(double signed_volume, double longest_edge) {
  return longest_edge > 0 ? 6 * std::sqrt(2.0) * std::abs(signed_volume) / std::pow(longest_edge, 3)
                          : 0.0;
}

MeshReport check_tet_mesh(const TetMesh& mesh, double min_quality) {
  MeshReport r;
  const int nv = mesh.num_vertices();
  const int nt = mesh.num_tets();
  r.num_vertices = nv;
  r.num_tets = nt;
  r.labels_size_mismatch = mesh.labels.size() != 0 && mesh.labels.size() != nt;
  r.vertex_flags_size_mismatch = mesh.vertex_flags.size() != 0 && mesh.vertex_flags.size() != nv;

  std::vector<bool> finite(nv);
  Eigen::RowVector3d lo = Eigen::RowVector3d::Constant(std::numeric_limits<double>::infinity());
  Eigen::RowVector3d hi = -lo;
  for (int i = 0; i < nv; ++i) {
    finite[i] = mesh.rest_positions.row(i).allFinite();
    if (!finite[i]) {
      r.non_finite_vertices.push_back(i);
      continue;
    }
    lo = lo.cwiseMin(mesh.rest_positions.row(i));
    hi = hi.cwiseMax(mesh.rest_positions.row(i));
  }
  r.bbox_diagonal = (hi - lo).allFinite() ? (hi - lo).norm() : 0.0;
  r.quality_threshold = min_quality;

  std::vector<bool> valid(nt, true);
  std::vector<bool> referenced(nv, false);
  for (int t = 0; t < nt; ++t)
    for (int c = 0; c < 4; ++c) {
      const int v = mesh.tets(t, c);
      if (v < 0 || v >= nv) {
        r.bad_indices.push_back({t, c, v});
        valid[t] = false;
      } else {
        referenced[v] = true;
      }
    }

  r.volumes = Eigen::VectorXd::Constant(nt, std::numeric_limits<double>::quiet_NaN());
  r.min_volume = std::numeric_limits<double>::infinity();
  r.max_volume = -std::numeric_limits<double>::infinity();
  r.min_quality = std::numeric_limits<double>::infinity();
  for (int t = 0; t < nt; ++t) {
    if (!valid[t]) continue;
    bool coordinates_ok = true;
    for (int c = 0; c < 4; ++c) coordinates_ok = coordinates_ok && finite[mesh.tets(t, c)];
    if (!coordinates_ok) continue;
    const double v = signed_tet_volume(mesh.rest_positions, mesh.tets, t);
    r.volumes(t) = v;
    r.total_volume += v;
    r.min_volume = std::min(r.min_volume, v);
    r.max_volume = std::max(r.max_volume, v);
    // Degenerate by shape, not size: small well-shaped tets (a fine mesh's) are kept.
    double longest = 0;
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b)
        longest = std::max(longest, (mesh.rest_positions.row(mesh.tets(t, a)) -
                                     mesh.rest_positions.row(mesh.tets(t, b)))
                                        .norm());
    const double quality = tet_quality(v, longest);
    r.min_quality = std::min(r.min_quality, quality);
    if (!(quality > min_quality))
      r.degenerate_tets.push_back(t);
    else if (v < 0)
      r.inverted_tets.push_back(t);
  }
  if (!(r.min_volume <= r.max_volume)) r.min_volume = r.max_volume = 0;
  if (!(r.min_quality <= 1)) r.min_quality = 0;

  for (int i = 0; i < nv; ++i)
    if (!referenced[i]) r.unreferenced_vertices.push_back(i);

  // Duplicates: sort tets by their sorted vertex quadruple.
  std::vector<std::pair<std::array<int, 4>, int>> keys;
  keys.reserve(nt);
  for (int t = 0; t < nt; ++t) {
    if (!valid[t]) continue;
    std::array<int, 4> k = {mesh.tets(t, 0), mesh.tets(t, 1), mesh.tets(t, 2), mesh.tets(t, 3)};
    std::sort(k.begin(), k.end());
    keys.emplace_back(k, t);
  }
  std::sort(keys.begin(), keys.end());
  for (std::size_t i = 1; i < keys.size(); ++i) {
    std::size_t first = i - 1;
    while (first > 0 && keys[first - 1].first == keys[i].first) --first;
    if (keys[i].first == keys[i - 1].first)
      r.duplicate_tets.emplace_back(keys[first].second, keys[i].second);
  }
  std::sort(r.duplicate_tets.begin(), r.duplicate_tets.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });

  // Components: union-find over vertices, joined by tets.
  std::vector<int> parent(nv);
  std::iota(parent.begin(), parent.end(), 0);
  for (int t = 0; t < nt; ++t) {
    if (!valid[t]) continue;
    const int a = find_root(parent, mesh.tets(t, 0));
    for (int c = 1; c < 4; ++c) {
      const int b = find_root(parent, mesh.tets(t, c));
      if (b != a) parent[b] = a;
    }
  }
  std::vector<int> root_component(nv, -1);
  std::vector<int> sizes;
  std::vector<int> raw(nt, -1);
  for (int t = 0; t < nt; ++t) {
    if (!valid[t]) continue;
    const int root = find_root(parent, mesh.tets(t, 0));
    if (root_component[root] < 0) {
      root_component[root] = static_cast<int>(sizes.size());
      sizes.push_back(0);
    }
    raw[t] = root_component[root];
    ++sizes[raw[t]];
  }
  std::vector<int> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return sizes[a] > sizes[b]; });
  std::vector<int> rank(sizes.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    rank[order[i]] = static_cast<int>(i);
    r.component_sizes.push_back(sizes[order[i]]);
  }
  r.tet_component.resize(nt);
  for (int t = 0; t < nt; ++t) r.tet_component(t) = raw[t] < 0 ? -1 : rank[raw[t]];
  return r;
}

void validate_tet_mesh(const TetMesh& mesh, const std::string& source_name, bool allow_disconnected,
                       double min_volume_ratio) {
  const MeshReport r = check_tet_mesh(mesh, min_volume_ratio);
  const std::string prefix = source_name.empty() ? "" : source_name + ": ";
  const auto fail = [&](const std::string& message, long element, long vertex) {
    throw MeshError(prefix + message, element, vertex);
  };
  if (r.num_tets == 0) fail("mesh has no tets", -1, -1);
  if (!r.bad_indices.empty()) {
    const BadTetIndex& b = r.bad_indices.front();
    fail("tet " + std::to_string(b.tet) + " references vertex " + std::to_string(b.value) +
             " but the mesh has " + std::to_string(r.num_vertices) + " vertices",
         b.tet, b.value);
  }
  if (!r.non_finite_vertices.empty()) {
    const int v = r.non_finite_vertices.front();
    fail("vertex " + std::to_string(v) + " has a non-finite coordinate", -1, v);
  }
  if (r.labels_size_mismatch)
    fail("labels has " + std::to_string(mesh.labels.size()) + " entries but the mesh has " +
             std::to_string(r.num_tets) + " tets",
         -1, -1);
  if (r.vertex_flags_size_mismatch)
    fail("vertex_flags has " + std::to_string(mesh.vertex_flags.size()) +
             " entries but the mesh has " + std::to_string(r.num_vertices) + " vertices",
         -1, -1);
  const int inverted = r.inverted_tets.empty() ? r.num_tets : r.inverted_tets.front();
  const int degenerate = r.degenerate_tets.empty() ? r.num_tets : r.degenerate_tets.front();
  if (inverted < degenerate)
    fail("tet " + std::to_string(inverted) + " is inverted (signed volume " +
             short_double(r.volumes(inverted)) + " m^3)",
         inverted, -1);
  if (degenerate < r.num_tets)
    fail("tet " + std::to_string(degenerate) + " is degenerate (signed volume " +
             short_double(r.volumes(degenerate)) + " m^3; shape quality 6√2 |V| / longest edge³ " +
             "at most " + short_double(r.quality_threshold) +
             ", 1 for a regular tet): remesh it, or lower the quality threshold",
         degenerate, -1);
  if (!r.duplicate_tets.empty()) {
    const auto [first, later] = r.duplicate_tets.front();
    fail("tets " + std::to_string(first) + " and " + std::to_string(later) +
             " have the same vertices",
         later, -1);
  }
  if (!r.unreferenced_vertices.empty()) {
    const int v = r.unreferenced_vertices.front();
    fail("vertex " + std::to_string(v) + " is not used by any tet", -1, v);
  }
  if (!allow_disconnected && r.num_components() > 1)
    fail("mesh has " + std::to_string(r.num_components()) + " disconnected components (sizes " +
             list_sizes(r.component_sizes) + " tets); split it or fix the connectivity",
         -1, -1);
}

std::string summarize(const MeshReport& r) {
  std::ostringstream s;
  s << r.num_vertices << " vertices, " << r.num_tets << " tets, " << r.num_components()
    << (r.num_components() == 1 ? " component" : " components");
  if (r.num_components() > 1) s << " (sizes " << list_sizes(r.component_sizes) << " tets)";
  s << "\nvolume " << short_double(r.total_volume) << " m^3 (tets from "
    << short_double(r.min_volume) << " to " << short_double(r.max_volume)
    << " m^3), bounding box diagonal " << short_double(r.bbox_diagonal) << " m\nshape quality from "
    << short_double(r.min_quality) << " (6√2 |V| / longest edge³: 1 for a regular tet)\n";
  const auto line = [&](const char* what, std::size_t count, const std::string& first) {
    if (count > 0) s << count << ' ' << what << ": " << first << '\n';
  };
  std::vector<int> bad_tets;
  for (const BadTetIndex& b : r.bad_indices) bad_tets.push_back(b.tet);
  std::vector<int> later;
  for (const auto& d : r.duplicate_tets) later.push_back(d.second);
  line("out-of-range tet entries (tets)", r.bad_indices.size(), first_items(bad_tets));
  line("non-finite vertices", r.non_finite_vertices.size(), first_items(r.non_finite_vertices));
  line("inverted tets", r.inverted_tets.size(), first_items(r.inverted_tets));
  line("degenerate tets", r.degenerate_tets.size(), first_items(r.degenerate_tets));
  line("duplicate tets", r.duplicate_tets.size(), first_items(later));
  line("unreferenced vertices", r.unreferenced_vertices.size(),
       first_items(r.unreferenced_vertices));
  if (r.labels_size_mismatch) s << "labels size does not match the tet count\n";
  if (r.vertex_flags_size_mismatch) s << "vertex_flags size does not match the vertex count\n";
  if (r.ok(true)) s << "no problems found\n";
  return s.str();
}

}  // namespace ramus
