#include "ramus/precompute/reduction/reduced_vs_full.h"

#include <chrono>
#include <memory>

#include "ramus/error.h"
#include "ramus/precompute/contact/grid_level_set.h"
#include "ramus/precompute/fem/full_space_simulator.h"
#include "ramus/runtime/model/model_geometry.h"

namespace ramus {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
double max_vertex_norm(const Eigen::VectorXd& flat) {
  return flat.size() ? flat.reshaped(3, flat.size() / 3).colwise().norm().maxCoeff() : 0.0;
}
// Frame `frame` of both runs (displacements, 3#V): the trajectories' columns, the frame's
// maxima, the running maxima.
void record_frame(Comparison& result, int frame, double time, const Eigen::VectorXd& u_full,
                  const Eigen::VectorXd& u_reduced) {
  result.full_trajectory.col(frame) = u_full;
  result.reduced_trajectory.col(frame) = u_reduced;
  ComparisonFrame f;
  f.time = time;
  f.full_max_displacement = max_vertex_norm(u_full);
  f.reduced_max_displacement = max_vertex_norm(u_reduced);
  f.max_difference = max_vertex_norm(u_reduced - u_full);
  result.max_difference = std::max(result.max_difference, f.max_difference);
  result.max_full_displacement = std::max(result.max_full_displacement, f.full_max_displacement);
  result.frames.push_back(f);
}

// One step of each run, timed into `result`; a run that fails is a NumericalError naming the step.
void step_full(FullSpaceSimulator& full, FullSpaceState& state, const Eigen::VectorXd& forces,
               int step, Comparison& result) {
  const auto start = Clock::now();
  const NewtonReport report = full.step_newmark(state, forces);
  result.full_seconds += seconds_since(start);
  if (!report.converged && !state.positions.allFinite())
    throw NumericalError("compare: the full-space run failed at step " + std::to_string(step));
}
void step_reduced(Simulator& reduced, int step, Comparison& result) {
  const auto start = Clock::now();
  const StepStatus status = reduced.step();
  result.reduced_seconds += seconds_since(start);
  if (status != StepStatus::kOk)
    throw NumericalError(std::string("compare: the reduced run failed at step ") +
                         std::to_string(step) + ": " + to_string(status));
}

// The full FEM's contact with the runtime's colliders: a barrier at the runtime's contact
// distance at every vertex, its stiffness the full FEM's automatic one (from its vertex masses),
// its friction smoothed below the runtime's slip speed.
ContactOptions full_space_contact(const std::vector<Collider>& colliders,
                                  const RuntimeSettings& settings) {
  ContactOptions contact;
  contact.friction_speed = settings.contact_friction_speed;
  for (const Collider& c : colliders) {
    ColliderContact full;
    full.collider.shape = c.shape;
    full.collider.size = c.size;
    // A grid: a copy of its values (the full FEM samples the same trilinear interpolant).
    if (c.shape == ColliderShape::kMesh) {
      const GridDistanceField& g = c.grid;
      const Eigen::Index count = g.samples.prod();
      full.collider.grid = std::make_shared<const GridLevelSet>(
          g.origin, g.spacing, g.samples, std::vector<float>(g.values, g.values + count),
          SurfaceMesh{});
    }
    full.collider.motion.initial = c.pose;
    full.collider.motion.linear_velocity = c.velocity;
    full.collider.motion.angular_velocity = c.angular_velocity;
    full.delta = settings.contact_distance;
    full.stiffness = 0;  // automatic
    full.friction = c.friction;
    contact.colliders.push_back(full);
  }
  return contact;
}

// The colliders in the reduced run; one it refuses is an OptionError with its reason.
void add_reduced_colliders(Simulator& reduced, const std::vector<Collider>& colliders) {
  for (std::size_t k = 0; k < colliders.size(); ++k) {
    const ColliderResult added = reduced.add_collider(colliders[k]);
    if (added.status != ColliderStatus::kOk)
      throw OptionError("compare: collider " + std::to_string(k) + ": " + added.message);
  }
}

// The last frame's contact in both runs, after a step.
void record_contact(Comparison& result, const FullSpaceSimulator& full, const Simulator& reduced) {
  if (full.colliders().empty()) return;
  ComparisonFrame& f = result.frames.back();
  const ContactStatistics& s = full.contact_statistics();
  f.full_contact_force = s.collider_force;
  f.full_smallest_distance = s.smallest_distance;
  const ContactReport r = reduced.contact();
  f.reduced_contact_force = r.force;
  f.reduced_smallest_distance = r.smallest_distance;
}

}  // namespace

StvkFemModel full_space_model(const ReducedPart& domain, double scale) {
  TetMesh mesh;
  mesh.rest_positions = scale * domain.rest_positions;
  mesh.tets = domain.tets;
  mesh.labels = domain.labels;
  std::vector<Material> materials(static_cast<size_t>(domain.tets.rows()));
  for (Eigen::Index t = 0; t < domain.tets.rows(); ++t)
    materials[static_cast<size_t>(t)] = {domain.youngs_modulus(t), domain.poisson_ratio(t),
                                         domain.density(t)};
  return StvkFemModel(std::move(mesh), std::move(materials));
}

Comparison compare_reduced_to_full(std::shared_ptr<const ReducedModel> model,
                                   const ComparisonOptions& options) {
  if (!model || model->domains.empty()) throw OptionError("compare: the model has no domain");
  if (options.steps < 0) throw OptionError("compare: steps must not be negative");
  const ReducedPart& domain = part_of(*model, 0);
  const double scale = model->domains.front().scale;
  const StvkFemModel full_model = full_space_model(domain, scale);
  const int V = full_model.num_vertices();
  if (options.initial_velocity.size() != 0 && options.initial_velocity.size() != 3 * V)
    throw OptionError("compare: initial velocity needs 3 x " + std::to_string(V) + " entries");
  std::vector<PointForce> forces = options.forces;
  resolve_point_forces(full_model.mesh(), forces);

  FullSpaceOptions full_options;
  full_options.time_step = options.settings.time_step;
  full_options.gravity = options.settings.gravity;
  full_options.rayleigh_mass = options.domain.rayleigh_mass;
  full_options.rayleigh_stiffness = options.domain.rayleigh_stiffness;
  full_options.contact = full_space_contact(options.colliders, options.settings);
  const std::vector<int> fixed(domain.fixed_vertices.data(),
                               domain.fixed_vertices.data() + domain.fixed_vertices.size());
  FullSpaceSimulator full(full_model, DofMap(V, fixed), full_options);
  // The reduced run: domain 0 alone, as a one-domain model at its scale (basis s^-3/2 U).
  ReducedModel single = single_domain_model(domain);
  single.domains[0].scale = scale;
  const double basis_scale = UniformScale(scale).basis;
  RuntimeSettings settings = options.settings;
  settings.domains = {options.domain};
  Simulator reduced(compile_model(std::move(single)), settings);
  add_reduced_colliders(reduced, options.colliders);

  FullSpaceState full_state = full.rest_state();
  DomainState reduced_state = reduced.domain_state(0);
  if (options.initial_velocity.size() != 0) {
    full_state.velocities = options.initial_velocity;
    for (int v : fixed) full_state.velocities.segment<3>(3 * v).setZero();
    reduced_state.qdot =
        basis_scale *
        (domain.basis.transpose() * (full_model.consistent_mass_matrix() * full_state.velocities));
  }
  const Eigen::VectorXd forces0 = point_forces_at(forces, V, 0.0);
  full.initialize_acceleration(full_state, forces0);
  reduced.set_domain_state(0, reduced_state);
  for (const PointForce& f : forces)
    if (f.start <= 0 && 0 < f.end) reduced.add_vertex_force(0, f.vertex, f.force);
  reduced.initialize();

  Comparison result;
  const int frames = options.steps + 1;
  result.full_trajectory.resize(3 * V, frames);
  result.reduced_trajectory.resize(3 * V, frames);
  auto record = [&](int frame) {
    const Eigen::VectorXd u_full = full_state.positions - full_model.rest_positions();
    const Eigen::VectorXd u_reduced =
        basis_scale * (domain.basis * domain_q(reduced.model(), reduced.state(), 0));
    record_frame(result, frame, full_state.time, u_full, u_reduced);
  };
  record(0);
  for (int step = 1; step <= options.steps; ++step) {
    // Forces active during the step are those at its end time (implicit integrators).
    const double t_next = full_state.time + options.settings.time_step;
    step_full(full, full_state, point_forces_at(forces, V, t_next), step, result);
    reduced.clear_vertex_forces();
    for (const PointForce& f : forces)
      if (f.start <= t_next && t_next < f.end) reduced.add_vertex_force(0, f.vertex, f.force);
    step_reduced(reduced, step, result);
    record(step);
    record_contact(result, full, reduced);
  }
  result.relative_error =
      result.max_full_displacement > 0 ? result.max_difference / result.max_full_displacement : 0;
  return result;
}

StvkFemModel undivided_full_space_model(const ReducedModel& model,
                                        std::vector<int>* fixed_vertices) {
  if (model.domains.empty()) throw OptionError("compare: the model has no domain");
  // Only domains that share vertices with their parents, at their parts' own size, form one mesh.
  for (std::size_t k = 0; k < model.domains.size(); ++k) {
    const ReducedDomain& d = model.domains[k];
    if (d.scale != 1 || d.interface.parent_tets.size() > 0)
      throw OptionError("compare: domain '" + d.name + "' is " +
                        (d.scale != 1 ? "placed at scale " + std::to_string(d.scale)
                                      : std::string("attached by embedding in its parent")) +
                        ": an assembly of separate meshes has no undivided mesh to compare with");
  }
  TetMesh mesh;
  mesh.rest_positions = global_rest_positions(model);
  Eigen::VectorXi tet_domain;
  mesh.tets = global_tets(model, &tet_domain);
  std::vector<Material> materials;
  materials.reserve(static_cast<std::size_t>(mesh.tets.rows()));
  for (std::size_t k = 0; k < model.domains.size(); ++k) {
    const ReducedPart& part = part_of(model, static_cast<int>(k));
    for (Eigen::Index t = 0; t < part.tets.rows(); ++t)
      materials.push_back({part.youngs_modulus(t), part.poisson_ratio(t), part.density(t)});
  }
  if (fixed_vertices) {
    // The root's anchors, in the undivided numbering.
    const ReducedDomain& root = model.domains.front();
    fixed_vertices->clear();
    for (Eigen::Index i = 0; i < part_of(model, 0).fixed_vertices.size(); ++i)
      fixed_vertices->push_back(root.global_vertices(part_of(model, 0).fixed_vertices(i)));
  }
  return StvkFemModel(std::move(mesh), std::move(materials));
}

Comparison compare_tree_to_full(std::shared_ptr<const ReducedModel> model,
                                const TreeComparisonOptions& options) {
  if (!model) throw OptionError("compare: no model");
  if (options.steps < 0) throw OptionError("compare: steps must not be negative");
  std::vector<int> fixed;
  const StvkFemModel full_model = undivided_full_space_model(*model, &fixed);
  const int V = full_model.num_vertices();
  std::vector<PointForce> forces = options.forces;
  resolve_point_forces(full_model.mesh(), forces);

  // The full FEM: the root's damping, the runtime's time step and gravity.
  FullSpaceOptions full_options;
  full_options.time_step = options.settings.time_step;
  full_options.gravity = options.settings.gravity;
  if (!options.settings.domains.empty()) {
    full_options.rayleigh_mass = options.settings.domains.front().rayleigh_mass;
    full_options.rayleigh_stiffness = options.settings.domains.front().rayleigh_stiffness;
  }
  full_options.contact = full_space_contact(options.colliders, options.settings);
  FullSpaceSimulator full(full_model, DofMap(V, fixed), full_options);
  Simulator reduced(compile_model(ReducedModel(*model)), options.settings);
  add_reduced_colliders(reduced, options.colliders);
  const Eigen::MatrixX3d rest = global_rest_positions(reduced.model());

  // Forces reach the reduced run at the first domain holding their vertex.
  std::vector<std::pair<int, int>> copies;
  for (const PointForce& f : forces) copies.push_back(vertex_copy(reduced.model(), f.vertex));
  const auto apply_reduced_forces = [&](double t) {
    reduced.clear_vertex_forces();
    for (std::size_t i = 0; i < forces.size(); ++i)
      if (forces[i].start <= t && t < forces[i].end)
        reduced.add_vertex_force(copies[i].first, copies[i].second, forces[i].force);
  };
  FullSpaceState full_state = full.rest_state();
  full.initialize_acceleration(full_state, point_forces_at(forces, V, 0.0));
  apply_reduced_forces(0.0);
  if (reduced.initialize() != StepStatus::kOk)
    throw NumericalError("compare: the reduced run cannot start");

  // A moving anchor: its displacement, and its velocity as the runtime differences it.
  const auto anchor_at = [&options](double t) -> Eigen::Vector3d {
    return options.anchor_displacement ? options.anchor_displacement(t) : Eigen::Vector3d::Zero();
  };
  const double h = options.settings.time_step;
  Eigen::Vector3d anchor_velocity = Eigen::Vector3d::Zero();
  const Domain& root = reduced.model().domains.front();
  const auto move_anchor = [&](double t, Eigen::VectorXd& full_forces) {
    if (!options.anchor_displacement) return;
    const Eigen::Vector3d next_velocity = (anchor_at(t + h) - anchor_at(t)) / h;
    full_forces += full_model.gravity_forces(-(next_velocity - anchor_velocity) / h);
    anchor_velocity = next_velocity;
    RigidPose target;
    target.rotation = root.rest_rotation;
    target.translation = root.rest_origin + anchor_at(t + h);
    reduced.move_anchor(target, h);
  };

  Comparison result;
  const int frames = options.steps + 1;
  result.full_trajectory.resize(3 * V, frames);
  result.reduced_trajectory.resize(3 * V, frames);
  Eigen::MatrixX3d positions;
  const auto record = [&](int frame) {
    reduced.global_positions(positions);
    const Eigen::VectorXd u_full = full_state.positions - full_model.rest_positions();
    Eigen::VectorXd u_reduced(3 * V);
    const Eigen::Vector3d anchor = anchor_at(full_state.time);  // (the anchor's frame)
    for (int v = 0; v < V; ++v)
      u_reduced.segment<3>(3 * v) = (positions.row(v) - rest.row(v)).transpose() - anchor;
    record_frame(result, frame, full_state.time, u_full, u_reduced);
  };
  record(0);
  for (int step = 1; step <= options.steps; ++step) {
    // Forces active during the step are those at its end time (as `ramus simulate` applies them).
    const double t_next = full_state.time + options.settings.time_step;
    Eigen::VectorXd full_forces = point_forces_at(forces, V, t_next);
    move_anchor(full_state.time, full_forces);
    step_full(full, full_state, full_forces, step, result);
    apply_reduced_forces(t_next);
    step_reduced(reduced, step, result);
    record(step);
    record_contact(result, full, reduced);
    if (options.progress) options.progress(step, options.steps);
  }
  result.relative_error =
      result.max_full_displacement > 0 ? result.max_difference / result.max_full_displacement : 0;
  return result;
}

}  // namespace ramus
