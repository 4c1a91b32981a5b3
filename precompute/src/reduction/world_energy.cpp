// The physical energy of a reduced run, domain by domain, and the energy audit (world_energy.h).
#include "ramus/precompute/reduction/world_energy.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "ramus/error.h"
#include "ramus/precompute/reduction/reduced_vs_full.h"
#include "ramus/runtime/model/model_geometry.h"

namespace ramus {

namespace {

// Rows of a #V by 3 matrix as a flat 3#V vector.
void flatten(const Eigen::MatrixX3d& rows, Eigen::VectorXd& flat) {
  flat.resize(3 * rows.rows());
  for (Eigen::Index i = 0; i < rows.rows(); ++i) flat.segment<3>(3 * i) = rows.row(i).transpose();
}

}  // namespace

WorldEnergyMeter::WorldEnergyMeter(const ReducedModel& model, const Simulator& at_rest,
                                   const Eigen::Vector3d& gravity) {
  for (std::size_t d = 0; d < model.domains.size(); ++d) {
    StvkFemModel full =
        full_space_model(part_of(model, static_cast<int>(d)), model.domains[d].scale);
    Eigen::SparseMatrix<double> mass = full.consistent_mass_matrix();
    Eigen::VectorXd forces = full.gravity_forces(gravity);
    at_rest.domain_world_positions(static_cast<int>(d), positions_);
    Eigen::VectorXd rest;
    flatten(positions_, rest);
    domains_.push_back({std::move(full), std::move(mass), std::move(forces), std::move(rest)});
  }
}

WorldEnergy WorldEnergyMeter::measure(const Simulator& simulator) {
  WorldEnergy e;
  for (std::size_t d = 0; d < domains_.size(); ++d) {
    const DomainEnergy& domain = domains_[d];
    simulator.domain_world_positions(static_cast<int>(d), positions_);
    simulator.domain_world_velocities(static_cast<int>(d), velocities_);
    flatten(positions_, x_);
    flatten(velocities_, v_);
    e.kinetic += 0.5 * v_.dot(domain.mass * v_);
    e.elastic += domain.full.elastic_energy(x_);
    e.gravity -= domain.gravity_forces.dot(x_ - domain.rest);
  }
  if (!simulator.colliders().empty()) e.contact = simulator.contact().energy;
  return e;
}

EnergyAudit audit_energy(std::shared_ptr<const ReducedModel> model, const RuntimeSettings& settings,
                         int steps, const std::vector<PointForce>& forces, int every,
                         const std::function<void(int, int)>& progress,
                         const std::vector<Collider>& colliders) {
  if (!model) throw OptionError("energy audit: no model");
  if (steps < 0) throw OptionError("energy audit: steps must not be negative");
  if (every < 1) throw OptionError("energy audit: every must be >= 1");
  Simulator reduced(compile_model(ReducedModel(*model)), settings);
  WorldEnergyMeter meter(*model, reduced, settings.gravity);
  for (std::size_t k = 0; k < colliders.size(); ++k) {
    const ColliderResult added = reduced.add_collider(colliders[k]);
    if (added.status != ColliderStatus::kOk)
      throw OptionError("energy audit: collider " + std::to_string(k) + ": " + added.message);
  }
  std::vector<PointForce> resolved = forces;
  TetMesh mesh;
  mesh.rest_positions = global_rest_positions(*model);
  resolve_point_forces(mesh, resolved);
  std::vector<std::pair<int, int>> copies;
  for (const PointForce& f : resolved) copies.push_back(vertex_copy(reduced.model(), f.vertex));
  const auto apply_forces = [&](double t) {
    reduced.clear_vertex_forces();
    for (std::size_t i = 0; i < resolved.size(); ++i)
      if (resolved[i].start <= t && t < resolved[i].end)
        reduced.add_vertex_force(copies[i].first, copies[i].second, resolved[i].force);
  };
  apply_forces(0.0);
  EnergyAudit audit;
  if (reduced.initialize() != StepStatus::kOk) {
    audit.ok = false;
    return audit;
  }
  const Eigen::MatrixX3d rest = mesh.rest_positions;
  Eigen::MatrixX3d before, displaced;
  reduced.global_positions(before);
  const auto sample = [&](double t, double work) {
    const WorldEnergy e = meter.measure(reduced);
    audit.time.push_back(t);
    audit.energy.push_back(e);
    audit.work_done.push_back(work);
    audit.max_elastic = std::max(audit.max_elastic, e.elastic);
    reduced.global_positions(displaced);
    audit.max_displacement =
        std::max(audit.max_displacement, (displaced - rest).rowwise().norm().maxCoeff());
    const double gain = e.total() - work - audit.initial;
    if (gain > audit.max_gain) {
      audit.max_gain = gain;
      audit.max_gain_time = t;
    }
    audit.final_total = e.total();
  };
  audit.initial = meter.measure(reduced).total();
  sample(0.0, 0.0);
  double work = 0;
  Eigen::MatrixX3d after;
  for (int step = 1; step <= steps; ++step) {
    // The forces active during the step are those at its end time (as `ramus simulate`).
    const double t_next = reduced.time() + settings.time_step;
    apply_forces(t_next);
    if (reduced.step() != StepStatus::kOk) {
      audit.ok = false;
      break;
    }
    audit.steps = step;
    if (!resolved.empty()) {
      reduced.global_positions(after);
      for (std::size_t i = 0; i < resolved.size(); ++i)
        if (resolved[i].start <= t_next && t_next < resolved[i].end)
          work += resolved[i].force.dot(
              (after.row(resolved[i].vertex) - before.row(resolved[i].vertex)).transpose());
      std::swap(before, after);
    }
    // The colliders' work through the barrier and its friction: their forces at the step's end
    // times the colliders' motion.
    if (!colliders.empty()) {
      const ContactReport contact = reduced.contact();
      work += settings.time_step * (contact.power + contact.friction_power);
    }
    if (step % every == 0 || step == steps) sample(reduced.time(), work);
    if (progress) progress(step, steps);
  }
  audit.work = work;
  return audit;
}

}  // namespace ramus
