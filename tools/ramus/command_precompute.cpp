// `ramus precompute spec.json -o model.h5`: one reduced domain (modes, modal derivatives,
// mass-PCA basis, cubic StVK polynomial) written as an HDF5 model file.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "commands.h"
#include "precompute_progress.h"
#include "ramus/error.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/mesh/mesh_io.h"
#include "ramus/precompute/mesh/surface_mesh.h"
#include "ramus/precompute/mesh/tet_label_file.h"
#include "ramus/precompute/model/model_file_writer.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/precompute/reduction/world_energy.h"
#include "ramus/precompute/substructuring/assembly_builder.h"
#include "ramus/precompute/substructuring/substructured_model_builder.h"
#include "ramus/precompute/substructuring/surface_embedding.h"
#include "ramus/runtime/analysis/interface_diagnostics.h"
#include "ramus/runtime/model/model_geometry.h"
#include "ramus/runtime/version.h"
#include "spec_mesh.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string spec, output;
  int linear_modes = -1, r = -1;
  bool no_modal_derivatives = false;
  double progress_every = 5;  ///< seconds between progress lines (0: none)
};

// The time of writing, or SOURCE_DATE_EPOCH (seconds) where set, so that the same inputs give
// byte-identical model files (reproducible builds).
std::string utc_now() {
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

// Reduction of every tree domain: r from the "domains" block at `key` (total r̂ distributed,
// or base.r each), then the per-domain overrides by name; errors name the spec and the key.
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
  if (domains) {
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
  }
  return reductions;
}

// The interfaces against the rigid-interface assumption (issue 12): a summary line, and warnings
// (the first 10; `ramus inspect` lists every interface) for soft or large ones and deep chains.
void report_interfaces(const ReducedModel& model) {
  const std::vector<InterfaceDiagnostics> interfaces = interface_diagnostics(model);
  if (interfaces.empty()) return;
  const auto worst = [&](auto measure) {
    return *std::max_element(interfaces.begin(), interfaces.end(),
                             [&](const auto& a, const auto& b) { return measure(a) < measure(b); });
  };
  const auto name = [&](int k) { return model.domains[static_cast<std::size_t>(k)].name.c_str(); };
  const InterfaceDiagnostics soft = worst([](const auto& d) { return d.nonrigidity; });
  const InterfaceDiagnostics large = worst([](const auto& d) { return d.relative_area; });
  const InterfaceDiagnostics deep = worst([](const auto& d) { return d.depth; });
  std::printf(
      "interfaces   %zu: non-rigidity at most %.2f %% ('%s' on '%s'), area at most %.1f %% of "
      "a domain's surface ('%s'), depth %d\n",
      interfaces.size(), 100 * soft.nonrigidity, name(soft.domain), name(soft.parent),
      100 * large.relative_area, name(large.domain), deep.depth);
  const std::vector<std::string> warnings = interface_warnings(model, interfaces);
  for (std::size_t k = 0; k < std::min<std::size_t>(10, warnings.size()); ++k)
    std::fprintf(stderr, "ramus: warning: %s\n", warnings[k].c_str());
  if (warnings.size() > 10)
    std::fprintf(stderr, "ramus: warning: ... and %zu more (ramus inspect lists every interface)\n",
                 warnings.size() - 10);
}

// The energy check before any run (issue 12): the model dropped under the spec's gravity for
// 1 s (at most 100 steps) with the spec's settings, its energy H = T + V_elastic + V_gravity
// measured every 5 steps (world_energy.h); a warning when it gains more than 1 % of its largest
// elastic energy or diverges. Never fails the precompute.
void report_energy(const ReducedModel& model, const std::vector<PointForce>& forces) {
  const RuntimeSettings& settings = model.settings;
  if (settings.gravity.norm() == 0.0 && forces.empty()) return;
  const int steps = std::clamp(static_cast<int>(std::lround(1.0 / settings.time_step)), 1, 100);
  const double seconds = steps * settings.time_step;
  // Every step is measured: a transient gain lasts a few steps.
  EnergyAudit audit;
  try {
    audit = audit_energy(std::make_shared<const ReducedModel>(model), settings, steps, forces, 1);
  } catch (const Error& e) {
    std::fprintf(stderr, "ramus: note: the energy check could not run: %s\n", e.what());
    return;
  }
  const std::string scenario = forces.empty()                ? "gravity"
                               : settings.gravity.norm() > 0 ? "gravity and forces"
                                                             : "forces";
  const bool tree = model.domains.size() > 1;
  double beta = 1e300;  // the most lightly damped domain's
  for (const NodeSettings& node : settings.nodes) beta = std::min(beta, node.rayleigh_stiffness);
  if (settings.nodes.empty()) beta = 0;
  char more_damping[96];
  std::snprintf(more_damping, sizeof(more_damping), "%.3g",
                std::max(kTreeStiffnessDamping, 2 * beta));
  const std::string cure =
      tree ? std::string(
                 "children are driven by their parents' motion without reacting on "
                 "them (the lumping of Eq. 16), which pumps energy into lightly damped "
                 "domains; set \"rayleigh_stiffness\": ") +
                 more_damping +
                 " (s) in the spec's simulation block or its domains' per_domain, or use a "
                 "larger time step (docs/VALIDATION.md, \"Energy\"); `ramus audit` checks a "
                 "longer run"
           : "use a dissipative integrator (sbdf2, be), a smaller time step or some Rayleigh "
             "damping; `ramus audit` checks a longer run";
  if (!audit.ok) {
    std::fprintf(stderr,
                 "ramus: warning: the spec's scenario (%s, its settings) run from rest diverges "
                 "within %.3g s: %s\n",
                 scenario.c_str(), seconds, cure.c_str());
    return;
  }
  const double share = audit.max_elastic > 0 ? audit.max_gain / audit.max_elastic : 0.0;
  std::printf(
      "energy       the spec's scenario (%s, its settings) run from rest for %.3g s: gains "
      "%.3g %% of its largest elastic energy (%.3g J)\n",
      scenario.c_str(), seconds, 100 * share, audit.max_elastic);
  if (share > 0.01)
    std::fprintf(stderr,
                 "ramus: warning: the spec's scenario (%s, its settings) run from rest for %.3g "
                 "s gains %.3g J (%.3g %% of its largest elastic energy) beyond the work of the "
                 "forces: %s\n",
                 scenario.c_str(), seconds, audit.max_gain, 100 * share, cure.c_str());
}

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

// The model's folder must exist before any work is done (else it all ends in a write error).
void check_output_folder(const std::string& output) {
  const std::filesystem::path folder = std::filesystem::path(output).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
    throw OptionError("cannot write model file '" + output + "': folder '" + folder.string() +
                      "' does not exist");
}

// An assembly spec: every part's mesh read, its base selected and materials assigned; the parts
// reduced once each on all cores, the instances placed (assembly_builder.h).
void run_assembly(const Args& args, const ModelSpec& spec) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const AssemblySpec& assembly = *spec.assembly;
  if (args.linear_modes > 0 || args.r > 0 || args.no_modal_derivatives)
    throw OptionError(
        "-r, --linear-modes and --no-modal-derivatives apply to a one-mesh spec; an assembly "
        "gives them per part (parts.<name>.reduction in " +
        spec.spec_path + ")");
  check_output_folder(args.output);
  std::vector<AssemblyPart> parts;
  std::string mesh_bytes;
  for (const PartSpec& p : assembly.parts) {
    const std::string key = "parts." + p.name;
    AssemblyPart part;
    part.name = p.name;
    if (p.source_part >= 0) {  // one domain of another part
      part.source_part = p.source_part;
      part.source_domain = p.source_domain;
      std::printf("part         %-12s domain '%s' of part '%s'\n", p.name.c_str(),
                  p.source_domain.c_str(),
                  assembly.parts[static_cast<std::size_t>(p.source_part)].name.c_str());
      parts.push_back(std::move(part));
      continue;
    }
    part.mesh = read_spec_tet_mesh(p.mesh_path, p.tetrahedralize, p.length_unit);
    apply_label_file(p.domains, part.mesh);
    mesh_bytes += read_file_bytes(p.mesh_path);
    for (const auto& [label, material] : p.materials_by_label) {
      bool present = false;
      for (Eigen::Index t = 0; t < part.mesh.labels.size(); ++t)
        present |= part.mesh.labels(t) == label;
      if (!present)
        throw InputError(spec.spec_path, 0,
                         key + ".materials_by_label." + std::to_string(label) + ": no tet of " +
                             p.mesh_path + " has label " + std::to_string(label));
    }
    part.materials = assign_materials(part.mesh, p.material, p.materials_by_label);
    try {
      part.base = select_vertices(part.mesh, p.base);
    } catch (const MeshError& e) {
      throw InputError(spec.spec_path, 0, e.what());
    }
    part.reduction = p.reduction;
    if (!p.render_surface_path.empty()) {
      part.render_surface = read_spec_surface(p.render_surface_path, p.length_unit);
      mesh_bytes += read_file_bytes(p.render_surface_path);
    }
    std::string cut;
    if (p.domains) {
      // Cut into domains: each is reduced once, its interface with its parent domain held.
      try {
        part.domains = spec_domain_tree(p.domains, part.mesh, part.base);
      } catch (const Error& e) {
        throw InputError(spec.spec_path, 0, key + ".domains: " + e.what());
      }
      part.domain_reductions = domain_reductions(p.reduction, p.domains, *part.domains,
                                                 spec.spec_path, key + ".domains");
      int r = 0;
      for (const ReductionSpec& red : part.domain_reductions) r += red.r;
      cut = ", " + std::to_string(part.domains->num_domains) + " domains (" + std::to_string(r) +
            " modes in all)";
    }
    std::printf("part         %-12s %s: %d vertices, %d tets, base of %zu vertices%s, r = %d%s\n",
                p.name.c_str(), p.mesh_path.c_str(), part.mesh.num_vertices(), part.mesh.num_tets(),
                part.base.size(), part.base.empty() ? " (free body)" : "", p.reduction.r,
                cut.c_str());
    parts.push_back(std::move(part));
  }
  std::vector<AssemblyInstance> instances;
  for (const InstanceSpec& i : assembly.instances)
    instances.push_back(
        {i.name, i.part, i.parent, i.rotation, i.translation, i.scale, i.parent_domain, -1});
  // The domains' names: one per domain of each placement of a part cut into domains (the
  // builder expands the parts the same way).
  std::vector<std::string> names;
  std::size_t num_parts = 0;
  try {
    const Assembly expanded = expand_domain_parts({parts, instances, {}});
    for (const AssemblyInstance& i : expanded.instances) names.push_back(i.name);
    num_parts = expanded.parts.size();
  } catch (const Error& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  if (spec.domains)
    for (const auto& [name, settings] : spec.domains->per_domain)
      if (std::find(names.begin(), names.end(), name) == names.end())
        throw InputError(spec.spec_path, 0,
                         "domains.per_domain: no instance is named \"" + name +
                             "\" (a domain of a part with domains: \"<instance>/<domain>\")");
  std::printf("instances    %zu placements of %zu parts: %zu domains of %zu distinct parts\n",
              instances.size(), parts.size(), names.size(), num_parts);
  std::fflush(stdout);

  std::map<std::string, double> stage_seconds;
  const auto reduce_start = Clock::now();
  ReducedModel reduced;
  try {
    std::map<std::string, double> work;
    for (const AssemblyPart& part : parts) work[part.name] = part.mesh.num_tets();
    PrecomputeProgress progress(std::move(work), args.progress_every);
    reduced = build_assembly_model(
        parts, instances, assembly.attachment_tolerance, 0,
        [&](const std::string& stage, double seconds) {
          progress.stage_done(stage);
          const auto colon = stage.rfind(": ");
          stage_seconds[colon == std::string::npos ? stage : stage.substr(colon + 2)] += seconds;
        });
  } catch (const Error& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  for (const auto& [stage, seconds] : stage_seconds)
    std::printf("  %-22s %8.3f s%s\n", stage.c_str(), seconds,
                stage == "placement" ? "" : " (summed over the parts)");
  std::printf("  %-22s %8.3f s\n", "precompute total",
              std::chrono::duration<double>(Clock::now() - reduce_start).count());
  if (reduced.embedded_surface.rest_positions.rows() > 0)
    std::printf("surfaces     %d vertices, %d triangles embedded in the placed parts' tets\n",
                static_cast<int>(reduced.embedded_surface.rest_positions.rows()),
                static_cast<int>(reduced.embedded_surface.triangles.rows()));
  // Forces name vertices of the assembled mesh (global numbering).
  std::vector<PointForce> forces;
  {
    TetMesh assembled;
    assembled.rest_positions = global_rest_positions(reduced);
    forces = check_spec_forces(spec, assembled);
  }
  reduced.settings = spec_runtime_settings(spec, names);
  ModelProvenance& p = reduced.provenance;
  p.tool_version = version_string();
  p.created_utc = utc_now();
  p.spec_path = spec.spec_path;
  p.spec_json = read_file_bytes(spec.spec_path);
  p.mesh_path = "";
  p.input_hash = fnv1a_hash(mesh_bytes, fnv1a_hash(p.spec_json));
  nlohmann::json options;
  for (const AssemblyPart& part : parts)  // (a part cut into domains: per domain in the file)
    options["parts"][part.name] = {{"linear_modes", part.reduction.linear_modes},
                                   {"r", part.reduction.r},
                                   {"modal_derivatives", part.reduction.modal_derivatives}};
  p.options_json = options.dump();
  report_interfaces(reduced);
  report_energy(reduced, forces);
  const auto write_start = Clock::now();
  write_model_file(reduced, args.output);
  std::printf("  %-22s %8.3f s\n", "write",
              std::chrono::duration<double>(Clock::now() - write_start).count());
  int total_r = 0;
  for (const ReducedDomain& d : reduced.domains)
    total_r += reduced.parts[static_cast<std::size_t>(d.part)].polynomial.r;
  std::printf("wrote        %s (%zu parts, %zu domains, total r = %d) in %.2f s\n",
              args.output.c_str(), reduced.parts.size(), reduced.domains.size(), total_r,
              std::chrono::duration<double>(Clock::now() - start).count());
}

void run(const Args& args) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  ModelSpec spec = load_spec(args.spec);
  if (spec.assembly) return run_assembly(args, spec);
  check_output_folder(args.output);
  if (args.linear_modes > 0) spec.reduction.linear_modes = args.linear_modes;
  if (args.r > 0) spec.reduction.r = args.r;
  if (args.no_modal_derivatives) spec.reduction.modal_derivatives = false;
  const auto [mesh, fixed] = load_spec_mesh(spec);
  std::printf("mesh         %s: %d vertices, %d tets, %zu fixed vertices%s (%.2f s)\n",
              spec.mesh_path.c_str(), mesh.num_vertices(), mesh.num_tets(), fixed.size(),
              fixed.empty() ? " (free body)" : "",
              std::chrono::duration<double>(Clock::now() - start).count());
  const std::vector<PointForce> forces = check_spec_forces(spec, mesh);
  const std::string surface_path = render_surface_path(spec);
  SurfaceMesh render_surface;
  if (!surface_path.empty()) {
    render_surface = read_spec_surface(surface_path, spec.length_unit);
    ReducedPart undivided;  // the undivided mesh: a surface that does not fit fails here, not later
    undivided.rest_positions = mesh.rest_positions;
    undivided.tets = mesh.tets;
    embed_render_surface(single_domain_model(std::move(undivided)), render_surface, surface_path,
                         nullptr);
  }
  const DomainTree tree = spec_domain_tree(spec.domains, mesh, fixed);
  const std::vector<ReductionSpec> reductions =
      domain_reductions(spec.reduction, spec.domains, tree, spec.spec_path, "domains");
  int total_r = 0;
  for (const ReductionSpec& red : reductions) total_r += red.r;
  if (tree.num_domains == 1) {
    std::printf("reduction    %d linear modes%s -> r = %d\n", reductions[0].linear_modes,
                spec.reduction.modal_derivatives ? " + modal derivatives" : "", reductions[0].r);
  } else {
    int depth = 0;
    for (int dd : tree.depth) depth = std::max(depth, dd);
    std::printf("domains      %d in a tree of depth %d, total r = %d%s\n", tree.num_domains, depth,
                total_r, fixed.empty() ? ", free-flying root" : "");
    for (int k = 0; k < tree.num_domains; ++k)
      std::printf("  %-14s parent %-14s %6zu tets %4zu interface vertices  r = %d (%d linear)\n",
                  tree.names[k].c_str(),
                  tree.parent[k] < 0 ? "-" : tree.names[tree.parent[k]].c_str(),
                  tree.domain_tets[k].size(), tree.interface_vertices[k].size(), reductions[k].r,
                  reductions[k].r > 0 ? reductions[k].linear_modes : 0);
  }
  std::fflush(stdout);

  std::map<std::string, double> stage_seconds;
  const auto reduce_start = Clock::now();
  ReducedModel reduced;
  try {
    std::map<std::string, double> work;
    for (int k = 0; k < tree.num_domains; ++k)
      work[tree.names[static_cast<std::size_t>(k)]] =
          static_cast<double>(tree.domain_tets[static_cast<std::size_t>(k)].size());
    PrecomputeProgress progress(std::move(work), args.progress_every);
    reduced = build_substructured_model(
        mesh, assign_materials(mesh, spec.material, spec.materials_by_label), tree, fixed,
        reductions, [&](const std::string& stage, double seconds) {
          progress.stage_done(stage);
          // Stages come as "<domain>: <stage>"; sum them over the domains.
          const auto colon = stage.rfind(": ");
          stage_seconds[colon == std::string::npos ? stage : stage.substr(colon + 2)] += seconds;
        });
  } catch (const OptionError& e) {
    // Mode counts a domain cannot have: name the spec and the block that asked for them.
    throw InputError(spec.spec_path, 0,
                     std::string(spec.domains ? "domains" : "reduction") + ": " + e.what());
  }
  for (const auto& [stage, seconds] : stage_seconds)
    std::printf("  %-19s %8.3f s\n", stage.c_str(), seconds);
  std::printf("  %-19s %8.3f s\n", "reduction total",
              std::chrono::duration<double>(Clock::now() - reduce_start).count());
  if (!surface_path.empty()) {
    const auto embed_start = Clock::now();
    SurfaceEmbeddingStats stats;
    reduced.embedded_surface = embed_render_surface(reduced, render_surface, surface_path, &stats);
    std::printf(
        "surface      %s: %d vertices, %d triangles embedded, at most %.3g m outside a tet (%d "
        "clamped) (%.3f s)\n",
        surface_path.c_str(), render_surface.num_vertices(), render_surface.num_triangles(),
        stats.max_distance, stats.clamped,
        std::chrono::duration<double>(Clock::now() - embed_start).count());
  }
  std::vector<std::string> names;
  for (const ReducedDomain& domain : reduced.domains) names.push_back(domain.name);
  reduced.settings = spec_runtime_settings(spec, names);
  ModelProvenance& p = reduced.provenance;
  p.tool_version = version_string();
  p.created_utc = utc_now();
  p.spec_path = spec.spec_path;
  p.spec_json = read_file_bytes(spec.spec_path);
  p.mesh_path = spec.mesh_path;
  p.input_hash = fnv1a_hash(read_file_bytes(spec.mesh_path), fnv1a_hash(p.spec_json));
  p.options_json = nlohmann::json{{"linear_modes", spec.reduction.linear_modes},
                                  {"r", spec.reduction.r},
                                  {"modal_derivatives", spec.reduction.modal_derivatives}}
                       .dump();
  report_interfaces(reduced);
  report_energy(reduced, forces);
  const auto write_start = Clock::now();
  write_model_file(reduced, args.output);
  std::printf("  %-19s %8.3f s\n", "write",
              std::chrono::duration<double>(Clock::now() - write_start).count());
  const ReducedPart& d = part_of(reduced, 0);
  std::printf("frequencies  (Hz%s)", reduced.domains.size() > 1 ? ", root domain" : "");
  for (Eigen::Index k = 0; k < std::min<Eigen::Index>(6, d.linear_mode_eigenvalues.size()); ++k)
    std::printf(" %.4g", std::sqrt(std::max(0.0, d.linear_mode_eigenvalues(k))) / (2 * M_PI));
  std::printf("%s\n", d.linear_mode_eigenvalues.size() > 6 ? " ..." : "");
  if (d.num_rigid_modes) std::printf("rigid modes  %d removed\n", d.num_rigid_modes);
  if (reduced.domains.size() == 1)
    std::printf("wrote        %s (r = %d) in %.2f s\n", args.output.c_str(), d.polynomial.r,
                std::chrono::duration<double>(Clock::now() - start).count());
  else
    std::printf("wrote        %s (%zu domains, total r = %d) in %.2f s\n", args.output.c_str(),
                reduced.domains.size(), total_r,
                std::chrono::duration<double>(Clock::now() - start).count());
}

}  // namespace

void add_precompute_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "precompute",
      "Reduce a model spec to a tree of domains (one without a \"domains\" key): linear "
      "modes, modal derivatives, mass-orthonormal basis, exact cubic StVK polynomial, "
      "interface data, system-force integrals; writes an HDF5 model");
  command->add_option("spec", args->spec, "Model spec (JSON, see docs/SPEC.md)")->required();
  command->add_option("-o,--output", args->output, "Model file (.h5)")->required();
  command->add_option("--linear-modes", args->linear_modes, "Override reduction.linear_modes");
  command->add_option("-r", args->r, "Override reduction.r");
  command->add_flag("--no-modal-derivatives", args->no_modal_derivatives,
                    "Use the r lowest linear modes only");
  command
      ->add_option("--progress", args->progress_every,
                   "Seconds between progress lines (share done, time left); 0: none")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6));
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
