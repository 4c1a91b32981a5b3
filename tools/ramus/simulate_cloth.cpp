#include "simulate_cloth.h"

#include <chrono>
#include <cstdio>
#include <limits>

#include "output_paths.h"
#include "ramus/error.h"
#include "ramus/precompute/cloth/implicit_euler_cloth.h"
#include "ramus/precompute/contact/collider_spec.h"
#include "ramus/precompute/formats/vtu_io.h"
#include "ramus/precompute/pipeline/spec_mesh.h"
#include "series_budget.h"

namespace ramus::cli {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

std::optional<ClothSelfRepulsionOptions> cloth_self_repulsion(const ModelSpec& spec) {
  if (!spec.contact.self_collision) return std::nullopt;
  if (spec.contact.self_depth || spec.contact.self_stiffness)
    throw OptionError(
        "contact.self_depth and contact.self_stiffness set the tet mesh's penalty; a cloth keeps "
        "cloth.thickness between its layers, pushed by its stretch stiffness");
  ClothSelfRepulsionOptions options;
  options.thickness = spec.cloth.thickness;
  options.stiffness = spec.cloth.stretch_stiffness;
  options.friction = spec.contact.self_friction;
  return options;
}

SpecCloth load_spec_cloth(const ModelSpec& spec) {
  const SurfaceMesh surface = read_spec_surface(spec.mesh_path, spec.length_unit);
  TetMesh points;  // (the selectors read positions only)
  points.rest_positions = surface.vertices;
  SpecCloth loaded;
  loaded.forces = spec.forces;
  std::vector<int> pinned;
  try {
    pinned = select_vertices(points, spec.fixed);
    resolve_point_forces(points, loaded.forces);
  } catch (const MeshError& e) {
    throw InputError(spec.spec_path, 0, e.what());
  }
  loaded.cloth = build_mass_spring_cloth(surface, spec.cloth, pinned, spec.mesh_path);
  return loaded;
}

namespace {

// The positions (3#V) as #V by 3 rows.
Eigen::MatrixX3d as_rows(const Eigen::VectorXd& flat) {
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>>(
      flat.data(), flat.size() / 3, 3);
}

// The run's totals.
struct ClothTotals {
  int steps = 0, discarded = 0, cg_iterations = 0, unconverged = 0, kept_over = 0;
  double seconds = 0, largest_strain = 0, largest_step_strain = 0, max_displacement = 0;
  int most_contacts = 0, releases = 0, self_impulses = 0;
  double closest_self_gap = std::numeric_limits<double>::infinity();
  double friction_work = 0, smallest_distance = std::numeric_limits<double>::infinity();
};

// The spec's colliders as the cloth's constraints (Baraff and Witkin's, whatever their
// "contact").
std::vector<ClothCollider> cloth_colliders(const ModelSpec& spec, const MassSpringCloth& cloth) {
  ContactSpec contact = spec.contact;
  contact.self_collision = false;
  for (ColliderSpec& collider : contact.colliders)
    collider.contact.model = ContactModel::kConstraint;
  const Eigen::VectorXd masses =
      Eigen::VectorXd::Constant(cloth.num_particles(), cloth.particle_mass);
  std::vector<std::string> warnings;
  const ContactOptions options =
      resolve_contact_options(contact, spec.spec_path, cloth.rest_positions, masses, warnings);
  for (const std::string& warning : warnings)
    std::fprintf(stderr, "ramus: warning: %s: %s\n", spec.spec_path.c_str(), warning.c_str());
  std::vector<ClothCollider> colliders;
  for (const ColliderContact& c : options.colliders)
    colliders.push_back({c.collider, c.friction, c.delta});
  return colliders;
}

}  // namespace

void simulate_cloth(const ModelSpec& spec, const ClothRunOutput& output) {
  const SpecCloth loaded = load_spec_cloth(spec);
  const MassSpringCloth& cloth = loaded.cloth;
  const RuntimeSettings& settings = spec.simulation.settings;
  const int frames = spec.simulation.scenario.steps;
  ImplicitEulerCloth simulator(cloth, spec.cloth, settings.time_step, settings.gravity);
  simulator.set_colliders(cloth_colliders(spec, cloth));
  simulator.set_self_repulsion(cloth_self_repulsion(spec));
  std::printf(
      "cloth     %s: %d particles (%.4g kg each, %.4g m^2), %d stretch and %d bending springs, "
      "%zu pinned\n",
      spec.mesh_path.c_str(), cloth.num_particles(), cloth.particle_mass, cloth.area,
      cloth.num_stretch, cloth.num_springs() - cloth.num_stretch, cloth.pinned.size());
  std::printf(
      "model     implicit Euler, h = %g s halved while a stretch spring's length changes more than "
      "%g %% in a step (at most %d times), %d frames; CG to %g of |b| (at most %d iterations), "
      "Jacobi\n",
      settings.time_step, 100 * spec.cloth.strain_limit, spec.cloth.max_halvings, frames,
      spec.cloth.cg_tolerance, spec.cloth.cg_iterations);
  if (!simulator.contact().empty())
    std::printf(
        "contact   %zu colliders as constraints (Baraff and Witkin): a particle within delta or "
        "entering in a step is held on the surface, let go when its impulse pulls; Coulomb "
        "friction on the held impulse\n",
        simulator.contact().colliders().size());
  if (spec.contact.self_collision)
    std::printf(
        "self      the cloth against itself: particle-triangle repulsion impulses after each "
        "solve (Bridson, Fedkiw and Anderson), %g m kept between layers, mu %g\n",
        spec.cloth.thickness, spec.contact.self_friction);

  // The initial state, then a frame every output_every steps (or what keeps it under 50 MB).
  ClothState state = simulator.rest_state();
  if (spec.initial_velocity)
    for (int p = 0; p < cloth.num_particles(); ++p)
      state.velocities.segment<3>(3 * p) = *spec.initial_velocity;
  for (int p : cloth.pinned) state.velocities.segment<3>(3 * p).setZero();
  const Eigen::MatrixX3d rest = cloth.rest_positions;
  PvdSeriesWriter writer(output.path,
                         output.ascii ? VtuEncoding::kAscii : VtuEncoding::kCompressed);
  const auto write_frame = [&] {
    const Eigen::MatrixX3d positions = as_rows(state.positions);
    VtuFields fields;
    fields.point_data = {{"displacement", positions - rest},
                         {"velocity", as_rows(state.velocities)}};
    writer.add_surface_frame(state.time, positions, cloth.triangles, fields);
  };
  write_frame();
  SeriesBudget budget(spec.simulation.scenario.output_every, frames,
                      spec.simulation.output_every_given);
  int output_every =
      budget.after_frame(0, files_bytes({writer.frame_path(writer.num_frames() - 1)}));
  const double start_energy = simulator.energy(state);

  // Frame by frame: the spec's point forces at the frame's start, the steps the strain rule asks.
  ClothTotals totals;
  const int print_every = std::max(1, frames / 10);
  for (int frame = 1; frame <= frames; ++frame) {
    const Eigen::VectorXd forces =
        point_forces_at(loaded.forces, cloth.num_particles(), state.time);
    const auto t0 = Clock::now();
    const ClothStepReport report = simulator.advance(state, forces);
    const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!state.positions.allFinite())
      throw NumericalError("the cloth diverged at frame " + std::to_string(frame));
    totals.seconds += seconds;
    totals.steps += report.steps;
    totals.discarded += report.discarded;
    totals.cg_iterations += report.cg_iterations;
    totals.unconverged += !report.cg_converged;
    totals.kept_over += report.strain_kept_over;
    totals.largest_strain = std::max(totals.largest_strain, report.largest_strain);
    totals.largest_step_strain = std::max(totals.largest_step_strain, report.largest_step_strain);
    totals.most_contacts = std::max(totals.most_contacts, report.contacts);
    totals.releases += report.releases;
    totals.self_impulses += report.self_impulses;
    totals.closest_self_gap = std::min(totals.closest_self_gap, report.closest_self_gap);
    totals.friction_work += report.friction_work;
    totals.smallest_distance = std::min(totals.smallest_distance, report.smallest_distance);
    const double displacement = (as_rows(state.positions) - rest).rowwise().norm().maxCoeff();
    totals.max_displacement = std::max(totals.max_displacement, displacement);
    if (frame % output_every == 0) {
      write_frame();
      output_every =
          budget.after_frame(frame, files_bytes({writer.frame_path(writer.num_frames() - 1)}));
    }
    if (!output.quiet && (frame % print_every == 0 || frame == 1))
      std::printf(
          "frame %5d  t = %7.4f s  %d step%s (%d discarded)  CG %4d it  %7.2f ms  strain %.3g  "
          "max |u| = %.4g m  E = %.5g J%s\n",
          frame, state.time, report.steps, report.steps == 1 ? "" : "s", report.discarded,
          report.cg_iterations, 1e3 * seconds, report.largest_strain, displacement,
          simulator.energy(state), report.cg_converged ? "" : "  (CG not converged)");
  }
  writer.finish();
  const int divisor = std::max(1, frames);
  std::printf(
      "summary   %d frames in %.3f s: %.3f ms/frame, %.1f CG iterations/frame, %d steps (%d "
      "discarded by the strain rule, %d kept over it), %d solves short of the tolerance; largest "
      "strain %.4g (%.4g in one step), max |u| = %.4g m\n",
      frames, totals.seconds, 1e3 * totals.seconds / divisor,
      static_cast<double>(totals.cg_iterations) / divisor, totals.steps, totals.discarded,
      totals.kept_over, totals.unconverged, totals.largest_strain, totals.largest_step_strain,
      totals.max_displacement);
  std::printf(
      "energy    kinetic + springs + gravity: start %.6g J, end %.6g J (point forces' work and "
      "damping's and implicit Euler's dissipation are not in it)\n",
      start_energy, simulator.energy(state));
  if (!simulator.contact().empty())
    std::printf(
        "contact   at most %d particles held, %d holds let go, friction took %.4g J; the "
        "deepest particle at a frame's end %.4g m inside\n",
        totals.most_contacts, totals.releases, totals.friction_work,
        std::max(0.0, -totals.smallest_distance));
  if (spec.contact.self_collision)
    std::printf("self      %d repulsion impulses; the closest particle-triangle gap met %.4g m\n",
                totals.self_impulses, totals.closest_self_gap);
  budget.report("the spec's simulation.output_every");
  std::printf("output    %s (%d frames of the surface; %s)\n", output.path.c_str(),
              writer.num_frames(), kFrameConvention);
}

}  // namespace ramus::cli
