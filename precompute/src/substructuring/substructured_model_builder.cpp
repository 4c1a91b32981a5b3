#include "ramus/precompute/substructuring/substructured_model_builder.h"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <map>
#include <mutex>
#include <numeric>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "ramus/error.h"
#include "ramus/precompute/fem/dof_map.h"
#include "ramus/precompute/fem/mass_moments.h"
#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/mesh/boundary_surface.h"
#include "ramus/precompute/reduction/distributed_reduction.h"
#include "ramus/precompute/substructuring/interface_fit.h"
#include "ramus/precompute/substructuring/system_force_integrals.h"

namespace ramus {

namespace {

std::size_t sz(int i) {
  return static_cast<std::size_t>(i);
}

// ---------------------------------------------------------------------------------------------
// distribute_modes

// x_i = clamp(lambda w_i, lo, hi) with lambda such that Σ x_i = total (Σ clamp is continuous and
// nondecreasing in lambda): bisection to machine precision.
std::vector<double> clamped_proportional(const std::vector<double>& w, double total, double lo,
                                         double hi) {
  auto allocate = [&](double lambda) {
    std::vector<double> x(w.size());
    for (std::size_t i = 0; i < w.size(); ++i) x[i] = std::clamp(lambda * w[i], lo, hi);
    return x;
  };
  auto sum = [](const std::vector<double>& x) { return std::accumulate(x.begin(), x.end(), 0.0); };
  double low = 0.0;
  double high = 1.0;
  while (sum(allocate(high)) < total && high < 1e300) high *= 2.0;
  for (int iteration = 0; iteration < 200 && high - low > 1e-15 * high; ++iteration) {
    const double mid = 0.5 * (low + high);
    (sum(allocate(mid)) < total ? low : high) = mid;
  }
  return allocate(high);
}

// ---------------------------------------------------------------------------------------------
// build_substructured_model

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

// Index of global vertex v among the sorted vertices of a domain, or -1.
int local_index(const std::vector<int>& sorted_vertices, int v) {
  const auto it = std::lower_bound(sorted_vertices.begin(), sorted_vertices.end(), v);
  return it != sorted_vertices.end() && *it == v ? static_cast<int>(it - sorted_vertices.begin())
                                                 : -1;
}

// Rethrows the current Ramus exception with "domain 'name': " in front of its message (a
// MeshError keeps its tet / vertex indices, which are the domain's own).
[[noreturn]] void rethrow_for_domain(const std::string& name) {
  const std::string prefix = "domain " + quoted(name) + ": ";
  try {
    throw;
  } catch (const MeshError& e) {
    throw MeshError(prefix + e.what(), e.element(), e.vertex());
  } catch (const OptionError& e) {
    throw OptionError(prefix + e.what());
  } catch (const NumericalError& e) {
    throw NumericalError(prefix + e.what());
  }
}

}  // namespace

std::vector<int> distribute_modes(const std::vector<int>& domain_tet_counts, int total_r,
                                  ModeDistribution distribution, int min_r, int max_r) {
  const int d = static_cast<int>(domain_tet_counts.size());
  if (d == 0) throw OptionError("distribute_modes: no domains");
  if (min_r < 0 || max_r < min_r)
    throw OptionError("domains: need 0 <= min_r <= max_r (min_r = " + std::to_string(min_r) +
                      ", max_r = " + std::to_string(max_r) + ")");
  for (int i = 0; i < d; ++i)
    if (domain_tet_counts[sz(i)] < 1)
      throw OptionError("distribute_modes: domain " + std::to_string(i) + " has " +
                        std::to_string(domain_tet_counts[sz(i)]) + " tets");
  if (static_cast<long long>(total_r) < static_cast<long long>(min_r) * d ||
      static_cast<long long>(total_r) > static_cast<long long>(max_r) * d)
    throw OptionError("domains: " + std::to_string(total_r) + " modes cannot be spread " + "over " +
                      std::to_string(d) + " domains with " + std::to_string(min_r) + " to " +
                      std::to_string(max_r) + " modes each");

  // Shares: #tets, or log(1 + #tets) (positive for a 1-tet domain).
  std::vector<double> weight(sz(d));
  for (int i = 0; i < d; ++i) {
    const double n = domain_tet_counts[sz(i)];
    weight[sz(i)] = distribution == ModeDistribution::kProportional ? n : std::log1p(n);
  }
  const std::vector<double> ideal = clamped_proportional(weight, total_r, min_r, max_r);

  // Largest remainders: floors, then one more mode to the largest fractional parts (ties: the
  // lower domain index) until the sum is total_r; a floor of a value in [min_r, max_r] stays in
  // range, and a domain only gains a mode while below max_r (loses one while above min_r).
  std::vector<int> r(sz(d));
  for (int i = 0; i < d; ++i)
    r[sz(i)] = std::clamp(static_cast<int>(std::floor(ideal[sz(i)])), min_r, max_r);
  std::vector<int> order(sz(d));
  std::iota(order.begin(), order.end(), 0);
  auto fraction = [&](int i) { return ideal[sz(i)] - r[sz(i)]; };
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return fraction(a) > fraction(b); });
  int missing = total_r - std::accumulate(r.begin(), r.end(), 0);
  while (missing > 0) {
    bool gave = false;
    for (const int i : order)
      if (missing > 0 && r[sz(i)] < max_r) {
        ++r[sz(i)];
        --missing;
        gave = true;
      }
    if (!gave) break;  // unreachable: total_r <= max_r d
  }
  while (missing < 0) {
    bool took = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it)
      if (missing < 0 && r[sz(*it)] > min_r) {
        --r[sz(*it)];
        ++missing;
        took = true;
      }
    if (!took) break;  // unreachable: total_r >= min_r d
  }
  return r;
}

ReducedModel build_substructured_model(
    const TetMesh& mesh, const std::vector<Material>& tet_materials, const DomainTree& tree,
    const std::vector<int>& anchored_vertices, const std::vector<ReductionSpec>& reduction,
    const StageReporter& report, int threads, ProcessGroup* processes) {
  const int d = tree.num_domains;
  const int nt = mesh.num_tets();
  if (d < 1 || tree.root < 0 || tree.root >= d || tree.tet_domain.size() != nt ||
      tree.parent.size() != sz(d) || tree.children.size() != sz(d) ||
      tree.domain_tets.size() != sz(d) || tree.domain_vertices.size() != sz(d) ||
      tree.interface_vertices.size() != sz(d) || tree.names.size() != sz(d))
    throw OptionError("build_substructured_model: the domain tree does not match the mesh (" +
                      std::to_string(d) + " domains, " + std::to_string(tree.tet_domain.size()) +
                      " tet domains for " + std::to_string(nt) + " tets)");
  if (tet_materials.size() != sz(nt))
    throw OptionError("build_substructured_model: " + std::to_string(tet_materials.size()) +
                      " materials for " + std::to_string(nt) + " tets");
  if (reduction.size() != sz(d))
    throw OptionError("build_substructured_model: " + std::to_string(reduction.size()) +
                      " reduction specs for " + std::to_string(d) + " domains");
  for (int i = 0; i < d; ++i)
    if (reduction[sz(i)].r < 0)
      throw OptionError("build_substructured_model: domain " + quoted(tree.names[sz(i)]) +
                        ": r = " + std::to_string(reduction[sz(i)].r) + " (must be >= 0)");

  // Breadth-first order from the root, children ascending: model index -> tree index.
  std::vector<int> order;
  std::vector<int> model_index(sz(d), -1);
  {
    std::queue<int> queue;
    queue.push(tree.root);
    while (!queue.empty()) {
      const int i = queue.front();
      queue.pop();
      model_index[sz(i)] = static_cast<int>(order.size());
      order.push_back(i);
      std::vector<int> children = tree.children[sz(i)];
      std::sort(children.begin(), children.end());
      for (const int c : children) queue.push(c);
    }
  }
  if (order.size() != sz(d))
    throw OptionError("build_substructured_model: only " + std::to_string(order.size()) + " of " +
                      std::to_string(d) + " domains are reachable from the root");

  using Clock = std::chrono::steady_clock;
  auto elapsed = [](Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };

  // Whole-object mass moments about its own centre of mass (free root: the root frame origin).
  std::vector<int> all_tets(sz(nt));
  std::iota(all_tets.begin(), all_tets.end(), 0);
  const MassMoments whole =
      tet_mass_moments(mesh.rest_positions, mesh.tets, tet_materials, all_tets);
  if (!(whole.mass > 0.0))
    throw OptionError("build_substructured_model: the mesh has no mass (" +
                      std::to_string(whole.mass) + " kg)");
  const Eigen::Vector3d center_of_mass = whole.first / whole.mass;

  const auto start_areas = Clock::now();
  const std::vector<std::map<int, double>> areas = interface_vertex_areas(mesh, tree);
  if (report) report("interface areas", elapsed(start_areas));

  // One part per domain, placed once at unit scale (part k = domain k).
  ReducedModel model;
  model.domains.resize(sz(d));
  model.num_global_vertices = mesh.num_vertices();
  model.global_surface_triangles = boundary_triangles(mesh.tets);

  // Fixed vertices of domain i (local numbering): the copies of the parent interface, or the
  // root's anchors (none: free).
  const auto fixed_vertices = [&](int i) {
    const std::string& name = tree.names[sz(i)];
    const std::vector<int>& vertices = tree.domain_vertices[sz(i)];
    const int p = tree.parent[sz(i)];
    std::vector<int> fixed;
    const std::vector<int>& held = p < 0 ? anchored_vertices : tree.interface_vertices[sz(i)];
    for (const int v : held) {
      const int local = local_index(vertices, v);
      if (local < 0)  // global index: reported outside the domain's numbering
        throw MeshError("domain " + quoted(name) + ": " + (p < 0 ? "anchored" : "interface") +
                            " vertex " + std::to_string(v) + " is not a vertex of the domain",
                        -1, v);
      fixed.push_back(local);
    }
    std::sort(fixed.begin(), fixed.end());
    fixed.erase(std::unique(fixed.begin(), fixed.end()), fixed.end());
    return fixed;
  };
  // Domain i's mesh (local numbering; `local_to_global` filled) with its tets' materials.
  const auto domain_fem = [&](int i, std::vector<int>* local_to_global) {
    std::vector<Material> materials;
    materials.reserve(tree.domain_tets[sz(i)].size());
    for (const int t : tree.domain_tets[sz(i)]) materials.push_back(tet_materials[sz(t)]);
    return StvkFemModel(extract_domain_mesh(mesh, tree, i, local_to_global), std::move(materials));
  };

  // Every domain's basis and polynomial (model order; all cores, spread over `processes`): they
  // do not depend on one another.
  std::mutex report_mutex;
  std::vector<double> work;
  for (const int i : order) work.push_back(static_cast<double>(tree.domain_tets[sz(i)].size()));
  model.parts = reduce_distributed(work, threads, processes, [&](std::size_t k) {
    const int i = order[k];
    const std::string& name = tree.names[sz(i)];
    const StageReporter inner = [&](const std::string& stage, double seconds) {
      if (!report) return;
      const std::lock_guard<std::mutex> lock(report_mutex);
      report(name + ": " + stage, seconds);
    };
    try {
      const auto start = Clock::now();
      const StvkFemModel fem = domain_fem(i, nullptr);
      const DofMap dofs(fem.num_vertices(), fixed_vertices(i));
      inner("mesh", elapsed(start));
      ReducedPart part;
      if (reduction[sz(i)].r == 0) {
        const auto rigid_start = Clock::now();
        part = build_rigid_part(fem, dofs);
        inner("rigid domain", elapsed(rigid_start));
      } else {
        part = build_reduced_part(fem, dofs, reduction[sz(i)], inner);
      }
      part.name = name;
      return part;
    } catch (const Error&) {
      rethrow_for_domain(name);
    }
  });

  // Frames and interfaces from the root down (a child's frame follows its parent's interface
  // fit), then the system-force integrals in each frame.
  for (int k = 0; k < d; ++k) {
    const int i = order[sz(k)];
    const std::string& name = tree.names[sz(i)];
    const std::vector<int>& vertices = tree.domain_vertices[sz(i)];
    const int p = tree.parent[sz(i)];
    try {
      auto stage_start = Clock::now();
      auto done = [&](const std::string& stage) {
        if (report) report(name + ": " + stage, elapsed(stage_start));
        stage_start = Clock::now();
      };
      ReducedPart& part = model.parts[sz(k)];
      std::vector<int> local_to_global;
      const StvkFemModel fem = domain_fem(i, &local_to_global);
      ReducedDomain domain;
      domain.name = name;
      domain.part = k;
      domain.global_vertices = Eigen::Map<const Eigen::VectorXi>(
          local_to_global.data(), static_cast<Eigen::Index>(local_to_global.size()));

      // Frame and, for a child, the interface with the parent (rest data in the parent's frame).
      if (p < 0) {
        domain.parent = -1;
        domain.frame_origin = anchored_vertices.empty() ? center_of_mass : Eigen::Vector3d::Zero();
        domain.frame_rotation.setIdentity();
      } else {
        const ReducedDomain& parent = model.domains[sz(model_index[sz(p)])];
        const ReducedPart& parent_part = model.parts[sz(model_index[sz(p)])];
        domain.parent = model_index[sz(p)];
        const std::vector<int>& shared = tree.interface_vertices[sz(i)];
        const std::vector<int>& parent_vertices = tree.domain_vertices[sz(p)];
        const std::map<int, double>& area = areas[sz(i)];
        const auto m = static_cast<Eigen::Index>(shared.size());
        Eigen::VectorXi parent_local(m);
        Eigen::VectorXi child_local(m);
        Eigen::VectorXd weights(m);
        for (Eigen::Index s = 0; s < m; ++s) {
          const int v = shared[static_cast<std::size_t>(s)];
          parent_local(s) = local_index(parent_vertices, v);
          child_local(s) = local_index(vertices, v);
          const auto it = area.find(v);
          weights(s) = it != area.end() ? it->second : 0.0;
        }
        domain.interface =
            compute_parent_interface(parent_part.rest_positions, parent_part.basis, parent_local,
                                     child_local, weights, Eigen::Matrix3d::Identity());
        domain.frame_rotation = parent.frame_rotation * domain.interface.rest_rotation;
        domain.frame_origin =
            parent.frame_origin + parent.frame_rotation * domain.interface.centroid;
        done("interface");
      }
      // Rest positions in the frame: X = Rᵀ (x - origin) (basis, polynomial, eigenvalues and
      // gravity basis do not depend on the translation; R = I here).
      part.rest_positions =
          ((fem.mesh().rest_positions.rowwise() - domain.frame_origin.transpose()) *
           domain.frame_rotation)
              .eval();
      part.system_force = compute_system_force_integrals(fem, part.basis, part.rest_positions);
      done("system force integrals");
      model.domains[sz(k)] = std::move(domain);
    } catch (const Error&) {
      rethrow_for_domain(name);
    }
  }

  // Subtree masses, centres of mass and inertia: moments about the whole object's centre of
  // mass (to avoid cancellation), summed from the leaves up.
  std::vector<MassMoments> subtree(sz(d));
  for (int k = 0; k < d; ++k)
    subtree[sz(k)] = tet_mass_moments(mesh.rest_positions, mesh.tets, tet_materials,
                                      tree.domain_tets[sz(order[sz(k)])], center_of_mass);
  for (int k = d - 1; k > 0; --k) subtree[sz(model.domains[sz(k)].parent)] += subtree[sz(k)];
  for (int k = 0; k < d; ++k) {
    ReducedDomain& domain = model.domains[sz(k)];
    const MassMoments& s = subtree[sz(k)];
    const Eigen::Vector3d c = s.first / s.mass;                       // relative to center_of_mass
    const Eigen::Matrix3d J = s.second - s.mass * c * c.transpose();  // ∫ρ (x-c)(x-c)ᵀ
    const Eigen::Matrix3d inertia = J.trace() * Eigen::Matrix3d::Identity() - J;
    const Eigen::Matrix3d& R = domain.frame_rotation;
    domain.subtree_mass = s.mass;
    domain.subtree_center_of_mass = R.transpose() * (center_of_mass + c - domain.frame_origin);
    domain.subtree_inertia = R.transpose() * inertia * R;
  }
  return model;
}

}  // namespace ramus
