#include "ramus/precompute/reduction/reduced_domain_builder.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include "../formats/text_io.h"
#include "ramus/error.h"
#include "ramus/precompute/mesh/boundary_surface.h"
#include "ramus/precompute/reduction/modal_analysis.h"
#include "ramus/precompute/reduction/reduced_stvk_coefficients.h"
#include "ramus/runtime/contact/contact_samples.h"

namespace ramus {

namespace {

class StageTimer {
 public:
  explicit StageTimer(const StageReporter& report) : report_(report) {}
  void done(const std::string& stage) {
    const auto now = std::chrono::steady_clock::now();
    if (report_) report_(stage, std::chrono::duration<double>(now - start_).count());
    start_ = now;
  }

 private:
  const StageReporter& report_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

namespace {

// What a part takes from its mesh: positions, tets, surface, labels, per-tet materials, fixed
// vertices, mass.
ReducedPart part_of_mesh(const StvkFemModel& model, const DofMap& dofs) {
  ReducedPart part;
  const TetMesh& mesh = model.mesh();
  part.rest_positions = mesh.rest_positions;
  part.tets = mesh.tets;
  part.surface_triangles = boundary_triangles(mesh.tets);
  if (mesh.has_labels()) part.labels = mesh.labels;
  const auto T = static_cast<Eigen::Index>(model.num_tets());
  part.youngs_modulus.resize(T);
  part.poisson_ratio.resize(T);
  part.density.resize(T);
  for (Eigen::Index t = 0; t < T; ++t) {
    const Material& m = model.materials()[static_cast<std::size_t>(t)];
    part.youngs_modulus(t) = m.youngs_modulus;
    part.poisson_ratio(t) = m.poisson_ratio;
    part.density(t) = m.density;
  }
  part.fixed_vertices = Eigen::Map<const Eigen::VectorXi>(
      dofs.fixed_vertices().data(), static_cast<Eigen::Index>(dofs.fixed_vertices().size()));
  part.mass = model.total_mass();
  return part;
}

}  // namespace

ReducedPart build_reduced_part(const StvkFemModel& model, const DofMap& dofs,
                               const ReductionSpec& reduction, const StageReporter& report) {
  if (reduction.r < 1 || reduction.r > kMaxSpecModes || reduction.linear_modes < 1 ||
      reduction.linear_modes > kMaxSpecModes)
    throw OptionError("r = " + std::to_string(reduction.r) +
                      " and linear_modes = " + std::to_string(reduction.linear_modes) +
                      " must be between 1 and " + std::to_string(kMaxSpecModes));
  if (!reduction.modal_derivatives && reduction.r > reduction.linear_modes)
    throw OptionError("r = " + std::to_string(reduction.r) + " needs at least as many linear " +
                      "modes without modal derivatives (linear_modes = " +
                      std::to_string(reduction.linear_modes) + ")");
  StageTimer timer(report);
  // K and M assembled once; K factored once for the modes and the derivatives.
  ReducedBasis basis;
  LinearModes modes;
  {
    FreeSystem system(model, dofs);
    modes = compute_linear_modes(model, dofs, reduction.linear_modes, system);
    timer.done("linear modes");
    if (reduction.modal_derivatives) {
      const Eigen::MatrixXd derivatives = compute_modal_derivatives(model, dofs, modes, system);
      timer.done("modal derivatives");
      basis = compute_reduced_basis(model, dofs, modes, derivatives, reduction.r, system);
    } else {
      basis = compute_reduced_basis(model, dofs, modes, Eigen::MatrixXd(modes.modes.rows(), 0),
                                    reduction.r, system);
    }
    timer.done("basis");
  }

  ReducedPart domain = part_of_mesh(model, dofs);
  domain.name = "domain_0";
  domain.num_rigid_modes = modes.num_rigid_modes;
  domain.basis = basis.basis;
  domain.basis_eigenvalues = basis.eigenvalues;
  domain.linear_mode_eigenvalues = modes.eigenvalues;
  domain.mass = model.total_mass();
  // G = Uᵀ M [e_x e_y e_z]: the reduced gravity force is G g.
  const Eigen::SparseMatrix<double> M = model.consistent_mass_matrix();
  Eigen::MatrixXd directions = Eigen::MatrixXd::Zero(M.rows(), 3);
  for (Eigen::Index dof = 0; dof < M.rows(); ++dof) directions(dof, dof % 3) = 1.0;
  domain.gravity_basis = basis.basis.transpose() * (M * directions);
  domain.polynomial = compute_reduced_stvk_polynomial(model, basis.basis);
  timer.done("polynomial");
  attach_contact_samples(domain, reduction.contact_samples);
  return domain;
}

std::uint64_t fnv1a_hash(const std::string& bytes, std::uint64_t seed) {
  std::uint64_t hash = seed;
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string read_file_bytes(const std::string& path) {
  return detail::read_file_to_string(path);
}

ReducedPart build_rigid_part(const StvkFemModel& model, const DofMap& dofs) {
  ReducedPart domain = part_of_mesh(model, dofs);
  // A free rigid domain is all rigid motion: the 6 rigid modes are "removed" like a free body's.
  domain.num_rigid_modes = dofs.fixed_vertices().empty() ? 6 : 0;
  domain.basis = Eigen::MatrixXd::Zero(3 * model.num_vertices(), 0);
  domain.basis_eigenvalues.resize(0);
  domain.linear_mode_eigenvalues.resize(0);
  domain.gravity_basis = Eigen::MatrixXd::Zero(0, 3);
  domain.mass = model.total_mass();
  domain.polynomial.r = 0;
  domain.polynomial.quadratic.resize(0);
  domain.polynomial.cubic.resize(0, 0);
  domain.polynomial.quartic.resize(0, 0);
  attach_contact_samples(domain, kDefaultContactSamples);
  return domain;
}

}  // namespace ramus
