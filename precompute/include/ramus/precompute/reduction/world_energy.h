// The physical energy of a reduced run (issue 12, item 3): the audit that says whether a run
// gains energy it was never given. Every domain's deformation and its frame's motion enter, each
// domain measured on its own vertex copies with the full StVK energy and consistent mass, unlike
// the runtime's own Σ q̇ᵀq̇ / 2 and reduced elastic energy, which live in each domain's frame.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <functional>
#include <memory>
#include <vector>

#include "ramus/precompute/fem/stvk_fem_model.h"
#include "ramus/precompute/model/model_spec.h"
#include "ramus/runtime/data/reduced_model.h"
#include "ramus/runtime/simulator.h"

namespace ramus {

/// Energies of one state (J), summed over the domains, each measured on its own vertex copies
/// (no averaging at interfaces): kinetic ½ vᵀ M v (consistent mass, world velocities), the
/// full StVK energy of its world positions, and gravity's potential −(M g)ᵀ (x − x_rest).
struct WorldEnergy {
  double kinetic = 0;
  double elastic = 0;
  double gravity = 0;
  double contact = 0;  ///< the colliders' barrier potential (ContactReport::energy)
  double total() const { return kinetic + elastic + gravity + contact; }
};

/// Measures WorldEnergy of a Simulator of `model`; `at_rest` (a Simulator of the same model at
/// its rest state) gives the rest positions of gravity's potential.
class WorldEnergyMeter {
 public:
  WorldEnergyMeter(const ReducedModel& model, const Simulator& at_rest,
                   const Eigen::Vector3d& gravity);
  WorldEnergy measure(const Simulator& simulator);

 private:
  struct DomainEnergy {
    StvkFemModel full;
    Eigen::SparseMatrix<double> mass;
    Eigen::VectorXd gravity_forces, rest;  ///< 3#V_i, rest: world positions at rest
  };
  std::vector<DomainEnergy> domains_;
  Eigen::MatrixX3d positions_, velocities_;
  Eigen::VectorXd x_, v_;
};

/// The energy audit of a run: H = T + V_elastic + V_gravity + V_contact from rest, and the work
/// W of the vertex forces (Σ f · Δx over the steps each is active in) and of the moving
/// colliders through the barrier (Σ h ContactReport::power; their friction's work is not
/// counted). A run that neither gains nor invents energy keeps H(t) − W(t) <= H(0).
struct EnergyAudit {
  int steps = 0;                ///< steps taken (fewer when a step failed)
  bool ok = true;               ///< every step returned StepStatus::kOk
  double initial = 0;           ///< H(0), J
  double max_gain = 0;          ///< max over the samples of H(t) − W(t) − H(0), J (>= 0)
  double max_gain_time = 0;     ///< when (s)
  double max_elastic = 0;       ///< largest elastic energy seen (J): the scale of the gain
  double work = 0;              ///< W at the end (J)
  double final_total = 0;       ///< H at the end (J)
  double max_displacement = 0;  ///< largest vertex displacement seen (m)
  std::vector<double> time, work_done;  ///< the samples: time (s), W (J)
  std::vector<WorldEnergy> energy;      ///< the samples' energies
};

/// Runs `steps` steps of `model` with `settings` from rest (forces at global vertices and
/// colliders at t = 0, as TreeComparisonOptions), measuring every `every`-th step. progress
/// (optional) as in TreeComparisonOptions.
EnergyAudit audit_energy(std::shared_ptr<const ReducedModel> model, const RuntimeSettings& settings,
                         int steps, const std::vector<PointForce>& forces, int every = 1,
                         const std::function<void(int, int)>& progress = {},
                         const std::vector<Collider>& colliders = {});

}  // namespace ramus
