#include "ramus/precompute/pipeline/precompute_model.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "precompute_checks.h"
#include "precompute_stages.h"
#include "printf_text.h"
#include "ramus/error.h"
#include "ramus/precompute/contact/grid_level_set.h"
#include "ramus/precompute/mesh/surface_mesh.h"
#include "ramus/precompute/pipeline/precompute_progress.h"
#include "ramus/precompute/pipeline/spec_mesh.h"
#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"
#include "ramus/precompute/substructuring/surface_embedding.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/version.h"
#include "tree_improvement.h"

namespace ramus {

namespace {

using Clock = std::chrono::steady_clock;

// The rendering surface: the spec's "render_surface", else the mesh when it is a surface file
// (tetrahedralized by TetGen); empty: none.
std::string render_surface_path(const ModelSpec& spec) {
  if (!spec.render_surface_path.empty()) return spec.render_surface_path;
  std::string ext = std::filesystem::path(spec.mesh_path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return ext == ".obj" || ext == ".off" || ext == ".ply" || ext == ".stl" ? spec.mesh_path : "";
}

// embed_surface with its errors naming the surface file.
EmbeddedSurface embed_render_surface(const ReducedModel& model, const SurfaceMesh& surface,
                                     const std::string& path, SurfaceEmbeddingStats* stats) {
  try {
    return embed_surface(model, surface.vertices, surface.triangles, {}, stats);
  } catch (const MeshError& e) {
    throw InputError(path, 0, e.what());
  }
}

// The render surface read and tried on the undivided mesh: one that does not fit fails here,
// before the reduction.
SurfaceMesh read_render_surface(const ModelSpec& spec, const std::string& path,
                                const TetMesh& mesh) {
  SurfaceMesh surface = read_spec_surface(path, spec.length_unit);
  ReducedPart undivided;
  undivided.rest_positions = mesh.rest_positions;
  undivided.tets = mesh.tets;
  embed_render_surface(single_domain_model(std::move(undivided)), surface, path, nullptr);
  return surface;
}

// The reduction (r and modes) or the domain tree, one line per domain.
void report_domains(const DomainTree& tree, const std::vector<ReductionSpec>& reductions,
                    const ModelSpec& spec, bool free_body, const PrecomputeListener& listener) {
  int total_r = 0;
  for (const ReductionSpec& red : reductions) total_r += red.r;
  if (tree.num_domains == 1) {
    listener.report(printf_text(
        "reduction    %d linear modes%s -> r = %d", reductions[0].linear_modes,
        spec.reduction.modal_derivatives ? " + modal derivatives" : "", reductions[0].r));
    return;
  }
  int depth = 0;
  for (int dd : tree.depth) depth = std::max(depth, dd);
  listener.report(printf_text("domains      %d in a tree of depth %d, total r = %d%s",
                              tree.num_domains, depth, total_r,
                              free_body ? ", free-flying root" : ""));
  for (int k = 0; k < tree.num_domains; ++k)
    listener.report(printf_text(
        "  %-14s parent %-14s %6zu tets %4zu interface vertices  r = %d (%d linear)",
        tree.names[k].c_str(), tree.parent[k] < 0 ? "-" : tree.names[tree.parent[k]].c_str(),
        tree.domain_tets[k].size(), tree.interface_vertices[k].size(), reductions[k].r,
        reductions[k].r > 0 ? reductions[k].linear_modes : 0));
}

// Every domain reduced (all cores), with progress and the stages' seconds reported.
ReducedModel reduce_domains(const ModelSpec& spec, const TetMesh& mesh, const DomainTree& tree,
                            const std::vector<int>& fixed,
                            const std::vector<ReductionSpec>& reductions,
                            const PrecomputeListener& listener, ProcessGroup* processes,
                            bool report_stages = true) {
  const auto start = Clock::now();
  std::map<std::string, double> work;
  for (int k = 0; k < tree.num_domains; ++k)
    work[tree.names[static_cast<std::size_t>(k)]] =
        static_cast<double>(tree.domain_tets[static_cast<std::size_t>(k)].size());
  StageTally stages(std::move(work), listener);
  ReducedModel reduced;
  try {
    reduced = build_substructured_model(
        mesh, assign_materials(mesh, spec.material, spec.materials_by_label), tree, fixed,
        reductions, stages.callback(), 0, processes);
  } catch (const OptionError& e) {
    // Mode counts a domain cannot have: name the spec and the block that asked for them.
    throw InputError(spec.spec_path, 0,
                     std::string(spec.domains ? "domains" : "reduction") + ": " + e.what());
  }
  if (!report_stages) return reduced;
  stages.report(listener, 19, "");
  listener.report(printf_text("  %-19s %8.3f s", "reduction total", seconds_since(start)));
  return reduced;
}

// A one-mesh spec's model.
ReducedModel precompute_one_mesh(ModelSpec spec, const ReductionOverrides& overrides,
                                 const PrecomputeListener& listener, ProcessGroup* processes) {
  const auto start = Clock::now();
  if (overrides.linear_modes > 0) spec.reduction.linear_modes = overrides.linear_modes;
  if (overrides.r > 0) spec.reduction.r = overrides.r;
  if (overrides.no_modal_derivatives) spec.reduction.modal_derivatives = false;
  if (overrides.any()) spec.reduction_given = true;
  const auto [mesh, fixed] = load_spec_mesh(spec, listener);
  listener.report(
      printf_text("mesh         %s: %d vertices, %d tets, %zu fixed vertices%s (%.2f s)",
                  spec.mesh_path.c_str(), mesh.num_vertices(), mesh.num_tets(), fixed.size(),
                  fixed.empty() ? " (free body)" : "", seconds_since(start)));
  const std::vector<PointForce> forces = check_spec_forces(spec, mesh, listener);
  const std::string surface_path = render_surface_path(spec);
  SurfaceMesh render_surface;
  if (!surface_path.empty()) render_surface = read_render_surface(spec, surface_path, mesh);
  ReducedTree current;
  current.tree = spec_domain_tree(spec.domains, mesh, fixed, listener);
  current.reductions =
      domain_reductions(spec.reduction, spec.domains, current.tree, spec.spec_path, "domains");
  report_domains(current.tree, current.reductions, spec, fixed.empty(), listener);
  current.model =
      reduce_domains(spec, mesh, current.tree, fixed, current.reductions, listener, processes);
  // An automatic tree past the check's tolerances: its cuts moved (every process alike).
  const Eigen::VectorXi first_cut = current.tree.tet_domain;
  const std::vector<ReductionSpec> first_reductions = current.reductions;
  const std::shared_ptr<const FullSpaceReference> reference = improve_tree(
      current, spec, mesh, fixed,
      [&](const DomainTree& tree, const std::vector<ReductionSpec>& reductions) {
        return reduce_domains(spec, mesh, tree, fixed, reductions, listener, processes, false);
      },
      listener);
  const auto same_modes = [](const ReductionSpec& a, const ReductionSpec& b) {
    return a.r == b.r && a.linear_modes == b.linear_modes;
  };
  if ((current.tree.tet_domain.array() != first_cut.array()).any() ||
      !std::equal(first_reductions.begin(), first_reductions.end(), current.reductions.begin(),
                  current.reductions.end(), same_modes))
    report_domains(current.tree, current.reductions, spec, fixed.empty(), listener);
  ReducedModel& reduced = current.model;
  if (!surface_path.empty()) {
    const auto embed_start = Clock::now();
    SurfaceEmbeddingStats stats;
    reduced.embedded_surface = embed_render_surface(reduced, render_surface, surface_path, &stats);
    listener.report(printf_text(
        "surface      %s: %d vertices, %d triangles embedded, at most %.3g m outside a tet (%d "
        "clamped) (%.3f s)",
        surface_path.c_str(), render_surface.num_vertices(), render_surface.num_triangles(),
        stats.max_distance, stats.clamped, seconds_since(embed_start)));
  }
  std::vector<std::string> names;
  for (const ReducedDomain& domain : reduced.domains) names.push_back(domain.name);
  const std::string options =
      nlohmann::json{{"linear_modes", spec.reduction.linear_modes},
                     {"r", spec.reduction.r},
                     {"modal_derivatives", spec.reduction.modal_derivatives}}
          .dump();
  finish_model(reduced, spec, names, spec.mesh_path, read_file_bytes(spec.mesh_path), options,
               forces, listener, processes, reference.get());
  return std::move(reduced);
}

}  // namespace

std::vector<ReductionSpec> domain_reductions(const ReductionSpec& base,
                                             const std::optional<DomainsSpec>& domains,
                                             const DomainTree& tree, const std::string& spec_path,
                                             const std::string& key) {
  const int d = tree.num_domains;
  std::vector<int> r(static_cast<size_t>(d), base.r);
  if (domains && domains->total_r > 0) {
    std::vector<int> sizes;
    for (const auto& tets : tree.domain_tets) sizes.push_back(static_cast<int>(tets.size()));
    try {
      r = distribute_modes(sizes, domains->total_r, domains->distribution, domains->min_r,
                           domains->max_r);
    } catch (const OptionError& e) {
      throw InputError(spec_path, 0, key + ".total_r: " + e.what());
    }
  }
  std::vector<ReductionSpec> reductions;
  for (int k = 0; k < d; ++k) reductions.push_back(domains ? scaled_reduction(base, r[k]) : base);
  if (!domains) return reductions;
  // The per-domain overrides, by name.
  for (const auto& [name, settings] : domains->per_domain) {
    const auto it = std::find(tree.names.begin(), tree.names.end(), name);
    if (it == tree.names.end()) {
      std::string names;
      for (const std::string& n : tree.names) names += (names.empty() ? "" : ", ") + n;
      throw InputError(spec_path, 0,
                       key + ".per_domain: no domain is named \"" + name +
                           "\" (the domains are: " + names + ")");
    }
    ReductionSpec& reduction = reductions[static_cast<size_t>(it - tree.names.begin())];
    if (settings.r) reduction = scaled_reduction(base, *settings.r);
    if (settings.linear_modes) reduction.linear_modes = *settings.linear_modes;
  }
  return reductions;
}

StageReporter StageTally::callback() {
  return [this](const std::string& stage, double seconds) {
    progress_.stage_done(stage);
    const auto colon = stage.rfind(": ");
    seconds_[colon == std::string::npos ? stage : stage.substr(colon + 2)] += seconds;
  };
}

void StageTally::report(const PrecomputeListener& listener, int name_width,
                        const char* summed_note) const {
  for (const auto& [stage, seconds] : seconds_)
    listener.report(printf_text("  %-*s %8.3f s%s", name_width, stage.c_str(), seconds,
                                stage == "placement" ? "" : summed_note));
}

ScenarioSettings stored_scenario(const ScenarioSettings& scenario,
                                 const std::vector<PointForce>& forces) {
  ScenarioSettings stored = scenario;
  const auto F = static_cast<Eigen::Index>(forces.size());
  stored.force_vertices.resize(F);
  stored.forces.resize(F, 3);
  stored.force_windows.resize(F, 2);
  for (Eigen::Index k = 0; k < F; ++k) {
    const PointForce& f = forces[static_cast<std::size_t>(k)];
    stored.force_vertices(k) = f.vertex;
    stored.forces.row(k) = f.force.transpose();
    stored.force_windows.row(k) << f.start, f.end;
  }
  return stored;
}

// The mesh colliders' grid level sets, as the runtime samples them (GridDistanceField): a row
// per collider, zeros in an analytic one's, every grid's values one after another.
void store_collider_grids(const std::vector<const ColliderSpec*>& stored,
                          const std::string& spec_path, double contact_distance,
                          ScenarioSettings& scenario) {
  const auto C = static_cast<Eigen::Index>(stored.size());
  std::vector<std::shared_ptr<const GridLevelSet>> grids;
  Eigen::Index values = 0;
  for (const ColliderSpec* c : stored) {
    grids.push_back(c->contact.collider.shape == ColliderShape::kMesh
                        ? runtime_collider_grid(*c, spec_path, contact_distance)
                        : nullptr);
    if (grids.back() != nullptr) values += grids.back()->samples().prod();
  }
  if (values == 0) return;
  scenario.collider_grid_origins.setZero(C, 3);
  scenario.collider_grid_spacings.setZero(C);
  scenario.collider_grid_samples.setZero(C, 3);
  scenario.collider_grid_values.resize(values);
  Eigen::Index offset = 0;
  for (Eigen::Index k = 0; k < C; ++k) {
    const GridLevelSet* grid = grids[static_cast<std::size_t>(k)].get();
    if (grid == nullptr) continue;
    const GridDistanceField field = grid->field();
    const Eigen::Index count = field.samples.prod();
    scenario.collider_grid_origins.row(k) = field.origin.transpose();
    scenario.collider_grid_spacings(k) = field.spacing;
    scenario.collider_grid_samples.row(k) = field.samples.transpose();
    scenario.collider_grid_values.segment(offset, count) =
        Eigen::Map<const Eigen::VectorXf>(field.values, count);
    offset += count;
  }
}

void store_scenario_colliders(const ContactSpec& contact, const std::string& spec_path,
                              double contact_distance, ScenarioSettings& scenario,
                              const PrecomputeListener& listener) {
  // The colliders with a constant motion; keyframed ones are simulate-full's alone.
  std::vector<const ColliderSpec*> stored;
  for (const ColliderSpec& c : contact.colliders) {
    if (!c.contact.collider.motion.keyframes.empty()) {
      listener.warning(c.key +
                       ": keyframes are for `ramus simulate-full` only: the model's runs "
                       "(simulate, compare, audit) go without this collider");
      continue;
    }
    stored.push_back(&c);
  }
  const auto C = static_cast<Eigen::Index>(stored.size());
  scenario.collider_shapes.resize(C);
  scenario.collider_sizes.resize(C, 4);
  scenario.collider_rotations.resize(C, 9);
  scenario.collider_positions.resize(C, 3);
  scenario.collider_velocities.resize(C, 3);
  scenario.collider_angular_velocities.resize(C, 3);
  scenario.collider_friction.resize(C);
  for (Eigen::Index k = 0; k < C; ++k) {
    const ColliderContact& c = stored[static_cast<std::size_t>(k)]->contact;
    const ColliderMotion& motion = c.collider.motion;
    scenario.collider_shapes(k) = static_cast<int>(c.collider.shape);
    scenario.collider_sizes.row(k) = c.collider.size.transpose();
    for (int row = 0; row < 3; ++row)
      scenario.collider_rotations.row(k).segment<3>(3 * row) = motion.initial.rotation.row(row);
    scenario.collider_positions.row(k) = motion.initial.translation.transpose();
    scenario.collider_velocities.row(k) = motion.linear_velocity.transpose();
    scenario.collider_angular_velocities.row(k) = motion.angular_velocity.transpose();
    scenario.collider_friction(k) = c.friction;
  }
  store_collider_grids(stored, spec_path, contact_distance, scenario);
}

std::string provenance_time_utc() {
  std::time_t now = std::time(nullptr);
  if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) {
    char* end = nullptr;
    const long long seconds = std::strtoll(epoch, &end, 10);
    if (end != epoch && *end == '\0' && seconds >= 0) now = static_cast<std::time_t>(seconds);
  }
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

void finish_model(ReducedModel& model, const ModelSpec& spec, const std::vector<std::string>& names,
                  const std::string& mesh_path, const std::string& input_bytes,
                  const std::string& options_json, const std::vector<PointForce>& forces,
                  const PrecomputeListener& listener, const ProcessGroup* processes,
                  const FullSpaceReference* reference) {
  model.settings = spec_runtime_settings(spec, names);
  model.scenario = stored_scenario(spec.simulation.scenario, forces);
  store_scenario_colliders(spec.contact, spec.spec_path, model.settings.contact_distance,
                           model.scenario, listener);
  ModelProvenance& p = model.provenance;
  p.tool_version = version_string();
  p.created_utc = provenance_time_utc();
  p.spec_path = spec.spec_path;
  p.spec_json = spec.spec_text.empty() ? read_file_bytes(spec.spec_path) : spec.spec_text;
  p.mesh_path = mesh_path;
  p.input_hash = fnv1a_hash(input_bytes, fnv1a_hash(p.spec_json));
  p.options_json = options_json;
  // The checks: on rank 0 alone (the other processes write nothing).
  if (processes != nullptr && processes->rank() != 0) return;
  model.accuracy = report_accuracy(model, spec, listener, reference);
  report_interfaces(model, listener, within_tolerances(model.accuracy, spec.check));
  if (!spec.simulation.rayleigh_stiffness_given)
    set_default_damping(model, spec, names, forces, listener);
  report_energy(model, forces, listener);
}

double damping_reference_omega(const ReducedModel& model) {
  if (model.accuracy.full_frequencies.size() > 0)
    return 2 * M_PI * model.accuracy.full_frequencies(0);
  const ReducedPart& root = part_of(model, 0);
  return root.linear_mode_eigenvalues.size() > 0
             ? std::sqrt(std::max(0.0, root.linear_mode_eigenvalues(0)))
             : 0.0;
}

void set_default_damping(ReducedModel& model, const ModelSpec& spec,
                         const std::vector<std::string>& names,
                         const std::vector<PointForce>& forces,
                         const PrecomputeListener& listener) {
  const auto apply = [&](double beta) {
    const RuntimeSettings damped = spec_runtime_settings(spec, names, beta);
    for (std::size_t d = 0; d < model.settings.domains.size(); ++d)
      model.settings.domains[d].rayleigh_stiffness = damped.domains[d].rayleigh_stiffness;
  };
  // ζ at the lowest frequency (the check's), doubled while the scenario gains over 1 % (a
  // tree's children pumped by their parents; a single domain never gains).
  const double omega1 = damping_reference_omega(model);
  double beta = default_rayleigh_stiffness(omega1);
  apply(beta);
  if (model.domains.size() < 2 || beta <= 0) return;
  int doublings = 0;
  while (doublings < kMaxDampingDoublings && scenario_energy_gain(model, forces) > 0.01) {
    beta *= 2;
    ++doublings;
    apply(beta);
  }
  if (doublings > 0)
    listener.note(printf_text(
        "damping: rayleigh_stiffness raised to %.3g s (%.3g %% of critical at %.4g Hz), where the "
        "spec's scenario no longer gains energy (docs/VALIDATION.md, \"Energy\")",
        beta, 100 * beta * omega1 / 2, omega1 / (2 * M_PI)));
}

ReducedModel precompute_model(const ModelSpec& spec, const ReductionOverrides& overrides,
                              const PrecomputeListener& listener, ProcessGroup* processes) {
  // The same numbers on any machine and under any mpirun: BLAS on one thread.
  const SingleThreadedBlas single_threaded_blas;
  if (!spec.assembly) return precompute_one_mesh(spec, overrides, listener, processes);
  if (overrides.any())
    throw OptionError(
        "-r, --linear-modes and --no-modal-derivatives apply to a one-mesh spec; an assembly "
        "gives them per part (parts.<name>.reduction in " +
        spec.spec_path + ")");
  return precompute_assembly(spec, listener, processes);
}

}  // namespace ramus
