#include "simulate_local_global.h"

#include <chrono>
#include <cstdio>
#include <functional>

#include "output_paths.h"
#include "ramus/error.h"
#include "ramus/precompute/contact/collider_spec.h"
#include "ramus/precompute/fem/local_global_integrator.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "series_budget.h"

namespace ramus::cli {

namespace {

using Clock = std::chrono::steady_clock;

// The positions (3#V) as #V by 3 rows.
Eigen::MatrixX3d as_rows(const Eigen::VectorXd& flat) {
  return Eigen::Map<const VertexRows>(flat.data(), flat.size() / 3, 3);
}

LocalGlobalMethod method_of(const std::string& integrator) {
  if (integrator == "lg-be") return LocalGlobalMethod::kBackwardEuler;
  if (integrator == "lg-im") return LocalGlobalMethod::kImplicitMidpoint;
  return LocalGlobalMethod::kEnergyStabilizedMidpoint;
}

// What the run writes per frame: a cloth's triangles or a mesh's tets.
using FrameWriter =
    std::function<void(PvdSeriesWriter&, double, const Eigen::MatrixX3d&, const VtuFields&)>;

// The colliders and their Coulomb mu.
struct LocalGlobalColliders {
  std::vector<LevelSetCollider> colliders;
  std::vector<double> friction;
};

// The body the run steps, whatever it was made of.
struct Body {
  const ProjectiveEnergy& energy;
  Eigen::VectorXd masses;
  std::vector<int> fixed;
  Eigen::MatrixX3d rest;
  std::vector<PointForce> forces;
  const char* what;  // "cloth" or "tets", for the log
  LocalGlobalColliders colliders;
  std::optional<LocalGlobalSelfContact> self_contact;  // a cloth against itself
};

// The colliders of a run's contact options with their mu (friction after each step).
LocalGlobalColliders local_global_colliders(const ContactOptions& contact) {
  LocalGlobalColliders colliders;
  for (const ColliderContact& c : contact.colliders) {
    colliders.colliders.push_back(c.collider);
    colliders.friction.push_back(c.friction);
  }
  return colliders;
}

// Steps the body for the spec's steps (each of `substeps` local/global steps), writing frames.
void run_body(const ModelSpec& spec, const Body& body, const LocalGlobalRun& run,
              const FrameWriter& add_frame) {
  // Options from the spec's settings (the one list); the integrator.
  const FullSpaceSettings& full_space = spec.simulation.full_space;
  if (const std::string problem = find_full_space_problem(full_space); !problem.empty())
    throw OptionError(problem);
  LocalGlobalOptions options;
  const int substeps = full_space.substeps;
  options.time_step = spec.simulation.settings.time_step / substeps;
  options.gravity = spec.simulation.settings.gravity;
  options.iterations = full_space.local_global_iterations;
  options.stabilization_iterations = full_space.local_global_stabilization_iterations;
  options.energy_tolerance = run.energy_tolerance;
  options.momentum_damping = spec.simulation.domain.momentum_damping;
  options.colliders = body.colliders.colliders;
  options.collider_friction = body.colliders.friction;
  options.self_contact = body.self_contact;
  options.collision_stiffness = full_space.local_global_collision_stiffness;
  const VertexRows rest_rows = body.rest;
  const auto t_factor = Clock::now();
  LocalGlobalIntegrator integrator(
      body.energy, body.masses, body.fixed,
      Eigen::Map<const Eigen::VectorXd>(rest_rows.data(), rest_rows.size()), options);
  const double factor_seconds = std::chrono::duration<double>(Clock::now() - t_factor).count();
  const LocalGlobalMethod method = method_of(run.integrator);
  const int steps = spec.simulation.scenario.steps;
  std::printf(
      "model     %s, local/global: %d iterations%s, h = %g s%s, momentum damping %g, %d steps "
      "(M + h^2 L factored in %.3f s; spring damping and Rayleigh damping are not used)\n",
      run.integrator.c_str(), options.iterations,
      method == LocalGlobalMethod::kEnergyStabilizedMidpoint
          ? (", " + std::to_string(options.stabilization_iterations) +
             " to stabilize, energy within " + std::to_string(run.energy_tolerance))
                .c_str()
          : "",
      spec.simulation.settings.time_step,
      substeps > 1 ? (" in " + std::to_string(substeps) + " substeps").c_str() : "",
      options.momentum_damping, steps, factor_seconds);

  // The initial state and frame; the spec's cadence or one that keeps the series under 50 MB.
  FullSpaceState state = integrator.rest_state();
  if (spec.initial_velocity)
    for (Eigen::Index v = 0; v < body.rest.rows(); ++v)
      state.velocities.segment<3>(3 * v) = *spec.initial_velocity;
  for (int v : body.fixed) state.velocities.segment<3>(3 * v).setZero();
  PvdSeriesWriter writer(run.output.path,
                         run.output.ascii ? VtuEncoding::kAscii : VtuEncoding::kCompressed);
  const auto write_frame = [&] {
    const Eigen::MatrixX3d positions = as_rows(state.positions);
    VtuFields fields;
    fields.point_data = {{"displacement", positions - body.rest},
                         {"velocity", as_rows(state.velocities)}};
    add_frame(writer, state.time, positions, fields);
  };
  write_frame();
  SeriesBudget budget(spec.simulation.scenario.output_every, steps,
                      spec.simulation.output_every_given);
  int output_every =
      budget.after_frame(0, files_bytes({writer.frame_path(writer.num_frames() - 1)}));
  const int n = static_cast<int>(body.rest.rows());
  const double start_energy =
      integrator.total_energy(state, point_forces_at(body.forces, n, state.time));

  // Step by step: the point forces at the step's start, its substeps, the log.
  double seconds = 0, max_displacement = 0, damping_loss = 0, largest_alpha = 0, deepest = 0,
         friction_loss = 0, self_repulsion_loss = 0;
  int self_impulses = 0;
  int iterations = 0, toward_euler = 0, toward_forward = 0;
  const int print_every = std::max(1, steps / 10);
  for (int step = 1; step <= steps; ++step) {
    const Eigen::VectorXd forces = point_forces_at(body.forces, n, state.time);
    const auto t0 = Clock::now();
    LocalGlobalReport last;
    for (int k = 0; k < substeps; ++k) {
      last = integrator.step(state, method, forces);
      iterations += last.iterations;
      damping_loss += last.damping_loss;
      friction_loss += last.friction_loss;
      self_repulsion_loss += last.self_repulsion_loss;
      self_impulses += last.self_impulses;
      toward_euler += last.blend == 1;
      toward_forward += last.blend == -1;
      largest_alpha = std::max(largest_alpha, last.alpha);
      deepest = std::max(deepest, last.deepest);
    }
    const double step_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    seconds += step_seconds;
    if (!state.positions.allFinite())
      throw NumericalError("the " + std::string(body.what) + " diverged at step " +
                           std::to_string(step));
    const double displacement = (as_rows(state.positions) - body.rest).rowwise().norm().maxCoeff();
    max_displacement = std::max(max_displacement, displacement);
    if (step % output_every == 0) {
      write_frame();
      output_every =
          budget.after_frame(step, files_bytes({writer.frame_path(writer.num_frames() - 1)}));
    }
    if (!run.output.quiet && (step % print_every == 0 || step == 1))
      std::printf("step %5d  t = %7.4f s  %7.2f ms  max |u| = %.4g m  H = %.6g J%s\n", step,
                  state.time, 1e3 * step_seconds, displacement,
                  integrator.total_energy(state, forces),
                  last.blend == 0 ? ""
                                  : (std::string(last.blend > 0 ? "  toward BE" : "  toward FE") +
                                     " alpha " + std::to_string(last.alpha))
                                        .c_str());
  }
  writer.finish();

  // The summary: time, iterations, the blend, the energy against its track.
  const int divisor = std::max(1, steps);
  const Eigen::VectorXd end_forces = point_forces_at(body.forces, n, state.time);
  std::printf(
      "summary   %d steps in %.3f s: %.3f ms/step, %.1f local/global iterations/step, max |u| = "
      "%.4g m\n",
      steps, seconds, 1e3 * seconds / divisor, static_cast<double>(iterations) / divisor,
      max_displacement);
  if (!body.colliders.colliders.empty())
    std::printf(
        "contact   %zu colliders (projective, weight %g m / h^2; Coulomb friction after each "
        "step): deepest vertex %.4g m inside, friction took %.4g J\n",
        body.colliders.colliders.size(), options.collision_stiffness, deepest, friction_loss);
  if (body.self_contact)
    std::printf(
        "self      the cloth against itself: %d repulsion impulses after the steps (%g m kept "
        "between layers), their energy change %.4g J\n",
        self_impulses, body.self_contact->repulsion.thickness, -self_repulsion_loss);
  if (method == LocalGlobalMethod::kEnergyStabilizedMidpoint)
    std::printf(
        "blend     %d steps toward backward Euler, %d toward forward Euler (of %d), largest alpha "
        "%.3g\n",
        toward_euler, toward_forward, steps * substeps, largest_alpha);
  std::printf(
      "energy    kinetic + elastic + gravity and forces: start %.6g J, end %.6g J, tracked total "
      "%.6g J; momentum damping removed %.4g J\n",
      start_energy, integrator.total_energy(state, end_forces), state.energy_target, damping_loss);
  budget.report("the spec's simulation.output_every");
  std::printf("output    %s (%d frames; %s)\n", run.output.path.c_str(), writer.num_frames(),
              kFrameConvention);
}

}  // namespace

bool is_local_global_integrator(const std::string& integrator) {
  return integrator == "lg-be" || integrator == "lg-im" || integrator == "lg-im-blend";
}

void simulate_local_global_cloth(const ModelSpec& spec, const LocalGlobalRun& run) {
  const SpecCloth loaded = load_spec_cloth(spec);
  const MassSpringCloth& cloth = loaded.cloth;
  const ProjectiveEnergy energy = projective_cloth_energy(cloth);
  std::printf(
      "cloth     %s: %d particles (%.4g kg each), %d stretch and %d bending springs, %zu "
      "pinned\n",
      spec.mesh_path.c_str(), cloth.num_particles(), cloth.particle_mass, cloth.num_stretch,
      cloth.num_springs() - cloth.num_stretch, cloth.pinned.size());
  const Eigen::VectorXd masses =
      Eigen::VectorXd::Constant(cloth.num_particles(), cloth.particle_mass);
  std::vector<std::string> warnings;
  const ContactOptions contact =
      resolve_contact_options(spec.contact, spec.spec_path, cloth.rest_positions, masses, warnings);
  for (const std::string& warning : warnings)
    std::fprintf(stderr, "ramus: warning: %s: %s\n", spec.spec_path.c_str(), warning.c_str());
  Body body{energy,
            masses,
            cloth.pinned,
            cloth.rest_positions,
            loaded.forces,
            "cloth",
            local_global_colliders(contact),
            std::nullopt};
  if (const std::optional<ClothSelfRepulsionOptions> repulsion = cloth_self_repulsion(spec)) {
    if (run.integrator != "lg-be")
      throw OptionError("--integrator " + run.integrator +
                        ": contact.self_collision steps with lg-be (or be) only; the midpoint "
                        "turns the repulsion's inelastic impulses into bounces and diverges");
    body.self_contact = LocalGlobalSelfContact{cloth.triangles, *repulsion};
  }
  run_body(spec, body, run,
           [&](PvdSeriesWriter& writer, double time, const Eigen::MatrixX3d& positions,
               const VtuFields& fields) {
             writer.add_surface_frame(time, positions, cloth.triangles, fields);
           });
}

void simulate_local_global_tets(const ModelSpec& spec, const TetMesh& mesh,
                                const StvkFemModel& model, const std::vector<int>& fixed,
                                const ContactOptions& contact, const LocalGlobalRun& run) {
  if (contact.self_collision.enabled)
    throw OptionError("--integrator " + run.integrator +
                      ": the local/global solver has no self-collision for tets "
                      "(contact.self_collision); use be or im-blend");
  LocalGlobalColliders colliders = local_global_colliders(contact);
  const ProjectiveEnergy energy = projective_corotated_energy(model);
  std::printf("mesh      %s: %d vertices, %d tets, %zu fixed vertices, mass %.4g kg\n",
              spec.mesh_path.c_str(), mesh.num_vertices(), mesh.num_tets(), fixed.size(),
              model.total_mass());
  const Body body{
      energy, model.lumped_vertex_masses(), fixed,       mesh.rest_positions, spec.forces,
      "mesh", std::move(colliders),         std::nullopt};
  run_body(spec, body, run,
           [&](PvdSeriesWriter& writer, double time, const Eigen::MatrixX3d& positions,
               const VtuFields& fields) { writer.add_frame(time, positions, mesh.tets, fields); });
}

}  // namespace ramus::cli
