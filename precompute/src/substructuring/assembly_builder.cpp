#include "ramus/precompute/substructuring/assembly_builder.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <sstream>

#include "ramus/error.h"
#include "ramus/precompute/fem/dof_map.h"
#include "ramus/precompute/fem/mass_moments.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/mesh/boundary_surface.h"
#include "ramus/precompute/reduction/distributed_reduction.h"
#include "ramus/precompute/substructuring/interface_fit.h"
#include "ramus/precompute/substructuring/surface_embedding.h"
#include "ramus/precompute/substructuring/system_force_integrals.h"
#include "ramus/runtime/data/uniform_scale.h"

namespace ramus {

namespace {

std::size_t sz(int i) {
  return static_cast<std::size_t>(i);
}

using Clock = std::chrono::steady_clock;

// A third of the area of every boundary triangle whose corners are all base vertices, per base
// vertex (a base that spans no such triangle: weight 1 each, the plain centroid).
Eigen::VectorXd base_areas(const TetMesh& mesh, const std::vector<int>& base) {
  std::vector<int> slot(sz(mesh.num_vertices()), -1);
  for (std::size_t k = 0; k < base.size(); ++k) slot[sz(base[k])] = static_cast<int>(k);
  Eigen::VectorXd area = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(base.size()));
  const Eigen::MatrixX3i triangles = boundary_triangles(mesh.tets);
  for (Eigen::Index f = 0; f < triangles.rows(); ++f) {
    if (slot[sz(triangles(f, 0))] < 0 || slot[sz(triangles(f, 1))] < 0 ||
        slot[sz(triangles(f, 2))] < 0)
      continue;
    const Eigen::Vector3d a = mesh.rest_positions.row(triangles(f, 0)).transpose();
    const Eigen::Vector3d b = mesh.rest_positions.row(triangles(f, 1)).transpose();
    const Eigen::Vector3d c = mesh.rest_positions.row(triangles(f, 2)).transpose();
    const double third = (b - a).cross(c - a).norm() / 6.0;
    for (int corner = 0; corner < 3; ++corner) area(slot[sz(triangles(f, corner))]) += third;
  }
  if (!(area.sum() > 0)) area.setOnes();
  return area;
}

// Where a part's frame lies and what placing it needs (no reduction): recentred on the
// area-weighted centroid of its base (a free part: on its centre of mass).
struct PartFrame {
  Eigen::Vector3d center = Eigen::Vector3d::Zero();  // the part frame's origin in mesh coords
  Eigen::MatrixX3d rest_positions;                   // #V by 3, in the part frame
  Eigen::VectorXd base_areas;                        // per base vertex (m²)
  MassMoments moments;                               // about the part frame's origin
};

PartFrame frame_of(const AssemblyPart& spec) {
  PartFrame out;
  const MassMoments whole =
      tet_mass_moments(spec.mesh.rest_positions, spec.mesh.tets, spec.materials);
  if (!(whole.mass > 0)) throw OptionError("part '" + spec.name + "' has no mass");
  out.base_areas =
      spec.base_weights.empty()
          ? base_areas(spec.mesh, spec.base)
          : Eigen::Map<const Eigen::VectorXd>(spec.base_weights.data(),
                                              static_cast<Eigen::Index>(spec.base_weights.size()));
  if (out.base_areas.size() != static_cast<Eigen::Index>(spec.base.size()))
    throw OptionError("part '" + spec.name + "': " + std::to_string(spec.base_weights.size()) +
                      " base weights for " + std::to_string(spec.base.size()) + " base vertices");
  if (spec.base.empty()) {
    out.center = whole.first / whole.mass;
  } else {
    for (std::size_t k = 0; k < spec.base.size(); ++k)
      out.center += out.base_areas(static_cast<Eigen::Index>(k)) *
                    spec.mesh.rest_positions.row(spec.base[k]).transpose();
    out.center /= out.base_areas.sum();
  }
  out.rest_positions = spec.mesh.rest_positions.rowwise() - out.center.transpose();
  out.moments = tet_mass_moments(out.rest_positions, spec.mesh.tets, spec.materials);
  return out;
}

// The part reduced once in its frame: basis, polynomial, W1..W7.
ReducedPart reduce_part(const AssemblyPart& spec, const PartFrame& frame,
                        const StageReporter& report) {
  const StvkFemModel fem(spec.mesh, spec.materials);
  const DofMap dofs(fem.num_vertices(), spec.base);
  ReducedPart part = spec.reduction.r == 0 ? build_rigid_part(fem, dofs)
                                           : build_reduced_part(fem, dofs, spec.reduction, report);
  part.name = spec.name;
  part.rest_positions = frame.rest_positions;
  const auto start = Clock::now();
  part.system_force = compute_system_force_integrals(fem, part.basis, part.rest_positions);
  if (report)
    report("system force integrals", std::chrono::duration<double>(Clock::now() - start).count());
  return part;
}

// Where an instance sits: its frame and, for a child, its base embedded in the parent's tets.
struct Placement {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  Eigen::VectorXi tets;          // m: parent tet of each base vertex
  Eigen::MatrixX4d barycentric;  // m by 4
};

// Rethrows the current Ramus exception with `prefix` in front of its message.
[[noreturn]] void rethrow_with(const std::string& prefix) {
  try {
    throw;
  } catch (const MeshError& e) {
    throw MeshError(prefix + e.what(), e.element(), e.vertex());
  } catch (const OptionError& e) {
    throw OptionError(prefix + e.what());
  } catch (const NumericalError& e) {
    throw NumericalError(prefix + e.what());
  } catch (const InputError&) {
    throw;
  }
}

// Every part reduced once, `threads` at a time and spread over `processes`; the first failure
// (in part order) is rethrown, naming its part.
std::vector<ReducedPart> reduce_parts(const std::vector<AssemblyPart>& parts,
                                      const std::vector<PartFrame>& frames, int threads,
                                      ProcessGroup* processes, const StageReporter& report) {
  std::mutex report_mutex;
  std::vector<double> work;
  for (const AssemblyPart& part : parts) work.push_back(part.mesh.num_tets());
  return reduce_distributed(work, threads, processes, [&](std::size_t k) {
    const StageReporter inner = [&](const std::string& stage, double seconds) {
      if (!report) return;
      const std::lock_guard<std::mutex> lock(report_mutex);
      report(parts[k].name + ": " + stage, seconds);
    };
    try {
      return reduce_part(parts[k], frames[k], inner);
    } catch (const Error&) {
      rethrow_with("part '" + parts[k].name + "': ");
    }
  });
}

std::string point_text(const Eigen::Vector3d& p) {
  std::ostringstream s;
  s.precision(6);
  s << '(' << p(0) << ", " << p(1) << ", " << p(2) << ')';
  return s.str();
}

// A placed render surface embedded in the tets of its instances' domains (their meshes and
// frames alone; `domain` numbers them as s.instances does).
EmbeddedSurface embed_placed_surface(const ReducedModel& model, const PlacedSurface& s) {
  ReducedModel probe;
  for (const int k : s.instances) {
    const ReducedPart& part = part_of(model, k);
    ReducedPart mesh_only;
    mesh_only.rest_positions = part.rest_positions;
    mesh_only.tets = part.tets;
    probe.parts.push_back(std::move(mesh_only));
    ReducedDomain d;
    d.part = static_cast<int>(probe.parts.size()) - 1;
    d.scale = model.domains[sz(k)].scale;
    d.frame_rotation = model.domains[sz(k)].frame_rotation;
    d.frame_origin = model.domains[sz(k)].frame_origin;
    probe.domains.push_back(std::move(d));
  }
  try {
    return embed_surface(probe, s.vertices, s.triangles);
  } catch (const Error&) {
    rethrow_with("instance '" + model.domains[sz(s.instances[0])].name + "': its render surface: ");
  }
}

// The render surfaces: one placed with a single domain belongs to that domain's part, embedded
// once in the part's tets in its frame at unit scale (every placement of a part places the same
// surface); one spread over several domains (a part with domains) goes to the model's embedded
// surface, one after the other (vertex and triangle indices offset).
void place_render_surfaces(ReducedModel& model, const std::vector<PlacedSurface>& surfaces) {
  EmbeddedSurface& all = model.embedded_surface;
  all = {};
  for (const PlacedSurface& s : surfaces) {
    const bool own_part = s.instances.size() == 1;
    if (own_part && part_of(model, s.instances[0]).render_surface.size() > 0) continue;
    const EmbeddedSurface one = embed_placed_surface(model, s);
    const Eigen::Index n = s.vertices.rows();
    if (own_part) {
      // World rest positions back to the part's frame: X = Rᵀ (x - o) / s.
      const ReducedDomain& d = model.domains[sz(s.instances[0])];
      PartRenderSurface& own = model.parts[sz(d.part)].render_surface;
      own.rest_positions =
          ((one.rest_positions.rowwise() - d.frame_origin.transpose()) * d.frame_rotation) /
          d.scale;
      own.triangles = s.triangles;
      own.tet = one.tet;
      own.barycentric = one.barycentric;
      continue;
    }
    const Eigen::Index v0 = all.rest_positions.rows(), f0 = all.triangles.rows();
    all.rest_positions.conservativeResize(v0 + n, 3);
    all.triangles.conservativeResize(f0 + s.triangles.rows(), 3);
    all.domain.conservativeResize(v0 + n);
    all.tet.conservativeResize(v0 + n);
    all.barycentric.conservativeResize(v0 + n, 4);
    all.rest_positions.middleRows(v0, n) = one.rest_positions;
    all.tet.segment(v0, n) = one.tet;
    all.barycentric.middleRows(v0, n) = one.barycentric;
    for (Eigen::Index v = 0; v < n; ++v) all.domain(v0 + v) = s.instances[sz(one.domain(v))];
    all.triangles.middleRows(f0, s.triangles.rows()) = s.triangles.array() + static_cast<int>(v0);
  }
}

// build_assembly_model for parts that are all placed.
ReducedModel build_placed_assembly(const std::vector<AssemblyPart>& parts,
                                   const std::vector<AssemblyInstance>& instances,
                                   const std::vector<PlacedSurface>& surfaces,
                                   double attachment_tolerance, int threads,
                                   const StageReporter& report, ProcessGroup* processes) {
  if (parts.empty() || instances.empty())
    throw OptionError("an assembly needs at least one part and one instance");
  if (!(attachment_tolerance >= 0) || !std::isfinite(attachment_tolerance))
    throw OptionError("the attachment tolerance must be finite and >= 0");
  for (std::size_t k = 0; k < instances.size(); ++k) {
    const AssemblyInstance& a = instances[k];
    const std::string who = "instance '" + a.name + "': ";
    if (a.part < 0 || sz(a.part) >= parts.size()) throw OptionError(who + "unknown part");
    if (k == 0 ? a.parent != -1 : (a.parent < 0 || sz(a.parent) >= k))
      throw OptionError(who + (k == 0 ? "the first instance is the root: it has no parent"
                                      : "its parent must be an earlier instance"));
    if (!(a.scale >= kMinPartScale && a.scale <= kMaxPartScale))
      throw OptionError(who + "scale must lie in [1e-3, 1e3]");
    if (k > 0 && parts[sz(a.part)].base.size() < 3)
      throw OptionError("instance '" + a.name + "' (part '" + parts[sz(a.part)].name + "') on '" +
                        instances[sz(a.parent)].name + "': its part's base has " +
                        std::to_string(parts[sz(a.part)].base.size()) +
                        " vertices; attaching it needs at least 3");
  }
  // Placements first (meshes only): a base that misses its parent fails before any reduction.
  const auto placement_start = Clock::now();
  std::vector<PartFrame> frames;
  for (const AssemblyPart& part : parts) frames.push_back(frame_of(part));
  std::vector<Placement> placements(instances.size());
  for (std::size_t k = 0; k < instances.size(); ++k) {
    const AssemblyInstance& a = instances[k];
    const PartFrame& frame = frames[sz(a.part)];
    Placement& placed = placements[k];
    // x = R (s X_mesh) + t = R s X_part + (R s c + t).
    placed.rotation = a.rotation;
    placed.origin = a.rotation * (a.scale * frame.center) + a.translation;
    if (a.parent < 0) continue;
    const AssemblyInstance& p = instances[sz(a.parent)];
    const Placement& parent = placements[sz(a.parent)];
    const std::vector<int>& base = parts[sz(a.part)].base;
    const std::string who =
        "instance '" + a.name + "' (part '" + parts[sz(a.part)].name + "') on '" + p.name + "': ";
    try {
      // The base in the world, embedded in the parent's tets (its mesh only).
      Eigen::MatrixX3d points(static_cast<Eigen::Index>(base.size()), 3);
      for (std::size_t b = 0; b < base.size(); ++b)
        points.row(static_cast<Eigen::Index>(b)) =
            (a.rotation * (a.scale * frame.rest_positions.row(base[b]).transpose()) + placed.origin)
                .transpose();
      ReducedPart mesh_only;
      mesh_only.rest_positions = frames[sz(p.part)].rest_positions;
      mesh_only.tets = parts[sz(p.part)].mesh.tets;
      ReducedModel probe = single_domain_model(std::move(mesh_only));
      probe.domains[0].scale = p.scale;
      probe.domains[0].frame_rotation = parent.rotation;
      probe.domains[0].frame_origin = parent.origin;
      SurfaceEmbeddingOptions options;
      options.max_distance = 1e300;  // (the tolerance is absolute: checked below)
      SurfaceEmbeddingStats stats;
      const EmbeddedSurface embedded =
          embed_surface(probe, points, Eigen::MatrixX3i(0, 3), options, &stats);
      if (stats.max_distance > attachment_tolerance) {
        const int b = stats.max_distance_vertex;
        std::ostringstream message;
        message.precision(6);
        message << "base vertex " << base[sz(b)] << " at " << point_text(points.row(b).transpose())
                << " is " << stats.max_distance << " m from '" << p.name
                << "', more than the attachment tolerance " << attachment_tolerance
                << " m: the part does not touch its parent";
        throw MeshError(message.str(), -1, base[sz(b)]);
      }
      placed.tets = embedded.tet;
      placed.barycentric = embedded.barycentric;
      // The frame: the placement's axes at the embedded base's centroid (snapped onto the parent).
      const Eigen::VectorXd& w = frames[sz(a.part)].base_areas;
      Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
      for (Eigen::Index b = 0; b < w.size(); ++b) {
        Eigen::Vector3d x = Eigen::Vector3d::Zero();
        for (int c = 0; c < 4; ++c)
          x += placed.barycentric(b, c) *
               (p.scale * frames[sz(p.part)].rest_positions.row(
                              parts[sz(p.part)].mesh.tets(placed.tets(b), c)))
                   .transpose();
        centroid += w(b) * x;
      }
      placed.origin = parent.origin + parent.rotation * (centroid / w.sum());
    } catch (const Error&) {
      rethrow_with(who);
    }
  }
  const double placement_seconds =
      std::chrono::duration<double>(Clock::now() - placement_start).count();

  // Every part reduced once.
  ReducedModel model;
  model.parts = reduce_parts(parts, frames, threads, processes, report);

  // Domains: frames, interfaces (Eq. 1-4 from the parent's scaled basis at the embedded
  // points), own moments.
  const auto interface_start = Clock::now();
  model.domains.resize(instances.size());
  std::vector<MassMoments> subtree(instances.size());
  int next_global = 0;
  std::map<int, int> group_offset;  // first global vertex of each vertex group
  for (std::size_t k = 0; k < instances.size(); ++k) {
    const AssemblyInstance& a = instances[k];
    const ReducedPart& part = model.parts[sz(a.part)];
    ReducedDomain& d = model.domains[k];
    d.name = a.name;
    d.part = a.part;
    d.scale = a.scale;
    d.parent = a.parent;
    // Its global vertices: its own, or a vertex group's numbering of the mesh it was cut from.
    const Eigen::Index V = part.rest_positions.rows();
    const AssemblyPart& spec = parts[sz(a.part)];
    if (a.vertex_group < 0 || spec.source_vertices.size() != sz(static_cast<int>(V))) {
      d.global_vertices =
          Eigen::VectorXi::LinSpaced(V, next_global, next_global + static_cast<int>(V) - 1);
      next_global += static_cast<int>(V);
    } else {
      const auto [group, added] = group_offset.emplace(a.vertex_group, next_global);
      if (added) next_global += spec.source_num_vertices;
      d.global_vertices.resize(V);
      for (Eigen::Index v = 0; v < V; ++v)
        d.global_vertices(v) = group->second + spec.source_vertices[sz(static_cast<int>(v))];
    }
    if (a.parent < 0) {
      d.frame_rotation = placements[k].rotation;
      d.frame_origin = placements[k].origin;
    } else {
      const ReducedDomain& p = model.domains[sz(a.parent)];
      const ReducedPart& parent_part = part_of(model, a.parent);
      const std::vector<int>& base = parts[sz(a.part)].base;
      try {
        const UniformScale parent_scale(p.scale);
        const Eigen::VectorXi child_vertices =
            Eigen::Map<const Eigen::VectorXi>(base.data(), static_cast<Eigen::Index>(base.size()));
        d.interface = compute_embedded_interface(
            p.scale * parent_part.rest_positions, parent_scale.basis * parent_part.basis,
            parent_part.tets, placements[k].tets, placements[k].barycentric, child_vertices,
            (a.scale * a.scale) * frames[sz(a.part)].base_areas,
            p.frame_rotation.transpose() * a.rotation);
      } catch (const Error&) {
        rethrow_with("instance '" + a.name + "' (part '" + part.name + "') on '" + p.name + "': ");
      }
      // The child's frame is the interface's.
      d.frame_rotation = p.frame_rotation * d.interface.rest_rotation;
      d.frame_origin = p.frame_origin + p.frame_rotation * d.interface.centroid;
    }
    // Own moments in the domain's frame: mass s³, ∫ρX s⁴, ∫ρXXᵀ s⁵.
    const UniformScale s(a.scale);
    const MassMoments& own = frames[sz(a.part)].moments;
    subtree[k].mass = s.mass * own.mass;
    subtree[k].first = s.first_moment * own.first;
    subtree[k].second = s.second_moment * own.second;
  }
  // Subtrees, leaves to root: a child's moments in its parent's frame (X_p = x̂ + R̂ X).
  for (std::size_t k = instances.size(); k-- > 1;) {
    const ReducedDomain& d = model.domains[k];
    const MassMoments& m = subtree[k];
    const Eigen::Matrix3d& R = d.interface.rest_rotation;
    const Eigen::Vector3d& c = d.interface.centroid;
    const Eigen::Vector3d rotated = R * m.first;
    MassMoments& p = subtree[sz(d.parent)];
    p.mass += m.mass;
    p.first += m.mass * c + rotated;
    p.second += R * m.second * R.transpose() + c * rotated.transpose() + rotated * c.transpose() +
                m.mass * c * c.transpose();
  }
  for (std::size_t k = 0; k < instances.size(); ++k) {
    ReducedDomain& d = model.domains[k];
    const MassMoments& m = subtree[k];
    const Eigen::Vector3d center = m.first / m.mass;
    const Eigen::Matrix3d central = m.second - m.mass * center * center.transpose();
    d.subtree_mass = m.mass;
    d.subtree_center_of_mass = center;
    d.subtree_inertia = central.trace() * Eigen::Matrix3d::Identity() - central;
  }
  // The undivided mesh: every instance's surface, less the triangles two domains of one vertex
  // group share (the faces where it was cut).
  model.num_global_vertices = next_global;
  std::vector<std::array<int, 3>> surface;
  for (std::size_t k = 0; k < instances.size(); ++k) {
    const Eigen::MatrixX3i& local = part_of(model, static_cast<int>(k)).surface_triangles;
    for (Eigen::Index f = 0; f < local.rows(); ++f)
      surface.push_back({model.domains[k].global_vertices(local(f, 0)),
                         model.domains[k].global_vertices(local(f, 1)),
                         model.domains[k].global_vertices(local(f, 2))});
  }
  std::map<std::array<int, 3>, int> uses;
  for (std::array<int, 3> f : surface) {
    std::sort(f.begin(), f.end());
    ++uses[f];
  }
  model.global_surface_triangles.resize(static_cast<Eigen::Index>(surface.size()), 3);
  Eigen::Index triangles = 0;
  for (const std::array<int, 3>& f : surface) {
    std::array<int, 3> sorted = f;
    std::sort(sorted.begin(), sorted.end());
    if (uses[sorted] > 1) continue;
    for (int c = 0; c < 3; ++c) model.global_surface_triangles(triangles, c) = f[sz(c)];
    ++triangles;
  }
  model.global_surface_triangles.conservativeResize(triangles, 3);
  place_render_surfaces(model, surfaces);
  if (report)
    report("placement", placement_seconds +
                            std::chrono::duration<double>(Clock::now() - interface_start).count());
  return model;
}

}  // namespace

ReducedModel build_assembly_model(const std::vector<AssemblyPart>& given_parts,
                                  const std::vector<AssemblyInstance>& given_instances,
                                  double attachment_tolerance, int threads,
                                  const StageReporter& report, ProcessGroup* processes) {
  // Parts cut into domains: one part per domain; render surfaces placed (expand_domain_parts).
  const Assembly expanded = expand_domain_parts({given_parts, given_instances, {}});
  const std::vector<AssemblyPart>& parts = expanded.parts;
  const std::vector<AssemblyInstance>& instances = expanded.instances;
  // A part no instance places is not reduced (the file holds placed parts only).
  std::vector<int> index(parts.size(), -1);
  std::vector<AssemblyPart> placed;
  std::vector<AssemblyInstance> renumbered = instances;
  for (AssemblyInstance& a : renumbered) {
    if (a.part < 0 || sz(a.part) >= parts.size())
      throw OptionError("instance '" + a.name + "': unknown part");
    int& k = index[sz(a.part)];
    if (k < 0) {
      k = static_cast<int>(placed.size());
      placed.push_back(parts[sz(a.part)]);
    }
    a.part = k;
  }
  return build_placed_assembly(placed, renumbered, expanded.surfaces, attachment_tolerance, threads,
                               report, processes);
}

Assembly tree_assembly(const Tree& tree) {
  Assembly out;
  std::map<std::string, int> part_index, instance_index;
  for (const Tree::Part& p : tree.parts) {
    AssemblyPart part;
    part.name = p.name;
    part.mesh = p.mesh;
    part.materials.assign(static_cast<std::size_t>(p.mesh.num_tets()),
                          Material{p.youngs_modulus, 0.35, p.density});
    for (int v = 0; v < p.mesh.num_vertices(); ++v)
      if (p.mesh.vertex_flags.size() == p.mesh.num_vertices() && p.mesh.vertex_flags(v) == 1)
        part.base.push_back(v);
    part.reduction.r = p.r;
    part.reduction.linear_modes = std::max(1, p.r / 2);
    part.render_surface = p.render_surface;
    part_index[p.name] = static_cast<int>(out.parts.size());
    out.parts.push_back(std::move(part));
  }
  for (const TreePlacement& placed : tree.placements) {
    out.instances.push_back({placed.name, part_index.at(placed.part),
                             placed.parent.empty() ? -1 : instance_index.at(placed.parent),
                             placed.rotation, placed.translation, placed.scale, "", -1});
    instance_index[placed.name] = static_cast<int>(out.instances.size()) - 1;
  }
  return out;
}

}  // namespace ramus
