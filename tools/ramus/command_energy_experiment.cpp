// `ramus energy-experiment -o energy.csv`: the survey's Fig. 6 (stiff-and-soft-integrators-
// survey.txt §4): a soft StVK beam fixed at both ends falls under gravity from rest; the
// potential energy (elastic + gravity) over time for every reduced integrator and for the
// full-space reference methods (backward Euler, Newmark). Also the energy audit the default
// integrator is chosen by (docs/INTEGRATORS.md): the largest gain of the total energy
// H = T + V over its start, which no dissipative method may show (gravity is in V).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "finite_number.h"
#include "plot_script.h"
#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/precompute/generators/mesh_generators.h"
#include "ramus/precompute/mesh/tetrahedralize.h"
#include "ramus/precompute/reduction/reduced_domain_builder.h"
#include "ramus/runtime/model/model.h"
#include "ramus/runtime/simulator.h"

namespace ramus::cli {

namespace {

struct Args {
  std::string output;
  int steps = 300;
  double time_step = 0.01;
  double youngs_modulus = 1e5;
  int r = 20, linear_modes = 10, split_modes = 10;
  bool full = true;
  std::string object = "beam";
  PlotOptions plot;
};

// A soft blob: an icosphere (2 subdivisions) of radius 0.15 m, its vertical axis stretched to
// 0.2 m (0.3 m wide, 0.4 m tall),
// tetrahedralized by TetGen (tets of at most 1e-5 m³), anchored where it sits (z within 0.03 m
// of its bottom).
TetMesh blob_mesh(std::vector<int>& anchored) {
  const double t = (1 + std::sqrt(5.0)) / 2;
  std::vector<Eigen::Vector3d> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                    {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                    {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<Eigen::Vector3i> f = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                    {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                    {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                    {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  for (int level = 0; level < 2; ++level) {
    std::map<std::pair<int, int>, int> middle;
    const auto mid = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      const auto it = middle.find(key);
      if (it != middle.end()) return it->second;
      v.push_back((v[static_cast<std::size_t>(a)] + v[static_cast<std::size_t>(b)]) / 2);
      return middle[key] = static_cast<int>(v.size()) - 1;
    };
    std::vector<Eigen::Vector3i> finer;
    for (const Eigen::Vector3i& tri : f) {
      const int a = mid(tri(0), tri(1)), b = mid(tri(1), tri(2)), c = mid(tri(2), tri(0));
      finer.insert(finer.end(), {{tri(0), a, c}, {tri(1), b, a}, {tri(2), c, b}, {a, b, c}});
    }
    f = finer;
  }
  SurfaceMesh surface;
  surface.vertices.resize(static_cast<Eigen::Index>(v.size()), 3);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const Eigen::Vector3d p = v[i].normalized() * 0.15;
    surface.vertices.row(static_cast<Eigen::Index>(i)) << p(0), p(1), p(2) * 4.0 / 3.0;
  }
  surface.triangles.resize(static_cast<Eigen::Index>(f.size()), 3);
  for (std::size_t i = 0; i < f.size(); ++i)
    surface.triangles.row(static_cast<Eigen::Index>(i)) = f[i].transpose();
  TetrahedralizeOptions options;
  options.max_volume = 1e-5;
  options.label_regions = false;
  TetMesh mesh = tetrahedralize(surface, options, "blob");
  const double bottom = mesh.rest_positions.col(2).minCoeff();
  for (int i = 0; i < mesh.num_vertices(); ++i)
    if (mesh.rest_positions(i, 2) < bottom + 0.03) anchored.push_back(i);
  return mesh;
}

using Clock = std::chrono::steady_clock;

struct Series {
  std::string name;
  std::vector<double> potential, total;
  double seconds_per_step = 0;
  std::string failure;
};

// One reduced integrator from rest under gravity: V and H at every step, its cost.
Series run_reduced(const std::shared_ptr<const Model>& model, Integrator integrator,
                   const Args& args, const Eigen::Vector3d& gravity) {
  Series s;
  s.name = to_string(integrator);
  if (uses_split_modes(integrator)) s.name += " s=" + std::to_string(args.split_modes);
  RuntimeSettings settings;
  settings.time_step = args.time_step;
  settings.gravity = gravity;
  DomainSettings domain;
  domain.integrator = integrator;
  domain.split_modes = args.split_modes;
  domain.split_refresh_steps = 1;  // (the survey's exact methods: the modes of every step)
  settings.domains = {domain};
  Simulator sim(model, settings);
  const Eigen::VectorXd load = model->parts[0].gravity_basis * gravity;
  const auto start = Clock::now();
  for (int k = 0; k <= args.steps; ++k) {
    if (k > 0) {
      const StepStatus status = sim.step();
      if (status != StepStatus::kOk) {
        s.failure = std::string(to_string(status)) + " at step " + std::to_string(k);
        break;
      }
    }
    const double potential = sim.elastic_energy() - load.dot(sim.state().q);
    s.potential.push_back(potential);
    s.total.push_back(potential + sim.kinetic_energy());
  }
  s.seconds_per_step = std::chrono::duration<double>(Clock::now() - start).count() / args.steps;
  return s;
}

// The full-space reference from rest: BE (minimization) or Newmark (trapezoidal), to tolerance.
Series run_full(const StvkFemModel& fem, const DofMap& dofs, bool newmark, const Args& args,
                const Eigen::Vector3d& gravity) {
  const Eigen::VectorXd weight = fem.gravity_forces(gravity);
  Series s;
  s.name = newmark ? "full newmark" : "full be";
  FullSpaceOptions options;
  options.time_step = args.time_step;
  options.gravity = gravity;
  FullSpaceSimulator full(fem, dofs, options);
  FullSpaceState state = full.rest_state();
  if (newmark) full.initialize_acceleration(state);
  const Eigen::SparseMatrix<double> mass = fem.consistent_mass_matrix();
  const auto start = Clock::now();
  for (int k = 0; k <= args.steps; ++k) {
    if (k > 0) {
      if (newmark)
        full.step_newmark(state);
      else
        full.step_backward_euler(state);
      if (!state.positions.allFinite()) {
        s.failure = "non-finite at step " + std::to_string(k);
        break;
      }
    }
    const Eigen::VectorXd u = state.positions - fem.rest_positions();
    const double potential = fem.elastic_energy(state.positions) - weight.dot(u);
    s.potential.push_back(potential);
    s.total.push_back(potential + 0.5 * state.velocities.dot(mass * state.velocities));
  }
  s.seconds_per_step = std::chrono::duration<double>(Clock::now() - start).count() / args.steps;
  return s;
}

// CSV: time, potential energy per method, then total energy per method.
void write_energies(const std::string& path, const std::vector<Series>& series, const Args& args) {
  write_stream_atomically(path, [&](std::ostream& out) {
    out << "time";
    for (const Series& s : series) out << ",V " << s.name;
    for (const Series& s : series) out << ",H " << s.name;
    out << '\n';
    out.precision(12);
    for (int k = 0; k <= args.steps; ++k) {
      out << k * args.time_step;
      const std::size_t row = static_cast<std::size_t>(k);
      for (const Series& s : series)
        out << ',' << (row < s.potential.size() ? s.potential[row] : NAN);
      for (const Series& s : series) out << ',' << (row < s.total.size() ? s.total[row] : NAN);
      out << '\n';
    }
  });
}

// Summary: the static potential (the deepest V of the damped reference), how much of the
// initial fall's oscillation is left (V's spread over the last 10 % of the run, relative to
// |V_static|), and the largest energy gain.
void report_energies(const std::vector<Series>& series, const Args& args) {
  double v_static = 0;
  for (const Series& s : series)
    if (s.name == "be" && !s.potential.empty()) v_static = s.potential.back();
  std::printf("%-22s %12s %14s %16s %12s\n", "method", "V end (J)", "V swing (end)", "max H gain",
              "us/step");
  for (const Series& s : series) {
    if (!s.failure.empty()) {
      std::printf("%-22s failed: %s\n", s.name.c_str(), s.failure.c_str());
      continue;
    }
    const std::size_t n = s.potential.size(), tail = std::max<std::size_t>(1, n / 10);
    double lo = s.potential[n - 1], hi = lo, gain = 0;
    for (std::size_t k = n - tail; k < n; ++k) {
      lo = std::min(lo, s.potential[k]);
      hi = std::max(hi, s.potential[k]);
    }
    for (double h : s.total) gain = std::max(gain, h - s.total.front());
    std::printf("%-22s %12.5g %14.3g %16.3g %12.1f\n", s.name.c_str(), s.potential.back(),
                (hi - lo) / std::abs(v_static), gain / std::abs(v_static),
                1e6 * s.seconds_per_step);
  }
  std::printf(
      "energies %s (V: elastic + gravity potential; H = V + kinetic; gains and swings "
      "relative to |V| at rest, %.4g J)\n",
      args.output.c_str(), std::abs(v_static));
}

void run(const Args& args) {
  check_plot_target(args.plot, args.output);
  if (args.steps < 1 || args.steps > 10000000) throw OptionError("--steps must be >= 1");
  if (!(args.time_step > 0) || !std::isfinite(args.time_step))
    throw OptionError("--dt must be positive");
  if (!(args.youngs_modulus > 0)) throw OptionError("--youngs must be positive");
  if (args.split_modes < 0 || args.split_modes > kMaxSplitModes)
    throw OptionError("--modes must be between 0 and " + std::to_string(kMaxSplitModes));

  // The survey's beam: 32 x 4 x 4 cubes (1 x 0.125 x 0.125 m; 6 Kuhn tets per cube here, the
  // survey's 5), E as given, nu = 0.4, rho = 1000, both ends fixed, gravity -z.
  if (args.object != "beam" && args.object != "blob")
    throw OptionError("--object must be beam or blob, got \"" + args.object + "\"");
  std::vector<int> fixed;
  TetMesh mesh;
  if (args.object == "blob") {
    mesh = blob_mesh(fixed);
  } else {
    mesh = make_box_tet_mesh(Eigen::Vector3d(1, 0.125, 0.125), 32, 4, 4);
    for (int v = 0; v < mesh.num_vertices(); ++v)
      if (mesh.rest_positions(v, 0) == 0.0 || mesh.rest_positions(v, 0) == 1.0) fixed.push_back(v);
  }
  const StvkFemModel fem(mesh, assign_materials(mesh, {args.youngs_modulus, 0.4, 1000}));
  const DofMap dofs(mesh.num_vertices(), fixed);
  const Eigen::Vector3d gravity(0, 0, -9.81);
  const auto model = compile_model(
      single_domain_model(build_reduced_part(fem, dofs, {args.linear_modes, args.r, true})));
  std::printf(
      "%-9s %d tets, %d vertices, E = %g Pa, nu = 0.4, %zu anchored vertices; reduced "
      "r = %d; h = %g s, %d steps\n",
      args.object.c_str(), mesh.num_tets(), mesh.num_vertices(), args.youngs_modulus, fixed.size(),
      model->num_dofs, args.time_step, args.steps);

  std::vector<Series> series;
  // Every reduced integrator from rest, then the full-space references.
  for (int i = 1; i <= kNumIntegrators; ++i)
    series.push_back(run_reduced(model, static_cast<Integrator>(i), args, gravity));
  if (args.full)
    for (const bool newmark : {false, true})
      series.push_back(run_full(fem, dofs, newmark, args, gravity));
  write_energies(args.output, series, args);
  report_energies(series, args);
  write_plot(args.plot, "plot_energy_experiment.py", args.output);
}

}  // namespace

void add_energy_experiment_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "energy-experiment",
      "The survey's Fig. 6: a soft beam fixed at both ends falls under gravity; potential energy "
      "over time for every integrator, reduced and full-space (CSV and PNG), and each one's energy "
      "gain");
  command->add_option("-o,--output", args->output, "Energies (.csv)")->required();
  command->add_option("--steps", args->steps, "Steps")->capture_default_str();
  command->add_option("--dt", args->time_step, "Time step (s)")->capture_default_str();
  command->add_option("--youngs", args->youngs_modulus, "Young's modulus (Pa)")
      ->capture_default_str()
      ->check(CLI::Range(1e-3, 1e13) & finite_number());
  command->add_option("--r", args->r, "Reduced basis size")->capture_default_str();
  command->add_option("--modes", args->split_modes, "s of the split integrators")
      ->capture_default_str();
  command->add_flag("!--no-full", args->full, "Skip the full-space reference runs");
  command
      ->add_option("--object", args->object,
                   "beam (the survey's, both ends fixed) or blob (a soft ellipsoid anchored "
                   "at its base)")
      ->capture_default_str();
  add_plot_options(*command, args->plot);
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
