// `ramus inspect model.h5`: a readable summary of a model file.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.h"
#include "model_trust_options.h"
#include "ramus/runtime/analysis/interface_diagnostics.h"
#include "ramus/runtime/data/settings_table.h"
#include "ramus/runtime/dynamics/step.h"
#include "ramus/runtime/io/model_file.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/model/state.h"

namespace ramus::cli {

namespace {

// The settings of one scope as "name value unit, ..." (the list's order and names; a domain's for
// the per-domain scope).
// Whether a setting documented for one integrator alone ("newmark: beta ...") is read: by
// domain `domain`'s integrator for a per-domain one, else by some domain's (a setting without
// such a prefix always is).
bool read_by_integrators(const SettingInfo& info, const RuntimeSettings& settings, int domain) {
  const std::string doc = info.doc;
  const std::size_t colon = doc.find(':');
  if (colon == std::string::npos) return true;
  const std::string prefix = doc.substr(0, colon);
  bool names_an_integrator = false;
  for (int k = 1; k <= kNumIntegrators; ++k)
    names_an_integrator = names_an_integrator || prefix == to_string(static_cast<Integrator>(k));
  if (!names_an_integrator) return true;
  if (info.scope == SettingScope::kDomain)
    return prefix == to_string(settings.domains[static_cast<std::size_t>(domain)].integrator);
  return std::any_of(settings.domains.begin(), settings.domains.end(),
                     [&](const DomainSettings& d) { return prefix == to_string(d.integrator); });
}

std::string settings_text(const RuntimeSettings& settings, SettingScope scope, int domain) {
  std::string text;
  for (const SettingInfo& info : settings_table()) {
    if (info.scope != scope || !read_by_integrators(info, settings, domain)) continue;
    const std::string name = info.member;
    text += (text.empty() ? "" : ", ") + name + " " +
            format_setting(info, setting_value(settings, info, domain)) +
            (info.unit[0] ? std::string(" ") + info.unit : "");
  }
  return text;
}

double megabytes(Eigen::Index doubles) {
  return 8.0 * static_cast<double>(doubles) / 1e6;
}

// Where the model came from, its size, surface, settings and stored scenario.
void print_summary(const ReducedModel& model, const std::string& path) {
  const ModelProvenance& p = model.provenance;
  std::printf("%s: Ramus model, schema version %d\n", path.c_str(), model.format_version);
  std::printf("  written by Ramus %s at %s\n", p.tool_version.c_str(), p.created_utc.c_str());
  std::printf("  from spec %s, %s%s (input hash %016llx)\n", p.spec_path.c_str(),
              p.mesh_path.empty() ? "an assembly of part meshes" : "mesh ", p.mesh_path.c_str(),
              static_cast<unsigned long long>(p.input_hash));
  std::printf("  options %s\n", p.options_json.c_str());
  std::printf("  %zu domain%s", model.domains.size(), model.domains.size() == 1 ? "" : "s");
  if (model.num_global_vertices > 0) {
    std::printf("; undivided mesh: %d vertices, %ld surface triangles", model.num_global_vertices,
                static_cast<long>(model.global_surface_triangles.rows()));
  }
  std::printf("\n");
  const EmbeddedSurface& surface = model.embedded_surface;
  if (surface.rest_positions.rows() > 0) {
    std::printf("  embedded surface (across domains): %ld vertices, %ld triangles\n",
                static_cast<long>(surface.rest_positions.rows()),
                static_cast<long>(surface.triangles.rows()));
  }
  const RuntimeSettings& rs = model.settings;
  std::printf("  runtime: %s\n  wind: %s\n", settings_text(rs, SettingScope::kObject, 0).c_str(),
              settings_text(rs, SettingScope::kWind, 0).c_str());
  const ScenarioSettings& scenario = model.scenario;
  std::printf("  scenario: %d steps, output every %d, %ld point force%s\n", scenario.steps,
              scenario.output_every, static_cast<long>(scenario.force_vertices.size()),
              scenario.force_vertices.size() == 1 ? "" : "s");
  for (Eigen::Index k = 0; k < scenario.force_vertices.size(); ++k)
    std::printf("    (%g, %g, %g) N at vertex %d, t in [%g, %g) s\n", scenario.forces(k, 0),
                scenario.forces(k, 1), scenario.forces(k, 2), scenario.force_vertices(k),
                scenario.force_windows(k, 0), scenario.force_windows(k, 1));
  // The scenario's colliders.
  static const char* const kShapes[] = {"half-space", "sphere", "capsule", "rounded box",
                                        "cylinder",   "bowl",   "grid"};
  for (Eigen::Index c = 0; c < scenario.collider_shapes.size(); ++c) {
    const int shape = scenario.collider_shapes(c);
    std::printf("    collider %ld: %s", static_cast<long>(c),
                shape >= 0 && shape <= 6 ? kShapes[shape] : "?");
    if (shape == 6)
      std::printf(" of %d by %d by %d samples %g m apart", scenario.collider_grid_samples(c, 0),
                  scenario.collider_grid_samples(c, 1), scenario.collider_grid_samples(c, 2),
                  scenario.collider_grid_spacings(c));
    else
      std::printf(", sizes %g %g %g %g m", scenario.collider_sizes(c, 0),
                  scenario.collider_sizes(c, 1), scenario.collider_sizes(c, 2),
                  scenario.collider_sizes(c, 3));
    std::printf(", at (%g, %g, %g) m, moving (%g, %g, %g) m/s, mu %g\n",
                scenario.collider_positions(c, 0), scenario.collider_positions(c, 1),
                scenario.collider_positions(c, 2), scenario.collider_velocities(c, 0),
                scenario.collider_velocities(c, 1), scenario.collider_velocities(c, 2),
                scenario.collider_friction(c));
  }
  // Precompute's check against the full FEM.
  const ModelAccuracy& a = model.accuracy;
  if (!a.measured) {
    std::printf(
        "  accuracy: not measured (a free body, separate meshes, \"check\": false, or a "
        "file from before the check)\n");
    return;
  }
  std::printf(
      "  accuracy against the full FEM: static deflection under gravity (%g, %g, %g) "
      "m/s^2 %.4g m, reduced %.4g m (error %.3g %%)\n",
      a.gravity.x(), a.gravity.y(), a.gravity.z(), a.static_full_max, a.static_reduced_max,
      100 * a.static_error);
  for (Eigen::Index j = 0; j < a.full_frequencies.size(); ++j) {
    const double reduced = a.reduced_frequencies(j);
    if (reduced > 0)
      std::printf("    f%td %.4g Hz, reduced %.4g Hz (%+.3g %%)\n", j + 1, a.full_frequencies(j),
                  reduced, 100 * (reduced / a.full_frequencies(j) - 1));
    else
      std::printf("    f%td %.4g Hz, reduced: no period seen\n", j + 1, a.full_frequencies(j));
  }
}

// A part: its mesh, anchors or base, placements and scales, modes, frequencies and memory.
void print_part(const ReducedModel& model, std::size_t k, const std::vector<std::size_t>& placed) {
  const ReducedPart& d = model.parts[k];
  const int r = d.polynomial.r;
  double smallest = INFINITY, largest = 0;
  for (std::size_t index : placed) {
    smallest = std::min(smallest, model.domains[index].scale);
    largest = std::max(largest, model.domains[index].scale);
  }
  std::printf(
      "  part %s: %ld vertices, %ld tets, %ld surface triangles, mass %.4g kg; placed %zu "
      "time%s",
      d.name.c_str(), static_cast<long>(d.rest_positions.rows()), static_cast<long>(d.tets.rows()),
      static_cast<long>(d.surface_triangles.rows()), d.mass, placed.size(),
      placed.size() == 1 ? "" : "s");
  if (smallest != 1 || largest != 1) std::printf(" at scales %.3g to %.3g", smallest, largest);
  std::printf("\n");
  if (d.fixed_vertices.size() && !placed.empty() && model.domains[placed.front()].parent >= 0)
    std::printf("    %ld fixed vertices (the base)\n", static_cast<long>(d.fixed_vertices.size()));
  else if (d.fixed_vertices.size())
    std::printf("    anchored at %ld vertices\n", static_cast<long>(d.fixed_vertices.size()));
  else
    std::printf("    free body: %d rigid modes removed from the basis\n", d.num_rigid_modes);
  if (r == 0) {
    std::printf("    r = 0 (rigid part)\n");
    return;
  }
  std::printf("    r = %d (from %ld linear modes)\n", r,
              static_cast<long>(d.linear_mode_eigenvalues.size()));
  std::printf("    linear mode frequencies (Hz, at scale 1; a domain at scale s has 1/s of them):");
  for (Eigen::Index i = 0; i < d.linear_mode_eigenvalues.size(); ++i)
    std::printf(" %.4g", std::sqrt(std::max(0.0, d.linear_mode_eigenvalues(i))) / (2 * M_PI));
  std::printf(
      "\n    basis Ritz frequencies (Hz, of Uᵀ K U; the first %ld approximate the "
      "linear modes):",
      static_cast<long>(d.linear_mode_eigenvalues.size()));
  for (Eigen::Index i = 0; i < d.basis_eigenvalues.size(); ++i)
    std::printf(" %.4g", std::sqrt(std::max(0.0, d.basis_eigenvalues(i))) / (2 * M_PI));
  const Eigen::Index poly =
      d.polynomial.quadratic.size() + d.polynomial.cubic.size() + d.polynomial.quartic.size();
  const SystemForceIntegrals& w = d.system_force;
  const Eigen::Index integrals = w.w1.size() + w.w2.size() + w.w3.size() + w.w4.size() +
                                 w.w5.size() + w.w6.size() + w.w7.size();
  std::printf(
      "\n    memory (once for all its domains): basis %.2f MB, polynomial %.2f MB (%ld "
      "coefficients), W1..W7 %.3f MB\n",
      megabytes(d.basis.size()), megabytes(poly), static_cast<long>(poly), megabytes(integrals));
}

// A domain: its part and scale, its place in the tree and interface, what it costs beyond its
// part in the file and in a running object, its settings.
void print_domain(const ReducedModel& model, std::size_t index, const Model& compiled,
                  const State& state, const Workspace& workspace,
                  const InterfaceDiagnostics* interface) {
  const RuntimeSettings& rs = model.settings;
  const ReducedDomain& d = model.domains[index];
  const ReducedPart& part = part_of(model, static_cast<int>(index));
  std::printf("  domain %s: part %s", d.name.c_str(), part.name.c_str());
  if (d.scale != 1) std::printf(" at scale %.4g", d.scale);
  if (d.parent < 0) {
    std::printf(", root");
  } else {
    std::printf(", child of %s, interface of %ld vertices%s%s",
                model.domains[static_cast<std::size_t>(d.parent)].name.c_str(),
                static_cast<long>(d.interface.child_vertices.size()),
                d.interface.parent_tets.size() ? " embedded in the parent's tets" : "",
                d.interface.planar ? " (planar)" : "");
    if (const InterfaceDiagnostics* itf = interface)
      std::printf(
          " (%.3g m², %.1f %% of its surface; non-rigidity %.2f %% at 10 %% "
          "deformation of the parent)",
          itf->area, 100 * itf->relative_area, 100 * itf->nonrigidity);
  }
  if (d.subtree_mass > 0) std::printf(", subtree mass %.4g kg", d.subtree_mass);
  const ParentInterface& f = d.interface;
  const Eigen::Index own = f.parent_vertices.size() + f.child_vertices.size() + f.weights.size() +
                           f.parent_tets.size() + f.parent_barycentric.size() +
                           f.centroid_basis.size() + f.rotation_basis.size() +
                           d.global_vertices.size();
  const int i = static_cast<int>(index);
  const std::size_t attached = compiled.domains[index].interface.bytes();
  const std::size_t state_bytes = domain_state_bytes(compiled, state, i);
  const std::size_t model_bytes = domain_model_bytes(compiled, i);
  const std::size_t workspace_bytes = domain_workspace_bytes(compiled, workspace, i);
  std::printf(
      ", %.1f kB of its own in the file; running: %zu B in all (state %zu B, model %zu B of which "
      "%zu B its interface, step workspace %zu B)\n",
      8.0 * static_cast<double>(own) / 1e3, state_bytes + model_bytes + workspace_bytes,
      state_bytes, model_bytes, attached, workspace_bytes);
  if (index < rs.domains.size()) {
    std::printf("    runtime: %s",
                settings_text(rs, SettingScope::kDomain, static_cast<int>(index)).c_str());
    std::printf("\n");
  }
}

// The render mesh: its pieces, each stored once and drawn by its domains.
void print_render_mesh(const Model& model) {
  const RenderMesh& mesh = model.render;
  std::size_t bytes = 0;
  for (const RenderPiece& piece : mesh.pieces) bytes += render_piece_bytes(piece);
  std::printf("  render mesh: %d vertices, %d triangles drawn from %zu pieces (%.1f kB)\n",
              mesh.num_vertices, mesh.num_triangles, mesh.pieces.size(),
              static_cast<double>(bytes) / 1e3);
  for (const RenderPiece& piece : mesh.pieces)
    if (piece.domains.size() > 1 || !piece.from_boundary)
      std::printf("    part %s: %s of %d vertices, %ld triangles, %zu B, drawn by %zu domain%s\n",
                  model.parts[static_cast<std::size_t>(piece.part)].name.c_str(),
                  piece.from_boundary ? "its boundary" : "its render surface", piece.size(),
                  static_cast<long>(piece.triangles.rows()), render_piece_bytes(piece),
                  piece.domains.size(), piece.domains.size() == 1 ? "" : "s");
}

void run(const std::string& path, const TrustArgs& trust) {
  const ReducedModel model = read_model_file(path, model_trust(trust));
  print_summary(model, path);
  const std::optional<ModelPublicKey> signer = model_file_signer(path);
  std::printf("  signed by %s\n", signer ? public_key_hex(*signer).c_str() : "nobody (unsigned)");
  // Parts: each reduced once, with the domains that place it.
  std::vector<std::vector<std::size_t>> placements(model.parts.size());
  for (std::size_t index = 0; index < model.domains.size(); ++index)
    placements[static_cast<std::size_t>(model.domains[index].part)].push_back(index);
  std::printf("  %zu part%s\n", model.parts.size(), model.parts.size() == 1 ? "" : "s");
  for (std::size_t k = 0; k < model.parts.size(); ++k) print_part(model, k, placements[k]);
  // Domains: placement, tree, interface; what each costs beyond its part, in the file and in a
  // running object (its share of a State and its attachment data).
  const std::shared_ptr<const Model> compiled = compile_model(model);
  print_render_mesh(*compiled);
  const State state = make_state(*compiled, 0);
  const Workspace workspace(*compiled);
  const std::vector<InterfaceDiagnostics> interfaces = interface_diagnostics(model);
  std::vector<const InterfaceDiagnostics*> interface_of(model.domains.size(), nullptr);
  for (const InterfaceDiagnostics& d : interfaces)
    interface_of[static_cast<std::size_t>(d.domain)] = &d;
  for (std::size_t index = 0; index < model.domains.size(); ++index)
    print_domain(model, index, *compiled, state, workspace, interface_of[index]);
  // The rigid-interface assumption: soft or large interfaces and deep chains.
  for (const std::string& warning : interface_warnings(model, interfaces))
    std::printf("  warning: %s\n", warning.c_str());
}

}  // namespace

void add_inspect_command(CLI::App& app) {
  auto path = std::make_shared<std::string>();
  auto trust = std::make_shared<TrustArgs>();
  CLI::App* command = app.add_subcommand("inspect", "Summarize a model file");
  command->add_option("model", *path, "Model file (.h5)")->required();
  add_trust_options(command, *trust);
  command->callback([path, trust] { run(*path, *trust); });
}

}  // namespace ramus::cli
