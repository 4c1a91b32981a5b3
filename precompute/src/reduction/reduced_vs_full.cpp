#include "ramus/precompute/reduction/reduced_vs_full.h"

#include <chrono>

#include "ramus/error.h"
#include "ramus/precompute/fem/full_space_simulator.h"

namespace ramus {

namespace {
using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
double max_vertex_norm(const Eigen::VectorXd& flat) {
  return flat.size() ? flat.reshaped(3, flat.size() / 3).colwise().norm().maxCoeff() : 0.0;
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
  full_options.rayleigh_mass = options.node.rayleigh_mass;
  full_options.rayleigh_stiffness = options.node.rayleigh_stiffness;
  const std::vector<int> fixed(domain.fixed_vertices.data(),
                               domain.fixed_vertices.data() + domain.fixed_vertices.size());
  FullSpaceSimulator full(full_model, DofMap(V, fixed), full_options);
  // The reduced run: domain 0 alone, as a one-node model at its scale (basis s^-3/2 U).
  ReducedModel single = single_domain_model(domain);
  single.domains[0].scale = scale;
  const double basis_scale = UniformScale(scale).basis;
  RuntimeSettings settings = options.settings;
  settings.nodes = {options.node};
  Simulator reduced(compile_model(std::move(single)), settings);

  FullSpaceState full_state = full.rest_state();
  NodeState reduced_state = reduced.node_state(0);
  if (options.initial_velocity.size() != 0) {
    full_state.velocities = options.initial_velocity;
    for (int v : fixed) full_state.velocities.segment<3>(3 * v).setZero();
    reduced_state.qdot =
        basis_scale *
        (domain.basis.transpose() * (full_model.consistent_mass_matrix() * full_state.velocities));
  }
  const Eigen::VectorXd forces0 = point_forces_at(forces, V, 0.0);
  full.initialize_acceleration(full_state, forces0);
  reduced.set_node_state(0, reduced_state);
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
        basis_scale * (domain.basis * node_q(reduced.model(), reduced.state(), 0));
    result.full_trajectory.col(frame) = u_full;
    result.reduced_trajectory.col(frame) = u_reduced;
    ComparisonFrame f;
    f.time = full_state.time;
    f.full_max_displacement = max_vertex_norm(u_full);
    f.reduced_max_displacement = max_vertex_norm(u_reduced);
    f.max_difference = max_vertex_norm(u_reduced - u_full);
    result.max_difference = std::max(result.max_difference, f.max_difference);
    result.max_full_displacement = std::max(result.max_full_displacement, f.full_max_displacement);
    result.frames.push_back(f);
  };
  record(0);
  for (int step = 1; step <= options.steps; ++step) {
    // Forces active during the step are those at its end time (implicit integrators).
    const double t_next = full_state.time + options.settings.time_step;
    const Eigen::VectorXd f_full = point_forces_at(forces, V, t_next);
    auto start = Clock::now();
    const NewtonReport report = full.step_newmark(full_state, f_full);
    result.full_seconds += seconds_since(start);
    if (!report.converged && !full_state.positions.allFinite())
      throw NumericalError("compare: the full-space run failed at step " + std::to_string(step));
    reduced.clear_vertex_forces();
    for (const PointForce& f : forces)
      if (f.start <= t_next && t_next < f.end) reduced.add_vertex_force(0, f.vertex, f.force);
    start = Clock::now();
    const StepStatus status = reduced.step();
    result.reduced_seconds += seconds_since(start);
    if (status != StepStatus::kOk)
      throw NumericalError(std::string("compare: the reduced run failed at step ") +
                           std::to_string(step) + ": " + to_string(status));
    record(step);
  }
  result.relative_error =
      result.max_full_displacement > 0 ? result.max_difference / result.max_full_displacement : 0;
  return result;
}

}  // namespace ramus
