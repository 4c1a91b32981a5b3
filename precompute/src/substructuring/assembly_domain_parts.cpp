// expand_domain_parts (assembly_builder.h): a part cut into domains becomes one part per domain,
// and each of its placements one instance per domain, so the assembly builder reduces every
// domain once however often it is placed, whole or on its own.
#include <algorithm>
#include <map>
#include <queue>

#include "ramus/error.h"
#include "ramus/precompute/substructuring/assembly_builder.h"
#include "ramus/precompute/substructuring/surface_embedding.h"

namespace ramus {

namespace {

std::size_t sz(int i) {
  return static_cast<std::size_t>(i);
}

std::string names_of(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return list;
}

// Where a part with domains went: its tree's domains in breadth-first order and their parts.
struct Pieces {
  std::vector<int> order;       // tree domain of each piece, root first
  std::vector<int> part;        // expanded part of tree domain i
  std::vector<int> tree_index;  // position of tree domain i in `order`
};

// Breadth-first order of a tree's domains from its root, children ascending.
std::vector<int> breadth_first(const DomainTree& tree) {
  std::vector<int> order;
  std::queue<int> queue;
  queue.push(tree.root);
  while (!queue.empty()) {
    const int i = queue.front();
    queue.pop();
    order.push_back(i);
    std::vector<int> children = tree.children[sz(i)];
    std::sort(children.begin(), children.end());
    for (const int c : children) queue.push(c);
  }
  return order;
}

// The part of one domain of `whole`: its mesh, materials and reduction; its base the whole
// part's base (the root) or its interface with its parent domain, weighted by interface area.
AssemblyPart domain_part(const AssemblyPart& whole, int domain,
                         const std::vector<std::map<int, double>>& areas) {
  const DomainTree& tree = *whole.domains;
  AssemblyPart piece;
  piece.name = whole.name + "/" + tree.names[sz(domain)];
  piece.mesh = extract_domain_mesh(whole.mesh, tree, domain, &piece.source_vertices);
  piece.source_num_vertices = whole.mesh.num_vertices();
  for (const int t : tree.domain_tets[sz(domain)])
    piece.materials.push_back(whole.materials[sz(t)]);
  piece.reduction = whole.domain_reductions[sz(domain)];
  const std::vector<int>& vertices = tree.domain_vertices[sz(domain)];
  const bool root = tree.parent[sz(domain)] < 0;
  for (const int v : root ? whole.base : tree.interface_vertices[sz(domain)]) {
    const auto it = std::lower_bound(vertices.begin(), vertices.end(), v);
    if (it == vertices.end() || *it != v)
      throw OptionError("part '" + whole.name + "': base vertex " + std::to_string(v) +
                        " is not in its root domain '" + tree.names[sz(domain)] + "'");
    piece.base.push_back(static_cast<int>(it - vertices.begin()));
    if (!root) {
      const auto area = areas[sz(domain)].find(v);
      piece.base_weights.push_back(area != areas[sz(domain)].end() ? area->second : 0.0);
    }
  }
  return piece;
}

// Tree domain of `parent` (a part with domains, placed by `parent_instance`) whose tets hold
// most of the child's base (placed by `child`, its part `child_part`).
int domain_holding_base(const AssemblyPart& parent, const AssemblyInstance& parent_instance,
                        const AssemblyPart& child_part, const AssemblyInstance& child) {
  // The base in the parent mesh's coordinates: X_p = R_pᵀ (R s X + t - t_p) / s_p.
  Eigen::MatrixX3d points(static_cast<Eigen::Index>(child_part.base.size()), 3);
  for (std::size_t b = 0; b < child_part.base.size(); ++b) {
    const Eigen::Vector3d x =
        child.rotation *
            (child.scale * child_part.mesh.rest_positions.row(child_part.base[b]).transpose()) +
        child.translation;
    points.row(static_cast<Eigen::Index>(b)) =
        (parent_instance.rotation.transpose() * (x - parent_instance.translation) /
         parent_instance.scale)
            .transpose();
  }
  ReducedPart mesh_only;
  mesh_only.rest_positions = parent.mesh.rest_positions;
  mesh_only.tets = parent.mesh.tets;
  SurfaceEmbeddingOptions options;
  options.max_distance = 1e300;  // (the attachment tolerance is checked on the chosen domain)
  const EmbeddedSurface embedded = embed_surface(single_domain_model(std::move(mesh_only)), points,
                                                 Eigen::MatrixX3i(0, 3), options);
  std::map<int, int> votes;
  for (Eigen::Index b = 0; b < embedded.tet.size(); ++b)
    ++votes[parent.domains->tet_domain(embedded.tet(b))];
  int best = -1;
  for (const auto& [domain, count] : votes)
    if (best < 0 || count > votes[best]) best = domain;
  return best;
}

}  // namespace

// An assembly being expanded: its expanded parts and instances, and where each original part
// and instance went.
struct Expansion {
  Assembly out;
  std::vector<Pieces> pieces;            ///< per part with domains: its domains' parts
  std::vector<int> single;               ///< expanded part of a part placed as one domain
  std::vector<std::vector<int>> placed;  ///< per instance: its expanded instances, by domain
};

// The parts: one per domain of a part with domains, the others as they are; a part that is one
// domain of another is that domain's part.
void expand_parts(const std::vector<AssemblyPart>& parts, Expansion& e) {
  Assembly& out = e.out;
  std::vector<Pieces>& pieces = e.pieces;
  std::vector<int>& single = e.single;
  pieces.resize(parts.size());
  single.assign(parts.size(), -1);
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const AssemblyPart& part = parts[k];
    if (part.source_part >= 0) continue;
    if (!part.domains) {
      single[k] = static_cast<int>(out.parts.size());
      out.parts.push_back(part);
      continue;
    }
    const DomainTree& tree = *part.domains;
    if (tree.tet_domain.size() != part.mesh.num_tets() || tree.num_domains < 1 ||
        part.domain_reductions.size() != sz(tree.num_domains) ||
        part.materials.size() != sz(part.mesh.num_tets()))
      throw OptionError("part '" + part.name + "': its domain tree (" +
                        std::to_string(tree.num_domains) + " domains over " +
                        std::to_string(tree.tet_domain.size()) + " tets, " +
                        std::to_string(part.domain_reductions.size()) +
                        " reductions) does not match its mesh of " +
                        std::to_string(part.mesh.num_tets()) + " tets");
    const std::vector<std::map<int, double>> areas = interface_vertex_areas(part.mesh, tree);
    Pieces& p = pieces[k];
    p.order = breadth_first(tree);
    p.part.assign(sz(tree.num_domains), -1);
    p.tree_index.assign(sz(tree.num_domains), -1);
    for (std::size_t i = 0; i < p.order.size(); ++i) {
      p.part[sz(p.order[i])] = static_cast<int>(out.parts.size());
      p.tree_index[sz(p.order[i])] = static_cast<int>(i);
      out.parts.push_back(domain_part(part, p.order[i], areas));
    }
  }
  // A part that is one domain of another: that domain's part.
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const AssemblyPart& part = parts[k];
    if (part.source_part < 0) continue;
    const std::string who = "part '" + part.name + "': ";
    if (sz(part.source_part) >= parts.size() || !parts[sz(part.source_part)].domains)
      throw OptionError(who + "its source part is not a part cut into domains");
    const AssemblyPart& source = parts[sz(part.source_part)];
    const std::vector<std::string>& names = source.domains->names;
    const auto it = std::find(names.begin(), names.end(), part.source_domain);
    if (it == names.end())
      throw OptionError(who + "part '" + source.name + "' has no domain named '" +
                        part.source_domain + "' (its domains: " + names_of(names) + ")");
    single[k] = pieces[sz(part.source_part)].part[sz(it - names.begin())];
  }
}

// Instance k's parent among the expanded instances (-1: none): the placement of its parent, or
// the domain of it that its `parent_domain` names or that holds its base.
int expanded_parent(const Assembly& assembly, std::size_t k, const Expansion& e) {
  const std::vector<AssemblyPart>& parts = assembly.parts;
  const AssemblyInstance& a = assembly.instances[k];
  const std::string who = "instance '" + a.name + "': ";
  const Assembly& out = e.out;
  const std::vector<Pieces>& pieces = e.pieces;
  const std::vector<int>& single = e.single;
  const std::vector<std::vector<int>>& placed = e.placed;
  int parent = -1;
  if (a.parent >= 0) {
    const AssemblyInstance& p = assembly.instances[sz(a.parent)];
    const AssemblyPart& parent_part = parts[sz(p.part)];
    if (!parent_part.domains || parent_part.source_part >= 0) {
      if (!a.parent_domain.empty())
        throw OptionError(who + "its parent '" + p.name + "' has no domain '" + a.parent_domain +
                          "' (it is one domain)");
      parent = placed[sz(a.parent)][0];
    } else {
      const std::vector<std::string>& names = parent_part.domains->names;
      int domain = -1;
      if (!a.parent_domain.empty()) {
        const auto it = std::find(names.begin(), names.end(), a.parent_domain);
        if (it == names.end())
          throw OptionError(who + "its parent '" + p.name + "' has no domain '" + a.parent_domain +
                            "' (its domains: " + names_of(names) + ")");
        domain = static_cast<int>(it - names.begin());
      } else {
        const AssemblyPart& own =
            parts[sz(a.part)].domains
                ? out.parts[sz(pieces[sz(a.part)].part[sz(parts[sz(a.part)].domains->root)])]
                : out.parts[sz(single[sz(a.part)])];
        if (own.base.empty())
          throw OptionError(who + "its part has no base to attach to '" + p.name + "'");
        domain = domain_holding_base(parent_part, p, own, a);
      }
      parent = placed[sz(a.parent)][sz(pieces[sz(p.part)].tree_index[sz(domain)])];
    }
  }
  return parent;
}

// Instance k's render surface in the world, held by the instance's domains (the expanded
// instances to come).
void place_render_surface(const Assembly& assembly, std::size_t k, Expansion& e) {
  const std::vector<AssemblyPart>& parts = assembly.parts;
  const AssemblyInstance& a = assembly.instances[k];
  Assembly& out = e.out;
  const AssemblyPart& own = parts[sz(a.part)].source_part >= 0
                                ? parts[sz(parts[sz(a.part)].source_part)]
                                : parts[sz(a.part)];
  if (parts[sz(a.part)].source_part < 0 && own.render_surface.num_vertices() > 0) {
    PlacedSurface surface;
    const auto first = static_cast<int>(out.instances.size());
    const int count = own.domains ? own.domains->num_domains : 1;
    for (int i = 0; i < count; ++i) surface.instances.push_back(first + i);
    surface.vertices =
        ((a.scale * own.render_surface.vertices) * a.rotation.transpose()).rowwise() +
        a.translation.transpose();
    surface.triangles = own.render_surface.triangles;
    out.surfaces.push_back(std::move(surface));
  }
}

Assembly expand_domain_parts(const Assembly& assembly) {
  const std::vector<AssemblyPart>& parts = assembly.parts;
  Expansion e;
  Assembly& out = e.out;
  const std::vector<Pieces>& pieces = e.pieces;
  const std::vector<int>& single = e.single;
  expand_parts(parts, e);

  // Instances: one per domain of a placement of a part with domains.
  std::vector<std::vector<int>>& placed = e.placed;
  placed.resize(assembly.instances.size());
  for (std::size_t k = 0; k < assembly.instances.size(); ++k) {
    const AssemblyInstance& a = assembly.instances[k];
    const std::string who = "instance '" + a.name + "': ";
    if (a.part < 0 || sz(a.part) >= parts.size()) throw OptionError(who + "unknown part");
    if (a.parent < -1 || a.parent >= static_cast<int>(k))
      throw OptionError(who + "its parent must be an earlier instance");
    const int parent = expanded_parent(assembly, k, e);
    place_render_surface(assembly, k, e);
    AssemblyInstance expanded = a;
    expanded.parent_domain.clear();
    expanded.parent = parent;
    if (!parts[sz(a.part)].domains || parts[sz(a.part)].source_part >= 0) {
      expanded.part = single[sz(a.part)];
      placed[k] = {static_cast<int>(out.instances.size())};
      out.instances.push_back(expanded);
      continue;
    }
    const Pieces& p = pieces[sz(a.part)];
    const DomainTree& tree = *parts[sz(a.part)].domains;
    expanded.vertex_group = static_cast<int>(k);
    for (const int domain : p.order) {
      AssemblyInstance piece = expanded;
      piece.name = a.name + "/" + tree.names[sz(domain)];
      piece.part = p.part[sz(domain)];
      if (tree.parent[sz(domain)] >= 0)
        piece.parent = placed[k][sz(p.tree_index[sz(tree.parent[sz(domain)])])];
      placed[k].push_back(static_cast<int>(out.instances.size()));
      out.instances.push_back(piece);
    }
  }
  // Names stay unique ("a/b" written by hand and a domain b of instance a would clash).
  std::map<std::string, int> seen;
  for (std::size_t k = 0; k < out.instances.size(); ++k) {
    const auto [it, added] = seen.emplace(out.instances[k].name, static_cast<int>(k));
    if (!added)
      throw OptionError("instance '" + out.instances[k].name +
                        "': the name is taken by another instance or a domain of one");
  }
  return out;
}

}  // namespace ramus
