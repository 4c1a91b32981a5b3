// write_gmsh: a TetMesh as a Gmsh MSH 2.2 or 4.1 ASCII file, its labels as physical groups.
#include "ramus/precompute/formats/gmsh_io.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "text_io.h"
#include "volume_elements.h"

namespace ramus {

void write_gmsh(const TetMesh& mesh, const std::string& path, int version) {
  if (version != 22 && version != 41)
    throw Error("write_gmsh: unsupported version " + std::to_string(version) + " (use 22 or 41)");
  const int nv = mesh.num_vertices();
  const int nt = mesh.num_tets();
  const bool has_labels = mesh.has_labels();
  for (int t = 0; has_labels && t < nt; ++t)
    if (mesh.labels(t) < 0)
      throw Error("write_gmsh: tet " + std::to_string(t) + " has negative label " +
                  std::to_string(mesh.labels(t)) + "; Gmsh physical tags must be positive");
  for (int t = 0; t < nt; ++t)
    for (int c = 0; c < 4; ++c)
      if (mesh.tets(t, c) < 0 || mesh.tets(t, c) >= nv)
        throw Error("write_gmsh: tet " + std::to_string(t) + " references vertex " +
                    std::to_string(mesh.tets(t, c)) + " but the mesh has " + std::to_string(nv) +
                    " vertices");
  auto label_of = [&](int t) { return has_labels ? mesh.labels(t) : 0; };
  // One volume entity per distinct label, tagged 1..k in increasing label order.
  std::vector<int> distinct;
  for (int t = 0; t < nt; ++t) distinct.push_back(label_of(t));
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  auto entity_of = [&](int label) {
    return static_cast<int>(std::lower_bound(distinct.begin(), distinct.end(), label) -
                            distinct.begin()) +
           1;
  };
  std::vector<std::pair<int, std::string>> names;
  for (const auto& [label, name] : mesh.label_names)
    if (label > 0 && std::binary_search(distinct.begin(), distinct.end(), label))
      names.emplace_back(label, name);

  write_stream_atomically(path, [&](std::ostream& out) {
    const auto fmt = [](double x) { return detail::format_double(x); };
    out << "$MeshFormat\n" << (version == 22 ? "2.2" : "4.1") << " 0 8\n$EndMeshFormat\n";
    if (!names.empty()) {
      out << "$PhysicalNames\n" << names.size() << "\n";
      for (const auto& [label, name] : names) out << "3 " << label << " \"" << name << "\"\n";
      out << "$EndPhysicalNames\n";
    }
    if (version == 22) {
      out << "$Nodes\n" << nv << "\n";
      for (int i = 0; i < nv; ++i)
        out << i + 1 << ' ' << fmt(mesh.rest_positions(i, 0)) << ' '
            << fmt(mesh.rest_positions(i, 1)) << ' ' << fmt(mesh.rest_positions(i, 2)) << '\n';
      out << "$EndNodes\n$Elements\n" << nt << "\n";
      for (int t = 0; t < nt; ++t) {
        out << t + 1 << " 4 2 " << label_of(t) << ' ' << entity_of(label_of(t));
        for (int c = 0; c < 4; ++c) out << ' ' << mesh.tets(t, c) + 1;
        out << '\n';
      }
      out << "$EndElements\n";
      return;
    }
    // MSH 4.1: $Entities (volumes only, with their bounding boxes), one node block, one element
    // block per volume entity. Element tags are the tet indices + 1, so order survives a reread.
    const int k = static_cast<int>(distinct.size());
    Eigen::MatrixXd lo = Eigen::MatrixXd::Constant(k, 3, std::numeric_limits<double>::infinity());
    Eigen::MatrixXd hi = -lo;
    std::vector<std::vector<int>> members(k);
    for (int t = 0; t < nt; ++t) {
      const int e = entity_of(label_of(t)) - 1;
      members[e].push_back(t);
      for (int c = 0; c < 4; ++c) {
        lo.row(e) = lo.row(e).cwiseMin(mesh.rest_positions.row(mesh.tets(t, c)));
        hi.row(e) = hi.row(e).cwiseMax(mesh.rest_positions.row(mesh.tets(t, c)));
      }
    }
    out << "$Entities\n0 0 0 " << k << "\n";
    for (int e = 0; e < k; ++e) {
      out << e + 1;
      for (int c = 0; c < 3; ++c) out << ' ' << fmt(lo(e, c));
      for (int c = 0; c < 3; ++c) out << ' ' << fmt(hi(e, c));
      if (distinct[e] != 0)
        out << " 1 " << distinct[e] << " 0\n";
      else
        out << " 0 0\n";
    }
    out << "$EndEntities\n";
    out << "$Nodes\n"
        << (nv > 0 ? 1 : 0) << ' ' << nv << ' ' << (nv > 0 ? 1 : 0) << ' ' << nv << "\n";
    if (nv > 0) {
      out << "3 1 0 " << nv << "\n";
      for (int i = 0; i < nv; ++i) out << i + 1 << '\n';
      for (int i = 0; i < nv; ++i)
        out << fmt(mesh.rest_positions(i, 0)) << ' ' << fmt(mesh.rest_positions(i, 1)) << ' '
            << fmt(mesh.rest_positions(i, 2)) << '\n';
    }
    out << "$EndNodes\n$Elements\n"
        << k << ' ' << nt << ' ' << (nt > 0 ? 1 : 0) << ' ' << nt << "\n";
    for (int e = 0; e < k; ++e) {
      out << "3 " << e + 1 << " 4 " << members[e].size() << "\n";
      for (int t : members[e]) {
        out << t + 1;
        for (int c = 0; c < 4; ++c) out << ' ' << mesh.tets(t, c) + 1;
        out << '\n';
      }
    }
    out << "$EndElements\n";
  });
}

}  // namespace ramus
