// `ramus check <mesh>`: report everything wrong with a mesh; exit status 1 if anything is.
// `ramus check <spec.json>`: preview what precompute would reduce, in seconds: the mesh, the
// anchors (count, bounding box, whether they hold) and the domains (names, tets, parents), with
// an optional VTU of both (point field `fixed`, cell field `domain`).
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "output_paths.h"
#include "printing_listener.h"
#include "ramus/error.h"
#include "ramus/precompute/formats/mesh_io.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/mesh/mesh_checks.h"
#include "ramus/precompute/pipeline/spec_mesh.h"
#include "simulate_cloth.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string input, output;
  bool allow_disconnected = false;
};

// The anchors: how many, where, and whether they can hold the mesh (at least 3 not on a line).
bool print_anchors(const TetMesh& mesh, const std::vector<int>& fixed) {
  if (fixed.empty()) {
    std::printf("anchors   none: a free body (its root domain flies)\n");
    return true;
  }
  Eigen::Vector3d low = Eigen::Vector3d::Constant(1e300), high = -low,
                  mean = Eigen::Vector3d::Zero();
  for (int v : fixed) {
    const Eigen::Vector3d x = mesh.rest_positions.row(v).transpose();
    low = low.cwiseMin(x);
    high = high.cwiseMax(x);
    mean += x / static_cast<double>(fixed.size());
  }
  Eigen::Matrix3d covariance = Eigen::Matrix3d::Zero();
  for (int v : fixed) {
    const Eigen::Vector3d d = mesh.rest_positions.row(v).transpose() - mean;
    covariance += d * d.transpose() / static_cast<double>(fixed.size());
  }
  const Eigen::Vector3d spread = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(covariance)
                                     .eigenvalues()
                                     .cwiseMax(0)
                                     .cwiseSqrt();
  const Eigen::MatrixX3d& X = mesh.rest_positions;
  const double size = (X.colwise().maxCoeff() - X.colwise().minCoeff()).norm();
  std::printf("anchors   %zu vertices in [%g, %g] x [%g, %g] x [%g, %g] m\n", fixed.size(), low(0),
              high(0), low(1), high(1), low(2), high(2));
  if (spread(1) > 1e-6 * size) return true;
  std::printf(
      "          they are one point or lie on one line: the mesh can rotate about them; "
      "fix at least 3 vertices not on one line\n");
  return false;
}

void check_spec(const Args& args) {
  const ModelSpec spec = load_spec(args.input);
  refuse_outputs_over_inputs(spec_input_files(spec), {{"--output", args.output}});
  if (spec.model == BodyModel::kMassSpring) {
    // A cloth: its particles, springs and pins as simulate-full would build them.
    const MassSpringCloth cloth = load_spec_cloth(spec).cloth;
    std::printf(
        "cloth     %s: %d particles (%.4g kg each, %.4g m^2), %d stretch and %d bending springs, "
        "%zu pinned\nok\n",
        spec.mesh_path.c_str(), cloth.num_particles(), cloth.particle_mass, cloth.area,
        cloth.num_stretch, cloth.num_springs() - cloth.num_stretch, cloth.pinned.size());
    return;
  }
  if (spec.assembly) {
    // An assembly: each part's mesh and base, and how often it is placed.
    std::printf("assembly  %s: %zu parts, %zu placements\n", args.input.c_str(),
                spec.assembly->parts.size(), spec.assembly->instances.size());
    for (std::size_t p = 0; p < spec.assembly->parts.size(); ++p) {
      const PartSpec& part = spec.assembly->parts[p];
      std::size_t placed = 0;
      for (const InstanceSpec& i : spec.assembly->instances)
        placed += i.part == static_cast<int>(p);
      if (part.mesh_path.empty()) {
        std::printf("part      %-16s domain '%s' of part '%s', placed %zu times\n",
                    part.name.c_str(), part.source_domain.c_str(),
                    spec.assembly->parts[static_cast<std::size_t>(part.source_part)].name.c_str(),
                    placed);
        continue;
      }
      TetMesh mesh = read_spec_tet_mesh(part.mesh_path, part.tetrahedralize, part.length_unit,
                                        printing_listener());
      const std::vector<int> base = select_vertices(mesh, part.base);
      std::printf("part      %-16s %s: %d vertices, %d tets, base %zu vertices, placed %zu times\n",
                  part.name.c_str(), part.mesh_path.c_str(), mesh.num_vertices(), mesh.num_tets(),
                  base.size(), placed);
    }
    std::printf("ok\n");
    return;
  }
  const auto [mesh, fixed] = load_spec_mesh(spec, printing_listener());
  std::printf("mesh      %s: %d vertices, %d tets\n", spec.mesh_path.c_str(), mesh.num_vertices(),
              mesh.num_tets());
  check_spec_forces(spec, mesh, printing_listener());
  const bool anchors_hold = print_anchors(mesh, fixed);
  // The domains precompute would reduce, root first.
  const DomainTree tree = spec_domain_tree(spec.domains, mesh, fixed, printing_listener());
  int depth = 0;
  for (int d : tree.depth) depth = std::max(depth, d);
  std::printf("domains   %d, tree depth %d\n", tree.num_domains, depth);
  std::vector<int> order(static_cast<std::size_t>(tree.num_domains));
  for (int d = 0; d < tree.num_domains; ++d) order[static_cast<std::size_t>(d)] = d;
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return tree.depth[static_cast<std::size_t>(a)] < tree.depth[static_cast<std::size_t>(b)];
  });
  // The modes each domain would get: the rules precompute applies (total_r spread and clamped,
  // the per-domain overrides), so a spec precompute refuses is refused here.
  const std::vector<ReductionSpec> reductions =
      domain_reductions(spec.reduction, spec.domains, tree, spec.spec_path, "domains");
  for (int d : order) {
    const auto k = static_cast<std::size_t>(d);
    const int parent = tree.parent[k];
    std::printf("  %-20s %7zu tets  r = %-3d  %s%s\n", tree.names[k].c_str(),
                tree.domain_tets[k].size(), reductions[k].r, parent < 0 ? "root" : "parent ",
                parent < 0 ? "" : tree.names[static_cast<std::size_t>(parent)].c_str());
  }
  if (!args.output.empty()) {
    Eigen::VectorXi flag = Eigen::VectorXi::Zero(mesh.num_vertices());
    for (int v : fixed) flag(v) = 1;
    VtuFields fields;
    fields.point_ints = {{"fixed", flag}};
    fields.cell_ints = {{"domain", tree.tet_domain}};
    fields.strings = {{"domain_names", tree.names}};
    write_vtu(args.output, mesh.rest_positions, mesh.tets, fields);
    std::printf(
        "output    %s (point field 'fixed', cell field 'domain': the order above is by "
        "depth; numbers are the domains' indices)\n",
        args.output.c_str());
  }
  if (!anchors_hold)
    throw InputError(spec.spec_path, 0, "fixed: the anchors cannot hold the mesh (see above)");
  std::printf("ok\n");
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* check = app.add_subcommand(
      "check",
      "Read a mesh and report inverted/degenerate tets, bad indices, unused vertices, "
      "duplicates and disconnected components (exit 1 if any); or read a spec (.json) and "
      "preview its anchors and domains without reducing anything");
  check->add_option("input", args->input, "Mesh file, or a spec (.json)")->required();
  check->add_option("-o,--output", args->output,
                    "A spec's preview as VTU: point field 'fixed', cell field 'domain'");
  check->add_flag("--allow-disconnected", args->allow_disconnected,
                  "Several connected components are not a problem");
  check->callback([args] {
    if (args->input.size() > 5 && args->input.substr(args->input.size() - 5) == ".json")
      return check_spec(*args);
    const TetMesh mesh = read_tet_mesh(args->input);
    report_read_notes(mesh, args->input, printing_listener());
    const MeshReport report = check_tet_mesh(mesh);
    std::cout << args->input << ":\n" << summarize(report);
    if (!report.ok(args->allow_disconnected)) {
      validate_tet_mesh(mesh, args->input, args->allow_disconnected);  // throws the first problem
      throw MeshError(args->input + ": mesh has problems (see above)");
    }
    std::cout << "ok\n";
  });
}

}  // namespace ramus::cli
