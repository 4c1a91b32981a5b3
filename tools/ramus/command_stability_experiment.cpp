// `ramus stability-experiment -o spin.csv`: the midpoint paper's Fig. 5 ("Stabilizing integrators
// for real-time physics", 2018): a deformable cube of corotated material spinning freely, no
// gravity, h = 0.033 s; its total energy and angular momentum over time for backward Euler,
// BDF2, Newmark and the energy-tracking midpoint solved by Newton, and for backward Euler,
// implicit midpoint and the energy-stabilized midpoint by the local/global solver (10
// iterations, 1 to stabilize). Each curve is relative to its own start (H / H_0, L / L_0), so
// Newton's consistent mass and the local/global solver's lumped one compare. `--scene spring`:
// the paper's Fig. 2-3, a 0.5 kg particle revolving on a stiff spring to the fixed origin,
// E = k (|x| - 1)², k = 1e5 N/m, from (1.5, 0, 0) at (0, 10, 0) m/s (local/global only).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "finite_number.h"
#include "plot_script.h"
#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/precompute/fem/local_global_integrator.h"
#include "ramus/precompute/formats/atomic_file.h"
#include "ramus/precompute/generators/mesh_generators.h"

namespace ramus::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string output, scene = "cube";
  int steps = 600, cells = 4, iterations = 10;
  double time_step = 0.033, youngs_modulus = 1e6, spin = 3, stretch = 0.2;
  bool newton = true;
  PlotOptions plot;
};

// One method's run: H / H_0 and L_z / L_z0 per step (cut where it diverged), its time.
struct Series {
  std::string name;
  std::vector<double> energy, momentum;
  double seconds_per_step = 0;
  int diverged_at = -1;
};

// The spinning cube: 1 m, `cells`³ cubes of 6 tets, fixed corotated with nu = 0 (the energy both
// solvers minimize), rho = 1000, stretched by `stretch` along x and spinning at `spin` rad/s
// about z through its centre.
struct Cube {
  TetMesh mesh;
  StvkFemModel model;
  Eigen::SparseMatrix<double> mass;
  explicit Cube(const Args& args)
      : mesh(make_box_tet_mesh(Eigen::Vector3d(1, 1, 1), args.cells, args.cells, args.cells)),
        model(mesh, assign_materials(
                        mesh, {args.youngs_modulus, 0, 1000, ElasticModel::kFixedCorotated})),
        mass(model.consistent_mass_matrix()) {}
  void start(const Args& args, FullSpaceState& state) const {
    const Eigen::Vector3d center = mesh.rest_positions.colwise().mean();
    const Eigen::Vector3d omega(0, 0, args.spin);
    for (int v = 0; v < mesh.num_vertices(); ++v) {
      Eigen::Vector3d r = mesh.rest_positions.row(v).transpose() - center;
      r.x() *= 1 + args.stretch;
      state.positions.segment<3>(3 * v) = center + r;
      state.velocities.segment<3>(3 * v) = omega.cross(r);
    }
  }
  // L_z about the centre of mass with the mass matrix given (consistent or lumped), kg m²/s.
  double angular_momentum(const Eigen::VectorXd& x, const Eigen::VectorXd& momentum) const {
    double total_mass = 0, lz = 0;
    Eigen::Vector3d center = Eigen::Vector3d::Zero(), p = Eigen::Vector3d::Zero();
    const Eigen::VectorXd m = model.lumped_vertex_masses();
    for (int v = 0; v < mesh.num_vertices(); ++v) {
      total_mass += m(v);
      center += m(v) * x.segment<3>(3 * v);
      p += momentum.segment<3>(3 * v);
    }
    center /= total_mass;
    for (int v = 0; v < mesh.num_vertices(); ++v)
      lz += Eigen::Vector3d(x.segment<3>(3 * v) - center)
                .cross(Eigen::Vector3d(momentum.segment<3>(3 * v)))(2);
    return lz;
  }
};

// Steps `step` for the run's steps, recording H and L_z relative to the start; a run whose
// energy grows past 1000 H_0 or stops being finite is cut there.
template <typename Step, typename Energy, typename Momentum>
Series record(const std::string& name, const Args& args, FullSpaceState& state, Step&& step,
              Energy&& energy, Momentum&& momentum) {
  Series s{name, {1.0}, {1.0}};
  const double h0 = energy(state), l0 = momentum(state);
  const auto start = Clock::now();
  int taken = 0;
  for (int k = 1; k <= args.steps; ++k) {
    try {
      step(state);
    } catch (const Error&) {
      s.diverged_at = k;
      break;
    }
    ++taken;
    const double h = energy(state) / h0;
    if (!std::isfinite(h) || h > 1000 || !state.positions.allFinite()) {
      s.diverged_at = k;
      break;
    }
    s.energy.push_back(h);
    s.momentum.push_back(momentum(state) / l0);
  }
  s.seconds_per_step =
      std::chrono::duration<double>(Clock::now() - start).count() / std::max(1, taken);
  return s;
}

Series run_newton(const Cube& cube, const std::string& name, const Args& args) {
  FullSpaceOptions options;
  options.time_step = args.time_step;
  FullSpaceSimulator simulator(cube.model, DofMap(cube.mesh.num_vertices(), {}), options);
  FullSpaceState state = simulator.rest_state();
  cube.start(args, state);
  if (name == "newmark") simulator.initialize_acceleration(state);
  return record(
      name, args, state,
      [&](FullSpaceState& s) {
        if (name == "be") simulator.step_backward_euler(s);
        if (name == "bdf2") simulator.step_bdf2(s);
        if (name == "newmark") simulator.step_newmark(s);
        if (name == "im-blend") simulator.step_energy_tracking_midpoint(s);
      },
      [&](const FullSpaceState& s) { return simulator.total_energy(s); },
      [&](const FullSpaceState& s) {
        return cube.angular_momentum(s.positions, cube.mass * s.velocities);
      });
}

LocalGlobalMethod local_global_method(const std::string& name) {
  return name == "lg-be"   ? LocalGlobalMethod::kBackwardEuler
         : name == "lg-im" ? LocalGlobalMethod::kImplicitMidpoint
                           : LocalGlobalMethod::kEnergyStabilizedMidpoint;
}

Series run_local_global(const Cube& cube, const ProjectiveEnergy& energy, const std::string& name,
                        const Args& args) {
  LocalGlobalOptions options;
  options.time_step = args.time_step;
  options.iterations = args.iterations;
  LocalGlobalIntegrator integrator(energy, cube.model.lumped_vertex_masses(), {},
                                   cube.model.rest_positions(), options);
  const LocalGlobalMethod method = local_global_method(name);
  FullSpaceState state = integrator.rest_state();
  cube.start(args, state);
  const Eigen::VectorXd m = integrator.masses().replicate(1, 3).transpose().reshaped();
  return record(
      name, args, state, [&](FullSpaceState& s) { integrator.step(s, method); },
      [&](const FullSpaceState& s) { return integrator.total_energy(s); },
      [&](const FullSpaceState& s) {
        return cube.angular_momentum(s.positions, m.cwiseProduct(s.velocities));
      });
}

// The paper's Fig. 2-3: the particle (vertex 1, 0.5 kg) on a spring of rest length 1 m to the
// fixed origin (vertex 0), projective weight w = 2k so that E = k (|x| - 1)².
Series run_spring(const std::string& name, const Args& args) {
  const ProjectiveEnergy energy(2,
                                {Eigen::MatrixX2i{{0, 1}}, Eigen::VectorXd::Constant(1, 1.0),
                                 Eigen::VectorXd::Constant(1, 2e5)},
                                {});
  LocalGlobalOptions options;
  options.time_step = args.time_step;
  options.iterations = args.iterations;
  const Eigen::VectorXd rest = (Eigen::VectorXd(6) << 0, 0, 0, 1, 0, 0).finished();
  LocalGlobalIntegrator integrator(energy, Eigen::Vector2d(0.5, 0.5), {0}, rest, options);
  FullSpaceState state = integrator.rest_state();
  state.positions(3) = 1.5;
  state.velocities(4) = 10;
  const LocalGlobalMethod method = local_global_method(name);
  return record(
      name, args, state, [&](FullSpaceState& s) { integrator.step(s, method); },
      [&](const FullSpaceState& s) { return integrator.total_energy(s); },
      [&](const FullSpaceState& s) {
        return 0.5 * Eigen::Vector3d(s.positions.segment<3>(3))
                         .cross(Eigen::Vector3d(s.velocities.segment<3>(3)))
                         .z();
      });
}

// CSV: time, H / H_0 per method, then L_z / L_z0 per method (empty past a divergence).
void write_series(const std::string& path, const std::vector<Series>& series, const Args& args) {
  write_stream_atomically(path, [&](std::ostream& out) {
    out << "time";
    for (const Series& s : series) out << ",H " << s.name;
    for (const Series& s : series) out << ",L " << s.name;
    out << '\n';
    out.precision(10);
    for (int k = 0; k <= args.steps; ++k) {
      out << k * args.time_step;
      const auto row = static_cast<std::size_t>(k);
      for (const Series& s : series) out << ',' << (row < s.energy.size() ? s.energy[row] : NAN);
      for (const Series& s : series)
        out << ',' << (row < s.momentum.size() ? s.momentum[row] : NAN);
      out << '\n';
    }
  });
}

void run_cube(const Args& args, std::vector<Series>& series);
void print_summary(const std::vector<Series>& series);

void run(const Args& args) {
  check_plot_target(args.plot, args.output);
  if (args.steps < 1 || args.steps > 10000000) throw OptionError("--steps must be >= 1");
  if (args.cells < 1 || args.cells > 40) throw OptionError("--cells must be between 1 and 40");
  if (!(args.time_step > 0 && args.time_step <= 1))
    throw OptionError("--dt must lie in (0, 1] s, got " + std::to_string(args.time_step));
  std::vector<Series> series;
  if (args.scene == "spring") {
    std::printf(
        "spring    0.5 kg on k = 1e5 N/m (E = k (|x| - 1)^2) to the fixed origin, from (1.5, 0, 0) "
        "at (0, 10, 0) m/s; h = %g s, %d steps, %d local/global iterations a solve\n",
        args.time_step, args.steps, args.iterations);
    for (const char* name : {"lg-be", "lg-im", "lg-im-blend"})
      series.push_back(run_spring(name, args));
  } else {
    run_cube(args, series);
  }
  write_series(args.output, series, args);
  print_summary(series);
  std::printf("curves    %s (H / H_0 and L_z / L_z0 of each method over time)\n",
              args.output.c_str());
  write_plot(args.plot, "plot_stability_experiment.py", args.output);
}

// The spinning cube's runs: Newton's methods (to tolerance), then the local/global solver's.
void run_cube(const Args& args, std::vector<Series>& series) {
  const Cube cube(args);
  std::printf(
      "cube      1 m, %d tets, %d vertices, fixed corotated E = %g Pa, nu = 0, rho = 1000; "
      "stretched %g along x, spinning %g rad/s about z; h = %g s, %d steps\n",
      cube.mesh.num_tets(), cube.mesh.num_vertices(), args.youngs_modulus, args.stretch, args.spin,
      args.time_step, args.steps);

  if (args.newton)
    for (const char* name : {"be", "bdf2", "newmark", "im-blend"})
      series.push_back(run_newton(cube, name, args));
  const ProjectiveEnergy energy = projective_corotated_energy(cube.model);
  for (const char* name : {"lg-be", "lg-im", "lg-im-blend"})
    series.push_back(run_local_global(cube, energy, name, args));
}

// Largest and last H / H_0, last L / L_0, time per step of each method.
void print_summary(const std::vector<Series>& series) {
  std::printf("%-12s %10s %10s %10s %12s  %s\n", "method", "max H/H0", "end H/H0", "end L/L0",
              "ms/step", "");
  for (const Series& s : series) {
    double highest = 0;
    for (double h : s.energy) highest = std::max(highest, h);
    std::printf(
        "%-12s %10.4f %10.4f %10.4f %12.3f  %s\n", s.name.c_str(), highest, s.energy.back(),
        s.momentum.back(), 1e3 * s.seconds_per_step,
        s.diverged_at < 0 ? "" : ("diverged at step " + std::to_string(s.diverged_at)).c_str());
  }
}

}  // namespace

void add_stability_experiment_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* command = app.add_subcommand(
      "stability-experiment",
      "The midpoint paper's Fig. 5 (a spinning corotated cube) or Fig. 2-3 (--scene spring); total "
      "energy and angular momentum "
      "over time for backward Euler, BDF2, Newmark and the energy-tracking midpoint (Newton) and "
      "for backward Euler, midpoint and the energy-stabilized midpoint (local/global); CSV and "
      "PNG");
  command->add_option("-o,--output", args->output, "Curves (.csv)")->required();
  command->add_option("--steps", args->steps, "Steps")->capture_default_str();
  command->add_option("--dt", args->time_step, "Time step (s)")->capture_default_str();
  command->add_option("--cells", args->cells, "Cubes along each side (6 tets each)")
      ->capture_default_str();
  command->add_option("--youngs", args->youngs_modulus, "Young's modulus (Pa)")
      ->capture_default_str()
      ->check(CLI::Range(1e-3, 1e13) & finite_number());
  command->add_option("--spin", args->spin, "Angular velocity about z (rad/s)")
      ->capture_default_str()
      ->check(CLI::Range(-1e3, 1e3) & finite_number());
  command->add_option("--stretch", args->stretch, "Initial stretch along x (0.2: 20 %)")
      ->capture_default_str()
      ->check(CLI::Range(-0.5, 2.0) & finite_number());
  command->add_flag("!--no-newton", args->newton, "Skip Newton's methods (the slow ones)");
  command->add_option("--scene", args->scene, "cube (Fig. 5) or spring (Fig. 2-3)")
      ->capture_default_str()
      ->check(CLI::IsMember({"cube", "spring"}));
  command
      ->add_option("--iterations", args->iterations,
                   "Local/global iterations a solve (the spring's runs converge at 100)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  add_plot_options(*command, args->plot);
  command->callback([args] { run(*args); });
}

}  // namespace ramus::cli
