#include "ramus/runtime/io/model_file.h"

#include <Eigen/LU>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "ramus/error.h"
#include "hdf5/hdf5_file.h"

namespace ramus {

namespace {

// Files are derived data (re-run precompute on the spec recorded in /provenance), so there is
// no migration: the message says which Ramus wrote the file and what to do.
[[noreturn]] void unsupported_version(const std::string& path, int version,
                                      const hdf5::Group& root) {
  const std::string reads =
      "this Ramus reads schema version " + std::to_string(kModelFormatVersion);
  const std::string found = "model schema version " + std::to_string(version);
  std::string message;
  if (version >= 1 && version < kModelFormatVersion) {
    message = found + " was written by an older Ramus; re-run `ramus precompute` (" + reads + ")";
  } else if (version > kModelFormatVersion) {
    std::string writer = "a newer Ramus";
    if (root.has_attribute("ramus_version")) {
      writer += " (" + root.read_string_attribute("ramus_version") + ")";
    }
    message = found + " was written by " + writer +
              "; upgrade Ramus, or re-run `ramus precompute` with this one (" + reads + ")";
  } else {
    message = found + " does not exist; re-run `ramus precompute` (" + reads + ")";
  }
  throw InputError(path, 0, message);
}

ParentInterface read_interface(const hdf5::Group& g) {
  ParentInterface f;
  f.parent_vertices = g.read_vector_int("parent_vertices");
  f.child_vertices = g.read_vector_int("child_vertices");
  f.weights = g.read_vector_double("weights");
  f.centroid = g.read_vector_double("centroid", 3);
  f.centroid_basis = g.read_matrix_double("centroid_basis");
  f.rest_rotation = g.read_matrix_double("rest_rotation", 3, 3);
  f.rotation_basis = g.read_matrix_double("rotation_basis");
  f.covariance = g.read_matrix_double("covariance", 3, 3);
  const int planar = g.read_int_attribute("planar");
  if (planar != 0 && planar != 1) {
    throw InputError(g.file(), 0,
                     "attribute 'planar' of " + g.path() + " is " + std::to_string(planar) +
                         " (must be 0 or 1)");
  }
  f.planar = planar == 1;
  return f;
}

SystemForceIntegrals read_system_force(const hdf5::Group& g) {
  SystemForceIntegrals w;
  w.w1 = g.read_matrix_double("w1");
  w.w2 = g.read_matrix_double("w2");
  w.w3 = g.read_vector_double("w3");
  w.w4 = g.read_matrix_double("w4");
  w.w5 = g.read_matrix_double("w5");
  w.w6 = g.read_matrix_double("w6");
  w.w7 = g.read_matrix_double("w7");
  return w;
}

// Domain k of a file (its group g).
ReducedDomain read_domain(const hdf5::Group& g, int k) {
  ReducedDomain d;
  d.name = g.read_string_attribute("name");
  d.num_rigid_modes = g.read_int_attribute("num_rigid_modes");
  d.mass = g.read_double_attribute("mass");
  const int r = g.read_int_attribute("r");
  if (r < 0) throw InputError(g.file(), 0, "attribute 'r' of " + g.path() + " must be >= 0");

  d.rest_positions = g.read_matrix_double("mesh/rest_positions", -1, 3);
  const Eigen::Index V = d.rest_positions.rows();
  d.tets = g.read_matrix_int("mesh/tets", -1, 4);
  const Eigen::Index T = d.tets.rows();
  d.surface_triangles = g.read_matrix_int("mesh/surface_triangles", -1, 3);
  if (g.has("mesh/labels")) d.labels = g.read_vector_int("mesh/labels", T);
  d.youngs_modulus = g.read_vector_double("material/youngs_modulus", T);
  d.poisson_ratio = g.read_vector_double("material/poisson_ratio", T);
  d.density = g.read_vector_double("material/density", T);
  d.fixed_vertices = g.read_vector_int("fixed_vertices");

  d.basis = g.read_matrix_double("basis", 3 * V, r);
  d.basis_eigenvalues = g.read_vector_double("basis_eigenvalues", r);
  d.linear_mode_eigenvalues = g.read_vector_double("linear_mode_eigenvalues");
  d.gravity_basis = g.read_matrix_double("gravity_basis", r, 3);

  // Sizes from the (now known to be small enough) basis: p <= 46341^2 / 2, no overflow below.
  const Eigen::Index p = num_pairs(r);
  d.polynomial.r = r;
  d.polynomial.quadratic = g.read_vector_double("polynomial/quadratic", p);
  d.polynomial.cubic = g.read_matrix_double("polynomial/cubic", p, r);
  d.polynomial.quartic =
      unpack_upper_triangle(g.read_vector_double("polynomial/quartic", p * (p + 1) / 2), p);

  // Substructuring data: shapes that depend on other domains are checked afterwards by
  // find_model_inconsistency, with the same messages the writer gives.
  d.parent = g.read_int_attribute("parent");
  d.frame_origin = g.read_vector_double("frame/origin", 3);
  d.frame_rotation = g.read_matrix_double("frame/rotation", 3, 3);
  d.global_vertices = g.read_vector_int("global_vertices");
  // A child must have its interface group; a wrong parent index is reported by the checker.
  if (g.has("interface") || (d.parent >= 0 && d.parent < k)) {
    d.interface = read_interface(g.group("interface"));
  }
  if (g.has("system_force")) d.system_force = read_system_force(g.group("system_force"));
  const hdf5::Group subtree = g.group("subtree");
  d.subtree_mass = subtree.read_double_attribute("mass");
  d.subtree_center_of_mass = subtree.read_vector_double("center_of_mass", 3);
  d.subtree_inertia = subtree.read_matrix_double("inertia", 3, 3);
  return d;
}

// /runtime: the settings the runtime steps the model with by default.
RuntimeSettings read_runtime_settings(const hdf5::Group& g, int num_domains) {
  RuntimeSettings s;
  s.time_step = g.read_double_attribute("time_step");
  s.gravity = g.read_vector_double("gravity", 3);
  const std::string lumping = g.read_string_attribute("lumping");
  const std::optional<InterfaceLumping> parsed = lumping_from_string(lumping);
  if (!parsed)
    throw InputError(
        g.file(), 0,
        "attribute 'lumping' of " + g.path() + " is '" + lumping + "' (must be L1, L2 or L3)");
  s.lumping = *parsed;
  s.newmark_beta = g.read_double_attribute("newmark_beta");
  s.newmark_gamma = g.read_double_attribute("newmark_gamma");
  s.newton_iterations = g.read_int_attribute("newton_iterations");
  s.newton_tolerance = g.read_double_attribute("newton_tolerance");
  s.max_coordinate = g.read_double_attribute("max_coordinate");
  const Eigen::VectorXi integrators = g.read_vector_int("nodes/integrator", num_domains);
  const Eigen::VectorXd alpha = g.read_vector_double("nodes/rayleigh_mass", num_domains);
  const Eigen::VectorXd beta = g.read_vector_double("nodes/rayleigh_stiffness", num_domains);
  const Eigen::VectorXd scale = g.read_vector_double("nodes/stiffness_scale", num_domains);
  s.nodes.resize(static_cast<std::size_t>(num_domains));
  for (int i = 0; i < num_domains; ++i) {
    NodeSettings& n = s.nodes[static_cast<std::size_t>(i)];
    n.integrator = static_cast<Integrator>(integrators(i));
    n.rayleigh_mass = alpha(i);
    n.rayleigh_stiffness = beta(i);
    n.stiffness_scale = scale(i);
  }
  if (const std::string problem = find_settings_problem(s, num_domains); !problem.empty())
    throw InputError(g.file(), 0, "group " + g.path() + ": " + problem);
  return s;
}

EmbeddedSurface read_embedded_surface(const hdf5::Group& g) {
  EmbeddedSurface s;
  s.rest_positions = g.read_matrix_double("rest_positions", -1, 3);
  s.triangles = g.read_matrix_int("triangles", -1, 3);
  s.domain = g.read_vector_int("domain");
  s.tet = g.read_vector_int("tet");
  s.barycentric = g.read_matrix_double("barycentric", -1, 4);
  return s;
}

}  // namespace

Eigen::VectorXd pack_upper_triangle(const Eigen::MatrixXd& symmetric) {
  const Eigen::Index n = symmetric.rows();
  Eigen::VectorXd packed(n * (n + 1) / 2);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = i; j < n; ++j) packed(k++) = symmetric(i, j);
  }
  return packed;
}

Eigen::MatrixXd unpack_upper_triangle(const Eigen::VectorXd& packed, Eigen::Index n) {
  Eigen::MatrixXd full(n, n);
  Eigen::Index k = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = i; j < n; ++j) full(i, j) = full(j, i) = packed(k++);
  }
  return full;
}

ReducedModel read_model_file(const std::string& path) {
  const hdf5::File file = hdf5::File::open(path);
  const hdf5::Group root = file.root();
  if (!root.has_attribute("format")) {
    throw InputError(path, 0, "not a Ramus model file (no attribute 'format' on /)");
  }
  if (const std::string format = root.read_string_attribute("format"); format != kModelFormatName) {
    throw InputError(path, 0,
                     "not a Ramus model file (attribute 'format' of / is '" + format +
                         "', expected '" + kModelFormatName + "')");
  }
  ReducedModel model;
  model.format_version = root.read_int_attribute("format_version");
  if (model.format_version != kModelFormatVersion) {
    unsupported_version(path, model.format_version, root);
  }

  const hdf5::Group provenance = root.group("provenance");
  ModelProvenance& p = model.provenance;
  p.tool_version = provenance.read_string_attribute("tool_version");
  p.created_utc = provenance.read_string_attribute("created_utc");
  p.spec_path = provenance.read_string_attribute("spec_path");
  p.spec_json = provenance.read_string_attribute("spec_json");
  p.mesh_path = provenance.read_string_attribute("mesh_path");
  p.input_hash = provenance.read_uint64_attribute("input_hash");
  p.options_json = provenance.read_string_attribute("options_json");

  const hdf5::Group domains = root.group("domains");
  const int num_domains = domains.read_int_attribute("num_domains");
  if (num_domains < 1) {
    throw InputError(path, 0,
                     "attribute 'num_domains' of /domains is " + std::to_string(num_domains) +
                         " (must be at least 1)");
  }
  model.num_global_vertices = domains.read_int_attribute("num_global_vertices");
  for (int k = 0; k < num_domains; ++k) {
    model.domains.push_back(read_domain(domains.group("domain_" + std::to_string(k)), k));
  }
  model.global_surface_triangles = root.read_matrix_int("global_surface_triangles", -1, 3);
  if (root.has("embedded_surface")) {
    model.embedded_surface = read_embedded_surface(root.group("embedded_surface"));
  }
  model.settings = read_runtime_settings(root.group("runtime"), num_domains);
  if (std::string problem = find_model_inconsistency(model); !problem.empty()) {
    throw InputError(path, 0, problem);
  }
  return model;
}

}  // namespace ramus
