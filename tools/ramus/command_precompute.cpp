// `ramus precompute spec.json -o model.h5`: one reduced domain (modes, modal derivatives,
// mass-PCA basis, cubic StVK polynomial) written as an HDF5 model file.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "ramus/error.h"
#include "ramus/precompute/mesh_checks.h"
#include "ramus/precompute/mesh_io.h"
#include "ramus/precompute/model_file_writer.h"
#include "ramus/precompute/model_spec.h"
#include "ramus/precompute/reduced_domain_builder.h"
#include "ramus/runtime/version.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string spec, output;
  int linear_modes = -1, r = -1;
  bool no_modal_derivatives = false;
};

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

void run(const Args& args) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  ModelSpec spec = load_model_spec(args.spec);
  if (args.linear_modes > 0) spec.reduction.linear_modes = args.linear_modes;
  if (args.r > 0) spec.reduction.r = args.r;
  if (args.no_modal_derivatives) spec.reduction.modal_derivatives = false;
  const TetMesh mesh = read_tet_mesh(spec.mesh_path, spec.tetrahedralize);
  validate_tet_mesh(mesh, spec.mesh_path);
  std::vector<int> fixed;
  try {
    fixed = select_vertices(mesh, spec.fixed);
  } catch (const MeshError& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  const StvkFemModel model(mesh, assign_materials(mesh, spec.material, spec.materials_by_label));
  const DofMap dofs(mesh.num_vertices(), fixed);
  std::printf("mesh         %s: %d vertices, %d tets, %zu fixed vertices%s (%.2f s)\n",
              spec.mesh_path.c_str(), mesh.num_vertices(), mesh.num_tets(), fixed.size(),
              fixed.empty() ? " (free body)" : "",
              std::chrono::duration<double>(Clock::now() - start).count());
  std::printf("reduction    %d linear modes%s -> r = %d\n", spec.reduction.linear_modes,
              spec.reduction.modal_derivatives ? " + modal derivatives" : "", spec.reduction.r);
  std::fflush(stdout);

  ReducedModel reduced;
  reduced.domains.push_back(build_reduced_domain(
      model, dofs, spec.reduction, [](const std::string& stage, double seconds) {
        std::printf("  %-19s %8.3f s\n", stage.c_str(), seconds);
        std::fflush(stdout);
      }));
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
  const auto write_start = Clock::now();
  write_model_file(reduced, args.output);
  std::printf("  %-19s %8.3f s\n", "write",
              std::chrono::duration<double>(Clock::now() - write_start).count());
  const ReducedDomain& d = reduced.domains.front();
  std::printf("frequencies  (Hz)");
  for (Eigen::Index k = 0; k < std::min<Eigen::Index>(6, d.linear_mode_eigenvalues.size()); ++k)
    std::printf(" %.4g", std::sqrt(std::max(0.0, d.linear_mode_eigenvalues(k))) / (2 * M_PI));
  std::printf("%s\n", d.linear_mode_eigenvalues.size() > 6 ? " ..." : "");
  if (d.num_rigid_modes) std::printf("rigid modes  %d removed\n", d.num_rigid_modes);
  std::printf("wrote        %s (r = %d) in %.2f s\n", args.output.c_str(), d.polynomial.r,
              std::chrono::duration<double>(Clock::now() - start).count());
}

}  // namespace

void add_precompute_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "precompute",
      "Reduce a model spec to one domain: linear modes, modal derivatives, "
      "mass-orthonormal basis, exact cubic StVK polynomial; writes an HDF5 model");
  command->add_option("spec", args->spec, "Model spec (JSON, see docs/SPEC.md)")->required();
  command->add_option("-o,--output", args->output, "Model file (.h5)")->required();
  command->add_option("--linear-modes", args->linear_modes, "Override reduction.linear_modes");
  command->add_option("-r", args->r, "Override reduction.r");
  command->add_flag("--no-modal-derivatives", args->no_modal_derivatives,
                    "Use the r lowest linear modes only");
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
