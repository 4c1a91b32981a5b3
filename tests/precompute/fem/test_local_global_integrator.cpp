// The local/global solver against the equations it approximates: iterated to convergence,
// backward Euler and implicit midpoint satisfy their full-space step equations (forces from the
// springs' and the FEM model's own definitions, not the projective ones); its global step keeps
// the momentum of a free body; the energy-stabilized midpoint keeps a released body's energy
// within its tolerance where backward Euler loses it, blending toward backward Euler when the
// few-iteration midpoint gains energy.
#include <Eigen/Geometry>
#include <catch2/catch.hpp>

#include "ramus/error.h"
#include "ramus/precompute/cloth/spring_forces.h"
#include "ramus/precompute/fem/local_global_integrator.h"
#include "ramus/precompute/fem/momentum_preserving_damping.h"
#include "support/finite_differences.h"
#include "support/test_meshes.h"

using namespace ramus;

namespace {

// A 7 x 7 cloth, 0.6 m across, pinned at two corners.
MassSpringCloth hanging_cloth() {
  ClothSettings settings;
  settings.stretch_stiffness = 300;
  settings.bend_stiffness = 3;
  return build_mass_spring_cloth(make_square_cloth(7, 0.6), settings, {42, 48}, "test");
}

// dE/dx of the cloth's springs (3#V) from spring_forces.h.
Eigen::VectorXd spring_gradient(const MassSpringCloth& cloth, const Eigen::VectorXd& x) {
  Eigen::VectorXd g = Eigen::VectorXd::Zero(x.size());
  for (const ClothSpring& s : cloth.springs) {
    const Eigen::Vector3d f_j = spring_force_on_j(x.segment<3>(3 * s.i) - x.segment<3>(3 * s.j),
                                                  s.rest_length, s.stiffness);
    g.segment<3>(3 * s.j) -= f_j;
    g.segment<3>(3 * s.i) += f_j;
  }
  return g;
}

// The free rows of a 3#V residual, largest entry.
double free_residual(const Eigen::VectorXd& r, const std::vector<int>& fixed) {
  Eigen::VectorXd free = r;
  for (int v : fixed) free.segment<3>(3 * v).setZero();
  return free.cwiseAbs().maxCoeff();
}

LocalGlobalOptions options(double h, int iterations) {
  LocalGlobalOptions o;
  o.time_step = h;
  o.gravity = {0, 0, -9.81};
  o.iterations = iterations;
  return o;
}

Eigen::VectorXd equal_masses(const MassSpringCloth& cloth) {
  return Eigen::VectorXd::Constant(cloth.num_particles(), cloth.particle_mass);
}

Eigen::VectorXd flat(const Eigen::MatrixX3d& rows) {
  const VertexRows r = rows;
  return Eigen::Map<const Eigen::VectorXd>(r.data(), r.size());
}

}  // namespace

TEST_CASE("local/global backward Euler and midpoint converge to their step equations",
          "[local_global]") {
  const MassSpringCloth cloth = hanging_cloth();
  const ProjectiveEnergy energy = projective_cloth_energy(cloth);
  const Eigen::VectorXd m = equal_masses(cloth);
  const double h = 1.0 / 60;
  // A state in motion: a few steps of the midpoint from rest.
  LocalGlobalIntegrator warmup(energy, m, cloth.pinned, flat(cloth.rest_positions), options(h, 10));
  FullSpaceState state = warmup.rest_state();
  for (int k = 0; k < 10; ++k) warmup.step(state, LocalGlobalMethod::kImplicitMidpoint);
  const Eigen::VectorXd x_n = state.positions, v_n = state.velocities;
  const Eigen::VectorXd M = m.replicate(1, 3).transpose().reshaped();
  Eigen::VectorXd gravity = Eigen::VectorXd::Zero(x_n.size());
  for (int v = 0; v < cloth.num_particles(); ++v) gravity(3 * v + 2) = -9.81 * m(v);
  const double force_scale = gravity.cwiseAbs().maxCoeff();

  // Backward Euler: M (x - x_n - h v_n) / h² + dE/dx(x) - f = 0 when converged.
  LocalGlobalIntegrator converged(energy, m, cloth.pinned, flat(cloth.rest_positions),
                                  options(h, 20000));
  FullSpaceState be = state;
  converged.step(be, LocalGlobalMethod::kBackwardEuler);
  const Eigen::VectorXd be_residual = M.cwiseProduct(be.positions - x_n - h * v_n) / (h * h) +
                                      spring_gradient(cloth, be.positions) - gravity;
  CHECK(free_residual(be_residual, cloth.pinned) < 1e-5 * force_scale);
  CHECK((be.velocities - (be.positions - x_n) / h).cwiseAbs().maxCoeff() < 1e-12);
  // Ten iterations leave a residual, far larger.
  FullSpaceState few = state;
  warmup.step(few, LocalGlobalMethod::kBackwardEuler);
  const Eigen::VectorXd few_residual = M.cwiseProduct(few.positions - x_n - h * v_n) / (h * h) +
                                       spring_gradient(cloth, few.positions) - gravity;
  CHECK(free_residual(few_residual, cloth.pinned) > 100 * free_residual(be_residual, cloth.pinned));

  // Midpoint: M (x - x_n - h v_n) = h²/2 (f - dE/dx((x + x_n) / 2)), v = 2 (x - x_n) / h - v_n.
  FullSpaceState im = state;
  converged.step(im, LocalGlobalMethod::kImplicitMidpoint);
  const Eigen::VectorXd im_residual =
      M.cwiseProduct(im.positions - x_n - h * v_n) / (h * h) +
      0.5 * (spring_gradient(cloth, 0.5 * (im.positions + x_n)) - gravity);
  CHECK(free_residual(im_residual, cloth.pinned) < 1e-5 * force_scale);
  CHECK((im.velocities - (2 * (im.positions - x_n) / h - v_n)).cwiseAbs().maxCoeff() < 1e-9);
  for (int p : cloth.pinned)
    CHECK((im.positions.segment<3>(3 * p) - x_n.segment<3>(3 * p)).norm() == 0);
}

TEST_CASE("local/global backward Euler on tets converges to the FEM model's step equation",
          "[local_global]") {
  TetMesh mesh = test::box_mesh(3, 1, 1, 0.3, 0.1, 0.1);
  const StvkFemModel model(mesh,
                           assign_materials(mesh, {2e5, 0, 400, ElasticModel::kFixedCorotated}));
  const ProjectiveEnergy energy = projective_corotated_energy(model);
  std::vector<int> fixed;
  for (int v = 0; v < mesh.num_vertices(); ++v)
    if (mesh.rest_positions(v, 0) < 1e-9) fixed.push_back(v);
  const Eigen::VectorXd m = model.lumped_vertex_masses();
  const double h = 0.01;
  LocalGlobalIntegrator lg(energy, m, fixed, model.rest_positions(), options(h, 4000));
  FullSpaceState state = lg.rest_state();
  lg.step(state, LocalGlobalMethod::kBackwardEuler);
  const Eigen::VectorXd M = m.replicate(1, 3).transpose().reshaped();
  Eigen::VectorXd residual = M.cwiseProduct(state.positions - model.rest_positions()) / (h * h) -
                             model.gravity_forces({0, 0, -9.81});
  model.add_elastic_energy_gradient(state.positions, residual);
  const double force_scale = model.gravity_forces({0, 0, -9.81}).cwiseAbs().maxCoeff();
  CHECK(free_residual(residual, fixed) < 1e-5 * force_scale);
  CHECK(state.positions.minCoeff() < model.rest_positions().minCoeff() - 1e-5);  // it sagged
}

TEST_CASE("the local/global step keeps a free body's momentum", "[local_global]") {
  TetMesh mesh = test::box_mesh(2, 1, 1, 0.2, 0.1, 0.1);
  const StvkFemModel model(mesh,
                           assign_materials(mesh, {1e5, 0, 500, ElasticModel::kFixedCorotated}));
  const ProjectiveEnergy energy = projective_corotated_energy(model);
  LocalGlobalOptions o = options(0.01, 3);
  o.gravity.setZero();
  LocalGlobalIntegrator lg(energy, model.lumped_vertex_masses(), {}, model.rest_positions(), o);
  FullSpaceState state = lg.rest_state();
  for (int v = 0; v < mesh.num_vertices(); ++v)
    state.velocities.segment<3>(3 * v) =
        Eigen::Vector3d(0.5, -0.2, 0.1) +
        Eigen::Vector3d(0, 0, 3).cross(Eigen::Vector3d(state.positions.segment<3>(3 * v)));
  const Momenta before = momenta(lg.masses(), state.positions, state.velocities);
  for (LocalGlobalMethod method :
       {LocalGlobalMethod::kBackwardEuler, LocalGlobalMethod::kImplicitMidpoint,
        LocalGlobalMethod::kEnergyStabilizedMidpoint})
    for (int k = 0; k < 5; ++k) lg.step(state, method);
  const Momenta after = momenta(lg.masses(), state.positions, state.velocities);
  CHECK((after.linear - before.linear).norm() < 1e-10 * before.linear.norm());
}

TEST_CASE(
    "the energy-stabilized midpoint keeps a spinning cube's energy (the midpoint paper's "
    "Fig. 5)",
    "[local_global]") {
  // A 1 m cube of 2³ cells, corotated (E = 1e6 Pa, nu = 0), stretched 20 % along x and spinning
  // at 3 rad/s about z, no gravity, h = 0.033 s, 300 steps: the midpoint gains energy, backward
  // Euler loses nearly all of it, the blend stays within its tolerance of the start.
  TetMesh mesh = test::box_mesh(2, 2, 2, 1, 1, 1);
  const StvkFemModel model(mesh,
                           assign_materials(mesh, {1e6, 0, 1000, ElasticModel::kFixedCorotated}));
  const ProjectiveEnergy energy = projective_corotated_energy(model);
  LocalGlobalOptions o = options(0.033, 10);
  o.gravity.setZero();
  LocalGlobalIntegrator lg(energy, model.lumped_vertex_masses(), {}, model.rest_positions(), o);
  FullSpaceState start = lg.rest_state();
  const Eigen::Vector3d center(0.5, 0.5, 0.5), omega(0, 0, 3);
  for (int v = 0; v < mesh.num_vertices(); ++v) {
    Eigen::Vector3d r = start.positions.segment<3>(3 * v) - center;
    r.x() *= 1.2;
    start.positions.segment<3>(3 * v) = center + r;
    start.velocities.segment<3>(3 * v) = omega.cross(r);
  }
  const double h0 = lg.total_energy(start);
  FullSpaceState blend = start, midpoint = start, euler = start;
  int toward_euler = 0, toward_forward = 0;
  double highest = 0, midpoint_highest = 0;
  for (int step = 0; step < 300; ++step) {
    const LocalGlobalReport r = lg.step(blend, LocalGlobalMethod::kEnergyStabilizedMidpoint);
    toward_euler += r.blend == 1;
    toward_forward += r.blend == -1;
    highest = std::max(highest, lg.total_energy(blend));
    lg.step(midpoint, LocalGlobalMethod::kImplicitMidpoint);
    midpoint_highest = std::max(midpoint_highest, lg.total_energy(midpoint));
    lg.step(euler, LocalGlobalMethod::kBackwardEuler);
  }
  CAPTURE(h0, highest, midpoint_highest, lg.total_energy(blend), lg.total_energy(euler),
          toward_euler, toward_forward);
  CHECK(highest <= h0 * (1 + 2 * o.energy_tolerance));  // ε of a scale that includes H itself
  CHECK(lg.total_energy(blend) >= 0.97 * h0);
  CHECK(midpoint_highest > 1.05 * h0);
  CHECK(lg.total_energy(euler) < 0.1 * h0);
  CHECK(toward_euler > 0);
  CHECK(toward_forward > 0);
}

TEST_CASE(
    "a revolving stiff spring: the midpoint's energy runs away while its angular momentum stays "
    "(the midpoint paper's Fig. 2-3), the blend's energy bounded",
    "[local_global]") {
  // A 0.5 kg particle on a spring to the fixed origin, E = k (|x| - 1)² with k = 1e5 N/m (the
  // paper's Eq. 7; the projective weight w = 2k), started at (1.5, 0, 0) with v = (0, 10, 0):
  // 25,025 J. At h = 0.033 s (ω h = 21) the paper's midpoint reaches energies orders of
  // magnitude above that, its angular momentum exact. 100 local/global iterations a solve.
  const ProjectiveEnergy energy(2,
                                {Eigen::MatrixX2i{{0, 1}}, Eigen::VectorXd::Constant(1, 1.0),
                                 Eigen::VectorXd::Constant(1, 2e5)},
                                {});
  LocalGlobalOptions o = options(0.033, 100);
  o.gravity.setZero();
  const Eigen::VectorXd rest = (Eigen::VectorXd(6) << 0, 0, 0, 1, 0, 0).finished();
  LocalGlobalIntegrator lg(energy, Eigen::Vector2d(0.5, 0.5), {0}, rest, o);
  FullSpaceState start = lg.rest_state();
  start.positions(3) = 1.5;
  start.velocities(4) = 10;
  // L_z about the fixed end, from the particle's own position and velocity (kg m²/s).
  const auto momentum = [](const FullSpaceState& s) {
    return 0.5 * Eigen::Vector3d(s.positions.segment<3>(3))
                     .cross(Eigen::Vector3d(s.velocities.segment<3>(3)))
                     .z();
  };
  const double h0 = lg.total_energy(start), l0 = momentum(start);
  CHECK(h0 == Approx(25025));
  FullSpaceState midpoint = start, blend = start, euler = start;
  double midpoint_highest = 0, blend_highest = 0, midpoint_drift = 0;
  for (int step = 0; step < 60; ++step) {
    lg.step(midpoint, LocalGlobalMethod::kImplicitMidpoint);
    lg.step(blend, LocalGlobalMethod::kEnergyStabilizedMidpoint);
    lg.step(euler, LocalGlobalMethod::kBackwardEuler);
    midpoint_highest = std::max(midpoint_highest, lg.total_energy(midpoint));
    blend_highest = std::max(blend_highest, lg.total_energy(blend));
    midpoint_drift = std::max(midpoint_drift, std::abs(momentum(midpoint) / l0 - 1));
  }
  CAPTURE(h0, midpoint_highest, blend_highest, midpoint_drift, lg.total_energy(euler),
          momentum(blend) / l0, momentum(euler) / l0);
  CHECK(midpoint_highest > 50 * h0);  // measured: 252 h0
  CHECK(midpoint_drift < 1e-8);
  CHECK(blend_highest <= h0 * (1 + 2 * o.energy_tolerance));
  CHECK(lg.total_energy(euler) < 0.01 * h0);
}

TEST_CASE("the energy track follows the momentum-preserving damping", "[local_global]") {
  const MassSpringCloth cloth = hanging_cloth();
  const ProjectiveEnergy energy = projective_cloth_energy(cloth);
  LocalGlobalOptions o = options(1.0 / 60, 10);
  o.momentum_damping = 0.05;
  LocalGlobalIntegrator lg(energy, equal_masses(cloth), cloth.pinned, flat(cloth.rest_positions),
                           o);
  FullSpaceState state = lg.rest_state();
  const double h0 = lg.total_energy(state);
  double lost = 0;
  for (int step = 0; step < 60; ++step)
    lost += lg.step(state, LocalGlobalMethod::kEnergyStabilizedMidpoint).damping_loss;
  CHECK(lost > 0);
  CHECK(state.energy_target == Approx(h0 - lost).epsilon(1e-12));
  // H stays near what is left: within a few tolerances of the energy's scale (kinetic + |elastic|
  // + |gravity's work|).
  double kinetic = 0, work = 0;
  for (int v = 0; v < cloth.num_particles(); ++v) {
    kinetic += 0.5 * cloth.particle_mass * state.velocities.segment<3>(3 * v).squaredNorm();
    work += cloth.particle_mass * -9.81 * (state.positions(3 * v + 2) - cloth.rest_positions(v, 2));
  }
  const double scale =
      kinetic + std::abs(work) +
      energy.energy(Eigen::Map<const VertexRows>(state.positions.data(), cloth.num_particles(), 3));
  CHECK(std::abs(lg.total_energy(state) - state.energy_target) < 3 * o.energy_tolerance * scale);
}

TEST_CASE("the local/global integrator refuses bad options", "[local_global]") {
  const MassSpringCloth cloth = hanging_cloth();
  const ProjectiveEnergy energy = projective_cloth_energy(cloth);
  const Eigen::VectorXd m = equal_masses(cloth), rest = flat(cloth.rest_positions);
  LocalGlobalOptions o = options(-1, 10);
  CHECK_THROWS_AS(LocalGlobalIntegrator(energy, m, {}, rest, o), OptionError);
  o = options(0.01, 0);
  CHECK_THROWS_AS(LocalGlobalIntegrator(energy, m, {}, rest, o), OptionError);
  CHECK_THROWS_WITH(LocalGlobalIntegrator(energy, m, {1000}, rest, options(0.01, 1)),
                    Catch::Contains("fixed vertex 1000"));
}
